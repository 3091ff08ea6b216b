"""An act's articles as the words its citations write after the name (` 제750조`, ` 제3조의2`), for the statute
grammar's article leaves (grammars.languages.statute).

A leaf needs its words sorted as UTF-8. Made label by label in Python when an act is first cited (a string per
label, encoded, sorted twice) that cost 0.5 µs a label, 600 µs for the Commercial Act's 1,147 articles, all of
it inside one first-visit step. The C extension of the token walk writes them in one pass and a sort
(grammars.literal_walk.c's article_words, 0.1 µs a label); the largest sets of a lexicon are made with its
grammar (`ArticleWords`). Where no C compiler works, Python writes them as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from grammars.expr import Literals
from grammars.literal_walk import built_extension

HEAD_SEPARATOR = " 제"
# Article sets with more labels than this are made with the grammar (the book's 101 such sets: 36,649 labels,
# a few milliseconds); a smaller one when its act is first cited.
MADE_WITH_THE_GRAMMAR_ABOVE = 200


def article_word(label: str) -> str:
    """` 제3조의2` for label `3의2`, ` 제750조` for `750`: the branch follows 조."""
    return HEAD_SEPARATOR + (label.replace("의", "조의") if "의" in label else label + "조")


def article_literals(labels: frozenset[str]) -> Literals:
    """` 제` and the set's articles as one literal set, its UTF-8 words at hand (labels as a Lexicon checked
    them: `750`, `3의2`)."""
    extension = built_extension()
    utf8 = None if extension is None else extension.article_words(labels)
    if utf8 is None:  # no extension (or a label it does not read, which a Lexicon would not hold)
        words = sorted(map(article_word, labels))  # a str's order is its UTF-8's
        return Literals(tuple(words), tuple(word.encode() for word in words))
    return Literals(tuple(b"\0".join(utf8).decode().split("\0")), utf8)


class ArticleWords:
    """A lexicon's article sets as `Literals` (`literals`), its largest made now."""

    __slots__ = ("_made",)

    def __init__(self, sets: Iterable[frozenset[str]]) -> None:
        # by the set (hashed once, found by identity)
        self._made = {labels: article_literals(labels) for labels in sets if len(labels) > MADE_WITH_THE_GRAMMAR_ABOVE}

    def literals(self, labels: frozenset[str]) -> Literals:
        return self._made.get(labels) or article_literals(labels)
