"""Which end of the prose might still become a citation.

The engine says `CitationStart` only once an anchor is complete (`대법원 2`, `민법 제7`), so the
text of the anchor has already gone out as prose by then. The segment machine therefore holds the
longest suffix of the prose that could still grow into an anchor, and releases it as soon as the
next text rules that out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from grammars import COURTS
from streaming.errors import ConfigurationError

_END = ""  # trie key marking that a head ends here


class AnchorSet:
    """Anchors written as a literal head followed by one character that `follows` accepts
    (court name + space, then a digit; act name + ` 제`, then a digit)."""

    def __init__(self, heads: Iterable[str], follows: Callable[[str], bool] = str.isdigit) -> None:
        self._trie: dict[str, dict] = {}
        self._longest = 0
        for head in heads:
            if not head:
                raise ConfigurationError("expected non-empty anchor heads, got an empty string")
            node = self._trie
            for char in head:
                node = node.setdefault(char, {})
            node[_END] = {}
            self._longest = max(self._longest, len(head))
        self._follows = follows

    @classmethod
    def for_courts_and_acts(cls, acts: Iterable[str] = ()) -> AnchorSet:
        """Every court of `grammars.COURTS` (name and abbreviations) and each act name given."""
        heads = {f"{name} " for court in COURTS for name in (court.name, *court.abbreviations)}
        heads.update(f"{act} 제" for act in acts)
        return cls(heads)

    def held_suffix_length(self, text: str) -> int:
        """Length of the longest suffix of `text` that is a prefix of some anchor (0 if none)."""
        start_limit = max(0, len(text) - self._longest - 1)
        for start in range(start_limit, len(text)):
            if self._could_begin_anchor(text, start):
                return len(text) - start
        return 0

    def _could_begin_anchor(self, text: str, start: int) -> bool:
        node = self._trie
        for position in range(start, len(text)):
            char = text[position]
            if _END in node and position == len(text) - 1 and self._follows(char):
                return True
            if char not in node:
                return False
            node = node[char]
        return True
