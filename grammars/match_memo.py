"""Reading a regex match into a value once per distinct match, for the finder (grammars.find,
grammars.find_cases).

Drafts cite the same provisions and decisions again and again (a 10 MB draft holds 130,000 citations
written ~3,000 ways), and turning a match's groups into a citation value cost the finder more than
finding the match. A reader that is a pure function of the matched text and its groups can be
memoized on exactly those: two matches with the same text and the same group values give equal values.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar

Value = TypeVar("Value")
Fields = dict[str, str | Any]  # a match's named groups, typed as `re.Match.groupdict()` is
ENTRIES = 1 << 16  # distinct matches kept per reader, the least recently used dropped first


def memoized_reader(pattern: re.Pattern[str], read: Callable[[str, Fields], Value],
                    entries: int = ENTRIES) -> Callable[[re.Match[str]], Value]:
    """`match -> read(match.group(), match.groupdict())` for matches of `pattern`, computed once per
    distinct (text, groups). `read` must depend on nothing else (not on the text around the match)
    and may change the fields it is given (each call gets its own dict)."""
    if pattern.groups != len(pattern.groupindex):
        raise ValueError(f"expected a pattern whose groups are all named, got {pattern.groups} groups "
                         f"of which {len(pattern.groupindex)} are named")
    names = sorted(pattern.groupindex, key=pattern.groupindex.__getitem__)

    @functools.lru_cache(maxsize=entries)
    def read_groups(text: str, groups: tuple[str | None, ...]) -> Value:
        return read(text, dict(zip(names, groups, strict=True)))

    def read_match(match: re.Match[str]) -> Value:
        return read_groups(match.group(), match.groups())

    return read_match
