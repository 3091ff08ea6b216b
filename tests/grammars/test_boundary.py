"""The word boundary a citation begins at: one definition, read by the finder's regex and the automaton's
byte classifier, which must agree with decoding the bytes (malformed UTF-8 is a non-word character)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammars.boundary import BOUNDARY, NOT_AFTER_WORD, WORD, is_word_char, step_word_class

WORD_CHARS = ["가", "힣", "ㄱ", "ㅏ", "ㆍ", "ᄀ", "ힰ", "a", "Z", "0", "9", "é", "Ā"]
OTHER_CHARS = [" ", "\n", "(", "「", "」", "·", "×", "÷", ".", ",", "、", "法", "😀", "\u3000", "\ufffd"]


@pytest.mark.parametrize(
    ("char", "word"), [(c, True) for c in WORD_CHARS] + [(c, False) for c in OTHER_CHARS],
    ids=[repr(c) for c in WORD_CHARS + OTHER_CHARS],
)
def test_word_characters_are_hangul_latin_letters_and_digits(char: str, word: bool) -> None:
    assert is_word_char(char) == word


def test_the_finders_lookbehind_is_the_same_definition() -> None:
    after_word = re.compile(NOT_AFTER_WORD)
    points = [*range(0x3200), *range(0xA900, 0xD800), 0x10000, 0x1F600]  # every range and its neighbours
    mismatched = [hex(p) for p in points if (after_word.match(chr(p) + "x", 1) is None) != is_word_char(chr(p))]
    assert mismatched == []


def _decoded_boundaries(data: bytes) -> list[bool]:
    """For each position: is it the start, or is the character decoded before it no word character?"""
    return [p == 0 or not is_word_char(data[:p].decode(errors="replace")[-1]) for p in range(len(data) + 1)]


_PIECES = st.one_of(
    st.text(alphabet=st.sampled_from(WORD_CHARS + OTHER_CHARS), max_size=4).map(str.encode),
    st.binary(max_size=3),  # malformed and cut characters
    st.text(max_size=2).map(lambda t: t.encode(errors="surrogatepass")),
)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=6))
def test_byte_classifier_agrees_with_decoding(pieces: list[bytes]) -> None:
    """At every byte that can begin a character, the classifier allows a citation exactly where the
    decoded text has a boundary; at the end its class says whether the last character is a word one."""
    data = b"".join(pieces)
    expected = _decoded_boundaries(data)
    word_class = BOUNDARY
    for position, byte in enumerate(data):
        may_begin, word_class = step_word_class(word_class, byte)
        if not 0x80 <= byte < 0xC0:
            assert may_begin == expected[position], (data, position)
    assert (word_class == WORD) == (not expected[len(data)]), data


def test_partial_hangul_characters_share_a_few_classes() -> None:
    """Free text must not get one automaton state per partial syllable."""
    classes = set()
    for point in range(0xAC00, 0xD7A4):
        word_class = BOUNDARY
        for byte in chr(point).encode()[:-1]:
            word_class = step_word_class(word_class, byte)[1]
            classes.add(word_class)
    assert len(classes) <= 10, classes
