"""Expr → byte-level NFA over leaves, which grammars.dfa determinises on demand.

A grammar `Expr` is compiled leaf by leaf (Glushkov's construction over leaves instead of symbols):
- a `Regex` leaf goes through interegular (character FSM) and every character class is expanded into
  UTF-8 byte sequences, so Hangul (3 bytes) and tokens holding part of a character are exact
  (grammars.regex_leaf);
- a `Literals` leaf is an implicit trie over its sorted words (grammars.literals), never handed to
  interegular (a 5,000-name alternation would take minutes).

`ByteNFA` holds the leaves and the follow sets. Node sets are frozensets of small tuples: `(leaf, a, b)`
inside a leaf, `(FINAL, tag)` when a root matched, `(leaf, OPENING, 0)` where a string has reached a
`Deferred` that says which bytes it opens with and has read none of it yet.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, TypeVar

from grammars.errors import GrammarError, UnsupportedPatternError
from grammars.expr import Alt, Capture, Deferred, Expr, Literals, Opt, Regex, Seq, spread_heads
from grammars.literals import LiteralLeaf, Registry
from grammars.regex_leaf import RegexLeaf, regex_leaf

FINAL = "$"
LiteralPart = tuple[LiteralLeaf, int, int]  # a literal node strictly inside a word: (leaf, first word, depth)
# A node: `(leaf, a, b)` inside a leaf, `(FINAL, tag)` once a root matched. Typed loosely on purpose:
# the two shapes are told apart by `node[0] == FINAL`, which mypy cannot narrow a tuple union on.
Node = tuple[Any, ...]
NodeSet = frozenset[Node]
# A state's nodes as the automaton keeps them: a lone node (most states, inside a name or a number) as a
# 1-tuple, 48 bytes where a frozenset takes 216 (the statute book's build keeps 173,000 of them).
StateNodes = NodeSet | tuple[Node]
EMPTY: frozenset[Any] = frozenset()  # one shared empty set: most steps of most nodes die
# The node of a Deferred with `opens_with` reached but not read into: `(its leaf number, OPENING, 0)`, a
# state's node whatever was made since (its expression is made when a byte it opens with is read from
# there, or a token walk starts there), so an act's name may end in a state without its articles made.
OPENING = -1
_T = TypeVar("_T")  # what a set holds: nodes, or bytes

def union(sets: list[frozenset[_T]]) -> frozenset[_T]:
    """The union of node sets; the one non-empty operand itself when there is one (no new object to keep)."""
    parts = [s for s in sets if s]
    if len(parts) == 1:
        return parts[0]
    return frozenset().union(*parts) if parts else EMPTY


def _last_char(data: bytes) -> bytes:
    """The last UTF-8 character of `data` (from its last lead byte)."""
    start = len(data) - 1
    while start > 0 and data[start] & 0xC0 == 0x80:
        start -= 1
    return data[start:]


class ByteNFA:
    """Several named roots compiled together; a node is `(leaf, a, b)` or `(FINAL, tag)`.

    Regex leaf node: `(leaf, state, 0)`; literal leaf node: `(leaf, first word, depth)`. The literal
    heads of an alternation's options (`Alt(Seq(Literals(names of group g), …) for g …)`) are one shared
    `LiteralLeaf`: each keeps its leaf number (its follow set), and nodes carry the first one's. A
    `Deferred` is a leaf number until a string first enters it, when the expression it makes is added
    (`_entries`): its last leaves take the follow set and roots the Deferred had.
    """

    def __init__(self, roots: dict[object, Expr]) -> None:
        self._leaves: list[RegexLeaf | LiteralLeaf] = []
        self._home: list[int] = []  # the leaf number a literal leaf's nodes carry (shared heads: the first)
        self._reserved: dict[int, int] = {}  # id of a shared head Literals → its leaf number
        # Follow sets and roots per leaf, one object per distinct set: a lexicon's thousands of leaves
        # share a few, and a set per leaf would be that many more objects for the collector to walk.
        self._follow: list[frozenset[int]] = []
        self._ends: list[frozenset[object]] = []  # roots a leaf may finish
        self._registry = Registry(self._follow, self._ends)  # grown in place: the registry reads them as they are
        self._sets: dict[frozenset[Any], frozenset[Any]] = {EMPTY: EMPTY}
        self._deferred: dict[int, Deferred] = {}  # leaf numbers of Deferreds not entered yet
        self._made: dict[int, tuple[Node, ...]] = {}  # leaf number of a Deferred entered → its entry nodes
        # A Deferred with `opens_with`: its first bytes by leaf number, and its expression's entry nodes once
        # made (its entry in `_made` is its OPENING node)
        self._opens_with: dict[int, frozenset[int]] = {}
        self._opened: dict[int, tuple[Node, ...]] = {}
        self._making = threading.RLock()  # one thread adds a Deferred's expression (itself maybe holding one)
        self._starts: dict[object, NodeSet] = {}
        for tag, expr in roots.items():
            nullable, first, last = self._add(expr)
            for leaf in last:
                self._grow(self._ends, leaf, frozenset((tag,)))
            # by home: the heads of a shared literal leaf, thousands at the statute book, enter it at one node
            entry = {node for leaf in {self._home[leaf] for leaf in first} for node in self._entries(leaf)}
            if nullable:
                entry.add((FINAL, tag))
            self._starts[tag] = self.closure(entry)
        self._live: dict[Node, frozenset[int]] = {}
        # One object per distinct set of live bytes: most nodes inside a name have one live byte, and
        # a set per node would hold hundreds of thousands of copies of the same few sets.
        self._byte_sets: dict[frozenset[int], frozenset[int]] = {}
        # Per node, per byte: a dict per node rather than a (node, byte) key per step, so a first
        # visit leaves fewer new objects for the cyclic garbage collector to walk.
        self._steps: dict[Node, dict[int, NodeSet]] = {}
        # Closures by the nodes a step reached: bytes that reach the same nodes (the digits of a
        # `[0-9]` leaf, every dead byte) share one closure, computed once and stored once.
        self._closures: dict[tuple[Node, ...], NodeSet] = {(): EMPTY}
        self._literal_closures: dict[Node, NodeSet] = {}

    # Glushkov over leaves: (nullable, first leaves, last leaves); follow sets filled in place. Dispatched on
    # the exact type, the commonest first: the statute book's heads are 5,151 `Seq(Literals, Deferred)`.
    def _add(self, expr: Expr) -> tuple[bool, set[int], set[int]]:
        if type(expr) is Seq:
            return self._add_seq(expr)
        if type(expr) is Literals and id(expr) in self._reserved:
            index = self._reserved.pop(id(expr))
            return self._leaves[index].nullable, {index}, {index}
        if type(expr) is Deferred:
            index = self._add_deferred(expr)
            return False, {index}, {index}
        if type(expr) is Literals:
            index = self._new_leaf()
            self._leaves[index] = LiteralLeaf([(index, expr)], self._registry)
            return self._leaves[index].nullable, {index}, {index}
        if type(expr) is Regex:
            index = self._new_leaf()
            self._leaves[index] = regex_leaf(expr.pattern)
            return self._leaves[index].nullable, {index}, {index}
        if type(expr) is Alt:
            return self._add_alt(expr)
        if type(expr) is Capture:
            return self._add(expr.inner)
        if type(expr) is Opt:
            _, first, last = self._add(expr.inner)
            return True, first, last
        raise UnsupportedPatternError(f"expected an Expr node (Regex, Literals, Seq, Alt, Opt, Capture), got {expr!r}")

    def _add_alt(self, expr: Alt) -> tuple[bool, set[int], set[int]]:
        options = spread_heads(expr.options)
        self._share_literal_heads(options)
        nullable, first, last = False, set[int](), set[int]()
        for option in options:
            if type(option) is Seq and len(option.parts) == 2 and type(option.parts[1]) is Deferred \
                    and (head := self._reserved.pop(id(option.parts[0]), None)) is not None:
                # The statute book's 5,151 groups, a name of the shared leaf (never empty) and the act's
                # articles, without the general sequence's sets: the automaton in 30 ms rather than 45.
                articles = self._add_deferred(option.parts[1])
                self._follow[head] = frozenset((articles,))
                first.add(head)
                last.add(articles)
                continue
            option_nullable, option_first, option_last = self._add(option)
            nullable = nullable or option_nullable
            first |= option_first
            last |= option_last
        return nullable, first, last

    def _add_seq(self, expr: Seq) -> tuple[bool, set[int], set[int]]:
        nullable, first, last = True, set[int](), set[int]()
        follow, grow = self._follow, self._grow
        for part in expr.parts:
            part_nullable, part_first, part_last = self._add(part)
            if last:
                followed_by = frozenset(part_first)
                for leaf in last:
                    grow(follow, leaf, followed_by)
            if nullable:
                first |= part_first
            last = (last | part_last) if part_nullable else part_last
            nullable = nullable and part_nullable
        return nullable, first, last

    def _new_leaf(self) -> int:
        self._leaves.append(None)  # type: ignore[arg-type]  # set by the caller (a Deferred's: never)
        self._home.append(len(self._home))
        self._follow.append(EMPTY)
        self._ends.append(EMPTY)
        return len(self._leaves) - 1

    def _add_deferred(self, expr: Deferred) -> int:
        index = self._new_leaf()
        self._deferred[index] = expr
        if expr.opens_with is not None:
            self._opens_with[index] = expr.opens_with
        return index

    def _grow(self, sets: list[frozenset[_T]], leaf: int, more: frozenset[_T]) -> None:
        held = sets[leaf]
        grown = held.union(more) if held else more
        sets[leaf] = self._sets.setdefault(grown, grown)

    def _entries(self, leaf: int) -> tuple[Node, ...]:
        """The nodes a string enters leaf `leaf` at: its first node, for a Deferred with `opens_with` its
        OPENING node, for another Deferred those of the expression it makes, added now (the first time)."""
        made = self._made.get(leaf)
        if made is not None:
            return made
        if leaf not in self._deferred:
            return (self._entry(leaf),)
        if leaf in self._opens_with:
            return self._made.setdefault(leaf, ((leaf, OPENING, 0),))
        return self._make(leaf)

    def _make(self, leaf: int) -> tuple[Node, ...]:
        """Add a Deferred's expression (once: a thread that comes meanwhile waits, then finds it made): the
        nodes a string enters it at."""
        made_as = self._opened if leaf in self._opens_with else self._made
        made = made_as.get(leaf)
        if made is not None:
            return made
        with self._making:
            made = made_as.get(leaf)
            if made is None:
                deferred = self._deferred[leaf]
                nullable, first, last = self._add(deferred.expr())
                if nullable:
                    raise GrammarError(
                        f"expected a Deferred expression without the empty string, got one for {deferred.key!r}"
                    )
                for made_leaf in last:
                    self._grow(self._follow, made_leaf, self._follow[leaf])
                    self._grow(self._ends, made_leaf, self._ends[leaf])
                made = made_as[leaf] = tuple(node for f in first for node in self._entries(f))
                del self._deferred[leaf]
        return made

    def _share_literal_heads(self, options: tuple[Expr, ...]) -> None:
        """Give the options that begin with a `Literals` (without the empty word) one shared leaf."""
        heads: dict[int, Literals] = {}
        for option in options:
            head = option.parts[0] if isinstance(option, Seq) and option.parts else option
            if isinstance(head, Literals) and head.words and not head.nullable and id(head) not in heads:
                heads[id(head)] = head
        if len(heads) < 2:
            return
        first = len(self._leaves)
        members = list(zip(range(first, first + len(heads)), heads.values(), strict=True))
        shared = LiteralLeaf(members, self._registry)
        self._leaves.extend([shared] * len(heads))
        self._home.extend([first] * len(heads))
        self._follow.extend([EMPTY] * len(heads))
        self._ends.extend([EMPTY] * len(heads))
        self._reserved.update(zip(heads, range(first, first + len(heads)), strict=True))

    def _entry(self, leaf: int) -> Node:
        node = self._leaves[leaf]
        return (leaf, node.start, 0) if isinstance(node, RegexLeaf) else (self._home[leaf], 0, 0)

    def _leaf_accepts(self, node: Node) -> bool:
        leaf = self._leaves[node[0]]
        position: int = node[1]
        if leaf is None:  # an OPENING node: nothing of the Deferred read yet, which never makes the empty string
            return False
        if isinstance(leaf, RegexLeaf):
            return position in leaf.finals
        depth: int = node[2]
        return len(leaf.words[position]) == depth

    def _finished(self, node: Node) -> tuple[int, ...]:
        """The leaf numbers an accepting node ends (several for a shared literal leaf's word)."""
        leaf = self._leaves[node[0]]
        return (node[0],) if isinstance(leaf, RegexLeaf) else leaf.ends[node[1]]

    def start(self, tag: object) -> NodeSet:
        return self._starts[tag]

    def closure(self, nodes: Iterable[Node]) -> NodeSet:
        """Nodes plus everything reachable without reading a byte (leaf ends into followers)."""
        out = set()
        pending = list(nodes)
        while pending:
            node = pending.pop()
            if node in out:
                continue
            out.add(node)
            if node[0] == FINAL or not self._leaf_accepts(node):
                continue
            for leaf in self._finished(node):
                for follower in self._follow[leaf]:
                    pending.extend(self._entries(follower))
                pending.extend((FINAL, tag) for tag in self._ends[leaf])
        return frozenset(out)

    def successors(self, node: Node, byte: int) -> tuple[Node, ...]:
        """Nodes reached from one node by one byte, before closure."""
        if node[0] == FINAL:
            return ()
        leaf = self._leaves[node[0]]
        if isinstance(leaf, RegexLeaf):
            return tuple(sorted((node[0], target, 0) for target in leaf.edges[node[1]].get(byte, ())))
        found = leaf.step(node[1], node[2], byte)
        return () if found is None else (found,)

    def node_step(self, node: Node, byte: int) -> NodeSet:
        """The closure of one node's successors on a byte (cached: states share their nodes). A literal
        node's step is a comparison or a bisection in its leaf's sorted words (the leaf keeps the nodes
        it reaches), so only the closure is kept here, by the node reached: no table per node for the
        hundreds of thousands of nodes inside names."""
        if node[0] != FINAL:
            leaf = self._leaves[node[0]]
            if leaf is None:
                return self._opening_step(node[0], byte)
            if not isinstance(leaf, RegexLeaf):
                target = leaf.step(node[1], node[2], byte)
                if target is None:
                    return EMPTY
                nodes = self._literal_state(target)
                return nodes if isinstance(nodes, frozenset) else frozenset(nodes)
        steps = self._steps.get(node)
        if steps is None:
            steps = self._steps[node] = {}
        found = steps.get(byte)
        if found is None:
            reached = self.successors(node, byte)
            found = self._closures.get(reached)
            if found is None:
                found = self._closures[reached] = self.closure(reached)
            steps[byte] = found
        return found

    def _opening_step(self, leaf: int, byte: int) -> NodeSet:
        """A byte read from a Deferred's OPENING node: nothing where the Deferred never opens with it, else its
        expression made (the first time) and its entry nodes stepped."""
        if byte not in self._opens_with[leaf]:
            return EMPTY
        return union([self.node_step(node, byte) for node in self._make(leaf)])

    def _literal_state(self, target: Node) -> StateNodes:
        """The nodes a literal node reached stands for, as a state keeps them (`StateNodes`)."""
        if len(self._leaves[target[0]].words[target[1]]) != target[2]:  # type: ignore[union-attr]
            # inside a word (most targets) nothing follows without a byte: the node alone, a 1-tuple as a
            # state of one node keeps it; not kept here: the state it makes keeps it, and a table of them
            # weighed 10 MiB in the statute book's build
            return (target,)
        found = self._literal_closures.get(target)
        if found is None:
            found = self._literal_closures[target] = self.closure((target,))
        return found

    def node_moves(self, node: Node) -> list[tuple[int, StateNodes]]:
        """Every byte a node goes on with and the nodes it reaches (as `node_step` would, a lone literal
        node as a 1-tuple), from one pass: a literal node's over its words (`LiteralLeaf.moves`), a regex
        node's over its edges."""
        if node[0] == FINAL:
            return []
        leaf = self._leaves[node[0]]
        if leaf is None:  # an OPENING node: its expression's entries' moves
            moves = ((byte, self._opening_step(node[0], byte)) for byte in sorted(self._opens_with[node[0]]))
            return [(byte, reached) for byte, reached in moves if reached]
        if isinstance(leaf, RegexLeaf):
            return [(byte, self.node_step(node, byte)) for byte in leaf.edges[node[1]]]
        literal_state = self._literal_state
        return [(byte, literal_state(target)) for byte, target in leaf.moves(node[1], node[2])]

    def step(self, nodes: StateNodes, byte: int) -> NodeSet:
        if len(nodes) == 1:  # most states: one node inside a name or a number
            for node in nodes:
                return self.node_step(node, byte)
        return union([self.node_step(node, byte) for node in nodes])

    def literal_parts(self, nodes: Iterable[Node]) -> list[LiteralPart] | None:
        """Where every node of a state is a literal node or FINAL: the literal nodes the C token walk starts
        from (grammars.literal_walk), each strictly inside a word, as (leaf, first word, depth). A node where
        a word ends stands for the longer words that go on past it (the words after it, which begin with
        it), and is left out where none does (what follows the word is among the state's other nodes).
        None where a node is a regex leaf's."""
        parts = []
        leaves = self._leaves
        for node in nodes:
            if node[0] == FINAL:
                continue
            leaf = leaves[node[0]]
            if leaf is None:  # an OPENING node: its expression made, and walked from its entries
                opened = self.literal_parts(self._make(node[0]))
                if opened is None:
                    return None
                parts.extend(opened)
                continue
            if type(leaf) is not LiteralLeaf:
                return None
            first, depth = node[1], node[2]
            words = leaf.words
            if len(words[first]) == depth:
                first += 1
                if first == len(words) or not words[first].startswith(words[first - 1]):
                    continue
            parts.append((leaf, first, depth))
        return parts

    def final_chars(self, tag: object) -> frozenset[bytes]:
        """Every last character (UTF-8) a string of root `tag` can end with (a superset); where a regex
        leaf ends, its last byte alone (its characters are not followed back)."""
        with self._making:
            ending = [index for index in self._deferred if tag in self._ends[index]]
        for deferred in ending:
            self._make(deferred)  # its expression's last leaves end the root
        out: set[bytes] = set()
        done: set[int] = set()
        for index, leaf in enumerate(self._leaves):
            if leaf is None or tag not in self._ends[index] or id(leaf) in done:  # None: a Deferred's
                continue
            done.add(id(leaf))
            if isinstance(leaf, RegexLeaf):
                out.update(bytes((b,)) for moves in leaf.edges for b, targets in moves.items() if targets & leaf.finals)
            else:  # a character is at most 4 bytes: the distinct tails first, a handful
                out.update(map(_last_char, {word[-4:] for word in leaf.words if word}))
        return frozenset(out)

    def live_bytes(self, node: Node) -> frozenset[int]:
        """Bytes on which a node has a successor (cached)."""
        cached = self._live.get(node)
        if cached is None:
            if node[0] == FINAL:
                cached = frozenset()
            else:
                leaf = self._leaves[node[0]]
                if leaf is None:  # an OPENING node: what its Deferred says it opens with, a superset
                    cached = self._opens_with[node[0]]
                elif isinstance(leaf, RegexLeaf):
                    cached = frozenset(leaf.edges[node[1]])
                else:
                    cached = frozenset(leaf.next_bytes(node[1], node[2]))
            cached = self._live[node] = self._byte_sets.setdefault(cached, cached)
        return cached
