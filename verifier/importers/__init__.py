"""Import law.go.kr responses (XML, JSON) and the JSONL format into the database.

One transaction per file: a file that fails (hostile, malformed, an unknown shape, an act body
without the shape of one, a value out of bounds, a body that would shrink its act) raises an
`ImportFileError` naming the file and position, and the database is left as it was before it.
The statute book (a legalize-kr repository, tree, tarball or `.md` file, or the compact
`*.book.jsonl.xz` bundle) is imported by `book.import_book`: one transaction per act, files,
bundle lines and acts it cannot read or write skipped and listed in the report.
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.database import Database
from verifier.errors import ImportFileError, MalformedFileError, UnsupportedShapeError
from verifier.importers.records import Record, SkippedRow
from verifier.importers.store import RecordWriter

if TYPE_CHECKING:
    from verifier.importers.book import Progress

logger = logging.getLogger(__name__)


# The readers load on first use: whoever writes records without reading files (sync, through `store`
# and `history`) imports this package, not law.go.kr's formats. (Readers of the database import none of
# it: their tables are in verifier.models.)
@functools.cache
def readers() -> dict[str, Callable[[Path], Iterator[Record]]]:
    from verifier.importers.jsonl import read_jsonl  # noqa: PLC0415
    from verifier.importers.lawgo import read_json, read_xml  # noqa: PLC0415

    return {".xml": read_xml, ".json": read_json, ".jsonl": read_jsonl}


def is_book_source(path: Path) -> bool:
    from verifier.importers.book import is_book_source as book_source  # noqa: PLC0415

    return book_source(path)


@dataclass
class FileReport:
    """What one file carried: `counts` are records written (an upsert of a row already held
    counts too), so they add up to more than the database holds once files overlap."""

    path: Path
    counts: Counter[str] = field(default_factory=Counter)
    skipped: list[SkippedRow] = field(default_factory=list)


def discover(paths: Iterable[Path | str]) -> list[Path]:
    """The importable files under `paths` (folders searched recursively, in name order), statute
    books first, from whichever path they come: an alias names every act of its name held when it
    is written, so aliases written before a book that brings another act of that name would
    change on a re-import of the same paths."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and not is_book_source(path):
            found += sorted((p for p in path.rglob("*") if p.is_file() and (
                p.suffix.lower() in readers() or is_book_source(p))), key=lambda p: (not is_book_source(p), p))
        elif path.is_dir() or path.is_file():
            found.append(path)
        else:
            raise ImportFileError(path, None, "expected a file or a folder, got nothing at that path")
    return sorted(found, key=lambda p: not is_book_source(p))  # stable: the given order otherwise


def import_file(database: Database, path: Path, on_progress: Progress | None = None, *,
                allow_shrink: bool = False) -> FileReport:
    """Import one file or statute book; `allow_shrink`: let a body drop any share of its act's
    articles and provisions (see `store.RecordWriter`)."""
    if is_book_source(path):
        from verifier.importers.book import import_book  # noqa: PLC0415

        book = import_book(database, path, on_progress)
        counts = Counter({"acts": book.acts, "versions": book.versions, "article spans": book.spans,
                          "acts rebuilt": book.rebuilt, "acts unchanged": book.unchanged})
        return FileReport(path, +counts, [SkippedRow(where, why) for where, why in book.skipped])
    reader = readers().get(path.suffix.lower())
    if reader is None:
        got = path.suffix or "no suffix"
        raise UnsupportedShapeError(path, None, f"expected a .xml, .json or .jsonl file, got {got!r}")
    if path.stat().st_size == 0:
        raise MalformedFileError(path, None, "expected law.go.kr XML/JSON or JSONL, got an empty file")
    with database.engine.begin() as connection:
        writer = RecordWriter(connection, f"{path.suffix.lstrip('.').lower()}:{path.name}"[:40], path,
                              allow_shrink=allow_shrink)
        for record in reader(path):
            writer.write(record)
        counts = writer.finish()
    logger.info("imported %s: %s", path, dict(counts))
    return FileReport(path, counts, writer.skipped)


def import_paths(database: Database, paths: Iterable[Path | str],
                 on_file: Callable[[Path], None] | None = None, *, allow_shrink: bool = False) -> list[FileReport]:
    """Import every file; stops at the first file that fails (earlier files stay imported)."""
    reports = []
    for path in discover(paths):
        if on_file is not None:
            on_file(path)
        reports.append(import_file(database, path, allow_shrink=allow_shrink))
    return reports
