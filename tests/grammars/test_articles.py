"""An act's article words (grammars.languages.articles): the labels as citations write them, in UTF-8 order,
whether the set was made with the grammar or when first cited."""

from __future__ import annotations

import random

import pytest

from grammars.expr import Literals
from grammars.languages.articles import MADE_WITH_THE_GRAMMAR_ABOVE, ArticleWords, article_word


def _label_sets(seed: int) -> list[frozenset[str]]:
    """A large set (made with the grammar), a set of its labels (made of its tables), others (written for
    themselves) and a single label: article numbers of one to four digits, some with a branch of one or two
    (the order of `9조` and `10조` differs from their numbers')."""
    rng = random.Random(seed)

    def labels(count: int) -> frozenset[str]:
        out: set[str] = set()
        while len(out) < count:
            number = str(rng.choice((rng.randint(1, 9), rng.randint(10, 99), rng.randint(100, 9999))))
            out.add(f"{number}의{rng.randint(1, 99)}" if rng.random() < 0.2 else number)
        return frozenset(out)

    largest = labels(MADE_WITH_THE_GRAMMAR_ABOVE + 50)
    within = frozenset(rng.sample(sorted(largest), 50))
    return [largest, within, labels(MADE_WITH_THE_GRAMMAR_ABOVE), labels(37), frozenset({"3의2"})]


@pytest.mark.parametrize("seed", range(3))
def test_an_article_set_is_its_citation_words_sorted_as_utf8(seed: int) -> None:
    sets = _label_sets(seed)
    words = ArticleWords(sets)
    for labels in sets:
        made = words.literals(labels)
        written = sorted(article_word(label) for label in labels)
        assert made == Literals(tuple(written))  # as the grammar's cache key spells it: the words, in order
        assert made.utf8 == tuple(sorted(word.encode() for word in written))
        assert not made.nullable


def test_article_words_are_written_as_cited() -> None:
    assert [article_word(label) for label in ("750", "3의2", "10")] == [" 제750조", " 제3조의2", " 제10조"]
    words = ArticleWords([frozenset({"9", "10", "1의2", "1", "100"})])
    assert words.literals(frozenset({"9", "10", "1의2", "1", "100"})).words == (
        " 제100조", " 제10조", " 제1조", " 제1조의2", " 제9조")


def test_every_label_sorts_as_its_word_does() -> None:
    numbers = [str(n) for n in range(1, 10_000)]
    labels = numbers + [f"{n}의{b}" for n in (*numbers[:120], "999", "1000", "9999") for b in range(1, 100)]
    held = frozenset(labels)
    assert ArticleWords([held]).literals(held).utf8 == tuple(sorted(article_word(label).encode() for label in labels))


def test_a_literal_set_with_its_utf8_at_hand_says_whether_it_holds_the_empty_word() -> None:
    assert Literals(("", "가"), (b"", "가".encode())).nullable
    assert not Literals(("가",), ("가".encode(),)).nullable
    assert Literals(("가", "")).nullable
