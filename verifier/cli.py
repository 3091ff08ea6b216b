"""`citegen-admin`: create, import, dump, search, verify and audit the statute/case database.

Every command takes `--database-url` (default: env CITEGEN_DATABASE_URL, else an SQLite file in
the user's data directory). Exit codes: 0 ok, 1 a citation that did not verify, 2 bad usage or
input (unreadable file, unreachable database, old schema, text without a citation), 130 when
interrupted (Ctrl-C). Only `init`, `import` and `sync` create a database; the others read an
existing one. Files are written whole or not at all.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console

from verifier.config import default_database_url
from verifier.errors import DatabaseError, ImportFileError, VerifierError
from verifier.sync.api import BASE_URL, PAGE_SIZE, TARGETS
from verifier.verdict import STATUSES, Mismatch

if TYPE_CHECKING:  # each command imports what it uses: `citegen-admin --help` loads no database or grammar
    from rich.progress import TaskID
    from rich.table import Table

    from verifier.database import Database
    from verifier.resolver import DocumentResolver, Resolution
    from verifier.sync import SyncReport
    from verifier.verdict import Verdict
    from verifier.verify import Verifier

app = typer.Typer(
    name="citegen-admin", no_args_is_help=True, add_completion=False,
    help="Administer the citation database: statutes, decisions and the audit log of verifications. "
         "Start with `init` and `import`. Every command reads --database-url, else env CITEGEN_DATABASE_URL, "
         "else citegen/citegen.sqlite3 under $XDG_DATA_HOME or ~/.local/share. "
         "Exit codes: 0 ok, 1 a citation did not verify, 2 bad usage or input, 130 interrupted.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

DatabaseUrl = Annotated[str | None, typer.Option(
    "--database-url", envvar="CITEGEN_DATABASE_URL", show_envvar=True,
    help="SQLAlchemy URL: sqlite:///path or postgresql://user@host/db (default: an SQLite file).")]
EXIT_NOT_VERIFIED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
PIPED_WIDTH = 100_000  # columns of a table on a pipe or in a file: no cell is cut short
SKIPPED_SHOWN = 10  # skipped rows listed per file; the rest are counted
# a date as a case citation writes it, for telling which one the calendar lacks
_WRITTEN_DATE = re.compile(r"\d{4}\s*\.\s*\d{1,2}\s*\.\s*\d{1,2}\s*\.?")
# the tables an import writes (named as verifier.admin.row_counts names them)
_IMPORTED = ("acts", "act versions", "article spans", "articles", "provisions", "cases", "aliases")


@contextmanager
def _database(url: str | None, *, upgrade: bool = False, create: bool = False) -> Iterator[Database]:
    """Open the database (`create`: an SQLite file is made if missing; else a wrong path is an error, not
    a new empty database); any verifier or database failure ends the command with exit code 2, Ctrl-C
    with 130 (an import or sync item is one transaction, a file is written whole: nothing half-done)."""
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    from verifier.database import Database  # noqa: PLC0415

    database: Database | None = None
    try:
        database = Database.open(url or default_database_url(), upgrade=upgrade, create=create)
        yield database
    except KeyboardInterrupt:
        err.print("interrupted: what was committed before it is kept, nothing after; no file was half-written")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except VerifierError as error:
        err.print(f"[red]error:[/red] {error}", markup=True)
        if isinstance(error, DatabaseError):
            err.print("  hint: pass --database-url or set CITEGEN_DATABASE_URL (sqlite:///path or "
                      "postgresql://user@host/db); `citegen-admin init` creates or upgrades the schema")
        raise typer.Exit(EXIT_BAD_INPUT) from error
    except SQLAlchemyError as error:
        first_line = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        err.print(f"[red]database error:[/red] {first_line}", markup=True)
        raise typer.Exit(EXIT_BAD_INPUT) from error
    finally:
        if database is not None:
            database.close()


@app.command()
def init(database_url: DatabaseUrl = None) -> None:
    """Create the database schema, or upgrade an older one to the current revision."""
    with _database(database_url, upgrade=True, create=True) as database:
        out.print(f"database {database.url} at schema revision {database.revision()}")


@app.command("import")
def import_(paths: Annotated[list[Path], typer.Argument(
        help="Files or folders: law.go.kr .xml/.json, .jsonl, a legalize-kr repository, tree, tarball or .md "
             "file, or a *.book.jsonl.xz statute book.")],
            allow_shrink: Annotated[bool, typer.Option(
                "--allow-shrink", help="Let an act body remove more than 2 % (and more than 5) of the act's "
                                       "articles or provisions; refused otherwise, saying what would go.")] = False,
            database_url: DatabaseUrl = None) -> None:
    """Import law.go.kr responses (XML/JSON) and JSONL files (one transaction per file), and the
    statute book from legalize-kr or its bundle (one transaction per act; versions already held
    are not read again, files or acts that cannot be read or written are skipped and listed).

    A file is refused whole (exit 2, the file and the node named, the database unchanged) when it is
    not well-formed, an act body lacks the shape of one (기본정보, 조문/조문단위 rows with 조문번호),
    a value is out of bounds (NaN, a name over 200 characters), or a body would shrink its act.

    Records already in the database (the same act, article or decision in an XML and a JSON
    response, or a file imported again) are updated in place, so the summary says what the
    database holds afterwards and how that changed, not how many records the files carried."""
    from rich.progress import (  # noqa: PLC0415
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from verifier.admin import row_counts  # noqa: PLC0415
    from verifier.importers import discover, import_file  # noqa: PLC0415

    with _database(database_url, create=True) as database:
        files = discover(paths)
        if not files:
            err.print("error: expected .xml, .json or .jsonl files under the given paths, got none")
            raise typer.Exit(EXIT_BAD_INPUT)
        before = row_counts(database)
        skipped = 0
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=err, transient=True) as progress:
            task = progress.add_task("importing", total=len(files))
            for done, path in enumerate(files):
                progress.update(task, description=f"importing {path.name}")
                acts = progress.add_task(f"  acts of {path.name}", total=None, visible=False)

                def on_act(count: int, total: int | None, name: str, acts: TaskID = acts) -> None:
                    progress.update(acts, completed=count, total=total, visible=True,
                                    description=f"  {name[:40]}")

                try:
                    report = import_file(database, path, on_act, allow_shrink=allow_shrink)
                except ImportFileError as error:
                    err.print(f"error: {error}", markup=False)
                    err.print(f"{done} of {len(files)} files were imported before it, none after; the failed file "
                              "changed nothing. Fix or remove it and run the import again (re-importing is safe).")
                    raise typer.Exit(EXIT_BAD_INPUT) from error
                progress.remove_task(acts)
                skipped += len(report.skipped)
                for row in report.skipped[:SKIPPED_SHOWN]:
                    err.print(f"skipped {path} {row.position}: {row.reason}", markup=False)
                if len(report.skipped) > SKIPPED_SHOWN:
                    err.print(f"skipped {len(report.skipped) - SKIPPED_SHOWN} more rows of {path}")
                progress.advance(task)
        after = row_counts(database)
        held = ", ".join(f"{after[name]} {name}" + (f" ({after[name] - before[name]:+d})" if after[name] != before[name]
                                                     else "") for name in _IMPORTED)
        out.print(f"imported {len(files)} files; the database now holds {held}"
                  + (f"; {skipped} rows skipped" if skipped else ""))


@app.command()
def search(query: Annotated[str, typer.Argument(
               help="Words of an act's name or 약칭, of an article's title or text (`해고`), `민법 750`, "
                    "a 사건번호 or words of a 사건명.")],
           kind: Annotated[Literal["all", "acts", "articles", "cases"], typer.Option(help="What to search.")] = "all",
           limit: Annotated[int, typer.Option(min=1, max=1000, help="Most rows shown of each kind.")] = 20,
           json_output: Annotated[bool, typer.Option("--json", help="One JSON object on stdout: acts, articles, "
                                                                    "cases, each a list of rows.")] = False,
           database_url: DatabaseUrl = None) -> None:
    """Search acts (by name or 약칭), articles of the version in force today (by title or text, title
    hits first, with the text around the hit; or `민법 750`) and cases (사건번호 or words of the 사건명).
    A substring search, case-insensitive, with no stemming: `해고` finds 해고의 and 부당해고."""
    from verifier.admin import find_acts, find_articles, find_cases  # noqa: PLC0415

    text = query.strip()
    if not text:
        err.print("error: expected something to search for, got an empty query")
        raise typer.Exit(EXIT_BAD_INPUT)
    found: dict[str, list[dict[str, Any]]] = {}
    with _database(database_url) as database:
        if kind in ("all", "acts"):
            found["acts"] = find_acts(database, text, limit)
        if kind in ("all", "cases"):
            found["cases"] = find_cases(database, text, limit)
        if kind in ("all", "articles"):
            found["articles"] = [asdict(hit) for hit in find_articles(database, text, limit, dt.date.today())]
    if json_output:
        _write_json(found, default=str)
        return
    shown = sum((_table("acts", ("name", "법령ID", "MST", "kind"), [row.values() for row in found.get("acts", [])]),
                 _table("articles", ("act", "article", "title", "text"),
                        [(hit["act"], hit["article"], hit["title"], hit["snippet"])
                         for hit in found.get("articles", [])]),
                 _table("cases", ("court", "date", "year", "code", "serial", "disposition", "사건명"),
                        [row.values() for row in found.get("cases", [])])))
    if not shown:
        out.print(f"nothing matches {text!r}", markup=False)


def _table(title: str, headers: tuple[str, ...], rows: Sequence[Iterable[object]]) -> int:
    from rich.table import Table  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415

    if rows:
        table = Table(*headers, title=title)
        for row in rows:
            table.add_row(*(Text("" if value is None else str(value)) for value in row))  # no markup in data
        _print_table(table)
    return len(rows)


def _print_table(table: Table) -> None:
    """A table fits a terminal's width; on a pipe or in a file (where rich assumes 80 columns and would
    cut 사건명 and snippets short with …) each row is written whole."""
    if out.is_terminal:
        out.print(table)
    else:
        Console(highlight=False, soft_wrap=True, width=PIPED_WIDTH).print(table)


def _write_json(data: object, **options: Any) -> None:
    """`data` as one JSON document on stdout: UTF-8 text where stdout takes it, else `\\uXXXX` escapes
    (valid JSON in any encoding: a Korean name never fails to print)."""
    utf8 = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "").replace("_", "") == "utf8"
    sys.stdout.write(json.dumps(data, ensure_ascii=not utf8, **options) + "\n")


def _write_whole(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write `path` whole or not at all (a failure or Ctrl-C part-way leaves the file as it was). A link,
    a device or a pipe (`/dev/stdout`) is written in place: replacing it would not write to it."""
    from grammars import write_atomically  # noqa: PLC0415

    if path.is_symlink() or (path.exists() and not path.is_file()):
        with path.open("wb") as handle:
            write(handle)
    else:
        write_atomically(path, write)


def _document_resolver(database: Database, verifier: Verifier) -> DocumentResolver:
    """A resolver whose finder knows the database's act names (grammars' built-in ones if it has none)."""
    from grammars import CitationFinder, CitationParser  # noqa: PLC0415
    from verifier.lexicon import build_lexicon  # noqa: PLC0415
    from verifier.resolver import DocumentResolver  # noqa: PLC0415

    known = build_lexicon(database)
    return DocumentResolver(database, finder=CitationFinder(CitationParser.for_lexicon(known)) if known else None,
                            lookups=verifier.lookups)


def _citations_in(text: str, resolver: DocumentResolver) -> list[tuple[str, Resolution, bool]]:
    """A canonical citation as is; otherwise every citation the lenient finder sees, resolved; with
    each, whether its written date is one the calendar lacks (`1996. 2. 30.`, read as no date)."""
    from grammars import CitationForm  # noqa: PLC0415

    canonical = resolver.finder.parser.parse(text.strip())
    if canonical is not None:
        return [(text.strip(), resolver.resolve(canonical), False)]
    return [(text[span.found.span[0]:span.found.span[1]], span.resolution,
             span.found.form is CitationForm.IMPOSSIBLE_DATE) for span in resolver.resolve_text(text)]


def _as_written(verdict: Verdict, written: str, impossible_date: bool) -> Verdict:
    """The verdict on the citation as written: one whose date is not in the calendar was completed with
    the database's date, and verifies only as completed; as written its date is wrong (a mismatch, as a
    wrong date in the calendar is)."""
    from grammars import CaseCitation, format_date  # noqa: PLC0415

    if not impossible_date or not verdict.verified or not isinstance(verdict.citation, CaseCitation) \
            or verdict.citation.date is None:
        return verdict
    date = _WRITTEN_DATE.search(written)
    cited = f"{date.group() if date else '(none)'} (not in the calendar)"
    database = format_date(verdict.citation.date)
    return replace(verdict, status="mismatch", detail=f"the date written is not in the calendar; the case "
                   f"is of {database}", mismatches=(Mismatch("date", cited, database),))


@app.command()
def verify(text: Annotated[str, typer.Argument(help="Text holding one or more citations.")],
           on: Annotated[dt.datetime | None, typer.Option(
               "--on", formats=["%Y-%m-%d"], help="Check statutes as in force on this date (the document's "
                                                  "date, e.g. a judgment's 선고일); default today.")] = None,
           database_url: DatabaseUrl = None) -> None:
    """Verify the citations in TEXT: prints each verdict, why, and the provision's text in the
    version checked; exit 1 if any does not verify."""
    from verifier.verify import Verifier  # noqa: PLC0415

    with _database(database_url) as database, Verifier(database) as verifier:
        found = _citations_in(text, _document_resolver(database, verifier))
        if not found:
            err.print(f"error: expected a citation such as '민법 제750조' or "
                      f"'대법원 2024. 7. 11. 선고 2024도4202 판결', got none in {text[:200]!r}")
            raise typer.Exit(EXIT_BAD_INPUT)
        day = on.date() if on else None
        verdicts = [_report(written, resolution, _as_written(verifier.verify(resolution.resolved, day), written,
                                                             impossible_date))
                    for written, resolution, impossible_date in found]
    if not all(verdict.verified for verdict in verdicts):
        raise typer.Exit(EXIT_NOT_VERIFIED)


def _report(written: str, resolution: Resolution, verdict: Verdict) -> Verdict:
    colour = "green" if verdict.verified else "yellow" if verdict.status == "not_covered" else "red"
    out.print(f"[{colour}]{verdict.status}[/{colour}]  {written}", markup=True)
    if verdict.canonical and verdict.canonical != written:
        out.print(f"  canonical: {verdict.canonical}")
    if verdict.source:
        out.print(f"  source:    {verdict.source}")
    out.print(f"  why:       {verdict.detail}")
    for mismatch in verdict.mismatches:
        out.print(f"  mismatch:  {mismatch.field}: cited {mismatch.cited}, database {mismatch.database}")
    for candidate in verdict.candidates:
        out.print(f"  candidate: {candidate}")
    if verdict.suggestion:
        out.print(f"  cite as:   {verdict.suggestion}")
    if verdict.provision is not None:
        source = verdict.provision
        number = f" {source.kind} 제{source.promulgation_number}호" if source.promulgation_number else ""
        out.print(f"  version:   {source.act} ({_day(source.promulgated_on)}{number}, in force from "
                  f"{_day(source.effective_on)}) {source.address}")
        out.print(f"  {source.article}" + (f" ({source.title})" if source.title else "") + ":")
        for line in (source.text or "(the database keeps this version's structure only)").splitlines():
            if line.strip():
                out.print(f"    {line.strip()}", markup=False)
    for change in resolution.changes:
        out.print(f"  resolved:  {change.field} {change.before or '(none)'} -> {change.after} ({change.why})")
    for doubt in resolution.doubts:
        out.print(f"  doubt:     {doubt}")
    return verdict


def _day(value: dt.date | None) -> str:
    return value.isoformat() if value else "no date fixed"


@app.command()
def stats(database_url: DatabaseUrl = None) -> None:
    """Counts of what the database holds, and what it covers."""
    from rich.table import Table  # noqa: PLC0415

    from verifier.admin import coverage, row_counts  # noqa: PLC0415

    with _database(database_url) as database:
        table = Table("table", "rows", title=f"{database.url} (revision {database.revision()})")
        for name, rows in row_counts(database).items():
            table.add_row(name, str(rows))
        _print_table(table)
        _table("coverage", ("kind", "court", "from", "to"), coverage(database))


@app.command()
def export(output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")]
           = None, database_url: DatabaseUrl = None) -> None:
    """Export the lexicon for grammars as JSON: each act name or 약칭 with its article labels
    ("750", "3의2"), or null where the database holds no articles of the act (any article then)."""
    from verifier.lexicon import lexicon_data  # noqa: PLC0415

    with _database(database_url) as database:
        data = lexicon_data(database)
    if output is None:
        _write_json(data, indent=1, sort_keys=True)
        return
    text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    try:
        _write_whole(output, lambda handle: handle.write(text.encode("utf-8")))
    except KeyboardInterrupt:
        err.print(f"interrupted: {output} was left as it was")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except OSError as error:
        err.print(f"error: expected a writable file at {output}, got: {error.strerror}")
        raise typer.Exit(EXIT_BAD_INPUT) from error
    out.print(f"wrote {len(data)} names to {output}")


@app.command()
def dump(output: Annotated[Path, typer.Argument(help="File to write the snapshot to (JSON lines).")],
         database_url: DatabaseUrl = None) -> None:
    """Write every imported table as JSON lines in a stable order (natural keys, no row ids), so two
    databases, or one before and after a re-import, can be compared byte for byte."""
    from verifier.importers.snapshot import write_snapshot  # noqa: PLC0415

    with _database(database_url) as database:
        written: list[int] = []
        try:
            _write_whole(output, lambda handle: written.append(write_snapshot(database, handle)))
        except OSError as error:
            err.print(f"error: expected a writable file at {output}, got: {error.strerror}", markup=False)
            raise typer.Exit(EXIT_BAD_INPUT) from error
    out.print(f"wrote {written[0]} rows to {output}", markup=False)


@app.command()
def audit(status: Annotated[str | None, typer.Option(help=f"Only this verdict: {', '.join(STATUSES)}.")] = None,
          limit: Annotated[int, typer.Option(min=1, max=10_000, help="Most rows shown.")] = 20,
          database_url: DatabaseUrl = None) -> None:
    """The most recent verifications, newest first."""
    from verifier.admin import audit_entries  # noqa: PLC0415

    if status is not None and status not in STATUSES:
        err.print(f"error: expected --status to be one of {', '.join(STATUSES)}, got {status!r}")
        raise typer.Exit(EXIT_BAD_INPUT)
    with _database(database_url) as database:
        rows = [(entry["at"].strftime("%Y-%m-%d %H:%M:%S"), entry["status"], entry["citation"], entry["reason"])
                for entry in audit_entries(database, limit, status)]
        if not _table("audit log", ("at (UTC)", "status", "citation", "why"), rows):
            out.print("no verifications recorded" + (f" with status {status}" if status else ""))


@app.command()
def sync(oc: Annotated[str | None, typer.Option(
            "--oc", envvar="CITEGEN_LAWGO_OC", show_envvar=True, show_default=False,
            help="Your law.go.kr Open API key (OC); used in requests only, never logged or stored.")] = None,
         targets: Annotated[str, typer.Option(help=f"Comma-separated, among {','.join(TARGETS)}.")] = ",".join(TARGETS),
         since: Annotated[str | None, typer.Option(
             help="First day to list (YYYY-MM-DD; 공포일자, 선고일자, 종국일자); default: the day after the "
                  "last sync, else everything.")] = None,
         court: Annotated[list[str] | None, typer.Option(
             "--court", help="Only 판례 of this court (full name, e.g. 대법원); repeatable.")] = None,
         rate: Annotated[float, typer.Option(min=0.01, help="Requests per second at most.")] = 2.0,
         concurrency: Annotated[int, typer.Option(min=1, max=16, help="Bodies fetched at once.")] = 4,
         page_size: Annotated[int, typer.Option(min=1, max=PAGE_SIZE, help="Rows per list request.")] = PAGE_SIZE,
         json_output: Annotated[bool, typer.Option("--json", help="No progress bar; a JSON summary on stdout.")]
         = False,
         base_url: Annotated[str, typer.Option(help="The Open API's address (a mirror or proxy of it).")] = BASE_URL,
         database_url: DatabaseUrl = None) -> None:
    """Bring the database up to date from the law.go.kr Open API: new statute versions, 판례,
    헌재 decisions and the official 약칭. Each item is imported in its own transaction and the sync
    state is kept in the database, so an interrupted sync continues where it stopped. A refusal
    (wrong key, quota), an HTML page instead of XML, a changed schema or a truncated body stops it
    with exit 2, naming the request (key redacted); the item it hit is not imported."""
    from rich.progress import (  # noqa: PLC0415
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from verifier.names import normalise_court  # noqa: PLC0415
    from verifier.sync import (  # noqa: PLC0415
        ClientConfig,
        LawGoClient,
        SyncError,
        SyncPlan,
        SyncTakenOverError,
        run_sync,
    )
    from verifier.sync.targets import parse_day  # noqa: PLC0415

    try:
        config = ClientConfig(oc=oc or "", base_url=base_url, requests_per_s=rate, concurrency=concurrency)
        plan = SyncPlan(targets=tuple(name.strip() for name in targets.split(",") if name.strip()),
                        since=parse_day(since) if since else None,
                        courts=tuple(normalise_court(name) for name in court or ()),
                        page_size=page_size)
    except ValueError as error:
        err.print(f"error: {error}")
        raise typer.Exit(EXIT_BAD_INPUT) from error
    with _database(database_url, create=True) as database, LawGoClient(config) as client:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=err, transient=True, disable=json_output) as progress:
            tasks: dict[str, TaskID] = {}

            def on_progress(stream: str, done: int, total: int | None, what: str) -> None:
                if stream not in tasks:
                    tasks[stream] = progress.add_task(stream, total=total)
                progress.update(tasks[stream], completed=done, total=total, description=f"{stream} {what}")

            try:
                report = run_sync(database, client, plan, on_progress)
            except SyncTakenOverError as error:
                err.print(f"stopped: {error}", markup=False)
                err.print("the items imported so far are kept; the other sync finishes the run", markup=False)
                raise typer.Exit(EXIT_BAD_INPUT) from error
            except SyncError as error:
                err.print(f"error: {error}", markup=False)
                err.print("the item it hit was not imported; those before it were. Fix the cause and run sync "
                          "again: it continues from that item.", markup=False)
                raise typer.Exit(EXIT_BAD_INPUT) from error
            except KeyboardInterrupt:
                err.print("interrupted: the items imported so far are kept; run sync again to continue")
                raise typer.Exit(EXIT_INTERRUPTED) from None
    if json_output:
        _write_json(report.as_json(), sort_keys=True)
    else:
        _print_sync_report(report)


def _print_sync_report(report: SyncReport) -> None:
    from rich.table import Table  # noqa: PLC0415

    table = Table("stream", "window", "added", "updated", "skipped", "why skipped", title="sync")
    for summary in report.streams:
        window = f"{summary.since or 'start'} – {summary.until}"
        why = "; ".join(f"{count} {reason}" for reason, count in summary.skipped_why.most_common(3))
        table.add_row(summary.stream, window, *(str(summary.counts[kind]) for kind in ("added", "updated", "skipped")),
                      why)
    _print_table(table)
    resumed = f"; resumed {', '.join(report.resumed)}" if report.resumed else ""
    out.print(f"{report.requests} requests to law.go.kr{resumed}")


def main() -> None:
    # A terminal or pipe whose encoding lacks Hangul (PYTHONIOENCODING=ascii, a Latin-1 locale) gets
    # `\\uXXXX` escapes, not a traceback half-way through a table.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    app()
