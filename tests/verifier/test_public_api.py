"""The names `verifier` exports: each one exists, and the list is the one the other packages may use
(tests/test_boundaries.py keeps them to it)."""

from __future__ import annotations

import verifier

EXPECTED = {
    "BUNDLE_SUFFIX", "BookReport", "Change",
    "Database", "DatabaseError", "DatabaseUnreachableError", "DocumentResolver", "FileReport",
    "ImportFileError", "MalformedFileError", "Mismatch", "Resolution", "SchemaMismatchError", "UnsafeXmlError",
    "UnsupportedShapeError", "Verdict", "VerdictStatus", "Verifier", "VerifierError", "build_lexicon",
    "default_database_url", "head_revision", "holds_law", "import_file", "import_paths", "lexicon_data",
    "read_histories",
}  # fmt: skip


def test_exports_are_pinned_and_importable() -> None:
    assert set(verifier.__all__) == EXPECTED
    assert all(getattr(verifier, name, None) is not None for name in verifier.__all__)
