"""An act's articles as the words its citations write after the name (` 제750조`, ` 제3조의2`), for the statute
grammar's article leaves (grammars.languages.statute).

A leaf needs its words sorted as UTF-8. Made label by label when an act is first cited (a string per label,
encoded, sorted twice) that cost 0.5 µs a label, 600 µs for the Commercial Act's 1,147 articles, all of it
inside one first-visit step. `ArticleWords` makes a lexicon's
largest sets (a hundred in the book) with its grammar, writing each of their labels once (3,580 distinct of
the book's 4,641) with an int that sorts as its word does; a set of those labels is then its labels sorted by
that int and looked up, C loops that make no string (10-40 µs for a set of 100-260).
"""

from __future__ import annotations

from collections.abc import Iterable

from grammars.expr import Literals

HEAD_SEPARATOR = " 제"
# Article sets with more labels than this are made with the grammar (the book's 101 such sets: 36,649 labels,
# a few milliseconds); a smaller one when its act is first cited (tens of microseconds).
MADE_WITH_THE_GRAMMAR_ABOVE = 200

def article_word(label: str) -> str:
    """` 제3조의2` for label `3의2`, ` 제750조` for `750`: the branch follows 조."""
    return HEAD_SEPARATOR + (label.replace("의", "조의") if "의" in label else label + "조")


# A branch's digits one up in base 11, so that its end (0) comes before any of them
_BRANCH_DIGITS = str.maketrans("0123456789", "123456789a")


def _word_order(label: str) -> int:
    """An int that orders labels as their words' UTF-8 does, read in base 11: the number's four digits, where
    its end (a, 조, whose bytes are above every digit's) comes after any digit (` 제123조` before ` 제12조`); then
    the branch's two, where its end (0) comes first (no branch, then `의1`, `의10`, `의2`)."""
    number, _, branch = label.partition("의")
    return int(number.ljust(4, "a") + branch.translate(_BRANCH_DIGITS).ljust(2, "0"), 11)


class ArticleWords:
    """A lexicon's article sets as `Literals` (`literals`): its largest made now, and the labels they hold
    written once, in three tables that C loops read (each label's word's order, the word, its UTF-8)."""

    __slots__ = ("_made", "_order", "_utf8", "_word")

    def __init__(self, sets: Iterable[frozenset[str]]) -> None:
        self._order: dict[str, int] = {}
        self._word: dict[str, str] = {}
        self._utf8: dict[str, bytes] = {}
        largest = [labels for labels in sets if len(labels) > MADE_WITH_THE_GRAMMAR_ABOVE]
        for label in frozenset().union(*largest):
            word = self._word[label] = article_word(label)
            self._order[label], self._utf8[label] = _word_order(label), word.encode()
        # by the set (hashed once, found by identity)
        self._made = {labels: self._made_of(labels) for labels in largest}

    def literals(self, labels: frozenset[str]) -> Literals:
        """` 제` and the set's articles as one literal set, its UTF-8 words at hand (labels as a Lexicon
        checked them: `750`, `3의2`)."""
        made = self._made.get(labels)
        if made is not None:
            return made
        known = self._order.keys() & labels  # a C loop over the set, the smaller
        ordered = sorted(known, key=self._order.__getitem__)
        words, utf8 = list(map(self._word.__getitem__, ordered)), list(map(self._utf8.__getitem__, ordered))
        if len(known) < len(labels):
            # Labels the largest sets lack (a rare branch; a narrowed lexicon's small act) are written for this set
            # alone, their words merged in (two sorted runs: one pass). Kept in the tables, the strings a whole
            # build writes as it goes would pin the heap it frees afterwards (40 MiB of the book's).
            written = sorted(map(article_word, labels.difference(known)))  # a str's order is its UTF-8's
            words = sorted(words + written)
            utf8 = sorted(utf8 + [word.encode() for word in written])
        return Literals(tuple(words), tuple(utf8))

    def _made_of(self, labels: frozenset[str]) -> Literals:
        ordered = sorted(labels, key=self._order.__getitem__)
        return Literals(tuple(map(self._word.__getitem__, ordered)), tuple(map(self._utf8.__getitem__, ordered)))
