"""The whole-output language `(F C)* F` as one byte automaton, so token boundaries are exact.

F is free text: any bytes in which no anchor occurs at a word boundary; C is any citation, begun at a
word boundary (grammars.boundary: `군형법 제100조` holds no `형법` anchor or citation). A state is a set
of threads:
- `(FREE_MARK, word_class)`: the free-text thread is alive, with the class of the last character it
  read. Alongside it, `(ANCHOR, node)` entries are the partial anchor matches begun in free text; when
  one completes, the free thread dies, so only a citation thread begun where that anchor began can
  carry on;
- `(CITE, node)`: a citation thread (a node of the citations' ByteNFA). Citation threads and anchors
  are spawned at every position where free text is alive and the last character is not a word
  character; one that finishes a citation restarts free text after a word character (citations end
  in one: 판결, 조, 항, a digit). Spawned threads are implied by the free mark rather than stored (a
  statute lexicon has thousands of heads); their steps are computed once per byte;
- `(SKIP, i, k)`: inside bypass span i (`<think>` … `</think>`), k bytes of its closer matched. An
  opener completed in free text switches to it, wherever it begins; nothing inside is constrained.

The grammar's `glued` anchors are spawned like bypass openers, wherever free text is alive (inside a
word too), its `continued` anchors right after a citation finished; both complete as an anchor does.
Anchors begun in free text are tracked by one set, so an anchor that starts in free text must start a
citation even if another citation begins and ends while it is still partial.

What free text does depends only on the anchors and the bypass pairs (`AnswerAnchors`), never on the
citations: answer languages that differ only in what may be cited (the narrowings of one lexicon's
answer) share that part, and each compiles only its citations' NFA.
"""

from __future__ import annotations

from grammars.boundary import BOUNDARY, WORD, WordClass, is_word_char, step_word_class
from grammars.dfa import ALL_BYTES, BYPASS, CITATION_MAY_CLOSE, FREE, PENDING, LazyDFA
from grammars.errors import GrammarError
from grammars.expr import Alt, Expr, Literals
from grammars.grammar import AnswerGrammar
from grammars.nfa import EMPTY, FINAL, ByteNFA, LiteralPart, Node, NodeSet, StateNodes, union

FREE_MARK = "F"
ANCHOR = "A"
CITE = "C"
SKIP = "B"
_ANCHOR_TAG = "anchor"
_GLUED_TAG = "glued"
_CONTINUED_TAG = "continued"
_ANCHOR_TAGS = (_ANCHOR_TAG, _GLUED_TAG, _CONTINUED_TAG)
# free-text steps kept (`AnswerAnchors.free_step`), ~0.8 KiB each: a narrowing's first citation takes hundreds;
# bounded, so that a long-running server and a whole build stay flat (131,072 of them added 130 MiB to the
# whole build of the answer language over 5,000 acts)
_MAX_FREE_STEPS = 1 << 14


def anchor_root(grammar: AnswerGrammar) -> Expr:
    """The anchors of a grammar's citations as one expression, an anchor object that several citations share
    (a narrowed answer's: citegen.narrowings) taken once."""
    anchors = tuple({id(citation.anchor): citation.anchor for citation in grammar.citations}.values())
    return anchors[0] if len(anchors) == 1 else Alt(anchors)


class AnswerAnchors:
    """What free text does in an answer language: its anchors, glued and continued anchors and bypass
    openers as one byte NFA, with each step once computed. It depends on nothing else of the language, so
    answer languages with the same ones (the narrowings of one lexicon's answer, citegen.narrowings)
    share one, and a new narrowing compiles only its own citations: the NFA of the whole lexicon's names
    is built, and its steps along free text taken, once. Shared across threads as the automata that hold
    it are: every cache here is filled by single dict operations, with equal values whoever fills them."""

    def __init__(self, grammar: AnswerGrammar) -> None:
        for opener, closer in grammar.bypass:
            if not opener or not closer:
                raise GrammarError(f"expected non-empty bypass delimiters, got {(opener, closer)!r}")
        if not grammar.citations:
            raise GrammarError("expected an AnswerGrammar with at least one citation grammar, got none")
        self.key = self._key_of(grammar)
        self.closers = [closer.encode() for _, closer in grammar.bypass]
        self.after_closer = [WORD if is_word_char(closer[-1]) else BOUNDARY for _, closer in grammar.bypass]
        roots: dict[object, Expr] = {_ANCHOR_TAG: self.key[0]}
        if grammar.glued:
            roots[_GLUED_TAG] = Alt(grammar.glued)
        if grammar.continued:
            roots[_CONTINUED_TAG] = Alt(grammar.continued)
        for i, (opener, _) in enumerate(grammar.bypass):
            roots[("open", i)] = Literals((opener,))
        self.nfa = ByteNFA(roots)
        self._anchor_start = [n for n in self.nfa.start(_ANCHOR_TAG) if n[0] != FINAL]
        self._glued_start = [n for n in self.nfa.start(_GLUED_TAG) if n[0] != FINAL] if grammar.glued else []
        self.continued = frozenset(
            (ANCHOR, n) for n in self.nfa.start(_CONTINUED_TAG) if n[0] != FINAL
        ) if grammar.continued else EMPTY
        self._opener_start = [
            n for tag in roots if tag not in _ANCHOR_TAGS for n in self.nfa.start(tag) if n[0] != FINAL
        ]
        self.final_chars = frozenset().union(*(self.nfa.final_chars(tag) for tag in roots if tag in _ANCHOR_TAGS))
        self._outcomes: dict[NodeSet, tuple[int | None, NodeSet | None]] = {}
        self._spawned: dict[int, tuple[NodeSet, NodeSet]] = {}
        self._word_steps: dict[tuple[WordClass, int], tuple[bool, WordClass]] = {}
        self._free_steps: dict[tuple[NodeSet, int], tuple[NodeSet, bool]] = {}

    @staticmethod
    def _key_of(grammar: AnswerGrammar) -> tuple[Expr, tuple[Expr, ...], tuple[Expr, ...], tuple[tuple[str, str], ...]]:
        return (anchor_root(grammar), grammar.glued, grammar.continued, grammar.bypass)

    def serves(self, grammar: AnswerGrammar) -> bool:
        """The grammar has these anchors, glued and continued anchors and bypass pairs (a comparison that
        stops at once where it meets the objects these were made of)."""
        return self._key_of(grammar) == self.key

    def spawn_step(self, byte: int) -> tuple[NodeSet, NodeSet]:
        """What the anchors a free position spawns reach on a byte: (bypass openers and glued anchors,
        which begin anywhere; anchors, which begin at a word boundary)."""
        found = self._spawned.get(byte)
        if found is None:
            step = self.nfa.node_step
            openers = union([step(n, byte) for n in (*self._opener_start, *self._glued_start)])
            anchors = union([step(n, byte) for n in self._anchor_start])
            found = self._spawned[byte] = (openers, anchors)
        return found

    def free_step(self, threads: NodeSet, byte: int) -> tuple[NodeSet, bool]:
        """What a state's free-text threads (its free marks and partial anchors) reach on a byte, the same in
        every answer language that shares these anchors: (the bypass opened, or the free marks and partial
        anchors that go on, none where an anchor completed; whether a citation may begin there, whose first
        steps the language adds). Kept, bounded: a narrowing's free states step as an earlier narrowing's
        did (a free state's rejected tokens walk hundreds of them: after `민사소송법` each digit string is a
        state of its own, a step of 5-15 µs each)."""
        key = (threads, byte)
        found = self._free_steps.get(key)
        if found is None:
            steps = [self.word_step(node[1], byte) for node in threads if node[0] == FREE_MARK]
            reached: NodeSet = EMPTY
            may_begin = any(begins for begins, _ in steps)
            if steps:
                spawned_openers, spawned_anchors = self.spawn_step(byte)
                partials = (self.nfa.node_step(node[1], byte) for node in threads if node[0] == ANCHOR)
                anchors = [spawned_openers, *partials]
                if may_begin:
                    anchors.append(spawned_anchors)
                opened, partial = self.outcome(union(anchors))
                if opened is not None:
                    reached = frozenset({(SKIP, opened, 0)})
                elif partial is not None:
                    reached = partial.union([(FREE_MARK, after) for _, after in steps])
            if len(self._free_steps) >= _MAX_FREE_STEPS:
                self._free_steps.clear()
            found = self._free_steps[key] = (reached, may_begin)
        return found

    def word_step(self, word_class: WordClass, byte: int) -> tuple[bool, WordClass]:
        key = (word_class, byte)
        found = self._word_steps.get(key)
        if found is None:
            found = self._word_steps[key] = step_word_class(word_class, byte)
        return found

    def outcome(self, reached: NodeSet) -> tuple[int | None, NodeSet | None]:
        """For the anchor nodes free text reached: (the bypass opened, None) when an opener completed,
        (None, None) when an anchor completed (free text ends), else (None, the partial anchors)."""
        found = self._outcomes.get(reached)
        if found is None:
            opened = [n[1][1] for n in reached if n[0] == FINAL and n[1] not in _ANCHOR_TAGS]
            if opened:
                found = (opened[0], None)
            elif any((FINAL, tag) in reached for tag in _ANCHOR_TAGS):
                found = (None, None)
            else:
                found = (None, frozenset((ANCHOR, n) for n in reached if n[0] != FINAL))
            self._outcomes[reached] = found
        return found

    def skip_step(self, which: int, matched: int, byte: int) -> Node:
        closer = self.closers[which]
        text = closer[:matched] + bytes((byte,))
        if text == closer:
            return (FREE_MARK, self.after_closer[which])
        for start in range(len(text) + 1):  # longest suffix that is a prefix of the closer
            if closer.startswith(text[start:]):
                return (SKIP, which, len(text) - start)
        return (SKIP, which, 0)


class AnswerDFA(LazyDFA):
    """The answer language's automaton; `anchors` are shared with other answer languages that have the
    same (AnswerAnchors.serves), made for this one when not given."""

    def __init__(self, grammar: AnswerGrammar, anchors: AnswerAnchors | None = None) -> None:
        super().__init__()
        if anchors is None:
            anchors = AnswerAnchors(grammar)
        elif not anchors.serves(grammar):
            raise GrammarError(
                "expected AnswerAnchors made for the grammar's anchors, glued and continued anchors and bypass, "
                "got ones made for others"
            )
        self.free = anchors
        self._cited: dict[NodeSet, NodeSet] = {EMPTY: EMPTY}  # one wrapped copy per citation node set
        self.citations = ByteNFA({i: g.expr for i, g in enumerate(grammar.citations)})
        self._citation_start = [
            n for i in range(len(grammar.citations)) for n in self.citations.start(i) if n[0] != FINAL
        ]
        self._citation_finals = frozenset((CITE, (FINAL, i)) for i in range(len(grammar.citations)))
        self._spawned_cites: dict[int, NodeSet] = {}
        self._bases: dict[int, int | None] = {}
        self._divergences: dict[int, frozenset[int] | None] = {}
        self._divergence_sets: dict[frozenset[int], frozenset[int]] = {}
        self.initial = self.intern(frozenset({(FREE_MARK, BOUNDARY)}))
        self.free_text = True
        self.anchor_final_chars = anchors.final_chars

    def _spawn_cites(self, byte: int) -> NodeSet:
        """What the citations a free position at a word boundary spawns reach on a byte. The spawned
        nodes are implied by the free mark, not stored: there may be thousands."""
        found = self._spawned_cites.get(byte)
        if found is None:
            found = self._spawned_cites[byte] = union([self._cite_step(n, byte) for n in self._citation_start])
        return found

    def _free_closure(self, nodes: set[Node]) -> NodeSet:
        """Restart free text after a finished citation, with its continuations as partial anchors."""
        if not nodes.isdisjoint(self._citation_finals):
            nodes.add((FREE_MARK, WORD))
            nodes |= self.free.continued
        return frozenset(nodes)

    def _successors(self, nodes: StateNodes, byte: int) -> NodeSet:
        threads: list[Node] = []  # free marks and partial anchors: stepped as every language sharing them does
        out: set[Node] = set()
        for node in nodes:
            kind = node[0]
            if kind == CITE:
                out |= self._cite_step(node[1], byte)
            elif kind == SKIP:
                out.add(self.free.skip_step(node[1], node[2], byte))
            else:
                threads.append(node)
        if threads:
            key = nodes if isinstance(nodes, frozenset) and len(threads) == len(nodes) else frozenset(threads)
            reached, may_begin = self.free.free_step(key, byte)
            if may_begin:
                out |= self._spawn_cites(byte)
            if not out:
                return reached  # free text alone: no citation finished here
            out |= reached
        return self._free_closure(out)

    def _cite_step(self, node: Node, byte: int) -> NodeSet:
        reached = self.citations.node_step(node, byte)
        found = self._cited.get(reached)
        if found is None:
            found = self._cited[reached] = frozenset((CITE, n) for n in reached)
        return found

    def literal_parts(self, state: int) -> list[LiteralPart] | None:
        inner = []
        for mark, node in self.sets[state]:
            if mark != CITE:
                return None
            inner.append(node)
        return self.citations.literal_parts(inner)

    def literal_nodes(self, nodes: tuple[Node, ...]) -> StateNodes:
        return ((CITE, nodes[0]),) if len(nodes) == 1 else frozenset((CITE, node) for node in nodes)

    _inside_word_flags = PENDING  # a citation thread alone, not finished

    def _nodes_accept(self, nodes: StateNodes) -> bool:
        return any(n[0] in (FREE_MARK, SKIP) or (n[0] == CITE and n[1][0] == FINAL) for n in nodes)

    def _nodes_flags(self, nodes: StateNodes) -> int:
        flags = 0
        for n in nodes:
            if n[0] == FREE_MARK:
                flags |= FREE
            elif n[0] == SKIP:
                flags |= FREE | BYPASS
            elif n[0] == CITE and n[1][0] == FINAL:
                flags |= CITATION_MAY_CLOSE
        if not flags & BYPASS and any(n[0] in (ANCHOR, CITE) for n in nodes):
            flags |= PENDING
        return flags

    def _node_live(self, node: Node) -> frozenset[int]:
        if node[0] == ANCHOR:
            return self.free.nfa.live_bytes(node[1])
        if node[0] == CITE:
            return self.citations.live_bytes(node[1])
        return ALL_BYTES  # the free mark and bypass threads never die

    def _nodes_live(self, nodes: StateNodes) -> frozenset[int]:
        if any(n[0] == FREE_MARK or n[0] == SKIP for n in nodes):
            return ALL_BYTES
        return union([self._node_live(n) for n in nodes])

    def base_of(self, state: int) -> int | None:
        """The state of the free-text threads alone: a state differs from it only where its partial
        anchors and citations go on. Each word class has its own base, so a state inside an anchor
        (`민법` after a syllable) differs from its base only on the anchor's next bytes."""
        found = self._bases.get(state, -1)
        if found == -1:
            free = frozenset(n for n in self.sets[state] if n[0] == FREE_MARK)
            found = self._bases[state] = self.intern(free) if free else None
        return found

    def between_characters(self) -> tuple[int, ...]:
        return (self.initial, self.intern(frozenset({(FREE_MARK, WORD)})))

    def divergence(self, state: int) -> frozenset[int] | None:
        if state in self._divergences:
            return self._divergences[state]
        found = None
        if self.base_of(state) is not None:  # the bytes its threads other than free text's go on with
            found = union([self._node_live(n) for n in self.sets[state] if n[0] != FREE_MARK])
            found = self._divergence_sets.setdefault(found, found)  # one object per set: masks keep them
        self._divergences[state] = found
        return found

    def divergence_between(self, state: int, other: int) -> frozenset[int] | None:
        """The bytes some node of one state and not of the other goes on with: on any other byte the nodes
        they do not share die, adding nothing, so both reach one state (a free mark or bypass in one only:
        every byte). For a free state's walk beside its base's (grammars.rejections), where the two differ
        by a partial anchor or two: only the trie edges on its next bytes need a step."""
        apart = frozenset(self.sets[state]).symmetric_difference(self.sets[other])
        return union([self._node_live(n) for n in apart])
