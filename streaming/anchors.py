"""Which end of the prose might still become a citation, for sources that cannot say so.

A source says `CitationStart` only once an anchor is complete (`대법원 2`, `민법 제7`), so the text
of the anchor has already gone out as prose by then. citegen's engine (and its vLLM front end)
marks that prose `tentative` from the automaton that constrains the citation, and the segment
machine holds it: such sources need nothing from this module. A source that does not mark it
(another generator behind the `GenerationSource` protocol) can hand the segment machine these
prefixes instead: it then holds the longest suffix of the prose that could still grow into an
anchor, and releases it as soon as the next text rules that out. The anchors are the grammar's own
(`CitationGrammar.anchor`), walked as a byte automaton: no second definition of what begins a
citation.
"""

from __future__ import annotations

from collections.abc import Iterable

from grammars import DEAD, Alt, AnswerGrammar, Expr, ExprDFA
from streaming.errors import ConfigurationError

# Longest anchor prefix looked for, in characters: act names run to about 60 characters.
_WINDOW = 96


class AnchorPrefixes:
    """The prefixes of a set of anchor expressions."""

    def __init__(self, anchors: Iterable[Expr]) -> None:
        options = tuple(anchors)
        if not options:
            raise ConfigurationError("expected at least one anchor expression, got none")
        self._dfa = ExprDFA(Alt(options))

    @classmethod
    def of(cls, grammar: AnswerGrammar) -> AnchorPrefixes:
        return cls(citation.anchor for citation in grammar.citations)

    def held_suffix_length(self, text: str) -> int:
        """Length of the longest suffix of `text` that is a prefix of some anchor (0 if none)."""
        for start in range(max(0, len(text) - _WINDOW), len(text)):
            if self._dfa.walk(self._dfa.initial, text[start:].encode()) != DEAD:
                return len(text) - start
        return 0
