"""Citation languages of Korean law: defined once, used to parse text and to mask a vocabulary.

The other packages import these names only (tests/test_boundaries.py checks it); the modules behind
them are this package's own business.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grammars.case_codes import (
        ALL_CASE_CODES,
        CASE_CODES_BY_TEXT,
        CONSTITUTIONAL_COURT_CODES,
        LEGACY_CODES,
        CaseCode,
    )
    from grammars.citation import (
        CITED_NAMES,
        AmendmentNote,
        CaseCitation,
        CaseNumber,
        Disposition,
        Panel,
        ParsedCitation,
        StatuteCitation,
        format_date,
    )
    from grammars.compile import compile_index, vocabulary_of
    from grammars.courts import COURTS, COURTS_BY_NAME, Court, CourtKind
    from grammars.dfa import DEAD, ExprDFA
    from grammars.errors import (
        GrammarError,
        IncompleteCitationError,
        LexiconError,
        TokenizerError,
        UnsupportedPatternError,
    )
    from grammars.expr import Alt, Expr
    from grammars.find import (
        DECREE_KIND_OF_SHORT_NAME,
        SAME_DECREE_KIND,
        CitationFinder,
        default_finder,
        find_citations,
    )
    from grammars.found import CitationForm, FoundCitation
    from grammars.grammar import AnswerGrammar, CitationGrammar
    from grammars.index import FINISHED, TokenIndex
    from grammars.languages import (
        Lexicon,
        answer_grammar,
        as_lexicon,
        case_grammar,
        default_lexicon,
        names_then_je,
        statute_grammar,
        title_then_je,
    )
    from grammars.languages.answer import DEFAULT_BYPASS
    from grammars.parse import CitationParser, parse_citation
    from grammars.vocabulary import Vocabulary

# Where each public name lives: the package loads a module on first use of one of its names, so that
# a finder starts without the compiler of token indexes (numpy) it never uses.
_HOMES = {
    **dict.fromkeys(("ALL_CASE_CODES", "CASE_CODES_BY_TEXT", "CONSTITUTIONAL_COURT_CODES", "LEGACY_CODES",
                     "CaseCode"), "case_codes"),
    **dict.fromkeys(("CITED_NAMES", "AmendmentNote", "CaseCitation", "CaseNumber", "Disposition", "Panel",
                     "ParsedCitation", "StatuteCitation", "format_date"), "citation"),
    **dict.fromkeys(("compile_index", "vocabulary_of"), "compile"),
    **dict.fromkeys(("COURTS", "COURTS_BY_NAME", "Court", "CourtKind"), "courts"),
    **dict.fromkeys(("DEAD", "ExprDFA"), "dfa"),
    **dict.fromkeys(("GrammarError", "IncompleteCitationError", "LexiconError", "TokenizerError",
                     "UnsupportedPatternError"), "errors"),
    **dict.fromkeys(("Alt", "Expr"), "expr"),
    **dict.fromkeys(("DECREE_KIND_OF_SHORT_NAME", "SAME_DECREE_KIND", "CitationFinder", "default_finder",
                     "find_citations"), "find"),
    **dict.fromkeys(("CitationForm", "FoundCitation"), "found"),
    **dict.fromkeys(("AnswerGrammar", "CitationGrammar"), "grammar"),
    **dict.fromkeys(("FINISHED", "TokenIndex"), "index"),
    **dict.fromkeys(("Lexicon", "answer_grammar", "as_lexicon", "case_grammar", "default_lexicon", "names_then_je",
                     "statute_grammar", "title_then_je"), "languages"),
    **dict.fromkeys(("DEFAULT_BYPASS",), "languages.answer"),
    **dict.fromkeys(("CitationParser", "parse_citation"), "parse"),
    **dict.fromkeys(("Vocabulary",), "vocabulary"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'grammars' has no attribute {name!r}")
    return getattr(importlib.import_module(f"grammars.{home}"), name)


__all__ = [
    "ALL_CASE_CODES",
    "CASE_CODES_BY_TEXT",
    "CITED_NAMES",
    "CONSTITUTIONAL_COURT_CODES",
    "COURTS",
    "COURTS_BY_NAME",
    "DEAD",
    "DECREE_KIND_OF_SHORT_NAME",
    "DEFAULT_BYPASS",
    "FINISHED",
    "LEGACY_CODES",
    "SAME_DECREE_KIND",
    "Alt",
    "AmendmentNote",
    "AnswerGrammar",
    "CaseCitation",
    "CaseCode",
    "CaseNumber",
    "CitationFinder",
    "CitationForm",
    "CitationGrammar",
    "CitationParser",
    "Court",
    "CourtKind",
    "Disposition",
    "Expr",
    "ExprDFA",
    "FoundCitation",
    "GrammarError",
    "IncompleteCitationError",
    "Lexicon",
    "LexiconError",
    "Panel",
    "ParsedCitation",
    "StatuteCitation",
    "TokenIndex",
    "TokenizerError",
    "UnsupportedPatternError",
    "Vocabulary",
    "answer_grammar",
    "as_lexicon",
    "case_grammar",
    "compile_index",
    "default_finder",
    "default_lexicon",
    "find_citations",
    "format_date",
    "names_then_je",
    "parse_citation",
    "statute_grammar",
    "title_then_je",
    "vocabulary_of",
]
