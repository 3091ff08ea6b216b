"""Citation languages of Korean law: defined once, used to parse text and to mask a vocabulary."""

from grammars.case_codes import ALL_CASE_CODES, CASE_CODES_BY_TEXT, CaseCode
from grammars.citation import CaseCitation, CaseNumber, ParsedCitation, StatuteCitation, format_date
from grammars.courts import COURTS, COURTS_BY_NAME, Court, CourtKind
from grammars.errors import (
    GrammarError,
    IncompleteCitationError,
    LexiconError,
    TokenizerError,
    UnsupportedPatternError,
)

__all__ = [
    "ALL_CASE_CODES",
    "CASE_CODES_BY_TEXT",
    "COURTS",
    "COURTS_BY_NAME",
    "CaseCitation",
    "CaseCode",
    "CaseNumber",
    "Court",
    "CourtKind",
    "GrammarError",
    "IncompleteCitationError",
    "LexiconError",
    "ParsedCitation",
    "StatuteCitation",
    "TokenizerError",
    "UnsupportedPatternError",
    "format_date",
]
