"""An act's article numbers (grammars.languages.articles): the labels as citations write them, in UTF-8 order,
whether the C extension writes them or Python does, and whether the set was made with the grammar or when
first cited."""

from __future__ import annotations

import random

import pytest

from grammars.expr import Literals
from grammars.languages import articles
from grammars.languages.articles import (
    MADE_WITH_THE_GRAMMAR_ABOVE,
    ArticleWords,
    article_number,
    article_numbers,
    article_word,
)
from grammars.literal_walk import SOURCE
from grammars.native import build_extension


@pytest.fixture(scope="module")
def extension():
    return build_extension(SOURCE)


@pytest.fixture(params=["c", "python"])
def writer(request, monkeypatch, extension) -> str:
    """The words written by the extension, or in Python as where no C compiler works."""
    monkeypatch.setattr(articles, "built_extension", lambda: extension if request.param == "c" else None)
    return request.param


def _label_sets(seed: int) -> list[frozenset[str]]:
    """A large set (made with the grammar), smaller ones and a single label: article numbers of one to four
    digits, some with a branch of one or two (the order of `9조` and `10조` differs from their numbers')."""
    rng = random.Random(seed)

    def labels(count: int) -> frozenset[str]:
        out: set[str] = set()
        while len(out) < count:
            number = str(rng.choice((rng.randint(1, 9), rng.randint(10, 99), rng.randint(100, 9999))))
            out.add(f"{number}의{rng.randint(1, 99)}" if rng.random() < 0.2 else number)
        return frozenset(out)

    return [labels(MADE_WITH_THE_GRAMMAR_ABOVE + 50), labels(MADE_WITH_THE_GRAMMAR_ABOVE), labels(37),
            frozenset({"3의2"})]


@pytest.mark.parametrize("seed", range(3))
def test_an_article_set_is_its_numbers_as_cited_sorted_as_utf8(writer: str, seed: int) -> None:
    sets = _label_sets(seed)
    words = ArticleWords(sets)
    for labels in sets:
        made = words.numbers(labels)
        written = sorted(article_number(label) for label in labels)
        assert made == Literals(tuple(written))  # as the grammar's cache key spells it: the words, in order
        assert made.utf8 == tuple(sorted(word.encode() for word in written))
        assert not made.nullable


def test_article_words_are_written_as_cited(writer: str) -> None:
    assert [article_word(label) for label in ("750", "3의2", "10")] == [" 제750조", " 제3조의2", " 제10조"]
    assert [article_number(label) for label in ("750", "3의2")] == ["750조", "3조의2"]
    assert article_numbers(frozenset({"9", "10", "1의2", "1", "100", "1의10"})).words == (
        "100조", "10조", "1조", "1조의10", "1조의2", "9조")


def test_every_label_sorts_as_its_word_does(writer: str) -> None:
    numbers = [str(n) for n in range(1, 10_000)]
    labels = numbers + [f"{n}의{b}" for n in (*numbers[:120], "999", "1000", "9999") for b in range(1, 100)]
    made = article_numbers(frozenset(labels))
    assert made.utf8 == tuple(sorted(article_number(label).encode() for label in labels))
    assert made.words == tuple(sorted(article_number(label) for label in labels))


@pytest.mark.parametrize("label", ["0", "012", "12345", "3의", "3의0", "3의100", "3조", "a", "", 5])
def test_the_extension_reads_only_labels_a_lexicon_would_hold(extension, label: object) -> None:
    assert extension.article_words(("1", label)) is None


def test_a_literal_set_with_its_utf8_at_hand_says_whether_it_holds_the_empty_word() -> None:
    assert Literals(("", "가"), (b"", "가".encode())).nullable
    assert not Literals(("가",), ("가".encode(),)).nullable
    assert Literals(("가", "")).nullable
