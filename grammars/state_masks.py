"""What a token index keeps per state it has computed (grammars.index): a free state's rejected tokens or a
constrained state's allowed ones, as a packed bitmask, and where each token leads."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from grammars.literals import LiteralLeaf

# a token's next state not made yet: in a C walk's head (`literal`), and in a base state's table (grammars.index)
UNWALKED = -3
_NO_IDS = np.empty(0, dtype=np.int32)  # the next tokens and states of a free state (it stores none)
_NO_IDS.setflags(write=False)


class StateMasks:
    __slots__ = (
        "base",
        "dense",
        "divergence",
        "free",
        "literal",
        "literal_count",
        "literal_leaf",
        "next",
        "next_states",
        "next_tokens",
        "packed",
        "unconstrained",
        "walks",
    )

    def __init__(self, free: bool, packed: tuple[np.ndarray, np.ndarray] | None) -> None:
        self.free = free
        # The indices of the bitmask words that differ from the base row, and their values. None for a
        # constrained state until its mask is first filled: packed from `next_tokens` then, so a full
        # build (which stores the tokens alone) never makes them.
        self.packed = packed
        # constrained, where its words reach 1/_DENSE_SHARE of the row: the whole row, which one copy fills
        # (the state after `NAME 제` of an act with hundreds of articles); `packed` is then empty
        self.dense: np.ndarray | None = None
        # constrained: the allowed tokens (sorted) and their next states, as int32 arrays; `next` is the
        # same as a dict, made on the first advance (a full build stores arrays only)
        self.next_tokens: np.ndarray = _NO_IDS
        self.next_states: np.ndarray = _NO_IDS
        self.next: dict[int, int] | None = None
        self.base: int | None = None  # free: the plain free-text state it steps like outside `divergence`
        self.divergence: frozenset[int] | None = None  # free: first bytes not answered by the base table
        self.walks: dict[int, int] | None = None  # free: next states of tokens walked from this state
        # a row the C walk found (`TokenIndex._literal_masks`): the walk's head, an int32 array (its tokens, then
        # the first word and the depth of the literal node each ends at, then the state each leads to, UNWALKED
        # until `advance` takes it), their count and the leaf; `next` then holds the hand-offs' tokens only.
        # Walks from several nodes: leaf None, and the head a list of the tokens, the nodes each reaches, the
        # states. Slots rather than a tuple: a first visit makes fewer objects for the collector to count and walk.
        self.literal: MutableSequence[Any] | None = None
        self.literal_count = 0
        self.literal_leaf: LiteralLeaf | None = None
        self.unconstrained = free and packed is not None and not len(packed[0])
