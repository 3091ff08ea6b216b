"""The vocabulary's trie swept against many constrained states at once, for a whole-index build.

What `TokenIndex._constrained_walk` does for one state (walk the trie along the automaton's
transitions, collect the tokens that end on the way and the state each reaches) is done here for all
of them together, one trie depth per round, on numpy arrays: a round takes every (origin, trie node,
state) pair still going, pairs each with its children, and keeps those the automaton can follow. At
the statute book's 184,316 states a per-state walk costs about 10 µs of Python each; the sweep's
rounds cost a few numpy calls over all pairs of a depth.

A pair is expanded from its smaller side: the trie node's edges looked up among the state's
transitions, or the state's transitions looked up among the node's edges (both sorted keys
`parent << 8 | byte`, searched by bisection). Only transitions the caller recorded are known: a pair
that reaches a state without them (`walkable` false: a free-text state, or one not explored) leaves
its origin `unfinished`, for the caller to walk one by one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from grammars.vocabulary import TokenTrie


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


def sweep(trie: TokenTrie, origins: np.ndarray, moves: Transitions, walkable: np.ndarray) -> SweptRows:
    """The allowed tokens and next states of every state in `origins` (each a constrained state whose
    transitions are all in `moves`, as `walkable` says per state)."""
    arrays = trie.arrays
    edge_start, edge_byte, edge_child = arrays["edge_start"], arrays["edge_byte"], arrays["edge_child"]
    token_start, order = arrays["token_start"], arrays["order"]
    edge_key = np.repeat(np.arange(len(edge_start) - 1), np.diff(edge_start)) << 8 | edge_byte
    by_key = np.argsort(moves.source.astype(np.int64) << 8 | moves.byte)
    move_source, move_byte, move_target = moves.source[by_key], moves.byte[by_key], moves.target[by_key]
    move_key = move_source.astype(np.int64) << 8 | move_byte
    move_start = np.searchsorted(move_source, np.arange(len(walkable) + 1))
    move_count = np.diff(move_start)
    found_origin, found_token, found_target = [], [], []
    unfinished = np.zeros(len(walkable), dtype=bool)
    origin = origins.astype(np.int64)
    node = np.zeros(len(origin), dtype=np.int64)
    state = origin.copy()
    while len(origin):
        edges = edge_start[node + 1] - edge_start[node]
        by_edges = edges <= move_count[state]
        # the node's edges, each looked up among the state's transitions
        pair, offset = _spread(np.where(by_edges, edges, 0))
        edge = edge_start[node[pair]] + offset
        move = _lookup(move_key, state[pair] << 8 | edge_byte[edge])
        kept = move >= 0
        sides = [(pair[kept], edge_child[edge[kept]], move_target[move[kept]])]
        # the state's transitions, each looked up among the node's edges
        pair, offset = _spread(np.where(by_edges, 0, move_count[state]))
        move = move_start[state[pair]] + offset
        edge = _lookup(edge_key, node[pair] << 8 | move_byte[move])
        kept = edge >= 0
        sides.append((pair[kept], edge_child[edge[kept]], move_target[move[kept]]))
        pair = np.concatenate([side[0] for side in sides])
        child = np.concatenate([side[1] for side in sides])
        target = np.concatenate([side[2] for side in sides]).astype(np.int64)
        origin = origin[pair]
        unfinished[origin[~walkable[target]]] = True
        ending, offset = _spread(token_start[child + 1] - token_start[child])
        found_origin.append(origin[ending])
        found_token.append(order[token_start[child[ending]] + offset])
        found_target.append(target[ending])
        going = walkable[target] & (edge_start[child + 1] > edge_start[child])
        origin, node, state = origin[going], child[going], target[going]
    all_origin = np.concatenate(found_origin) if found_origin else np.empty(0, dtype=np.int64)
    all_token = np.concatenate(found_token) if found_token else np.empty(0, dtype=np.int64)
    all_target = np.concatenate(found_target) if found_target else np.empty(0, dtype=np.int64)
    keep = ~unfinished[all_origin]
    all_origin, all_token, all_target = all_origin[keep], all_token[keep], all_target[keep]
    ranked = np.lexsort((all_token, all_origin))
    return SweptRows(all_origin[ranked], all_token[ranked], all_target[ranked], origins[unfinished[origins]])
