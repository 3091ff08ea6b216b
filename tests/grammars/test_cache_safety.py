"""The index cache's files as a service meets them at start-up, made unfit in the ways a review found them
crash or mislead: a trie or index written by other code (arrays missing, or out of range), one made for
another vocabulary size, a folder that cannot be written, files other users of a shared folder must read.
Each is a real file on disk; each case is logged and served right, or built again."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import numpy as np
import pytest

from grammars import cache
from grammars.array_file import read_arrays, write_arrays
from grammars.compile import compile_index
from grammars.expr import Literals, Regex, seq
from grammars.grammar import CitationGrammar
from grammars.vocabulary import Vocabulary

GRAMMAR = CitationGrammar("statute", seq(Literals(("민법", "형법")), " 제", Regex("[1-9][0-9]?"), "조"),
                          seq(Literals(("민법", "형법")), " 제", Regex("[0-9]")))
PIECES = ["민법", "형법", " 제", "1", "2", "12", "조", " ", "제"]


def _vocabulary() -> Vocabulary:
    """A new Vocabulary object each time, as a new process has: its trie is read from the cache."""
    return Vocabulary((None, *sorted({piece.encode() for piece in PIECES})), frozenset({0}))


def _serves_the_language(index) -> bool:
    citation = index.advance_bytes(index.initial_state, "민법 제12조".encode())
    return citation >= 0 and index.is_accepting(citation) and index.advance_bytes(
        index.initial_state, "상법 제1조".encode()) < 0


def _rewrite(path: Path, change) -> None:
    """Store `change(arrays)` in place of the file's arrays: a file whole and well formed, unfit in content."""
    arrays = {name: array.copy() for name, array in read_arrays(path).items()}
    with open(path, "wb") as stream:
        write_arrays(stream, change(arrays))


def test_a_trie_of_other_code_missing_an_array_is_built_again(tmp_path, caplog) -> None:
    compile_index(GRAMMAR, _vocabulary(), cache_dir=tmp_path)
    (trie,) = tmp_path.glob("trie-*.arrays")
    _rewrite(trie, lambda arrays: {name: a for name, a in arrays.items() if name != "blob"})
    for stored in tmp_path.glob("index-*.arrays"):
        stored.unlink()  # built again, over the trie read back
    with caplog.at_level(logging.WARNING, logger="grammars"):
        index = compile_index(GRAMMAR, _vocabulary(), cache_dir=tmp_path)
    assert "ignoring unusable cache file" in caplog.text and "blob" in caplog.text
    assert "blob" in index.vocabulary.trie.arrays and "blob" in read_arrays(trie)  # built and stored again
    assert _serves_the_language(index)


def test_a_trie_is_named_by_the_code_that_stored_it(tmp_path, monkeypatch) -> None:
    cache.attach_trie(_vocabulary(), tmp_path)
    monkeypatch.setattr(cache, "_COMPILER", lambda: "0123456789abcdef" * 4)
    cache.attach_trie(_vocabulary(), tmp_path)
    assert len(list(tmp_path.glob("trie-*.arrays"))) == 2


@pytest.mark.parametrize(
    ("change", "wanted"),
    [
        (lambda a: {name: x for name, x in a.items() if name != "meta"}, "arrays meta in it"),
        (lambda a: {**a, "meta": np.asarray([a["meta"][0], a["meta"][1], a["meta"][2] + 64])}, "over 10 tokens, got"),
        (lambda a: {**a, "next_states": a["next_states"] + len(a["flags"])}, "within their ranges"),
        (lambda a: {**a, "next_count": a["next_count"][:-1]}, "one item per state"),
        (lambda a: {**a, "row_bytes": a["row_bytes"][:-1]}, "add up to their items"),
    ],
    ids=["meta-missing", "another-vocabulary-size", "states-out-of-range", "counts-short", "items-short"],
)
def test_an_index_of_other_code_is_logged_and_built_again(tmp_path, caplog, change, wanted) -> None:
    compile_index(GRAMMAR, _vocabulary(), cache_dir=tmp_path)
    (stored,) = tmp_path.glob("index-*.arrays")
    _rewrite(stored, change)
    with caplog.at_level(logging.WARNING, logger="grammars"):
        index = compile_index(GRAMMAR, _vocabulary(), cache_dir=tmp_path)
    assert "ignoring unusable cache file" in caplog.text and wanted in caplog.text
    assert _serves_the_language(index)
    assert read_arrays(stored)["meta"].shape == (3,)  # stored again, whole


def _umask() -> int:
    return int(re.search(r"^Umask:\s+([0-7]+)$", Path("/proc/self/status").read_text(), re.MULTILINE).group(1), 8)


def test_cache_files_are_readable_as_the_umask_lets_other_users_read(tmp_path) -> None:
    """mkstemp makes 0600 files: a folder shared by a build user and a service user was unreadable to one."""
    compile_index(GRAMMAR, _vocabulary(), cache_dir=tmp_path)
    files = list(tmp_path.glob("*.arrays"))
    assert len(files) == 2
    assert {path.stat().st_mode & 0o777 for path in files} == {0o666 & ~_umask()}


@pytest.mark.parametrize("in_child", [False, True], ids=["here", "in-child"])
def test_a_cache_folder_that_cannot_be_written_serves_the_index_from_memory(tmp_path, caplog, in_child) -> None:
    """A path through a regular file: every write under it fails (as a read-only or full disk does), for
    any user, root included."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="grammars"):
        index = compile_index(GRAMMAR, _vocabulary(), cache_dir=blocker / "cache", in_child=in_child)
    assert "could not store it in" in caplog.text  # the trie
    assert "serving index" in caplog.text and "from memory: it could not be stored" in caplog.text
    assert _serves_the_language(index)


def test_the_key_names_the_regex_library_that_compiles_regex_leaves(monkeypatch) -> None:
    key = cache.grammar_key(GRAMMAR)
    monkeypatch.setattr(cache, "_REGEX_LIBRARY", b"interegular 9.9.9")
    assert cache.grammar_key(GRAMMAR) != key
