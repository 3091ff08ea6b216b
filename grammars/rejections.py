"""Which tokens die from a free state of an automaton with free text: trie-order ranges of the vocabulary.

Free text never dies, so from a free state a token can only die where it completes an anchor and the
citation it opens then dies (`민법 제9999`): only trie subtrees holding a token with an anchor's last
character are walked. A state that is not a plain free-text state (its base, `Automaton.base_of`) steps
like its base on every byte outside its divergence: the walk takes only the divergent first bytes, and
below each edge it follows it stops where it reaches the state the base reaches on the same bytes, whose
ranges it reuses, and walks on only the edges on which the two may part (`Automaton.divergence_between`).
Once an anchor has completed inside a token, free text is over: only the citation's live bytes go on.

Many states reach one pair of states after their first byte (every `NAME ` of the statute book, on a
digit, reaches the same partial shorthand head beside the same base): what lies below such a pair is
walked once (`_below_first`, bounded). All-digit tokens are walked a depth at a time, by the distinct
states their digits reach (`_numbers`); a constrained state's go by their length where its digits go one way
(`digit_chain`, grammars.index).
"""

from __future__ import annotations

import array
import bisect

import numpy as np

from grammars.dfa import DEAD, FREE, Automaton
from grammars.sweep import joined_ranges
from grammars.vocabulary import DIGITS, TokenTrie

Ranges = list[tuple[int, int]]
Edge = tuple[int, int, int | None]  # a trie edge, the state before it, the base walk's state there
BISECT_RATIO = 4  # a trie node's children are looked up by bisection when it has this many edges per byte
_MAX_BELOW = 1 << 16  # walks kept (`_below_first`, `_numbers`); a lazily grown index stays flat
_GONE, _DIED, _MET = -1, -2, -3  # an all-digit node below one that died or met the mirror; one that does (`_numbers`)


def digit_chain(
    automaton: Automaton, trie: TokenTrie, state: int, mirror: int | None
) -> tuple[list[tuple[int, int | None]], list[np.ndarray], list[np.ndarray]] | None:
    """Inside a number the digits that do not die usually all step to one state. Then the states
    after 1, 2, … digits, with the mirror's (None stays None, DEAD stays DEAD), and per depth which
    digits go on there (`alive[k]`, indexed by byte) and which reach the mirror's state (`meet[k]`:
    the base's answer holds below them); None when the digits that go on part ways."""
    step, live_bytes = automaton.step, automaton.live_bytes
    if live_bytes(state).isdisjoint(DIGITS):
        return None  # no digit goes on (most states inside names)
    chain, alive, meet = [(state, mirror)], [np.zeros(256, dtype=bool)], [np.zeros(256, dtype=bool)]
    while len(chain) < len(trie.digit_runs.nodes):
        current, shadow = chain[-1]
        live = live_bytes(current)
        moves = {d: step(current, d) for d in DIGITS if d in live}
        shadows = {d: shadow if shadow is None or shadow == DEAD else step(shadow, d) for d in moves}
        met = [d for d, target in moves.items() if target != DEAD and target == shadows[d]]
        going = [d for d, target in moves.items() if target != DEAD and target != shadows[d]]
        meet.append(np.zeros(256, dtype=bool))
        meet[-1][met] = True
        if not going:
            break
        reached = {(moves[d], shadows[d]) for d in going}
        if len(reached) > 1:
            return None
        chain.append(reached.pop())
        alive.append(np.zeros(256, dtype=bool))
        alive[-1][going] = True
    return (chain, alive, meet) if len(chain) > 1 else None


class Rejections:
    """The rejected ranges of one index's free states (`of`), and its bases' kept (`of_base`)."""

    def __init__(
        self, automaton: Automaton, trie: TokenTrie, hits: array.array[int], tokens: tuple[bytes | None, ...]
    ) -> None:
        self._automaton = automaton
        self._trie = trie
        self._hits = hits  # per trie position, how many tokens before it may complete an anchor
        self._tokens = tokens
        self._bases: dict[int, Ranges] = {}
        self._below: dict[tuple[int, int, int | None], tuple[tuple[int, int], ...]] = {}
        self._digit_walks: dict[tuple[int | None, tuple[int, ...]], tuple[Ranges, list[Edge]]] = {}

    def of(self, state: int, base: int | None) -> Ranges:
        """Trie-order ranges of the tokens that die from a free state (`base`: its plain free-text state)."""
        trie = self._trie
        edge_start, edge_byte = trie.edge_start, trie.edge_byte
        ranges: Ranges = []
        divergence = self._automaton.divergence(state) if base is not None else None
        if divergence is None or base is None:
            edges: list[Edge] = [(e, state, base) for e in range(edge_start[0], edge_start[1])]
        else:
            if not divergence.isdisjoint(DIGITS):  # the number shortcut takes every digit subtree
                divergence = divergence | frozenset(DIGITS)
            edges = [(trie.root_edge[b], state, base) for b in sorted(divergence) if trie.root_edge[b] >= 0]
            ranges = self._outside(self.of_base(base), [e for e, _, _ in edges])
        if divergence is None or divergence.issuperset(DIGITS):  # the digit subtrees a depth at a time
            numbers: list[Edge] = []
            self._numbers(state, base, ranges, numbers)
            edges = [edge for edge in edges if edge_byte[edge[0]] not in DIGITS] + numbers
        self._walk(edges, base, ranges, state)
        return ranges

    def of_base(self, base: int) -> Ranges:
        """A plain free-text state's rejected ranges, sorted, computed once."""
        found = self._bases.get(base)
        if found is None:
            found = self._bases[base] = sorted(self.of(base, None))
        return found

    def _walk(self, edges: list[Edge], base: int | None, ranges: Ranges, start: int | None = None) -> None:
        """Walk `edges` (popped as a stack) and what they lead to, adding what dies to `ranges`. Below an
        edge taken from `start` (the state whose row this is) the rest is `_below_first`'s."""
        trie, step, hits = self._trie, self._automaton.step, self._hits
        edge_byte, edge_child = trie.edge_byte, trie.edge_child
        token_start, token_end = trie.token_start, trie.token_end
        while edges:
            e, current, mirror = edges.pop()
            child = edge_child[e]
            low, high = token_start[child], token_end[child]
            if hits[high] == hits[low]:
                continue  # no token below can complete an anchor, so none can die
            byte = edge_byte[e]
            target = step(current, byte)
            if target == DEAD:
                ranges.append((low, high))
                continue
            mirror_target = None
            if mirror is not None and base is not None:  # a mirror is the base's walk
                mirror_target = step(mirror, byte) if mirror != DEAD else DEAD
                if mirror_target == target:
                    ranges.extend(self._base_within(base, low, high))
                    continue
            if current == start:
                ranges.extend(self._below_first(child, target, mirror_target, base))
            else:
                self._expand(child, target, mirror_target, base, edges, ranges)

    def _below_first(self, node: int, target: int, mirror: int | None, base: int | None) -> tuple[tuple[int, int], ...]:
        """What dies below trie `node`, reached in state `target` beside the base walk's `mirror`: the
        same for every state that reaches that pair there, so walked once."""
        key = (node, target, mirror)
        found = self._below.get(key)
        if found is None:
            edges: list[Edge] = []
            ranges: Ranges = []
            self._expand(node, target, mirror, base, edges, ranges)
            self._walk(edges, base, ranges)
            if len(self._below) >= _MAX_BELOW:
                self._below.clear()
            found = self._below[key] = tuple(ranges)
        return found

    def _expand(self, node: int, target: int, mirror: int | None, base: int | None, edges: list[Edge],
                ranges: Ranges) -> None:
        """The edges below trie `node` (reached in `target`, the base walk in `mirror`) still to walk,
        onto `edges`; what is settled without a step, onto `ranges`."""
        trie = self._trie
        first, last = trie.edge_start[node], trie.edge_start[node + 1]
        if not self._automaton.flags(target) & FREE:
            self._citation_edges(target, first, last, edges, ranges)
            return
        apart = None
        if base is not None and mirror is not None and mirror != DEAD:
            apart = self._automaton.divergence_between(target, mirror)
        if apart is None or base is None:
            edges.extend((f, target, mirror) for f in range(first, last))
            return
        # on a byte only the nodes the two do not share go on with, both reach one state: below it the
        # base's ranges hold, unwalked (the edges on a partial anchor's next bytes are walked)
        walked = _edges_on(trie.edge_byte, first, last, apart)
        edges.extend((f, target, mirror) for f in walked)
        ranges.extend(self._outside(self._base_within(base, trie.token_start[node], trie.token_end[node]), walked))

    def _citation_edges(self, target: int, first: int, last: int, edges: list[Edge], ranges: Ranges) -> None:
        """Below a trie node where an anchor has completed (free text is over, a citation goes on): the
        edges `first`..`last` on the state's live bytes go to `edges`, every other child subtree dies,
        rejected a gap at a time without a step (inside an article number most of the ~1,100 number
        tokens die at their second or third digit)."""
        if first == last:
            return
        trie = self._trie
        edge_child, token_start, token_end = trie.edge_child, trie.token_start, trie.token_end
        going = _edges_on(trie.edge_byte, first, last, self._automaton.live_bytes(target))
        edges.extend((f, target, None) for f in going)
        at = token_start[edge_child[first]]
        for f in going:
            if token_start[edge_child[f]] > at:
                ranges.append((at, token_start[edge_child[f]]))
            at = token_end[edge_child[f]]
        if token_end[edge_child[last - 1]] > at:
            ranges.append((at, token_end[edge_child[last - 1]]))

    def _outside(self, ranges: Ranges, walked: list[int]) -> Ranges:
        """The base's `ranges` but those below a `walked` edge, whose subtrees the walk answers itself."""
        trie = self._trie
        spans = [(trie.token_start[trie.edge_child[e]], trie.token_end[trie.edge_child[e]]) for e in walked]
        return [r for r in ranges if not any(low <= r[0] < high for low, high in spans)]

    def _base_within(self, base: int, low: int, high: int) -> Ranges:
        ranges = self.of_base(base)
        return ranges[bisect.bisect_left(ranges, (low, -1)) : bisect.bisect_left(ranges, (high, -1))]

    def _numbers(self, state: int, mirror: int | None, ranges: Ranges, edges: list[Edge]) -> None:
        """For a free state's walk, its all-digit subtrees (`_digit_walk`): the same for every state whose
        digits reach the same states beside the same mirror, so walked once (every `NAME ` of a statute
        book, on a digit, reaches one partial malformed head), bounded."""
        key = (mirror, tuple([self._automaton.step(state, byte) for byte in DIGITS]))
        found = self._digit_walks.get(key)
        if found is None:
            if len(self._digit_walks) >= _MAX_BELOW:
                self._digit_walks.clear()
            found = self._digit_walks[key] = self._digit_walk(state, mirror)
        ranges.extend(found[0])
        edges.extend(found[1])

    def _digit_walk(self, state: int, mirror: int | None) -> tuple[Ranges, list[Edge]]:
        """A free state's all-digit subtrees a depth at a time (`DigitRuns`): a node's state and the
        mirror's there follow from its parent's pair by one step per distinct pair and digit; the nodes
        where the walk dies are rejected whole, those where it meets the mirror's state take the base's
        ranges below them, and the non-digit edges leaving the others are left to walk: (ranges, edges).
        Near an anchor the digits part ways (after `민사소송법` a digit opens a malformed head, beside the
        base's own states for a number): walked node by node, DeepSeek's ~1,100 number tokens cost 8 ms."""
        ranges: Ranges = []
        edges: list[Edge] = []
        runs, step = self._trie.digit_runs, self._automaton.step
        token_start, token_end = self._trie.arrays["token_start"], self._trie.arrays["token_end"]
        pairs: list[tuple[int, int | None]] = [(state, mirror)]
        rows = np.zeros(1, dtype=np.int64)  # per node of a depth: its pair in `pairs`, or _GONE, _DIED, _MET
        meeting: dict[int, set[int]] = {}  # depth → all-digit nodes where the walk meets the mirror
        for depth in range(1, len(runs.nodes)):
            parent = rows[runs.parents[depth]]
            reached = parent >= 0
            keys = np.where(reached, parent * 10 + runs.paths[depth][:, depth - 1] - DIGITS[0], 0)
            lookup = np.full(len(pairs) * 10, _GONE, dtype=np.int64)
            found: dict[tuple[int, int | None], int] = {}
            for key in set(keys[reached].tolist()):
                current, shadow = pairs[key // 10]
                byte = DIGITS[0] + key % 10
                target = step(current, byte)
                shadow_target = shadow if shadow is None or shadow == DEAD else step(shadow, byte)
                if target == DEAD:
                    lookup[key] = _DIED
                elif target == shadow_target:
                    lookup[key] = _MET
                else:
                    lookup[key] = found.setdefault((target, shadow_target), len(found))
            rows = np.where(reached, lookup[keys], _GONE)
            nodes = runs.nodes[depth]
            dying = nodes[rows == _DIED]
            ranges.extend(zip(token_start[dying].tolist(), token_end[dying].tolist(), strict=True))
            met = rows == _MET
            if met.any():
                meeting[depth] = set(nodes[met].tolist())
            pairs = list(found)
            exit_edges, exit_parents = runs.exit_rows[depth]
            leaving = rows[exit_parents]
            going = leaving >= 0
            edges.extend((edge, *pairs[row]) for edge, row in
                         zip(exit_edges[going].tolist(), leaving[going].tolist(), strict=True))
            if not pairs:
                break
        if mirror is not None and meeting:  # without a mirror nothing meets it
            ranges.extend(self._base_below(mirror, meeting))
        # kept per key (`_numbers`): a dead number's subtrees one by one were up to 1,000 ranges a walk (106 MiB
        # of the answer language's whole build over 5,000 acts); sibling subtrees touch, and joined they are few
        return joined_ranges(ranges), edges

    def _base_below(self, base: int, meeting: dict[int, set[int]]) -> Ranges:
        """The base's rejected ranges that start inside the subtree of one of the `meeting` nodes."""
        trie, node_of = self._trie, self._trie.digit_runs.node_of
        found: Ranges = []
        roots = [trie.root_child[d] for d in DIGITS if trie.root_child[d] >= 0]
        low, high = trie.token_start[roots[0]], trie.token_end[roots[-1]]
        for start, end in self._base_within(base, low, high):
            token = self._tokens[trie.order[start]] or b""  # the trie holds text tokens only
            if any(node_of.get(token[:depth], DEAD) in nodes for depth, nodes in meeting.items()):
                found.append((start, end))
        return found


def _edges_on(edge_byte: array.array[int], first: int, last: int, wanted: frozenset[int]) -> list[int]:
    """The edges among `first`..`last` (sorted by byte) on a byte of `wanted`, in order: by bisection
    where the edges far outnumber the bytes (a Hangul lead byte's hundreds of children), else a scan."""
    if len(wanted) * BISECT_RATIO < last - first:
        found = sorted(bisect.bisect_left(edge_byte, b, first, last) for b in wanted)
        return [f for f in found if f < last and edge_byte[f] in wanted]
    return [f for f in range(first, last) if edge_byte[f] in wanted]


def number_runs(
    automaton: Automaton, trie: TokenTrie, state: int, allowed: list[int], nexts: list[int],
    pending: list[tuple[int, int, int]],
) -> bool:
    """A constrained state's row (grammars.index): the ~1,100 number tokens of a vocabulary like DeepSeek's
    go where their length says, without a walk per trie node (`digit_chain`). Adds the all-digit tokens,
    and the edges where non-digit bytes go on below them (trie node, byte, state before it) to `pending`;
    False: walk everything instead."""
    found = digit_chain(automaton, trie, state, None)
    if found is None:
        return False
    (chain, alive, _), runs = found, trie.digit_runs
    edge_child, edge_byte = trie.edge_child, trie.edge_byte
    for depth in range(1, len(chain)):
        current, digits, paths = chain[depth][0], runs.digits[depth], runs.paths[depth]
        keep = np.logical_and.reduce([alive[k + 1][digits[:, k]] for k in range(depth)])
        found_ids = runs.ids[depth][keep].tolist()
        allowed.extend(found_ids)
        nexts.extend([current] * len(found_ids))
        live = automaton.live_bytes(current)
        lived = np.logical_and.reduce([alive[k + 1][paths[:, k]] for k in range(depth)])
        exit_edges, exit_parents = runs.exit_rows[depth]
        for edge in exit_edges[lived[exit_parents]].tolist():
            if edge_byte[edge] in live:
                pending.append((edge_child[edge], edge_byte[edge], current))
    return True
