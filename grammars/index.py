"""TokenIndex: per automaton state, which tokens are allowed and where each one leads.

A token is allowed exactly when the bytes so far plus the token's bytes are still a prefix of some
string of the language (EOS: exactly when the language may end here). States are computed the first
time they are asked for:

- a **constrained** state (inside a citation) walks the vocabulary's byte trie, pruned by the
  automaton's live bytes; its allowed tokens and their next states are appended to two flat arrays
  shared by all such states. Once the state is used, its packed sparse bitmask and a token → next-state
  dict are made from them. Such states allow few tokens, so this stays small.
- a **free** state (free text is alive) can only reject a token that contains a byte completing an
  anchor (for the citation languages: a digit); which ones die is walked by `grammars.rejections`,
  which reuses the answer of its base (the plain free-text state with the same free-text threads,
  `automaton.base_of`) wherever the two walks meet. A free state stores only its rejected tokens
  (usually none): memory does not grow as states × vocabulary. Its next states come from a per-token
  table shared by every state of its base unless the token's first byte is one on which this state
  differs from the base.

A whole build (`build_all`, for the disk cache) explores the automaton first and then computes every
constrained state's row at once (`grammars.sweep`), rather than walking the trie once per state.

The bitmask layout is xgrammar's: int32 words, bit j of word i is token 32·i+j, 1 = allowed.
"""

from __future__ import annotations

import array
import bisect
import logging
from collections.abc import MutableSequence
from typing import TYPE_CHECKING, Any

import numpy as np

from grammars.bitmask import pack_bits
from grammars.collector import collector_paused
from grammars.dfa import BYPASS, CITATION_MAY_CLOSE, DEAD, FREE, PENDING, Automaton
from grammars.literal_walk import LiteralWalker, built_extension, hand_offs_of, literal_walker, merged_heads
from grammars.rejections import BISECT_RATIO, Rejections, number_runs
from grammars.state_masks import UNWALKED, StateMasks
from grammars.sweep import Transitions, joined_ranges, sweep, walk_every_token
from grammars.vocabulary import DIGITS, Vocabulary

if TYPE_CHECKING:  # grammars.cache imports this module
    from grammars.cache import StoredMasks
    from grammars.literals import LiteralLeaf
    from grammars.nfa import LiteralPart

log = logging.getLogger(__name__)

FINISHED = -2  # the state after EOS: only EOS again is allowed
_PROGRESS_EVERY = 50_000  # a whole build says how many states it has made, every this many
_MAX_WALKS_PER_STATE = 4096
_GROW_AHEAD = 256  # room made for states not made yet when the per-state arrays grow
# A constrained row with at least word_count / _DENSE_SHARE words is kept whole: at most 2.7x the sparse
# pair's bytes (16 KiB for 129k tokens against 12 bytes a word), and one copy instead of clearing the
# row and scattering hundreds of words, the slowest warm fill (3-4 µs, ~1 µs whole)
_DENSE_SHARE = 8
_NO_WORDS = (np.empty(0, dtype=np.intp), np.empty(0, dtype=np.int32))
for _empty in _NO_WORDS:
    _empty.setflags(write=False)


class TokenIndex:
    """Immutable in meaning, filled lazily; share one per (grammar, vocabulary) across requests."""

    def __init__(self, automaton: Automaton, vocabulary: Vocabulary, key: str = "") -> None:
        self.automaton = automaton
        self.vocabulary = vocabulary
        self.key = key
        self.vocab_size = vocabulary.size
        self.initial_state = automaton.initial
        self.word_count = (self.vocab_size + 31) // 32
        self._tokens = vocabulary.tokens
        self._eos = vocabulary.eos_ids
        self._eos_words, self._eos_values = pack_bits(np.fromiter(self._eos, dtype=np.int64), self.word_count)
        self._states: list[StateMasks | None] = []
        # Constrained states' allowed tokens (sorted) and next states, appended as states are computed:
        # two flat arrays, where an object per state would weigh more than its few tokens; per state its
        # start (-1: not computed) and count. A state's StateMasks is made from them when first used.
        self._next_tokens = array.array("i")
        self._next_states = array.array("i")
        self._next_start = array.array("q")
        self._next_count = array.array("i")
        self._byte_walk = automaton.byte_walk()
        self.complete = False  # every reachable state computed (build_all ran to the end)
        self.stored: StoredMasks | None = None  # masks from the disk cache, materialised per state on first use
        self._attach_vocabulary(vocabulary)

    def _attach_vocabulary(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        # states a first visit made of one literal node, not computed yet: the node, for the C walk from it
        self._parts_of: dict[int, list[LiteralPart]] = {}
        self._tokens = vocabulary.tokens
        self._trie = vocabulary.trie
        # The C walk over this trie, its row fill and sweep, where this process has built their extension
        # (`_built_walker`); else looked up at the first walk: an index loaded whole, as a service starts, builds
        # nothing (0.6 s of a compiler at its start)
        self._walker: LiteralWalker | None = None
        self._walker_known = False
        self._built_walker()
        self._first_byte = array.array("i", vocabulary.trie.first_byte.tobytes())
        self.free_row = vocabulary.text_bitmask
        if self.automaton.free_text:
            hits = vocabulary.hit_prefix(self.automaton.anchor_final_chars)
            self._rejections = Rejections(self.automaton, vocabulary.trie, hits, vocabulary.tokens)
            if not hasattr(self, "base_next"):
                # per base free state, the next state of each token, filled as tokens are walked
                self.base_next: dict[int, array.array[int]] = {}

    # ----- public API -----

    def is_accepting(self, state: int) -> bool:
        return state == FINISHED or (state >= 0 and self.automaton.is_accepting(state))

    def is_unconstrained(self, state: int) -> bool:
        """Every text token and EOS is allowed (control tokens such as BOS/pad never are): the engine
        may skip the mask here, or apply `free_row`."""
        return state >= 0 and self.masks(state).unconstrained

    def in_citation(self, state: int) -> bool:
        """The text must go on as a citation: an anchor was completed and free text is not alive."""
        return state >= 0 and not self.automaton.flags(state) & FREE

    def citation_may_close(self, state: int) -> bool:
        """A citation matched completely at this point (it may still go on, as `제750조` → ` 제1항`)."""
        return state >= 0 and bool(self.automaton.flags(state) & CITATION_MAY_CLOSE)

    def in_bypass(self, state: int) -> bool:
        return state >= 0 and bool(self.automaton.flags(state) & BYPASS)

    def is_pending(self, state: int) -> bool:
        """A partial anchor or citation is in progress: the text since it began may become a citation."""
        return state >= 0 and bool(self.automaton.flags(state) & PENDING)

    def allocate_bitmask(self, rows: int = 1) -> np.ndarray:
        return np.zeros((rows, self.word_count), dtype=np.int32)

    def fill_bitmask(self, state: int, out_row: np.ndarray) -> None:
        """Write the state's bitmask into a preallocated int32 row of `word_count` words."""
        if state == FINISHED:
            out_row.fill(0)
            out_row[self._eos_words] = self._eos_values
            return
        masks = self._states[state] if state < len(self._states) else None
        if masks is None:  # most first visits: a state of one literal node, walked at once
            masks = self._first_literal_masks(state) or self.masks(state)
        packed = masks.packed
        if packed is None:
            packed = masks.packed = self._pack(state, masks)
        if masks.dense is not None:
            np.copyto(out_row, masks.dense)
            return
        base = self.free_row if masks.free else None
        words, values = packed
        if self._walker is not None and self._walker.fill_row(out_row, words, values, base):
            return
        if base is None:
            out_row.fill(0)
        else:
            np.copyto(out_row, base)
        if len(words):
            out_row[words] = values

    def _pack(self, state: int, masks: StateMasks) -> tuple[np.ndarray, np.ndarray]:
        """A constrained state's packed bitmask: its allowed tokens, and EOS where it accepts; no words,
        with the row in `masks.dense`, where they are many."""
        allowed = masks.next_tokens.tolist()
        if self.automaton.is_accepting(state):
            allowed += sorted(self._eos)
        words, values = pack_bits(allowed, self.word_count)
        if len(words) * _DENSE_SHARE < self.word_count:
            return words, values
        row = np.zeros(self.word_count, dtype=np.int32)
        row[words] = values
        masks.dense = row  # whole before it is seen: a thread filling the same state meanwhile packs its own
        return _NO_WORDS

    def bitmask(self, state: int) -> np.ndarray:
        row = np.empty(self.word_count, dtype=np.int32)
        self.fill_bitmask(state, row)
        return row

    def allowed_tokens(self, state: int) -> np.ndarray:
        """The allowed token ids, sorted (for tests and debugging)."""
        bits = np.unpackbits(self.bitmask(state).view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[: self.vocab_size])

    def advance(self, state: int, token_id: int) -> int:
        """The state after `token_id`, or DEAD if the token is not allowed here."""
        if state < 0:
            return DEAD
        if token_id in self._eos:
            return FINISHED if self.automaton.is_accepting(state) else DEAD
        masks = self._states[state] if state < len(self._states) else None
        if masks is None:
            masks = self.masks(state)
        if not masks.free:
            head = masks.literal
            if head is not None:  # by bisection in the C walk's row; the state made when first taken
                count = masks.literal_count
                at = bisect.bisect_left(head, token_id, 0, count)
                if at < count and head[at] == token_id:
                    found: int = head[at - count]  # the states: the head's last `count` items
                    if found == UNWALKED:
                        found = head[at - count] = self._literal_state(masks.literal_leaf, head, count, at)
                    return found
                return DEAD if masks.next is None else masks.next.get(token_id, DEAD)
            table = masks.next
            if table is None:
                table = masks.next = dict(zip(masks.next_tokens.tolist(), masks.next_states.tolist(), strict=True))
            return table.get(token_id, DEAD)
        token = self._tokens[token_id] if 0 <= token_id < len(self._tokens) else None
        if token is None:
            return DEAD
        divergence, base = masks.divergence, masks.base
        if divergence is not None and base is not None and self._first_byte[token_id] not in divergence:
            base_table = self._base_table(base)
            from_base = base_table[token_id]
            if from_base == UNWALKED:
                from_base = base_table[token_id] = self.automaton.walk(base, token)
            return from_base
        walks = masks.walks
        if walks is None:
            walks = masks.walks = {}
        walked = walks.get(token_id)
        if walked is None:
            walked = self.automaton.walk(state, token)
            if len(walks) >= _MAX_WALKS_PER_STATE:  # bounded: a long-running server stays flat
                walks.clear()
            walks[token_id] = walked
        return walked

    def _literal_state(self, leaf: LiteralLeaf | None, head: MutableSequence[Any], count: int, at: int) -> int:
        """The state of the `at`-th token of a C walk's row (`StateMasks.literal`), made now; where it is new
        and one node, that node is kept for the walk from it (`_parts_of`), which need not look for it."""
        if leaf is None:
            return self.automaton.literal_state(head[count + at])
        first, depth = head[count + at], head[2 * count + at]
        found = self.automaton.literal_state(((leaf.index, first, depth),))
        if found >= len(self._states) or self._states[found] is None:
            self._parts_of[found] = [(leaf, first, depth)]
        return found

    def _base_table(self, base: int) -> array.array[int]:
        table = self.base_next.get(base)
        if table is None:
            table = self.base_next[base] = array.array("i", [UNWALKED]) * self.vocab_size
        return table

    def advance_bytes(self, state: int, data: bytes) -> int:
        """The state after raw bytes (e.g. a prompt prefix that is already part of the output)."""
        return self.automaton.walk(state, data) if state >= 0 else DEAD

    @property
    def state_count(self) -> int:
        return self.automaton.state_count

    def build_all(self) -> int:
        """Compute every state reachable by bytes (for the on-disk cache); returns the state count.
        The cyclic garbage collector is paused meanwhile (`collector_paused`)."""
        if self.complete:
            return self.automaton.state_count
        with collector_paused():
            return self._explore()

    def _explore(self) -> int:
        """Every state reachable by bytes: free states computed as they are met, constrained states
        together at the end (`grammars.sweep`, from the transitions met on the way)."""
        automaton = self.automaton
        seen = bytearray(automaton.state_count)  # per state 1 once reached: states are numbered densely
        seen[self.initial_state] = 1
        pending = [self.initial_state]
        constrained: list[int] = []
        source, label, reached = array.array("i"), array.array("i"), array.array("i")  # their transitions
        report = _PROGRESS_EVERY
        while pending:
            state = pending.pop()
            if automaton.state_count >= report:
                log.info("%d states so far", automaton.state_count)
                report += _PROGRESS_EVERY
            free = bool(automaton.flags(state) & FREE)
            if free:
                self._compute(state)
            base = automaton.base_of(state)
            divergence = None
            if base is not None and base != state:
                divergence = automaton.divergence(state)  # on other bytes it goes where its base goes
            walked = not free and divergence is None  # every transition is met: the sweep may walk it
            if walked:
                constrained.append(state)
            moves = automaton.moves(state, divergence)
            if len(seen) < automaton.state_count:  # room for the states just made
                seen.extend(bytes(automaton.state_count - len(seen)))
            if base is not None and not seen[base]:
                seen[base] = 1
                pending.append(base)
            for byte, target in moves:
                if walked:
                    source.append(state)
                    label.append(byte)
                    reached.append(target)
                if not seen[target]:
                    seen[target] = 1
                    pending.append(target)
        self._sweep(constrained, Transitions(*(np.frombuffer(a, dtype=np.int32) for a in (source, label, reached))))
        for base in self.automaton.between_characters():
            self._fill_base_next(base)
        self.complete = True
        return seen.count(1)

    def _sweep(self, constrained: list[int], moves: Transitions) -> None:
        """The rows of the constrained states not computed yet, swept together; the few whose walk
        leaves them (into free text) walked one by one."""
        self._grow()
        walkable = np.zeros(self.automaton.state_count, dtype=bool)
        walkable[constrained] = True
        todo = np.asarray(sorted(s for s in constrained if self._next_start[s] < 0), dtype=np.int64)
        walker = self._built_walker()  # in C where this process built the extension, else in numpy
        rows = sweep(self._trie, todo, moves, walkable, None if walker is None else walker.sweep)
        done = todo[~np.isin(todo, rows.unfinished)]
        counts = np.bincount(rows.origin, minlength=len(walkable))[done]
        starts = np.frombuffer(self._next_start, dtype=np.int64)
        starts[done] = len(self._next_tokens) + np.cumsum(counts) - counts
        np.frombuffer(self._next_count, dtype=np.int32)[done] = counts
        del starts  # an array.array cannot grow while numpy views it
        self._next_tokens.frombytes(rows.token.astype(np.int32).tobytes())
        self._next_states.frombytes(rows.target.astype(np.int32).tobytes())
        for state in rows.unfinished.tolist():
            self._compute(state, settled=True)

    def _built_walker(self) -> LiteralWalker | None:
        """The C walker, where this process has built its extension (converting a tokenizer does) since or
        before this index was made; None, building nothing, where it has not."""
        if self._walker is None and built_extension() is not None:
            self._walker, self._walker_known = literal_walker(self._trie), True
        return self._walker

    def _fill_base_next(self, base: int) -> None:
        """A base free state's next state for every text token, by one walk over the whole trie
        (`grammars.sweep.walk_every_token`)."""
        table = np.frombuffer(self._base_table(base), dtype=np.int32)
        walk_every_token(self._trie, base, self.automaton.step, DEAD, table)

    # ----- computing a state -----

    def masks(self, state: int) -> StateMasks:
        """What the index stores for a state (computed on first use)."""
        masks = self._compute(state)
        if masks is None:  # constrained: made from the flat arrays
            start, count = self._next_start[state], self._next_count[state]
            masks = StateMasks(False, None)
            masks.next_tokens = np.asarray(self._next_tokens[start : start + count], dtype=np.int32)
            masks.next_states = np.asarray(self._next_states[start : start + count], dtype=np.int32)
            self._states[state] = masks  # stored whole: another reader never meets it without its tokens
        return masks

    def _grow(self) -> None:
        """Room for every state the automaton has made so far, and for some to come (first visits make a
        state or two at a time)."""
        grow = self.automaton.state_count + _GROW_AHEAD - len(self._states)
        self._states.extend([None] * grow)
        self._next_start.extend(array.array("q", [-1]) * grow)
        self._next_count.extend(array.array("i", [0]) * grow)

    def _compute(self, state: int, settled: bool = False) -> StateMasks | None:
        """Compute a state if it is new: a free state's StateMasks (returned), a state inside a literal word
        by the C walk (returned, its next states made as tokens are taken), or another constrained state's
        tokens into the flat arrays (None returned until `masks` makes its StateMasks). `settled`: a
        constrained state's row in the flat arrays, every next state made (a whole build stores states
        only)."""
        if state >= len(self._states):
            self._grow()
        masks = self._states[state]
        if masks is None and self.stored is not None:
            masks = self._states[state] = self.stored.masks(state)
        if masks is not None and not (settled and masks.literal is not None):
            return masks
        if settled:
            self._parts_of.pop(state, None)  # computed whole below: the node kept for its walk is not needed
        elif (masks := self._first_literal_masks(state)) is not None:
            return masks
        if self.automaton.flags(state) & FREE:
            masks = self._states[state] = self._free_masks(state)
        elif self._next_start[state] < 0:
            if masks is None and not settled and (masks := self._literal_masks(state)) is not None:
                self._states[state] = masks
                return masks
            tokens, targets = self._constrained_walk(state)
            start = len(self._next_tokens)
            self._next_tokens.frombytes(tokens.tobytes())
            self._next_states.frombytes(targets.tobytes())
            self._next_count[state] = len(tokens)
            self._next_start[state] = start  # last: a reader that finds it finds the tokens stored
        return masks

    def constrained_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per state the count of its allowed tokens (0 for a free state), and all constrained states'
        allowed tokens and next states in state order (for the disk cache)."""
        count = self.automaton.state_count
        starts = np.frombuffer(self._next_start, dtype=np.int64)[:count].copy()
        counts = np.frombuffer(self._next_count, dtype=np.int32)[:count].astype(np.int64)
        counts[starts < 0] = 0
        offsets = np.cumsum(counts) - counts  # where each state's tokens go in the output
        picked = np.arange(int(counts.sum())) + np.repeat(starts - offsets, counts)
        tokens = np.frombuffer(self._next_tokens, dtype=np.int32)[picked]
        states = np.frombuffer(self._next_states, dtype=np.int32)[picked]
        return counts, tokens, states

    def _constrained_walk(self, state: int) -> tuple[np.ndarray, np.ndarray]:
        """The tokens allowed from a constrained state (sorted) and the state each one leads to, as int32
        arrays: the vocabulary's trie walked along the automaton's live bytes (`_walk`)."""
        start = self._byte_walk.start
        allowed: list[int] = []
        nexts: list[int] = []
        numbers: list[tuple[int, int, int]] = []  # (trie node, the byte into it, the state before that byte)
        skip_root = DIGITS if number_runs(self.automaton, self._trie, state, allowed, nexts, numbers) else ()
        origin = start(state)
        pending = [(node, byte, start(before)) for node, byte, before in numbers]
        root_child = self._trie.root_child
        pending.extend((root_child[b], b, origin) for b in self.automaton.live_bytes(state)
                       if root_child[b] >= 0 and b not in skip_root)
        self._walk(pending, allowed, nexts)
        return _sorted_row(np.asarray(allowed, dtype=np.int32), np.asarray(nexts, dtype=np.int32))

    def _first_literal_masks(self, state: int) -> StateMasks | None:
        """A state a first visit made of one literal node (`_parts_of`), walked from that node and stored;
        None for any other state."""
        parts = self._parts_of.pop(state, None)
        if parts is None or (masks := self._literal_masks(state, parts)) is None:
            return None
        if state >= len(self._states):
            self._grow()
        self._states[state] = masks
        return masks

    def _literal_masks(self, state: int, parts: list[LiteralPart] | None = None) -> StateMasks | None:
        """A state of literal nodes by the C walk (grammars.literal_walk) from each (`literal_parts`: most
        states inside an act's name or an article number are one node; the state after an article number
        is where its branch, a paragraph and an item begin): its tokens that stay inside a word are made
        states when taken (`advance`), each of the literal nodes it reached as it reached them: merging a
        node with an equal node of another word (`LiteralLeaf.node_at`) cost a first visit more than the rest
        of its step, and an unmerged node is the same language (a whole build merges them). Where a word
        ends on the way, `_walk` goes on in Python. None for any other state, where no C compiler works, where
        the C walk gave up (more word ends than it holds), or where one token went on from two nodes past a
        word's end: the state is walked in Python."""
        if parts is None:
            parts = self.automaton.literal_parts(state)
        if not parts:
            return None
        if not self._walker_known:
            self._walker, self._walker_known = literal_walker(self._trie), True
        walker = self._walker
        if walker is None:
            return None
        if len(parts) == 1:  # most states: the row as the walk packed it
            leaf, first, depth = parts[0]
            walked = walker.walk(leaf, first, depth)
            if walked is None:
                return None
            count, row_head, words, values, hand_offs = walked
            head: MutableSequence[Any] = row_head
            masks = StateMasks(False, (words, values))
            masks.literal, masks.literal_count, masks.literal_leaf = head, count, leaf
            if not hand_offs and len(words) * _DENSE_SHARE < self.word_count and not self.automaton.is_accepting(state):
                return masks
            walks = [walked]
        else:
            walks = []
            for leaf, first, depth in parts:
                found = walker.walk(leaf, first, depth)
                if found is None:
                    return None
                walks.append(found)
            head, count = merged_heads(parts, walks)
            masks = StateMasks(False, None)
            masks.literal, masks.literal_count = head, count
        allowed: list[int] = []
        if any(walked.hand_offs for walked in walks):
            nexts: list[int] = []
            self._walk(hand_offs_of(parts, walks, self.automaton.literal_nodes), allowed, nexts)
            if len(walks) > 1 and not set(allowed).isdisjoint(head[:count]):
                return None  # a token went on from one node past a word's end and stayed inside another's
            masks.next = dict(zip(allowed, nexts, strict=True))
        # packed on first fill from all the tokens, with EOS where the state accepts (`_pack`)
        masks.next_tokens = np.asarray(sorted([*head[:count], *allowed]), dtype=np.int32)
        masks.packed = None
        return masks

    def _walk(self, pending: list[tuple[int, int, Any]], allowed: list[int], nexts: list[int]) -> None:
        """The trie walked from `pending` (trie node, the byte into it, the walk's position before that byte)
        along the automaton's live bytes (`byte_walk`: over node sets, a state made only where a token ends);
        the tokens found and their next states appended to `allowed` and `nexts`. Most states inside a name
        have one live byte while a trie node after a Hangul lead byte has dozens of edges: a lone live byte's
        edge is found by bisection (edges are sorted by byte) and followed at once, without queueing; several
        live bytes are looked up by bisection too where edges outnumber them, else scanned."""
        trie, (_, step_once, live_bytes, settle, dead) = self._trie, self._byte_walk
        # Below an act's `제` most trie nodes are reached in a position met before: 민법's 924 number
        # tokens take 1,857 steps over 335 distinct (position, byte) pairs, each a node-set step of ~3 µs
        steps: dict[tuple[Any, int], Any] = {}

        def step(position: Any, byte: int) -> Any:
            key = (position, byte)
            found = steps.get(key)
            if found is None:
                found = steps[key] = step_once(position, byte)
            return found

        edge_start, edge_byte, edge_child = trie.edge_start, trie.edge_byte, trie.edge_child
        token_start, order = trie.token_start, trie.order
        while pending:
            node, byte, current = pending.pop()
            while True:
                current = step(current, byte)
                if current == dead:
                    break
                low, high = token_start[node], token_start[node + 1]
                if low != high:
                    allowed.extend(order[low:high])
                    nexts.extend([settle(current)] * (high - low))
                low, high = edge_start[node], edge_start[node + 1]
                if low == high:
                    break
                live = live_bytes(current)
                if len(live) == 1:
                    (byte,) = live
                    e = bisect.bisect_left(edge_byte, byte, low, high)
                    if e == high or edge_byte[e] != byte:
                        break
                    node = edge_child[e]
                    continue
                if len(live) * BISECT_RATIO < high - low:
                    for byte in live:
                        e = bisect.bisect_left(edge_byte, byte, low, high)
                        if e < high and edge_byte[e] == byte:
                            pending.append((edge_child[e], byte, current))
                else:
                    pending.extend((edge_child[e], edge_byte[e], current) for e in range(low, high)
                                   if edge_byte[e] in live)
                break

    def _free_masks(self, state: int) -> StateMasks:
        base = self.automaton.base_of(state)
        if state == base:
            masks = StateMasks(True, self._packed_rejections(self._rejections.of_base(base)))
        else:
            ranges = self._rejections.of(state, base)
            base_masks = None
            if base is not None and joined_ranges(ranges) == joined_ranges(self._rejections.of_base(base)):
                base_masks = self._compute(base)
            # most states inside a name reject what their base rejects: its arrays serve them all
            masks = StateMasks(True, self._packed_rejections(ranges) if base_masks is None else base_masks.packed)
        masks.base = base
        masks.divergence = frozenset() if state == base else self.automaton.divergence(state)
        return masks

    def _packed_rejections(self, ranges: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """The free row's words that rejecting the tokens of trie-order `ranges` changes, and their values."""
        order = self._trie.arrays["order"]
        rejected = np.concatenate([order[low:high] for low, high in ranges]) if ranges else np.empty(0, np.int64)
        words, bits = pack_bits(rejected, self.word_count)
        return words, self.free_row[words] & ~bits


def _sorted_row(tokens: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A row's tokens and next states in token order (a token is met once, by its bytes)."""
    if len(tokens) > 1:
        order = np.argsort(tokens, kind="stable")
        return tokens[order], targets[order]
    return tokens, targets
