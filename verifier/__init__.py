"""The statute/case database and the verdicts drawn from it. Knows nothing of models or tokens.

    database = Database.open(url)                    # created on first use; refuses other revisions
    import_paths(database, ["data/law", "data/cases"])
    with Verifier(database) as verifier:
        verdict = verifier.verify(citation)          # Verdict(status, citation, detail, canonical, source, …)
    DocumentResolver(database).resolve_text(text)    # messy -> canonical, changes listed
    lexicon_data(database)                           # {act name or 약칭: [article labels]} for grammars
    read_histories(bundle, set(), BookReport())      # the statute book's acts, read without a database

The other packages import these names only (tests/test_boundaries.py checks it).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from verifier.admin import holds_law
    from verifier.config import default_database_url
    from verifier.database import Database, head_revision
    from verifier.errors import (
        DatabaseError,
        DatabaseUnreachableError,
        ImportFileError,
        MalformedFileError,
        SchemaMismatchError,
        UnsafeXmlError,
        UnsupportedShapeError,
        VerifierError,
    )
    from verifier.importers import FileReport, import_file, import_paths
    from verifier.importers.book import BUNDLE_SUFFIX, read_histories
    from verifier.importers.history import BookReport
    from verifier.lexicon import build_lexicon, lexicon_data
    from verifier.resolver import Change, DocumentResolver, Resolution
    from verifier.verdict import Mismatch, Verdict, VerdictStatus
    from verifier.verify import Verifier

# Where each public name lives: the package loads a module on first use of one of its names, so that
# `citegen recite` (the database, resolver and verify) starts without the importers.
_HOMES = {
    **dict.fromkeys(("holds_law",), "admin"),
    **dict.fromkeys(("default_database_url",), "config"),
    **dict.fromkeys(("Database", "head_revision"), "database"),
    **dict.fromkeys(("DatabaseError", "DatabaseUnreachableError", "ImportFileError", "MalformedFileError",
                     "SchemaMismatchError", "UnsafeXmlError", "UnsupportedShapeError", "VerifierError"), "errors"),
    **dict.fromkeys(("FileReport", "import_file", "import_paths"), "importers"),
    **dict.fromkeys(("BUNDLE_SUFFIX", "read_histories"), "importers.book"),
    **dict.fromkeys(("BookReport",), "importers.history"),
    **dict.fromkeys(("build_lexicon", "lexicon_data"), "lexicon"),
    **dict.fromkeys(("Change", "DocumentResolver", "Resolution"), "resolver"),
    **dict.fromkeys(("Mismatch", "Verdict", "VerdictStatus"), "verdict"),
    **dict.fromkeys(("Verifier",), "verify"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'verifier' has no attribute {name!r}")
    return getattr(importlib.import_module(f"verifier.{home}"), name)


__all__ = [
    "BUNDLE_SUFFIX",
    "BookReport",
    "Change",
    "Database",
    "DatabaseError",
    "DatabaseUnreachableError",
    "DocumentResolver",
    "FileReport",
    "ImportFileError",
    "MalformedFileError",
    "Mismatch",
    "Resolution",
    "SchemaMismatchError",
    "UnsafeXmlError",
    "UnsupportedShapeError",
    "Verdict",
    "VerdictStatus",
    "Verifier",
    "VerifierError",
    "build_lexicon",
    "default_database_url",
    "head_revision",
    "holds_law",
    "import_file",
    "import_paths",
    "lexicon_data",
    "read_histories",
]
