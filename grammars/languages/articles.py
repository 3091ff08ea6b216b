"""An act's articles as the words its citations write after the name and ` 제` (`750조`, `3조의2`), for the
statute grammar's article leaves (grammars.languages.statute).

An act's article numbers are made only once a citation reads a digit after its name and ` 제` (a `Deferred`
that opens with a digit, `ArticleWords.numbers_after`): made where the name ended, they were the largest part
of the slowest first-visit steps, those that reached the end of a name.

A leaf needs its words sorted as UTF-8. Made label by label in Python (a string per label, encoded, sorted
twice) that cost 0.5 µs a label, 600 µs for the Commercial Act's 1,147 articles, all of it inside one
first-visit step. The C extension of the token walk writes them in one pass and a sort
(grammars.literal_walk.c's article_words, 0.1 µs a label); the largest sets of a lexicon are made with its
grammar (`ArticleWords`). Where no C compiler works, Python writes them as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from grammars.expr import Deferred, Literals
from grammars.literal_walk import built_extension

HEAD_SEPARATOR = " 제"
# An article number's first byte (grammars.languages.lexicon.ARTICLE_LABEL)
_FIRST_DIGITS = frozenset(b"123456789")
# Article sets with more labels than this are made with the grammar (the book's 101 such sets: 36,649 labels,
# a few milliseconds); a smaller one when a citation of its act first reads a digit after ` 제`.
MADE_WITH_THE_GRAMMAR_ABOVE = 200


def article_number(label: str) -> str:
    """`3조의2` for label `3의2`, `750조` for `750`: the branch follows 조."""
    return label.replace("의", "조의") if "의" in label else label + "조"


def article_word(label: str) -> str:
    """` 제3조의2` for label `3의2`: what a citation writes after the act's name."""
    return HEAD_SEPARATOR + article_number(label)


def article_numbers(labels: frozenset[str]) -> Literals:
    """The set's article numbers as one literal set, their UTF-8 words at hand (labels as a Lexicon checked
    them: `750`, `3의2`)."""
    extension = built_extension()
    written = None if extension is None else extension.article_words(labels)
    if written is None:  # no extension (or a label it does not read, which a Lexicon would not hold)
        words = sorted(map(article_number, labels))  # a str's order is its UTF-8's
        return Literals(tuple(words), tuple(word.encode() for word in words))
    return Literals(*written)


class ArticleWords:
    """A lexicon's article sets as what a citation writes after an act's name and ` 제`, its largest sets' made
    now."""

    __slots__ = ("_made",)

    def __init__(self, sets: Iterable[frozenset[str]]) -> None:
        # by the set (hashed once, found by identity)
        self._made = {labels: article_numbers(labels) for labels in sets if len(labels) > MADE_WITH_THE_GRAMMAR_ABOVE}

    def numbers_after(self, labels: frozenset[str]) -> Deferred:
        """One of the set's article numbers, made when a citation reads its first digit."""
        return Deferred(labels, self.numbers, opens_with=_FIRST_DIGITS)

    def numbers(self, labels: frozenset[str]) -> Literals:
        """The set's article numbers (`article_numbers`), made now unless made with the grammar."""
        return self._made.get(labels) or article_numbers(labels)
