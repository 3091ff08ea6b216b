"""The vocabulary's trie swept against many constrained states at once, for a whole-index build.

What `TokenIndex._constrained_walk` does for one state (walk the trie along the automaton's
transitions, collect the tokens that end on the way and the state each reaches) is done here for all
of them together from the transitions recorded while exploring: in C where the process built
literal_walk's extension (trie_sweep.c, a depth-first walk per origin), else one trie depth per round
on numpy arrays: a round takes every (origin, trie node, state) pair still going, pairs each with its
children, and keeps those the automaton can follow. At the full statute book (184,316 states, 662,999
allowed tokens) the per-state walks took about 2 s of Python; the numpy sweep takes 0.25 s, origins
taken `_BATCH` at a time so that a round's arrays stay small, and C a third of that (the case
grammar's 849 states: 3.9 → 1.5 ms).

A pair is expanded from its smaller side: the trie node's edges looked up among the state's
transitions, or the state's transitions looked up among the node's edges (both sorted keys
`parent << 8 | byte`, searched by bisection). Only transitions the caller recorded are known: a pair
that reaches a state without them (`walkable` false: a free-text state, or one not explored) leaves
its origin `unfinished`, for the caller to walk one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from grammars.vocabulary import TokenTrie

_BATCH = 16_384  # origins swept together: a round's pairs stay a few megabytes (the full book: 12 batches)


class Transitions(NamedTuple):
    """An automaton's known byte transitions (DEAD left out): source state, byte, target state."""

    source: np.ndarray
    byte: np.ndarray
    target: np.ndarray


class SweptRows(NamedTuple):
    """Per origin its allowed tokens (sorted) and their next states, origins in increasing order:
    `origin[i]`, `token[i]`, `target[i]`; `unfinished` origins are left out of them."""

    origin: np.ndarray
    token: np.ndarray
    target: np.ndarray
    unfinished: np.ndarray


def _spread(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For groups of `counts` items: each item's group and its offset inside the group."""
    group = np.repeat(np.arange(len(counts)), counts)
    offset = np.arange(len(group)) - np.repeat(np.cumsum(counts) - counts, counts)
    return group, offset


def _lookup(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The position of each wanted key in the sorted `keys`, -1 where it is absent."""
    position = np.searchsorted(keys, wanted)
    inside = position < len(keys)
    found = np.zeros(len(wanted), dtype=bool)
    found[inside] = keys[position[inside]] == wanted[inside]
    return np.where(found, position, -1)


class SortedMoves(NamedTuple):
    """Transitions sorted by source state, then byte: state s's are `start[s]` .. `start[s + 1]`."""

    start: np.ndarray
    source: np.ndarray
    byte: np.ndarray
    target: np.ndarray


def sorted_moves(moves: Transitions, state_count: int) -> SortedMoves:
    by_key = np.argsort(moves.source.astype(np.int64) << 8 | moves.byte)
    source = moves.source[by_key]
    return SortedMoves(np.searchsorted(source, np.arange(state_count + 1)), source, moves.byte[by_key],
                       moves.target[by_key])


class TrieSweep:
    """The trie's edges and the automaton's transitions as sorted keys, made once; `rows` sweeps a
    batch of origins."""

    def __init__(self, trie: TokenTrie, moves: SortedMoves, walkable: np.ndarray) -> None:
        arrays = trie.arrays
        self.edge_start, self.edge_byte = arrays["edge_start"], arrays["edge_byte"]
        self.edge_child, self.token_start, self.order = arrays["edge_child"], arrays["token_start"], arrays["order"]
        self.edge_key = trie.edge_key
        self.move_start, self.move_byte, self.move_target = moves.start, moves.byte, moves.target
        self.move_key = moves.source.astype(np.int64) << 8 | self.move_byte
        self.move_count = np.diff(self.move_start)
        self.walkable = walkable

    def rows(self, origins: np.ndarray) -> SweptRows:
        """The allowed tokens and next states of every state in `origins` (sorted, each walkable)."""
        edge_start, edge_byte, edge_child = self.edge_start, self.edge_byte, self.edge_child
        token_start, walkable = self.token_start, self.walkable
        found_origin, found_token, found_target = [], [], []
        unfinished = np.zeros(len(walkable), dtype=bool)
        origin = origins.astype(np.int64)
        node = np.zeros(len(origin), dtype=np.int64)
        state = origin.copy()
        while len(origin):
            edges = edge_start[node + 1] - edge_start[node]
            by_edges = edges <= self.move_count[state]
            # the node's edges, each looked up among the state's transitions
            pair, offset = _spread(np.where(by_edges, edges, 0))
            edge = edge_start[node[pair]] + offset
            move = _lookup(self.move_key, state[pair] << 8 | edge_byte[edge])
            kept = move >= 0
            sides = [(pair[kept], edge_child[edge[kept]], self.move_target[move[kept]])]
            # the state's transitions, each looked up among the node's edges
            pair, offset = _spread(np.where(by_edges, 0, self.move_count[state]))
            move = self.move_start[state[pair]] + offset
            edge = _lookup(self.edge_key, node[pair] << 8 | self.move_byte[move])
            kept = edge >= 0
            sides.append((pair[kept], edge_child[edge[kept]], self.move_target[move[kept]]))
            pair = np.concatenate([side[0] for side in sides])
            child = np.concatenate([side[1] for side in sides])
            target = np.concatenate([side[2] for side in sides]).astype(np.int64)
            origin = origin[pair]
            unfinished[origin[~walkable[target]]] = True
            ending, offset = _spread(token_start[child + 1] - token_start[child])
            found_origin.append(origin[ending].astype(np.int32))
            found_token.append(self.order[token_start[child[ending]] + offset].astype(np.int32))
            found_target.append(target[ending].astype(np.int32))
            going = walkable[target] & (edge_start[child + 1] > edge_start[child])
            origin, node, state = origin[going], child[going], target[going]
        all_origin, all_token, all_target = (np.concatenate([*parts, np.empty(0, dtype=np.int32)])
                                             for parts in (found_origin, found_token, found_target))
        keep = ~unfinished[all_origin]
        all_origin, all_token, all_target = all_origin[keep], all_token[keep], all_target[keep]
        # (origin, token) pairs are distinct (a token ends at one trie node), so one int64 key sorts them as
        # lexsort would: 0.4 rather than 1.8 ms for the CASE grammar's 29,315 rows
        ranked = np.argsort(all_origin.astype(np.int64) << 32 | all_token)
        return SweptRows(all_origin[ranked], all_token[ranked], all_target[ranked], origins[unfinished[origins]])


# literal_walk.c's sweep (`LiteralWalker.sweep`): the sorted transitions, walkable, origins → SweptRows' arrays
NativeSweep = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                       tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


def sweep(trie: TokenTrie, origins: np.ndarray, moves: Transitions, walkable: np.ndarray,
          native: NativeSweep | None = None) -> SweptRows:
    """The allowed tokens and next states of every state in `origins` (sorted; each a constrained state
    whose transitions are all in `moves`, as `walkable` says per state): by `native`, the same walk in C
    origin by origin, where the process built it; else in numpy, `_BATCH` origins at a time so that the
    pairs of a round stay a few megabytes."""
    ordered = sorted_moves(moves, len(walkable))
    if native is not None:
        return SweptRows(*native(ordered.start, ordered.byte.astype(np.uint8), ordered.target, walkable,
                                 origins.astype(np.int64)))
    sweeper = TrieSweep(trie, ordered, walkable)
    parts = [sweeper.rows(origins[start : start + _BATCH]) for start in range(0, len(origins), _BATCH)]
    if not parts:
        parts = [sweeper.rows(origins)]
    return SweptRows(*(np.concatenate([getattr(part, field) for part in parts]) for field in SweptRows._fields))


def _fill_ranges(table: np.ndarray, order: np.ndarray, low: np.ndarray, high: np.ndarray,
                 values: np.ndarray | int) -> None:
    """`table[order[p]] = value` for every trie position p in each range `[low[i], high[i])`, the value
    `values[i]` (or one value for all)."""
    group, offset = _spread(high - low)
    table[order[low[group] + offset]] = values if isinstance(values, int) else values[group]


def walk_every_token(trie: TokenTrie, start: int, step: Callable[[int, int], int], dead: int,
                     table: np.ndarray) -> None:
    """`table[token] =` the state every text token leads to from `start` (`dead` where it dies), by one
    walk of the whole trie, a depth per round: the (state, byte) pairs a round meets are stepped once each
    (`step`, in Python), however many trie edges share them (a free-text state has a few states ahead for
    the vocabulary's ~250,000 edges); a dead edge's whole subtree is `dead` at once."""
    arrays = trie.arrays
    edge_start, edge_byte, edge_child = arrays["edge_start"], arrays["edge_byte"], arrays["edge_child"]
    token_start, token_end, order = arrays["token_start"], arrays["token_end"], arrays["order"]
    node = np.zeros(1, dtype=np.int64)
    state = np.full(1, start, dtype=np.int64)
    while len(node):
        pair, offset = _spread(edge_start[node + 1] - edge_start[node])
        edge = edge_start[node[pair]] + offset
        child = edge_child[edge]
        met, which = np.unique(state[pair] << 8 | edge_byte[edge], return_inverse=True)
        reached = np.fromiter((step(key >> 8, key & 0xFF) for key in met.tolist()), dtype=np.int64, count=len(met))
        target = reached[which]
        dies = target == dead
        _fill_ranges(table, order, token_start[child[dies]], token_end[child[dies]], dead)
        child, target = child[~dies], target[~dies]
        _fill_ranges(table, order, token_start[child], token_start[child + 1], target)  # tokens ending there
        going = edge_start[child + 1] > edge_start[child]
        node, state = child[going], target[going]


def joined_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Trie-order ranges sorted, touching ones joined: one list for one set of tokens, however the walk
    that found them split it (a dead subtree or its children one by one)."""
    joined: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if joined and low <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(high, joined[-1][1]))
        else:
            joined.append((low, high))
    return joined
