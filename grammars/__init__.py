"""Citation languages of Korean law: defined once, used to parse text and to mask a vocabulary.

The other packages import these names only (tests/test_boundaries.py checks it); the modules behind
them are this package's own business. Each name is loaded from its module on first use (grammars.exports),
so a finder starts without the index compiler and numpy it never uses.
"""

from typing import TYPE_CHECKING

from grammars.exports import lazy_exports

if TYPE_CHECKING:
    from grammars.answer import AnswerAnchors, anchor_root
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
        Supplement,
        format_date,
    )
    from grammars.compile import compile_index, vocabulary_of
    from grammars.courts import COURTS, COURTS_BY_NAME, Court, CourtKind
    from grammars.dfa import DEAD, ExprDFA
    from grammars.errors import (
        GrammarError,
        IncompleteCitationError,
        LexiconError,
        NativeBuildError,
        TokenizerError,
        UnsupportedPatternError,
    )
    from grammars.expr import Alt, Expr
    from grammars.find import (
        DECREE_KIND_OF_SHORT_NAME,
        SAME_DECREE_KIND,
        CitationFinder,
        declared_names,
        default_finder,
        find_citations,
    )
    from grammars.find_cases import head_written_apart
    from grammars.found import CitationForm, FoundCitation
    from grammars.grammar import AnswerGrammar, CitationGrammar
    from grammars.index import FINISHED, TokenIndex
    from grammars.languages import (
        Lexicon,
        answer_anchors,
        answer_grammar,
        as_lexicon,
        case_grammar,
        default_lexicon,
        names_then_je,
        spellable_name,
        statute_grammar,
        title_then_je,
    )
    from grammars.languages.answer import DEFAULT_BYPASS
    from grammars.native import build_extension
    from grammars.parse import CitationParser, parse_citation
    from grammars.patterns import write_atomically
    from grammars.vocabulary import Vocabulary

_HOMES = {  # module: the names it gives the package (as imported above)
    "grammars.answer": ("AnswerAnchors", "anchor_root"),
    "grammars.case_codes": (
        "ALL_CASE_CODES", "CASE_CODES_BY_TEXT", "CONSTITUTIONAL_COURT_CODES", "LEGACY_CODES", "CaseCode",
    ),
    "grammars.citation": (
        "CITED_NAMES", "AmendmentNote", "CaseCitation", "CaseNumber", "Disposition", "Panel", "ParsedCitation",
        "StatuteCitation", "Supplement", "format_date",
    ),
    "grammars.compile": ("compile_index", "vocabulary_of"),
    "grammars.courts": ("COURTS", "COURTS_BY_NAME", "Court", "CourtKind"),
    "grammars.dfa": ("DEAD", "ExprDFA"),
    "grammars.errors": (
        "GrammarError", "IncompleteCitationError", "LexiconError", "NativeBuildError", "TokenizerError",
        "UnsupportedPatternError",
    ),
    "grammars.expr": ("Alt", "Expr"),
    "grammars.find": (
        "DECREE_KIND_OF_SHORT_NAME", "SAME_DECREE_KIND", "CitationFinder", "declared_names", "default_finder",
        "find_citations",
    ),
    "grammars.find_cases": ("head_written_apart",),
    "grammars.found": ("CitationForm", "FoundCitation"),
    "grammars.grammar": ("AnswerGrammar", "CitationGrammar"),
    "grammars.index": ("FINISHED", "TokenIndex"),
    "grammars.languages": (
        "Lexicon", "answer_anchors", "answer_grammar", "as_lexicon", "case_grammar", "default_lexicon",
        "names_then_je", "spellable_name", "statute_grammar", "title_then_je",
    ),
    "grammars.languages.answer": ("DEFAULT_BYPASS",),
    "grammars.native": ("build_extension",),
    "grammars.parse": ("CitationParser", "parse_citation"),
    "grammars.patterns": ("write_atomically",),
    "grammars.vocabulary": ("Vocabulary",),
}  # fmt: skip
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

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
    "AnswerAnchors",
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
    "NativeBuildError",
    "Panel",
    "ParsedCitation",
    "StatuteCitation",
    "Supplement",
    "TokenIndex",
    "TokenizerError",
    "UnsupportedPatternError",
    "Vocabulary",
    "anchor_root",
    "answer_anchors",
    "answer_grammar",
    "as_lexicon",
    "build_extension",
    "case_grammar",
    "compile_index",
    "declared_names",
    "default_finder",
    "default_lexicon",
    "find_citations",
    "format_date",
    "head_written_apart",
    "lazy_exports",
    "names_then_je",
    "parse_citation",
    "spellable_name",
    "statute_grammar",
    "title_then_je",
    "vocabulary_of",
    "write_atomically",
]
