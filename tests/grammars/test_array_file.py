"""The index cache's file format: arrays come back as written, and a damaged file is named and refused."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import numpy as np
import pytest

from grammars.array_file import MAGIC, read_arrays, write_arrays
from grammars.compile import compile_index
from grammars.expr import Literals, Regex, seq
from grammars.grammar import CitationGrammar
from grammars.vocabulary import Vocabulary

ARRAYS = {
    "meta": np.asarray([3, 1, 129_280], dtype=np.int64),
    "empty": np.empty(0, dtype=np.uint8),
    "flags": np.arange(77, dtype=np.uint8),
    "accepting": np.asarray([True, False, True]),
    "table": np.arange(12, dtype=np.int32).reshape(3, 4),
    "none_wide": np.empty((0, 129_280), dtype=np.int32),
    "counts": np.asarray([1, 65_535], dtype=np.uint16),
    "scalar": np.asarray(7, dtype=np.int32),
    "fortran": np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
}


def _written(arrays: dict[str, np.ndarray], path: Path) -> Path:
    stream = io.BytesIO()
    write_arrays(stream, arrays)
    path.write_bytes(stream.getvalue())
    return path


def test_arrays_come_back_with_their_names_dtypes_shapes_and_values(tmp_path: Path) -> None:
    read = read_arrays(_written(ARRAYS, tmp_path / "a.arrays"))
    assert list(read) == list(ARRAYS)
    for name, array in ARRAYS.items():
        assert read[name].dtype == array.dtype and read[name].shape == array.shape, name
        assert np.array_equal(read[name], array), name
        assert read[name].flags.writeable and read[name].flags.aligned, name


def test_object_arrays_are_not_written() -> None:
    with pytest.raises(ValueError, match="numeric arrays, got dtype object for 'names'"):
        write_arrays(io.BytesIO(), {"names": np.asarray(["민법", None], dtype=object)})


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: b"PK\x03\x04" + data[4:], "citegen array file"),
        (lambda data: data[: len(MAGIC) + 12], "the file ends"),
        (lambda data: data[:-64], "inside the file"),
        (lambda data: data.replace(b'"<i8"', b'"|O8"', 1), "numeric array"),
        (lambda data: data.replace(b'"<i8"', b'"xx8"', 1), "numpy dtype"),
        (lambda data: data.replace(b'[3], 0]', b'[-3],0]', 1), "numeric array"),
        (lambda data: data.replace(b'"meta"', b'{"me"}', 1), "JSON table"),
        (lambda data: MAGIC + (11).to_bytes(8, "little") + b'{"meta": 1}', "JSON object of arrays and their crc32"),
        # one byte of the last array's data flipped, or its data zeroed as a crash may leave it: both parse
        (lambda data: data[:-70] + bytes([data[-70] ^ 1]) + data[-69:], "match their crc32"),
        (lambda data: data[:-128] + bytes(128), "match their crc32"),
    ],
    ids=["zip", "truncated-table", "truncated-data", "object-dtype", "no-dtype", "negative-shape", "bad-json",
         "not-a-table", "flipped-byte", "zeroed-data"],
)
def test_a_damaged_file_is_refused_with_what_is_wrong(tmp_path: Path, damage, message: str) -> None:
    path = _written(ARRAYS, tmp_path / "a.arrays")
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ValueError, match=message):
        read_arrays(path)


def test_a_damaged_index_file_is_logged_and_the_index_compiled_again(tmp_path: Path, caplog) -> None:
    grammar = CitationGrammar("statute", seq(Literals(("민법",)), " 제", Regex("[1-9]"), "조"),
                              seq(Literals(("민법",)), " 제", Regex("[0-9]")))
    vocabulary = Vocabulary((None, *sorted({p.encode() for p in ["민법", " 제", "1", "조"]})), frozenset({0}))
    built = compile_index(grammar, vocabulary, cache_dir=tmp_path)
    (stored,) = tmp_path.glob("index-*.arrays")
    stored.write_bytes(stored.read_bytes()[:100])
    with caplog.at_level(logging.WARNING, logger="grammars.cache"):
        again = compile_index(grammar, vocabulary, cache_dir=tmp_path)
    assert f"ignoring unreadable cache file {stored}" in caplog.text
    text = "민법 제1조".encode()
    assert again.advance_bytes(again.initial_state, text) >= 0 and again.stored is not None
    assert again.allowed_tokens(again.initial_state).tolist() == built.allowed_tokens(built.initial_state).tolist()


def test_files_of_the_npz_format_go_once_the_cache_writes_beside_them(tmp_path: Path) -> None:
    grammar = CitationGrammar("statute", seq(Literals(("민법",)), " 제", Regex("[1-9]"), "조"),
                              seq(Literals(("민법",)), " 제", Regex("[0-9]")))
    vocabulary = Vocabulary((None, *sorted({p.encode() for p in ["민법", " 제", "1", "조"]})), frozenset({0}))
    stale = [tmp_path / "index-0123abcd.npz", tmp_path / "trie-4567.npz"]
    kept = [tmp_path / "names-sqlite-1.marshal", tmp_path / "other.npz", tmp_path / "index-note.txt"]
    for path in stale + kept:
        path.write_bytes(b"old")
    compile_index(grammar, vocabulary, cache_dir=tmp_path)
    assert [path.exists() for path in stale] == [False, False]
    assert all(path.read_bytes() == b"old" for path in kept)
    assert len(list(tmp_path.glob("index-*.arrays"))) == 1
