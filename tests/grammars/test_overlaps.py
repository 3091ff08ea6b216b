"""grammars.overlaps: the finder's choice among overlapping matches equals the naive greedy."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grammars.overlaps import longest_first


def _greedy(spans: list[tuple[int, int]]) -> list[int]:
    """The semantics: longest first (then start, end, position), each kept that shares no character
    with one kept before; the kept in text order, ties in start in the greedy's order."""
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0] - spans[i][1], *spans[i], i))
    taken: set[int] = set()
    kept = []
    for i in order:
        start, end = spans[i]
        if taken.isdisjoint(range(start, end)):
            taken.update(range(start, end))
            kept.append(i)
    rank = {i: position for position, i in enumerate(order)}
    return sorted(kept, key=lambda i: (spans[i][0], rank[i]))


_SPANS = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 12)).map(lambda s: (s[0], s[0] + s[1])),
                  max_size=30)


@given(_SPANS)
def test_longest_first_is_the_naive_greedy(spans: list[tuple[int, int]]) -> None:
    assert longest_first(spans) == _greedy(spans)


@pytest.mark.parametrize(("spans", "kept"), [
    ([], []),
    ([(5, 9)], [0]),
    ([(0, 4), (2, 9), (9, 12)], [1, 2]),  # the longer wins; touching spans share no character
    ([(0, 4), (3, 7)], [0]),  # a tie goes to the earlier
    ([(3, 3), (0, 9)], [1, 0]),  # an empty span overlaps nothing and sorts after the span at its start
    ([(10, 14), (0, 3), (2, 5), (4, 6)], [1, 3, 0]),  # a run decided apart from a span standing alone
    ([(i, 30 - i) for i in range(12)] + [(30, 31)], [0, 12]),  # a long run, decided through a byte map
    ([(2 * i, 2 * i + 3) for i in range(12)], [2 * i for i in range(6)]),  # a long chain
    ([(4, 8), (0, 2), (4, 8)], [1, 0]),  # one span found twice: the first found
    ([(4, 4), (4, 4)], [0, 1]),  # an empty span twice: both, as they overlap nothing
], ids=["none", "alone", "longer", "tie", "empty", "runs", "nested", "chain", "twice", "empty-twice"])
def test_longest_first_keeps(spans: list[tuple[int, int]], kept: list[int]) -> None:
    assert longest_first(spans) == kept
