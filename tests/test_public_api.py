"""The names each package exports: each one exists, and the list is the one the other packages
may use (tests/test_boundaries.py keeps them to it) and the README documents."""

from __future__ import annotations

import importlib

import pytest

EXPORTS = {
    "grammars": {
        "ALL_CASE_CODES", "Alt", "AmendmentNote", "AnswerAnchors", "AnswerGrammar", "CASE_CODES_BY_TEXT", "CITED_NAMES",
        "CONSTITUTIONAL_COURT_CODES", "COURTS", "COURTS_BY_NAME", "CaseCitation", "CaseCode", "CaseNumber",
        "CitationFinder", "CitationForm", "CitationGrammar", "CitationParser", "Court", "CourtKind", "DEAD",
        "DECREE_KIND_OF_SHORT_NAME", "DEFAULT_BYPASS", "Disposition", "Expr", "ExprDFA", "FINISHED", "FoundCitation",
        "GrammarError", "IncompleteCitationError", "LEGACY_CODES", "Lexicon", "LexiconError", "NativeBuildError",
        "Panel", "ParsedCitation",
        "SAME_DECREE_KIND", "StatuteCitation", "Supplement", "TokenIndex", "TokenizerError", "UnsupportedPatternError",
        "Vocabulary",
        "anchor_root", "answer_anchors", "answer_grammar", "as_lexicon", "build_extension", "case_grammar",
        "compile_index",
        "declared_names", "default_finder", "default_lexicon",
        "find_citations", "format_date", "head_written_apart", "lazy_exports", "names_then_je", "parse_citation",
        "spellable_name", "statute_grammar", "title_then_je",
        "vocabulary_of", "write_atomically",
    },
    "verifier": {
        "BUNDLE_SUFFIX", "BookReport", "Change",
        "Database", "DatabaseError", "DatabaseUnreachableError", "DocumentResolver", "FileReport",
        "ImportFileError", "MalformedFileError", "Mismatch", "Resolution", "SchemaMismatchError", "UnsafeXmlError",
        "UnsupportedShapeError", "Verdict", "VerdictStatus", "Verifier", "VerifierError", "build_lexicon",
        "default_database_url", "head_revision", "holds_law", "import_file", "import_paths", "lexicon_data",
        "read_histories", "read_lexicon",
    },
    "streaming": {
        "AdminSource", "AnchorPrefixes", "BadEncodingError", "BodyTimeoutError", "BodyTooLargeError", "CitableNames",
        "CitationDelta", "CitationEnd", "CitationStart", "ConfigurationError", "Finished", "Gauges", "GenerationError",
        "GenerationRequest", "GenerationSource", "Message", "OverloadedError", "PreparingSource", "ProseDelta",
        "Provision", "ReadinessProbe", "RequestRejectedError", "SegmentMachine", "SegmentProtocolError", "SourceEvent",
        "StreamingError", "StreamingSettings", "UnauthorizedError", "Usage", "Verdict", "Verifier", "create_app",
    },
}  # fmt: skip


@pytest.mark.parametrize("package", sorted(EXPORTS))
def test_exports_are_pinned_and_importable(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) == EXPORTS[package]
    assert all(getattr(module, name, None) is not None for name in module.__all__)
