"""Errors of the verifier package.

    VerifierError                  root: the database or an input file cannot be used
    ├── DatabaseError              the database cannot serve
    │   ├── DatabaseUnreachableError   a URL that does not parse or a server that does not answer
    │   └── SchemaMismatchError        no schema, or an older/newer one: run `citegen-admin init`
    └── ImportFileError            an input file cannot be imported; names the file and position
        ├── UnsafeXmlError             DTDs, entities (billion laughs), external references
        ├── MalformedFileError         not well-formed XML/JSON/JSONL, wrong encoding, truncated
        ├── UnsupportedShapeError      well-formed, but not a law.go.kr or JSONL shape we know
        ├── InvalidValueError          a known shape holding a value out of bounds (too long, wrong type)
        └── ShrinkError                a body that would drop more of an act than an amendment does

Expected outcomes are values, not exceptions: a citation that does not verify is a `Verdict`,
a citation the resolver cannot complete is a `Resolution` marked uncertain.
"""

from __future__ import annotations

from pathlib import Path


class VerifierError(Exception):
    """Root of the verifier's errors; the message says what was expected and what came."""


class DatabaseError(VerifierError):
    pass


class DatabaseUnreachableError(DatabaseError):
    pass


class SchemaMismatchError(DatabaseError):
    pass


class ImportFileError(VerifierError):
    """A file that cannot be imported; `path` and `position` say where (position may be None)."""

    def __init__(self, path: Path | str, position: str | None, problem: str) -> None:
        self.path = Path(path)
        self.position = position
        self.problem = problem
        where = f"{self.path}" + (f" at {position}" if position else "")
        super().__init__(f"{where}: {problem}")


class UnsafeXmlError(ImportFileError):
    pass


class MalformedFileError(ImportFileError):
    pass


class UnsupportedShapeError(ImportFileError):
    pass


class InvalidValueError(ImportFileError):
    pass


class ShrinkError(ImportFileError):
    """Refused unless the import is told the shrinking is wanted (`--allow-shrink`)."""
