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

from typing import TYPE_CHECKING

from grammars import lazy_exports

if TYPE_CHECKING:  # loaded on first use (grammars.exports), so `import verifier` stays cheap
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
    from verifier.lexicon import build_lexicon, lexicon_data, read_lexicon
    from verifier.resolver import Change, DocumentResolver, Resolution
    from verifier.verdict import Mismatch, Verdict, VerdictStatus
    from verifier.verify import Verifier

_HOMES = {  # module: the names it gives the package (as imported above)
    "verifier.admin": ("holds_law",),
    "verifier.config": ("default_database_url",),
    "verifier.database": ("Database", "head_revision"),
    "verifier.errors": (
        "DatabaseError", "DatabaseUnreachableError", "ImportFileError", "MalformedFileError",
        "SchemaMismatchError", "UnsafeXmlError", "UnsupportedShapeError", "VerifierError",
    ),
    "verifier.importers": ("FileReport", "import_file", "import_paths"),
    "verifier.importers.book": ("BUNDLE_SUFFIX", "read_histories"),
    "verifier.importers.history": ("BookReport",),
    "verifier.lexicon": ("build_lexicon", "lexicon_data", "read_lexicon"),
    "verifier.resolver": ("Change", "DocumentResolver", "Resolution"),
    "verifier.verdict": ("Mismatch", "Verdict", "VerdictStatus"),
    "verifier.verify": ("Verifier",),
}  # fmt: skip
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

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
    "read_lexicon",
]
