"""The names `grammars` exports: each one exists, and the list is the one the other packages may use
(tests/test_boundaries.py keeps them to it)."""

from __future__ import annotations

import grammars

EXPECTED = {
    "ALL_CASE_CODES", "Alt", "AmendmentNote", "AnswerGrammar", "CASE_CODES_BY_TEXT", "CITED_NAMES",
    "CONSTITUTIONAL_COURT_CODES", "COURTS", "COURTS_BY_NAME", "CaseCitation", "CaseCode", "CaseNumber",
    "CitationFinder", "CitationForm", "CitationGrammar", "CitationParser", "Court", "CourtKind", "DEAD",
    "DECREE_KIND_OF_SHORT_NAME", "DEFAULT_BYPASS", "Disposition", "Expr", "ExprDFA", "FINISHED", "FoundCitation",
    "GrammarError", "IncompleteCitationError", "LEGACY_CODES", "Lexicon", "LexiconError", "Panel", "ParsedCitation",
    "SAME_DECREE_KIND", "StatuteCitation", "TokenIndex", "TokenizerError", "UnsupportedPatternError", "Vocabulary",
    "answer_grammar", "as_lexicon", "case_grammar", "compile_index", "default_finder", "default_lexicon",
    "find_citations", "format_date", "names_then_je", "parse_citation", "statute_grammar", "title_then_je",
    "vocabulary_of",
}  # fmt: skip


def test_exports_are_pinned_and_importable() -> None:
    assert set(grammars.__all__) == EXPECTED
    assert all(getattr(grammars, name, None) is not None for name in grammars.__all__)
