"""Sparse packed bitmasks of token-id sets (xgrammar's layout: int32 words, bit j of word i is token
32·i+j, 1 = allowed)."""

from __future__ import annotations

import numpy as np

_SMALL_SET = 64  # pack_bits: up to this many ids in Python


def pack_bits(token_ids: np.ndarray | list[int], word_count: int) -> tuple[np.ndarray, np.ndarray]:
    """Sparse packed bitmask of a set of token ids (each below 32 * word_count): (word indices, int32
    word values). Works on the ids alone, never on a whole row: most sets are a few dozen ids, packed
    in Python faster than numpy's per-call overhead allows."""
    if len(token_ids) <= _SMALL_SET:
        packed: dict[int, int] = {}
        for token in token_ids.tolist() if isinstance(token_ids, np.ndarray) else token_ids:
            packed[token >> 5] = packed.get(token >> 5, 0) | 1 << (token & 31)
        indices = sorted(packed)
        return (np.asarray(indices, dtype=np.intp),
                np.asarray([packed[w] for w in indices], dtype=np.uint32).view(np.int32))
    # sorted, not np.unique: a repeated id sets its bit twice, and np.unique imports numpy.ma on its
    # first call in a process (15-30 ms, paid by a process's first large mask)
    ids = np.sort(np.asarray(token_ids, dtype=np.int64))
    if not len(ids):
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.int32)
    words = ids >> 5
    starts = np.flatnonzero(np.concatenate(([True], words[1:] != words[:-1])))
    values = np.bitwise_or.reduceat(np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)), starts)
    return words[starts].astype(np.intp), values.view(np.int32)
