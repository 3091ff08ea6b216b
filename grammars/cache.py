"""On-disk cache of compiled indexes, keyed by grammar hash + compiler source hash + vocabulary hash.

An index is stored only once every reachable state has been computed (`TokenIndex.build_all`), as
flat numpy arrays in one `.npz` file; loading it is a file read, no Python object per state. States
come back to life one at a time, on first use. Files:
- `trie-<vocabulary>.npz`: the vocabulary's byte trie, shared by every grammar;
- `index-<grammar>-<vocabulary>.npz`: the automaton's byte transitions and flags, and per state the
  sparse bitmask, the allowed tokens with their next states (inside citations) or the base and the
  divergence bytes (free text), plus each base free state's next state for every token.
Both are written atomically (temporary file, then rename). A file that cannot be read is logged and
ignored: the index is compiled again.
"""

from __future__ import annotations

import array
import dataclasses
import hashlib
import logging
import zipfile
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from grammars.dfa import ALL_BYTES, DEAD, FREE, ByteWalker, LazyDFA
from grammars.errors import GrammarError
from grammars.expr import Literals
from grammars.index import StateMasks, TokenIndex
from grammars.patterns import COMPILER, write_atomically
from grammars.vocabulary import TokenTrie, Vocabulary

if TYPE_CHECKING:
    from hashlib import _Hash

log = logging.getLogger(__name__)
_T = TypeVar("_T")

_COMPILER = COMPILER  # a module global, so that a test can stand another compiler in


def grammar_key(grammar: object, compiler: str | None = None) -> str:
    """A stable hash of a grammar value (Expr trees and grammars are frozen dataclasses of tuples) and
    of the compiler (`compiler_digest()` unless given)."""
    digest = hashlib.sha256((_COMPILER() if compiler is None else compiler).encode() + b":")
    _feed(digest, grammar)
    return digest.hexdigest()[:32]


def _feed(digest: _Hash, value: object) -> None:
    """Hash a grammar value the way its repr would distinguish it, without building the repr (hundreds of
    megabytes of text for the statute book's 395,666 article words): a Literals set as its words' lengths
    and their joined bytes, dataclasses field by field, tuples item by item, anything else by repr."""
    if isinstance(value, Literals):
        digest.update(b"Literals%d(" % len(value.words))
        digest.update(array.array("q", map(len, value.words)).tobytes())
        digest.update("".join(value.words).encode())
        digest.update(b")")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        digest.update(type(value).__qualname__.encode() + b"(")
        for field in dataclasses.fields(value):
            _feed(digest, getattr(value, field.name))
        digest.update(b")")
    elif isinstance(value, tuple):
        digest.update(b"(%d:" % len(value))
        for item in value:
            _feed(digest, item)
        digest.update(b")")
    else:
        digest.update(repr(value).encode() + b";")


def _write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    write_atomically(path, lambda stream: np.savez(stream, **arrays))  # type: ignore[arg-type]  # numpy's stub lets **arrays reach allow_pickle


def _read(path: Path) -> dict[str, np.ndarray] | None:
    if not path.exists():
        return None
    try:
        with np.load(path) as stored:
            return {name: stored[name] for name in stored.files}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        log.warning("ignoring unreadable cache file %s: %s", path, error)
        return None


def attach_trie(vocabulary: Vocabulary, cache_dir: Path) -> None:
    """Give the vocabulary its trie from the cache, or build it and store it there."""
    if "trie" in vocabulary.__dict__:
        return
    path = Path(cache_dir) / f"trie-{vocabulary.fingerprint}.npz"
    arrays = _read(path)
    if arrays is not None:
        vocabulary.__dict__["trie"] = TokenTrie(arrays)
        return
    _write_arrays(path, vocabulary.trie.arrays)


def index_path(cache_dir: Path, key: str) -> Path:
    return Path(cache_dir) / f"index-{key}.npz"


def _csr(rows: Sequence[Collection[_T]]) -> tuple[np.ndarray, list[_T]]:
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=starts[1:])
    return starts, [x for r in rows for x in r]


def freeze(index: TokenIndex) -> dict[str, np.ndarray]:
    """The arrays of a completely built index."""
    if not index.complete:
        raise GrammarError("expected a completely built index (run build_all), got a partial one")
    automaton = index.automaton
    if not isinstance(automaton, LazyDFA):
        raise GrammarError(f"expected an index built in this process, got one over a {type(automaton).__name__}")
    count = automaton.state_count
    masks = [index.masks(state) for state in range(count)]
    rows = [sorted(automaton.transitions(state).items()) for state in range(count)]
    row_start, row_items = _csr(rows)
    mask_start, _ = _csr([m.words for m in masks])
    constrained = [m for m in masks if not m.free]
    next_start = np.zeros(count + 1, dtype=np.int64)
    np.cumsum([0 if m.free else len(m.next_tokens) for m in masks], out=next_start[1:])
    divergences = [m.divergence for m in masks]
    div_start, div_items = _csr([sorted(d) if d is not None else [] for d in divergences])
    bases = [automaton.base_of(state) for state in range(count)]
    base_states = sorted(automaton.between_characters())  # the other bases' tables refill as tokens come
    return {
        "meta": np.asarray([automaton.initial, int(automaton.free_text), index.vocab_size], dtype=np.int64),
        "anchor_final_bytes": np.asarray(sorted(automaton.anchor_final_bytes), dtype=np.uint8),
        "flags": np.asarray([automaton.flags(s) for s in range(count)], dtype=np.uint8),
        "accepting": np.asarray([automaton.is_accepting(s) for s in range(count)], dtype=bool),
        "row_start": row_start,
        "row_bytes": np.asarray([b for b, _ in row_items], dtype=np.uint8),
        "row_targets": np.asarray([t for _, t in row_items], dtype=np.int32),
        "mask_free": np.asarray([m.free for m in masks], dtype=bool),
        "mask_start": mask_start,
        "mask_words": np.concatenate([m.words for m in masks]).astype(np.int32),
        "mask_values": np.concatenate([m.values for m in masks]).astype(np.int32),
        "next_start": next_start,
        "next_tokens": np.concatenate([np.empty(0, np.int32)] + [m.next_tokens for m in constrained]),
        "next_states": np.concatenate([np.empty(0, np.int32)] + [m.next_states for m in constrained]),
        "div_all": np.asarray([d is None for d in divergences], dtype=bool),
        "div_start": div_start,
        "div_bytes": np.asarray(div_items, dtype=np.uint8),
        "base_of": np.asarray([-1 if base is None else base for base in bases], dtype=np.int32),
        "base_states": np.asarray(base_states, dtype=np.int32),
        "base_next": np.asarray([np.frombuffer(index.base_next[b], dtype=np.int32) for b in base_states],
                                dtype=np.int32).reshape(len(base_states), index.vocab_size),
    }


class FrozenDFA(ByteWalker):
    """A completely explored automaton read back from arrays: the LazyDFA interface without the
    subset construction. A byte missing from a state's row is DEAD, or for free text whatever its
    base free state does (the row holds every byte on which it differs)."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.initial, free_text, _ = (int(x) for x in arrays["meta"])
        self.free_text = bool(free_text)
        self._base_of = array.array("i", arrays["base_of"].astype(np.int32).tobytes())
        self._between_characters = tuple(arrays["base_states"].tolist())
        self.anchor_final_bytes = frozenset(arrays["anchor_final_bytes"].tolist())
        self._arrays = arrays
        self._flags = array.array("B", arrays["flags"].tobytes())
        self._accepting = array.array("B", arrays["accepting"].astype(np.uint8).tobytes())
        self._rows: dict[int, dict[int, int]] = {}

    @property
    def state_count(self) -> int:
        return len(self._flags)

    def _row(self, state: int) -> dict[int, int]:
        row = self._rows.get(state)
        if row is None:
            start, end = self._arrays["row_start"][state : state + 2]
            labels, targets = self._arrays["row_bytes"][start:end], self._arrays["row_targets"][start:end]
            row = dict(zip(labels.tolist(), targets.tolist(), strict=True))
            self._rows[state] = row
        return row

    def step(self, state: int, byte: int) -> int:
        found = self._row(state).get(byte)
        if found is not None:
            return found
        base = self._base_of[state]
        if base >= 0 and base != state:
            return self.step(base, byte)
        return DEAD

    def base_of(self, state: int) -> int | None:
        base = self._base_of[state]
        return None if base < 0 else base

    def between_characters(self) -> tuple[int, ...]:
        return self._between_characters

    def is_accepting(self, state: int) -> bool:
        return bool(self._accepting[state])

    def flags(self, state: int) -> int:
        return self._flags[state]

    def live_bytes(self, state: int) -> frozenset[int]:
        if self._flags[state] & FREE:
            return ALL_BYTES
        return frozenset(b for b, t in self._row(state).items() if t != DEAD)

    def divergence(self, state: int) -> frozenset[int] | None:
        if self._arrays["div_all"][state]:
            return None
        start, end = self._arrays["div_start"][state : state + 2]
        return frozenset(self._arrays["div_bytes"][start:end].tolist())


class StoredMasks:
    """Per-state masks of a frozen index, materialised on first use."""

    def __init__(self, arrays: dict[str, np.ndarray], automaton: FrozenDFA) -> None:
        self._arrays = arrays
        self._automaton = automaton

    def masks(self, state: int) -> StateMasks:
        a = self._arrays
        start, end = a["mask_start"][state : state + 2]
        masks = StateMasks(
            bool(a["mask_free"][state]), a["mask_words"][start:end].astype(np.intp), a["mask_values"][start:end]
        )
        if masks.free:
            masks.base = self._automaton.base_of(state)
            masks.divergence = self._automaton.divergence(state)
        else:
            start, end = a["next_start"][state : state + 2]
            masks.next_tokens, masks.next_states = a["next_tokens"][start:end], a["next_states"][start:end]
        return masks


def load_index(cache_dir: Path, key: str, vocabulary: Vocabulary) -> TokenIndex | None:
    arrays = _read(index_path(cache_dir, key))
    if arrays is None:
        return None
    attach_trie(vocabulary, Path(cache_dir))
    automaton = FrozenDFA(arrays)
    index = TokenIndex(automaton, vocabulary, key)
    index.stored = StoredMasks(arrays, automaton)
    index.complete = True
    index.base_next = {
        int(base): array.array("i", row.tobytes())
        for base, row in zip(arrays["base_states"], arrays["base_next"], strict=True)
    }
    return index


def save_index(index: TokenIndex, cache_dir: Path) -> Path:
    """Build every state that is still missing, then store the index."""
    if not index.key:
        raise GrammarError("expected an index compiled with cache_dir (it has no cache key), got one without")
    path = index_path(cache_dir, index.key)
    if index.stored is not None and path.exists():
        return path  # it was loaded from there
    index.build_all()
    _write_arrays(path, freeze(index))
    return path
