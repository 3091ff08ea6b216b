"""The whole output of a model: free text in which every anchor begins a well-formed citation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from grammars.errors import GrammarError
from grammars.expr import Expr
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.languages.case import case_grammar, glued_case_number
from grammars.languages.lexicon import Lexicon
from grammars.languages.statute import continued_head, glued_head, statute_anchor, statute_grammar

DEFAULT_BYPASS = (("<think>", "</think>"),)


def answer_grammar(
    case: bool = True,
    statute: bool = True,
    lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None = None,
    courts: Iterable[str] | None = None,
    bypass: Iterable[tuple[str, str]] = DEFAULT_BYPASS,
    forbid_shorthand: bool = False,
) -> AnswerGrammar:
    """The answer language over the chosen citation kinds; text between a bypass pair is never
    constrained (a `<think>` block may mention `대법원 2` freely). `forbid_shorthand` adds the
    abbreviations and back-references to the anchors (see case_grammar, statute_grammar), and a
    statute-shaped head or a case number anywhere, inside a word too (statute.glued_head,
    case.glued_case_number), or a provision right after a citation (statute.continued_head), whatever
    kinds are cited."""
    citations: list[CitationGrammar] = []
    if case:
        citations.append(case_grammar(courts=courts, forbid_shorthand=forbid_shorthand))
    if statute:
        citations.append(statute_grammar(lexicon, forbid_shorthand=forbid_shorthand))
    if not citations:
        raise GrammarError("expected case=True or statute=True, got neither: an answer needs a citation kind")
    pairs: list[tuple[str, str]] = []
    for position, pair in enumerate(tuple(pair) for pair in bypass):
        if len(pair) != 2 or not all(isinstance(mark, str) and mark for mark in pair):
            raise GrammarError(f"expected bypass pairs of two non-empty strings, got {pair!r} at {position}")
        pairs.append((pair[0], pair[1]))
    if not forbid_shorthand:
        return AnswerGrammar(citations=tuple(citations), bypass=tuple(pairs))
    return AnswerGrammar(
        citations=tuple(citations), bypass=tuple(pairs), glued=(glued_head(), glued_case_number()),
        continued=(continued_head(),),
    )


def answer_anchors(
    lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None = None, forbid_shorthand: bool = False
) -> tuple[Expr, ...]:
    """The anchors of `answer_grammar(lexicon=lexicon, forbid_shorthand=…)`'s citations, without their
    citation languages: what a narrowed answer keeps of the whole one (citegen.narrowings)."""
    return (
        case_grammar(forbid_shorthand=forbid_shorthand).anchor,
        statute_anchor(lexicon, forbid_shorthand=forbid_shorthand),
    )
