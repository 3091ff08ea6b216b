"""grammars.match_memo: a match is read once per distinct text and groups, wherever it stands."""

from __future__ import annotations

import re

import pytest

from grammars.match_memo import Fields, memoized_reader

_ARTICLE = re.compile(r"(?P<act>민법|형법) ?제(?P<article>[0-9]+)조")


def test_a_match_is_read_once_per_distinct_text_and_groups() -> None:
    reads: list[tuple[str, Fields]] = []

    def read(written: str, fields: Fields) -> tuple[str, int]:
        reads.append((written, dict(fields)))
        fields.clear()  # a reader may change its fields: the next read gets its own
        return reads[-1][1]["act"], int(reads[-1][1]["article"])

    reader = memoized_reader(_ARTICLE, read)
    found = [reader(match) for match in _ARTICLE.finditer("민법 제750조, 형법 제250조, 민법 제750조, 민법제750조")]
    assert found == [("민법", 750), ("형법", 250), ("민법", 750), ("민법", 750)]
    assert reads == [("민법 제750조", {"act": "민법", "article": "750"}),
                     ("형법 제250조", {"act": "형법", "article": "250"}),
                     ("민법제750조", {"act": "민법", "article": "750"})]


def test_a_pattern_with_unnamed_groups_is_refused() -> None:
    with pytest.raises(ValueError, match="expected a pattern whose groups are all named, got 2 groups"):
        memoized_reader(re.compile(r"(?P<act>민법) (제[0-9]+조)"), lambda written, fields: written)
