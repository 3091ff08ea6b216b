"""On-disk cache of compiled indexes, keyed by grammar hash + compiler source hash + vocabulary hash.

An index is stored only once every reachable state has been computed (`TokenIndex.build_all`), as
flat numpy arrays in one file (grammars.array_file); loading it is a file read, no Python object per
state. States come back to life one at a time, on first use. Files:
- `trie-<vocabulary>.arrays`: the vocabulary's byte trie, shared by every grammar;
- `index-<grammar>-<vocabulary>.arrays`: the automaton's byte transitions and flags, and per state the
  allowed tokens with their next states (inside citations: the bitmask is rebuilt from them) or the
  sparse bitmask, the base and the divergence bytes (free text), plus each base free state's next
  state for every token. Per-state item counts are stored in the narrowest type that holds them.
Both are written atomically (temporary file, then rename). A file that cannot be read is logged and
ignored: the index is compiled again. Files of the `.npz` format used before, and indexes neither written
nor loaded for UNUSED_INDEX_DAYS (a load marks the file's time), are removed once a file is written
beside them: a service storing one per lexicon it compiled does not fill its disk.
"""

from __future__ import annotations

import array
import contextlib
import dataclasses
import hashlib
import itertools
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import interegular
import numpy as np

from grammars.array_file import read_arrays, write_arrays
from grammars.collector import collector_paused
from grammars.dfa import ALL_BYTES, DEAD, FREE, ByteWalker, LazyDFA
from grammars.errors import GrammarError
from grammars.expr import Deferred, Literals
from grammars.grammar import CitationGrammar
from grammars.index import TokenIndex
from grammars.patterns import COMPILER, write_atomically
from grammars.state_masks import UNWALKED, StateMasks
from grammars.vocabulary import TokenTrie, Vocabulary

log = logging.getLogger(__name__)

_COMPILER = COMPILER  # a module global, so that a test can stand another compiler in
UNUSED_INDEX_DAYS = 30  # an index file neither written nor loaded for this long is removed
_REGEX_LIBRARY = f"interegular {interegular.__version__}".encode()


def grammar_key(grammar: object, compiler: str | None = None) -> str:
    """A stable hash of a grammar value (Expr trees and grammars are frozen dataclasses of tuples) and
    of the compiler (`compiler_digest()` unless given). A citation grammar that names its recipe
    (grammar.made_by: its builder and its lexicon's digest) is hashed as that recipe: with the compiler,
    which holds the builder's source, it determines the grammar."""
    # and the regex library's version: it compiles the Regex leaves, so another release may make other automata
    parts = [(_COMPILER() if compiler is None else compiler).encode() + b":" + _REGEX_LIBRARY + b":"]
    _feed(parts, grammar)
    return hashlib.sha256(b"".join(parts)).hexdigest()[:32]


def index_key(grammar: object, vocabulary: Vocabulary) -> str:
    """The key a grammar's index over a vocabulary is stored under."""
    return f"{grammar_key(grammar)}-{vocabulary.fingerprint}"


def _feed(parts: list[bytes], value: object) -> None:
    """Spell a grammar value for the hash as its repr would distinguish it, without building the repr
    (hundreds of megabytes of text for the statute book's 395,666 article words): a Literals set as its
    words joined by NUL (should a word hold a NUL, as their lengths and their joined bytes), dataclasses
    field by field, tuples item by item, anything else by repr. One hash update over all the parts."""
    if isinstance(value, Literals):
        words = value.words
        joined = "\0".join(words)
        if joined.count("\0") == len(words) - 1:  # no word holds the separator: the words split back
            parts.append(b"Literals%d:" % len(words))
        else:
            parts.append(b"Literals%d(" % len(words))
            parts.append(array.array("q", map(len, words)).tobytes())
            joined = "".join(words)
        parts.append(joined.encode())
        parts.append(b")")
    elif isinstance(value, Deferred):  # spelled as what it makes: its key may be a set, in no stable order
        _feed(parts, value.expr())
    elif isinstance(value, CitationGrammar) and value.recipe:  # it names what made it: no need to read it
        parts.append(b"CitationGrammar:" + value.recipe.encode() + b";")
    elif isinstance(value, tuple):
        parts.append(b"(%d:" % len(value))
        for item in value:
            _feed(parts, item)
        parts.append(b")")
    else:
        names = _field_names(type(value))
        if names is None:
            parts.append(repr(value).encode() + b";")
            return
        parts.append(type(value).__qualname__.encode() + b"(")
        for name in names:
            _feed(parts, getattr(value, name))
        parts.append(b")")


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    """A dataclass's field names that its equality reads (not a grammar's warm citations, which leave its language
    as it is), looked up once per type (a statute grammar has some 20,000 nodes); None for another type."""
    if kind not in _FIELD_NAMES:
        fields = dataclasses.fields(kind) if dataclasses.is_dataclass(kind) else None
        _FIELD_NAMES[kind] = None if fields is None else tuple(field.name for field in fields if field.compare)
    return _FIELD_NAMES[kind]


def _write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    write_atomically(path, lambda stream: write_arrays(stream, arrays))
    _drop_unused(path.parent)


def _drop_unused(cache_dir: Path) -> None:
    """Once a file is written, remove those no process will read: the trie and index files of the `.npz`
    format this cache used before, and indexes neither written nor loaded for UNUSED_INDEX_DAYS (a service
    stores one per lexicon it compiled, 10-30 MiB each, a new one after each import that moved it)."""
    unused_since = time.time() - UNUSED_INDEX_DAYS * 86_400
    old_format = [*cache_dir.glob("trie-*.npz"), *cache_dir.glob("index-*.npz")]
    for stale in [*old_format, *cache_dir.glob("index-*.arrays")]:
        try:
            if stale.suffix == ".npz" or stale.stat().st_mtime < unused_since:
                stale.unlink()
                log.info("removed %s, a cache file no longer read", stale)
        except OSError as error:  # gone already (another process), or not ours to remove: left
            log.debug("left %s: %s", stale, error)


def _read(path: Path, problem: Callable[[dict[str, np.ndarray]], str | None]) -> dict[str, np.ndarray] | None:
    """The arrays of a cache file; None, logged, where it cannot be read or `problem` finds them unfit (the
    entry is then made again)."""
    if not path.exists():
        return None
    try:
        arrays = read_arrays(path)
    except (OSError, ValueError) as error:
        log.warning("ignoring unreadable cache file %s: %s", path, error)
        return None
    found = problem(arrays)
    if found is not None:
        log.warning("ignoring unusable cache file %s: expected %s", path, found)
        return None
    return arrays


def _missing(arrays: dict[str, np.ndarray], names: Iterable[str]) -> str | None:
    absent = [name for name in names if name not in arrays]
    return f"arrays {', '.join(absent)} in it, found none" if absent else None


def attach_trie(vocabulary: Vocabulary, cache_dir: Path) -> None:
    """Give the vocabulary its trie from the cache, or build it and store it there (where the folder cannot
    be written, the trie is kept in memory, with a warning)."""
    if "trie" in vocabulary.__dict__:
        return
    # named by the code too: a trie of other code may hold other arrays, or the same names meaning otherwise
    path = Path(cache_dir) / f"trie-{vocabulary.fingerprint}-{_COMPILER()[:16]}.arrays"
    arrays = _read(path, lambda found: _missing(found, _TRIE_ARRAYS))
    if arrays is not None:
        vocabulary.__dict__["trie"] = TokenTrie(arrays)
        return
    try:
        _write_arrays(path, vocabulary.trie.arrays)
    except OSError as error:
        log.warning("kept the vocabulary's trie in memory: could not store it in %s (%s)", cache_dir, error)


_TRIE_ARRAYS = ("edge_start", "edge_byte", "edge_child", "token_start", "token_end", "order", "first_byte", "blob",
                "offset", "length")


def index_path(cache_dir: Path, key: str) -> Path:
    return Path(cache_dir) / f"index-{key}.arrays"


def _counts(sizes: Iterable[int], count: int) -> np.ndarray:
    """Per-state item counts in the narrowest unsigned type that holds them (starts are summed on load)."""
    return _narrow(np.fromiter(sizes, dtype=np.int64, count=count))


def _narrow(counts: np.ndarray) -> np.ndarray:
    return counts.astype(np.min_scalar_type(int(counts.max(initial=0))))


def _starts(counts: np.ndarray) -> np.ndarray:
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts.astype(np.int64), out=starts[1:])  # widened first: a cumsum that casts is 4x slower
    return starts


def _joined(parts: Sequence[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)


def _mask_rows(masks: list[StateMasks | None]) -> np.ndarray:
    """Per free state the state whose stored row it reads: the first holding an equal row, so each distinct
    row is stored once. Most states inside a name hold their base's very arrays (TokenIndex._free_masks),
    compared once per object; the statute book's answer language (DeepSeek's vocabulary) has 2,071
    distinct rows among the 6,334 other states."""
    mask_row = np.arange(len(masks), dtype=np.int32)
    by_object: dict[int, int] = {}  # id of a packed pair (the masks keep it alive) → the state whose row it is
    by_value: dict[tuple[bytes, bytes], int] = {}
    for state, m in enumerate(masks):
        if m is None or m.packed is None:
            continue
        owner = by_object.get(id(m.packed))
        if owner is None:
            key = (m.packed[0].tobytes(), m.packed[1].tobytes())
            owner = by_object[id(m.packed)] = by_value.setdefault(key, state)
        mask_row[state] = owner
    return mask_row


def freeze(index: TokenIndex) -> dict[str, np.ndarray]:
    """The arrays of a completely built index. Per state only what cannot be derived: a constrained
    state's bitmask is its allowed tokens (and EOS where it accepts), rebuilt on load; a state without
    a base free state has no divergence; item counts rather than start offsets, in narrow types."""
    if not index.complete:
        raise GrammarError("expected a completely built index (run build_all), got a partial one")
    automaton = index.automaton
    if not isinstance(automaton, LazyDFA):
        raise GrammarError(f"expected an index built in this process, got one over a {type(automaton).__name__}")
    count = automaton.state_count
    masks = [index.masks(state) if automaton.flags(state) & FREE else None for state in range(count)]
    next_count, next_tokens, next_states = index.constrained_rows()
    table = automaton.transitions()
    keys = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
    order = np.argsort(keys, kind="stable")  # by state, then byte
    keys = keys[order]
    mask_row = _mask_rows(masks)
    free = [m for state, m in enumerate(masks) if m is not None and mask_row[state] == state]
    bases = [automaton.base_of(state) for state in range(count)] if automaton.free_text else []
    divergences = [sorted(m.divergence) if m is not None and m.divergence is not None else () for m in masks]
    base_states = sorted(automaton.between_characters())  # the other bases' tables refill as tokens come
    return {
        "meta": np.asarray([automaton.initial, int(automaton.free_text), index.vocab_size], dtype=np.int64),
        "final_char_bytes": np.frombuffer(b"".join(sorted(automaton.anchor_final_chars)), dtype=np.uint8),
        "final_char_lengths": np.asarray([len(c) for c in sorted(automaton.anchor_final_chars)], dtype=np.uint8),
        "flags": np.fromiter(map(automaton.flags, range(count)), dtype=np.uint8, count=count),
        "accepting": np.fromiter(map(automaton.is_accepting, range(count)), dtype=bool, count=count),
        "row_count": _narrow(np.bincount(keys >> 8, minlength=count)),
        "row_bytes": (keys & 0xFF).astype(np.uint8),
        "row_targets": np.fromiter(table.values(), dtype=np.int32, count=len(table))[order],
        "mask_count": _counts((len(m.packed[0]) if m is not None and m.packed and mask_row[state] == state else 0
                               for state, m in enumerate(masks)), count),
        # empty where every state reads its own row (a citation grammar, which has no free row at all)
        "mask_row": mask_row if (mask_row != np.arange(count)).any() else np.empty(0, np.int32),
        "mask_words": _joined([m.packed[0] for m in free if m.packed], np.int32),
        "mask_values": _joined([m.packed[1] for m in free if m.packed], np.int32),
        "next_count": _narrow(next_count),
        "next_tokens": next_tokens,
        "next_states": next_states,
        "div_count": _counts(map(len, divergences), count),
        "div_bytes": np.fromiter(itertools.chain.from_iterable(divergences), dtype=np.uint8),
        "base_of": np.asarray([-1 if base is None else base for base in bases], dtype=np.int32),
        "base_states": np.asarray(base_states, dtype=np.int32),
        "base_next": np.asarray([np.frombuffer(index.base_next[b], dtype=np.int32) for b in base_states],
                                dtype=np.int32).reshape(len(base_states), index.vocab_size),
    }


class FrozenDFA(ByteWalker):
    """A completely explored automaton read back from arrays: the LazyDFA interface without the
    subset construction. A byte missing from a state's row is DEAD, or for free text whatever its
    base free state does (the row holds every byte on which it differs). A state has a divergence
    exactly when it has a base."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.initial, free_text, _ = (int(x) for x in arrays["meta"])
        self.free_text = bool(free_text)
        self._flags = array.array("B", arrays["flags"].tobytes())
        count = len(self._flags)
        self._base_of = (array.array("i", arrays["base_of"].astype(np.int32).tobytes()) if self.free_text
                         else array.array("i", [-1]) * count)
        self._between_characters = tuple(arrays["base_states"].tolist())
        finals, ends = arrays["final_char_bytes"].tobytes(), _starts(arrays["final_char_lengths"]).tolist()
        self.anchor_final_chars = frozenset(finals[start:end] for start, end in itertools.pairwise(ends))
        self._arrays = arrays
        self._row_start = _starts(arrays["row_count"])
        self._div_start = _starts(arrays["div_count"])
        self._accepting = array.array("B", arrays["accepting"].astype(np.uint8).tobytes())
        self._rows: dict[int, dict[int, int]] = {}

    @property
    def state_count(self) -> int:
        return len(self._flags)

    def _row(self, state: int) -> dict[int, int]:
        row = self._rows.get(state)
        if row is None:
            start, end = self._row_start[state : state + 2]
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
        if self._base_of[state] < 0:
            return None
        start, end = self._div_start[state : state + 2]
        return frozenset(self._arrays["div_bytes"][start:end].tolist())

    def divergence_between(self, state: int, other: int) -> frozenset[int] | None:
        return None  # complete: no state of it is computed again


class StoredMasks:
    """Per-state masks of a frozen index, materialised on first use."""

    def __init__(self, arrays: dict[str, np.ndarray], automaton: FrozenDFA) -> None:
        self._arrays = arrays
        self._automaton = automaton
        self._mask_start = _starts(arrays["mask_count"])
        self._next_start = _starts(arrays["next_count"])

    def masks(self, state: int) -> StateMasks:
        a = self._arrays
        if self._automaton.flags(state) & FREE:
            row_of = a["mask_row"][state] if len(a["mask_row"]) else state
            start, end = self._mask_start[row_of : row_of + 2]
            masks = StateMasks(True, (a["mask_words"][start:end].astype(np.intp), a["mask_values"][start:end]))
            masks.base = self._automaton.base_of(state)
            masks.divergence = self._automaton.divergence(state)
            return masks
        start, end = self._next_start[state : state + 2]
        masks = StateMasks(False, None)  # packed from its tokens when first filled
        masks.next_tokens, masks.next_states = a["next_tokens"][start:end], a["next_states"][start:end]
        return masks


def _index_problem(arrays: dict[str, np.ndarray], vocabulary: Vocabulary) -> str | None:
    """What makes stored index arrays unfit for `vocabulary` (None: nothing): every array `freeze` writes,
    per-state arrays one item per state, item counts that add up to their items, states, tokens and words
    within their ranges. A file that passes its checksum yet fails here was written by other code."""
    missing = _missing(arrays, _INDEX_ARRAYS)
    if missing is not None:
        return missing
    a = arrays
    if a["meta"].shape != (3,):
        return f"meta of 3 numbers, got shape {a['meta'].shape}"
    initial, free_text, vocab_size = (int(x) for x in a["meta"])
    count, word_count = len(a["flags"]), (vocab_size + 31) // 32
    checks = {
        f"an index over {vocabulary.size} tokens, got one over {vocab_size}": vocab_size == vocabulary.size,
        f"the initial state among {count}, got {initial}": 0 <= initial < count,
        "one item per state in every per-state array": all(
            len(a[name]) == count for name in ("accepting", "row_count", "mask_count", "next_count", "div_count")
        ) and len(a["mask_row"]) in (0, count) and len(a["base_of"]) == (count if free_text else 0),
        "item counts that add up to their items": (
            int(a["row_count"].sum()) == len(a["row_bytes"]) == len(a["row_targets"])
            and int(a["next_count"].sum()) == len(a["next_tokens"]) == len(a["next_states"])
            and int(a["mask_count"].sum()) == len(a["mask_words"]) == len(a["mask_values"])
            and int(a["div_count"].sum()) == len(a["div_bytes"])
            and a["base_next"].shape == (len(a["base_states"]), vocab_size)
        ),
        "states, tokens and words within their ranges": (
            _within(a["row_targets"], DEAD, count) and _within(a["next_states"], 0, count)
            and _within(a["next_tokens"], 0, vocab_size) and _within(a["mask_row"], 0, count)
            and _within(a["mask_words"], 0, word_count) and _within(a["base_of"], -1, count)
            and _within(a["base_states"], 0, count) and _within(a["base_next"], UNWALKED, count)
        ),
    }
    return next((wanted for wanted, holds in checks.items() if not holds), None)


def _within(values: np.ndarray, low: int, high: int) -> bool:
    return not values.size or (int(values.min()) >= low and int(values.max()) < high)


_INDEX_ARRAYS = ("meta", "final_char_bytes", "final_char_lengths", "flags", "accepting", "row_count", "row_bytes",
                 "row_targets", "mask_count", "mask_row", "mask_words", "mask_values", "next_count", "next_tokens",
                 "next_states", "div_count", "div_bytes", "base_of", "base_states", "base_next")


def load_index(cache_dir: Path, key: str, vocabulary: Vocabulary) -> TokenIndex | None:
    path = index_path(cache_dir, key)
    arrays = _read(path, lambda found: _index_problem(found, vocabulary))
    if arrays is None:
        return None
    with contextlib.suppress(OSError):  # marked as used (its time): kept while some process loads it
        os.utime(path)
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
    with collector_paused():
        index.build_all()
        _write_arrays(path, freeze(index))
    return path
