"""The statute book's sources: a legalize-kr git repository (every version, one per commit), a
legalize-kr tree or tarball (the versions in it), single `.md` files, and the compact bundle
(`*.book.jsonl.xz`, one act per line, spans already folded) that data/law ships.

`import_book(database, path)` writes each act in its own transaction (`history.write_act`):
a file that cannot be read (malformed front matter, not an act, a value out of bounds) is skipped
and named with its commit, a bundle line likewise, an act the database refuses (IntegrityError,
DataError) is rolled back and named, and the rest goes on; a bundle whose compression is cut
short stops where it breaks, the acts before it kept, and the report says so. Versions already
held (same `commit:path` origin, or same MST) are not read again, so a re-import after the source
moved on processes only the new versions; from a git repository, an act whose new version sorts before
one held is rebuilt from its file's whole history.

Bundle line:
    {"law_id": "001706",
     "versions": [[mst, name, kind, promulgated_on, number, effective_on, status, change, origin]],
     "spans": [[number, branch, first, last, title, deleted, structure, text or null]],
     "supplements": [[mst, heading, text or null]]}
"""

from __future__ import annotations

import datetime as dt
import functools
import gzip
import json
import lzma
import subprocess
import tarfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.exc import DataError, IntegrityError

from verifier.database import Database
from verifier.errors import ImportFileError, InvalidValueError, MalformedFileError, UnsupportedShapeError
from verifier.importers.history import (
    ActHistory,
    ActOutcome,
    BookReport,
    Span,
    normalize,
    write_act,
)
from verifier.importers.legalize import ActVersion, parse_act
from verifier.importers.records import describe
from verifier.models import VERSIONS

BUNDLE_SUFFIX = ".book.jsonl"
TARBALL_SUFFIXES = (".tar", ".tar.xz", ".tar.gz", ".tgz")
Progress = Callable[[int, int | None, str], None]  # (done, total or None, what)


def is_book_source(path: Path) -> bool:
    name = path.name.lower()
    if path.is_dir():
        return _is_git(path) or (path / "kr").is_dir()
    return (name.endswith(TARBALL_SUFFIXES) or name.endswith(".md") or BUNDLE_SUFFIX in name)


def _is_git(path: Path) -> bool:
    return (path / ".git").exists() or ((path / "HEAD").is_file() and (path / "objects").is_dir())


def _date(raw: str | None) -> dt.date | None:
    return dt.date.fromisoformat(raw) if raw else None


# --- the bundle ----------------------------------------------------------------------------------

def bundle_line(versions: list[ActVersion], spans: list[Span]) -> str:
    """One act as a bundle line (the build script's writer and `_read_bundle` are each other's inverse)."""
    return json.dumps({
        "law_id": versions[0].law_id,
        "versions": [[v.mst, v.name, v.kind, v.promulgated_on and v.promulgated_on.isoformat(),
                      v.promulgation_number, v.effective_on and v.effective_on.isoformat(), v.status, v.change,
                      v.origin] for v in versions],
        "spans": [[s.number, s.branch, s.first, s.last, s.title, s.deleted, s.structure, s.text] for s in spans],
        "supplements": [[v.mst, heading, text] for v in versions for heading, text in v.supplements],
    }, ensure_ascii=False, separators=(",", ":"))


def _open_text(path: Path) -> IO[str]:
    name = path.name.lower()
    opener: Callable[..., IO[str]] = (lzma.open if name.endswith(".xz") else gzip.open if name.endswith(".gz")
                                      else open)
    return opener(path, "rt", encoding="utf-8")


def _read_bundle(path: Path, report: BookReport) -> Iterator[ActHistory]:
    """The bundle's acts; a line that is not one (or holds a value out of bounds) is skipped, said."""
    try:
        with _open_text(path) as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    yield _bundle_act(path, number, line)
                except ImportFileError as error:
                    report.skipped.append((f"{path} line {number}", error.problem))
    except (EOFError, lzma.LZMAError, gzip.BadGzipFile, UnicodeDecodeError) as error:
        message = f"expected a complete compressed bundle, got a broken one ({error})"
        raise MalformedFileError(path, None, message) from error


def _bundle_act(path: Path, number: int, line: str) -> ActHistory:
    try:
        data: dict[str, Any] = json.loads(line)
        supplements: dict[int, list[tuple[str, str]]] = defaultdict(list)
        for mst, heading, text in data.get("supplements", ()):
            supplements[mst].append((heading, text))
        versions = [ActVersion(data["law_id"], mst, name, kind, _date(promulgated), promulgation_number,
                               _date(effective), status, change, origin, (), tuple(supplements[mst]))
                    for mst, name, kind, promulgated, promulgation_number, effective, status, change, origin
                    in data["versions"]]
        # spans name versions by sequence: number them as `write_act` will (a bundle written before the
        # builder normalized its acts may hold an act's versions out of order or one MST twice)
        versions, spans = normalize(versions, [Span(*row) for row in data["spans"]])
    except ValidationError as error:
        raise InvalidValueError(path, f"line {number}", describe(error)) from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise MalformedFileError(path, f"line {number}", f"expected a bundle line (law_id, versions, spans), got "
                                                         f"{type(error).__name__}: {error}") from None
    return ActHistory(data["law_id"], versions, spans, complete=True)


# --- legalize-kr trees, tarballs and files -------------------------------------------------------

def _texts_of_tree(path: Path) -> Iterator[tuple[str, Callable[[], bytes]]]:
    if path.is_file() and path.name.lower().endswith(".md"):
        yield str(path), path.read_bytes
        return
    if path.is_dir():
        for file in sorted((path / "kr" if (path / "kr").is_dir() else path).rglob("*.md")):
            yield str(file), file.read_bytes
        return
    try:
        with tarfile.open(path) as tar:
            for member in tar:
                if member.isfile() and member.name.endswith(".md"):
                    handle = tar.extractfile(member)
                    if handle is not None:
                        data = handle.read()
                        yield f"{path.name}:{member.name}", lambda data=data: data  # type: ignore[misc]
    except (tarfile.TarError, EOFError, lzma.LZMAError, OSError) as error:
        raise MalformedFileError(path, None, f"expected a readable tarball, got a broken one ({error})") from None


# --- a legalize-kr git repository ----------------------------------------------------------------

def _git(repo: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["git", "-C", str(repo), "-c", "core.quotePath=false", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def _git_versions(repo: Path) -> dict[str, list[tuple[str, str | None]]]:
    """{path: [(commit, change kind from the subject), …] oldest first}, paths in order of appearance."""
    process = _git(repo, "log", "--reverse", "--no-renames", "--format=%x00%H%x09%s", "--name-status", "--", "kr")
    out, _ = process.communicate()
    if process.returncode:
        raise UnsupportedShapeError(repo, None, "expected a git repository with a kr/ tree, got one git cannot log")
    paths: dict[str, list[tuple[str, str | None]]] = {}
    for entry in out.decode("utf-8", "replace").split("\x00")[1:]:
        head, _, changes = entry.partition("\n")
        commit, _, subject = head.partition("\t")
        change = subject.rsplit("(", 1)[1].rstrip(")").strip() if subject.endswith(")") and "(" in subject else None
        for line in changes.splitlines():
            status, _, name = line.partition("\t")
            if status in ("A", "M") and name.endswith(".md"):
                paths.setdefault(name, []).append((commit, change))
    return paths


class _BlobReader:
    """`git cat-file --batch`: one process, blobs by `commit:path`."""

    def __init__(self, repo: Path) -> None:
        self._process = _git(repo, "cat-file", "--batch")

    def read(self, spec: str) -> bytes | None:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None  # Popen with PIPE always sets them
        stdin.write(spec.encode("utf-8") + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:
            return None
        return stdout.read(int(header[2]) + 1)[:-1]

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()
        if self._process.stdout is not None:  # left open, it is a ResourceWarning when collected
            self._process.stdout.close()


# --- the import ----------------------------------------------------------------------------------

def _decoded(origin: str, data: bytes) -> str:
    """A file's text: UTF-8 (an editor's byte order mark and Windows line ends, as a checkout with
    core.autocrlf writes them, read through); any other encoding is refused, never read with U+FFFD in
    the statute's text (EUC-KR, as a file saved on Windows may be)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise MalformedFileError(origin, f"byte {error.start + 1}", f"expected UTF-8 text, got byte "
                                                                    f"{data[error.start]:#04x}") from None
    return text.replace("\r\n", "\n")


def _parsed(origin: str, data: bytes | None, change: str | None, report: BookReport) -> ActVersion | None:
    if data is None:
        report.skipped.append((origin, "expected a file at that commit, got none"))
        return None
    try:
        return parse_act(_decoded(origin, data), origin, change)
    except ImportFileError as error:
        report.skipped.append((origin, error.problem if error.position is None
                               else f"{error.position}: {error.problem}"))
        return None


def _versions_at(reader: _BlobReader, name: str, commits: list[tuple[str, str | None]],
                 report: BookReport) -> dict[str, list[ActVersion]]:
    """The versions of the file `name` at `commits`, by 법령ID (a path may hold two acts in turn)."""
    groups: dict[str, list[ActVersion]] = defaultdict(list)
    for commit, change in commits:
        version = _parsed(f"{commit[:12]}:{name}", reader.read(f"{commit}:{name}"), change, report)
        if version is not None:
            groups[version.law_id].append(version)
    return groups


def _whole_history(reader: _BlobReader, name: str, commits: list[tuple[str, str | None]],
                   law_id: str) -> list[ActVersion]:
    """Every version of act `law_id` the file `name` held (what could not be read was reported when its
    commit was new)."""
    return _versions_at(reader, name, commits, BookReport()).get(law_id, [])


def read_histories(path: Path, known: set[str], report: BookReport) -> Iterator[tuple[ActHistory, int, int | None]]:
    """(act history, units done, units in all) from any source."""
    if path.is_file() and BUNDLE_SUFFIX in path.name.lower():
        for done, history in enumerate(_read_bundle(path, report), start=1):
            yield history, done, None
        return
    if path.is_dir() and _is_git(path):
        paths = _git_versions(path)
        reader = _BlobReader(path)
        try:
            for done, (name, commits) in enumerate(paths.items(), start=1):
                groups = _versions_at(reader, name, [c for c in commits if f"{c[0][:12]}:{name}" not in known], report)
                for law_id, versions in groups.items():
                    # a version that sorts before one held (legalize-kr adding an amendment late) rebuilds the act
                    # from the file's whole history, read then: skipped, it was skipped again on every pull
                    whole = functools.partial(_whole_history, reader, name, commits, law_id)
                    yield ActHistory(law_id, versions, whole=whole), done, len(paths)
        finally:
            reader.close()
        return
    groups = defaultdict(list)
    for origin, read in _texts_of_tree(path):
        if origin not in known and (version := _parsed(origin, read(), None, report)) is not None:
            groups[version.law_id].append(version)
    for done, (law_id, versions) in enumerate(groups.items(), start=1):
        yield ActHistory(law_id, versions), done, len(groups)


def import_book(database: Database, path: Path, on_progress: Progress | None = None) -> BookReport:
    """Import every act version `path` holds that the database does not; see the module docstring."""
    report = BookReport()
    with database.engine.connect() as connection:
        known = set(connection.execute(select(VERSIONS.c.origin)).scalars())
    try:
        for history, done, total in read_histories(path, known, report):
            try:
                with database.engine.begin() as connection:
                    outcome = write_act(connection, history)
            except (IntegrityError, DataError) as error:  # this act's data; a lost connection stops it all
                reason = str(error.orig or error).strip().splitlines()[0]
                outcome = ActOutcome(skipped=f"the database refused it ({reason}); the act was left as it was")
            if outcome.skipped:
                report.skipped.append((f"{path} 법령ID {history.law_id}", outcome.skipped))
            elif outcome.versions_added:
                report.acts += 1
                report.versions += outcome.versions_added
                report.spans += outcome.spans_written
                report.rebuilt += outcome.rebuilt
            else:
                report.unchanged += 1
            if on_progress is not None:
                on_progress(done, total, history.versions[-1].name if history.versions else history.law_id)
    except MalformedFileError as error:
        report.skipped.append((str(error.path), f"{error.problem}; the acts before it were imported, none after"))
    return report

