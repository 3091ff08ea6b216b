"""Citation languages of Korean law: defined once, used to parse text and to mask a vocabulary."""

from grammars.case_codes import ALL_CASE_CODES, CASE_CODES_BY_TEXT, CaseCode
from grammars.citation import (
    CITED_NAMES,
    AmendmentNote,
    CaseCitation,
    CaseNumber,
    ParsedCitation,
    StatuteCitation,
    format_date,
)
from grammars.compile import compile_index
from grammars.courts import COURTS, COURTS_BY_NAME, Court, CourtKind
from grammars.dfa import DEAD
from grammars.errors import (
    GrammarError,
    IncompleteCitationError,
    LexiconError,
    TokenizerError,
    UnsupportedPatternError,
)
from grammars.find import CitationFinder, find_citations
from grammars.found import CitationForm, FoundCitation
from grammars.index import FINISHED, TokenIndex
from grammars.languages import Lexicon, answer_grammar, case_grammar, default_lexicon, statute_grammar
from grammars.parse import CitationParser, parse_citation
from grammars.vocabulary import Vocabulary

__all__ = [
    "ALL_CASE_CODES",
    "CASE_CODES_BY_TEXT",
    "CITED_NAMES",
    "COURTS",
    "COURTS_BY_NAME",
    "DEAD",
    "FINISHED",
    "AmendmentNote",
    "CaseCitation",
    "CaseCode",
    "CaseNumber",
    "CitationFinder",
    "CitationForm",
    "CitationParser",
    "Court",
    "CourtKind",
    "FoundCitation",
    "GrammarError",
    "IncompleteCitationError",
    "Lexicon",
    "LexiconError",
    "ParsedCitation",
    "StatuteCitation",
    "TokenIndex",
    "TokenizerError",
    "UnsupportedPatternError",
    "Vocabulary",
    "answer_grammar",
    "case_grammar",
    "compile_index",
    "default_lexicon",
    "find_citations",
    "format_date",
    "parse_citation",
    "statute_grammar",
]
