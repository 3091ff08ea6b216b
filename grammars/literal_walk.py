"""The token walk of a state inside a literal word in C (literal_walk.c), where a first visit spends its
time: a state inside an act's name or an article number walks the vocabulary's trie alongside the words
below it, and in Python each byte of that walk is a node step of the lazy automaton (~3 µs; a step into a
name allowing four tokens made six or seven states, 50 µs). The C walk returns the tokens that stay inside
a word with the literal node each ends at (the index makes their states only when a token is taken) and
hands back where a word ends, for the Python walk to go on with what follows the word. A state of several
literal nodes (after an article number: its branch, the paragraph's ` 제` and the item's) is a walk from
each, their rows merged (`merged_heads`) and their hand-offs joined where they meet (`hand_offs_of`).

A CPython extension built by the machine's compiler when a process first converts a tokenizer
(`grammars.native.build_extension`); where none works (or this interpreter's headers are missing)
`literal_walker` returns None, says why once, and the index walks in Python as before. The same extension
fills a state's row (`fill_row`) and sweeps a whole build's constrained states over the trie (`sweep`,
trie_sweep.c: grammars.sweep).
"""

from __future__ import annotations

import array
import ctypes
import logging
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from grammars.errors import NativeBuildError
from grammars.native import build_extension
from grammars.state_masks import UNWALKED

if TYPE_CHECKING:  # grammars.vocabulary makes the walker of its trie; grammars.literals' leaves keep their packed words
    from grammars.literals import LiteralLeaf
    from grammars.nfa import LiteralPart, Node
    from grammars.vocabulary import TokenTrie

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_suffix(".c")
# Word ends met in one walk before it gives up and the state is walked in Python: a state walks past a few
# (`민법 제` ends inside the token ` 제`; an article number ends at 조), none of the book's states near this
_HAND_CAPACITY = 4096
_Pointer = ctypes.c_void_p


_TRIE_ARRAYS = ("edge_start", "edge_byte", "edge_child", "token_start", "order")


class _Trie(ctypes.Structure):
    _fields_ = [(name, _Pointer) for name in _TRIE_ARRAYS]


class _Output(ctypes.Structure):
    _fields_ = [("found", _Pointer), ("rows", _Pointer), ("words", _Pointer), ("hand", _Pointer),
                ("hand_capacity", ctypes.c_int64), ("hand_count", ctypes.c_int64), ("word_count", ctypes.c_int64)]


# A literal leaf's sorted words as the C walk reads them: a bytes object holding their struct, offsets and bytes,
# and the struct's address; made by the extension (`LiteralWalker.walk`, once per leaf)
PackedWords = tuple[bytes, int]


class Walked(NamedTuple):
    """A walk's tokens that end inside a word: `head` is their ids (sorted), then the first word of the
    literal node each ends at, then its depth, then UNWALKED (room for the state each leads to), `token_count`
    of each, as one int32 array (what `advance` bisects, reads and fills); those tokens as a packed bitmask
    (word indices as intp, by which numpy fills a row ten times faster than by int32, and int32 values); and
    the hand-offs: (token-trie child, byte, first word, depth before it)."""

    token_count: int
    head: array.array[int]
    words: np.ndarray
    values: np.ndarray
    hand_offs: list[tuple[int, int, int, int]]


class _Buffers(threading.local):
    """One thread's output buffers (the walk runs without the GIL, so threads need their own): the address
    of their `_Output`, and it."""

    held: tuple[int, _Output] | None = None


class LiteralWalker:
    """literal_walk.c's extension bound to one vocabulary's token trie."""

    def __init__(self, extension: ModuleType, trie: TokenTrie, hand_capacity: int = _HAND_CAPACITY) -> None:
        self._function, self._pack = extension.walk, extension.pack
        # (row, words, values, base or None) → whether it filled the row: a state's packed words, in C
        self.fill_row: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None], bool] = extension.fill_row
        self._sweep = extension.sweep
        arrays = [np.ascontiguousarray(trie.arrays[name], dtype=np.uint8 if name == "edge_byte" else np.int32)
                  for name in _TRIE_ARRAYS]
        self._trie_arrays = arrays  # kept alive: the struct holds their addresses
        self._trie = _Trie(*(array.ctypes.data for array in arrays))
        self._trie_address = ctypes.addressof(self._trie)
        self._token_room = len(trie.arrays["order"])
        self._buffers = _Buffers()
        self.hand_capacity = hand_capacity

    def walk(self, leaf: LiteralLeaf, first: int, depth: int) -> Walked | None:
        """The walk from literal node (first, depth) of `leaf`, strictly inside a word; None where it met
        more word ends than it has room for."""
        held = self._buffers.held
        if held is None:
            held = self._buffers.held = self._allocate()
        words = leaf.packed
        if words is None:
            words = leaf.packed = self._pack(leaf.words)
        found = self._function(self._trie_address, words[1], first, depth, held[0])
        # tuple.__new__: a NamedTuple's own constructor is Python code, a fifth of the call around the walk
        return None if found is None else tuple.__new__(Walked, found)

    def sweep(self, move_start: np.ndarray, move_byte: np.ndarray, move_target: np.ndarray, walkable: np.ndarray,
              origins: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """`grammars.sweep.sweep`'s rows in C (trie_sweep.c), from the transitions sorted (`sorted_moves`: per
        state its start, one more at the end, as int64; bytes as uint8; targets as int32), `walkable` (bool per
        state) and the origins (int64, sorted): (origin, token, target) as int32 arrays, and the unfinished origins."""
        found: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] = self._sweep(
            self._trie_address, move_start, move_byte, move_target, walkable, origins)
        return found

    def _allocate(self) -> tuple[int, _Output]:
        """A thread's buffers: its scratch, rows and bitmask words, room for every token of the trie, and its
        hand-offs."""
        found = np.empty(4 * self._token_room, dtype=np.int32)  # C's Found: four int32 per token
        # 3 per token found and a value per bitmask word, a word per token at most (sparse ids: one each)
        rows = np.empty(4 * self._token_room, dtype=np.int32)
        mask_words = np.empty(self._token_room, dtype=np.intp)
        hand = np.empty(4 * self.hand_capacity, dtype=np.int32)
        output = _Output(found.ctypes.data, rows.ctypes.data, mask_words.ctypes.data, hand.ctypes.data,
                         self.hand_capacity, 0, 0)
        output.arrays = (found, rows, mask_words, hand)  # kept alive with it: it holds their addresses
        return ctypes.addressof(output), output


def hand_offs_of(parts: list[LiteralPart], walks: list[Walked], position: Callable[[tuple[Node, ...]], Any]
                 ) -> list[tuple[int, int, Any]]:
    """Where a word ends inside a token, what the index's Python walk goes on from: per token-trie node,
    the byte into it and the position of the literal nodes before that byte (one node from two parts, as
    ` 제` ends both the paragraph's word and the item's: one position with both)."""
    before: dict[tuple[int, int], list[Node]] = {}
    for (leaf, _, _), walked in zip(parts, walks, strict=True):
        for child, byte, first, depth in walked.hand_offs:
            before.setdefault((child, byte), []).append(leaf.node_at(first, depth))
    return [(child, byte, position(tuple(nodes))) for (child, byte), nodes in before.items()]


def merged_heads(parts: list[LiteralPart], walks: list[Walked]) -> tuple[list[Any], int]:
    """The C walks from several literal nodes as one row: its tokens (sorted), per token the nodes it reaches
    (one per node whose words it stays inside) and room for the state it leads to (UNWALKED); and their count."""
    reaches: dict[int, list[tuple[int, int, int]]] = {}
    for (leaf, _, _), walked in zip(parts, walks, strict=True):
        count, head, number = walked.token_count, walked.head, leaf.index
        for at in range(count):
            reaches.setdefault(head[at], []).append((number, head[count + at], head[2 * count + at]))
    tokens = sorted(reaches)
    return [*tokens, *(tuple(reaches[token]) for token in tokens), *[UNWALKED] * len(tokens)], len(tokens)


_built: list[ModuleType | None] = []  # the one build of this process, once tried
_building = threading.Lock()
_walkers: weakref.WeakKeyDictionary[TokenTrie, LiteralWalker] = weakref.WeakKeyDictionary()


def built_extension() -> ModuleType | None:
    """The extension where this process built it (its first conversion of a tokenizer does), else None."""
    return _built[0] if _built else None


def literal_walker(trie: TokenTrie) -> LiteralWalker | None:
    """The walker over `trie` (one per trie, not pickled with it); the extension is built by the process's
    first call, a fraction of a second. None where no C compiler works: said once, and states are walked in
    Python."""
    walker = _walkers.get(trie)
    if walker is not None:
        return walker
    if not _built:
        with _building:
            if not _built:
                try:
                    _built.append(build_extension(SOURCE))
                except NativeBuildError as error:
                    log.warning("states inside words are walked in Python, slower on a first visit: %s", error)
                    _built.append(None)
    extension = _built[0]
    if extension is None:
        return None
    walker = _walkers.setdefault(trie, LiteralWalker(extension, trie))
    return walker
