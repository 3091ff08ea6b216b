"""On-disk cache of compiled indexes, keyed by grammar hash + vocabulary hash.

Two files per entry, both written atomically (temporary file, then rename):
- `trie-<vocabulary>.npz`: the vocabulary's byte trie (numpy arrays), shared by every grammar;
- `index-<grammar>-<vocabulary>.pickle`: the TokenIndex without its vocabulary (automaton states,
  transitions computed so far, per-state masks).
A file that cannot be read is logged and ignored: the index is compiled again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from pathlib import Path

import numpy as np

from grammars.errors import GrammarError
from grammars.index import TokenIndex
from grammars.vocabulary import TokenTrie, Vocabulary

log = logging.getLogger(__name__)

FORMAT_VERSION = "citegen-index-1"


def grammar_key(grammar: object) -> str:
    """A stable hash of a grammar value (Expr trees and grammars are frozen dataclasses of tuples)."""
    return hashlib.sha256(f"{FORMAT_VERSION}:{grammar!r}".encode()).hexdigest()[:32]


def _write_atomically(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def attach_trie(vocabulary: Vocabulary, cache_dir: Path) -> None:
    """Give the vocabulary its trie from the cache, or build it and store it there."""
    if "trie" in vocabulary.__dict__:
        return
    path = Path(cache_dir) / f"trie-{vocabulary.fingerprint}.npz"
    if path.exists():
        try:
            with np.load(path) as stored:
                vocabulary.__dict__["trie"] = TokenTrie({name: stored[name] for name in stored.files})
            return
        except (OSError, ValueError, KeyError) as error:
            log.warning("ignoring unreadable trie cache %s: %s", path, error)
    trie = vocabulary.trie
    _write_atomically(path, lambda stream: np.savez(stream, **trie.arrays))


def index_path(cache_dir: Path, key: str) -> Path:
    return Path(cache_dir) / f"index-{key}.pickle"


def load_index(cache_dir: Path, key: str, vocabulary: Vocabulary) -> TokenIndex | None:
    path = index_path(cache_dir, key)
    if not path.exists():
        return None
    try:
        with path.open("rb") as stream:
            index: TokenIndex = pickle.load(stream)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as error:
        log.warning("ignoring unreadable index cache %s: %s", path, error)
        return None
    attach_trie(vocabulary, Path(cache_dir))
    index._attach_vocabulary(vocabulary)
    return index


def save_index(index: TokenIndex, cache_dir: Path) -> Path:
    """Store what the index has computed so far (call again later to store more)."""
    if not index.key:
        raise GrammarError("expected an index compiled with cache_dir (it has no cache key), got one without")
    path = index_path(cache_dir, index.key)
    _write_atomically(path, lambda stream: pickle.dump(index, stream, protocol=pickle.HIGHEST_PROTOCOL))
    return path
