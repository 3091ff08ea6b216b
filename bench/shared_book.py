"""The statute book imported once per `python -m bench` run and lent to each bench that reads it.

Importing data/law takes a while (33 s into SQLite, 74 s into PostgreSQL on an idle 2-core VM, three
times that under load), and five benches need it. statute_book_bench measures that import, so it
fills the book: given `--keep-sqlite PATH --keep-postgresql NAME` it imports into that SQLite file and
that PostgreSQL database and leaves them; the driver then adds data/cases to the SQLite file (the same
rows as `citegen-admin import data/law data/cases` in one go: their `citegen-admin dump` is the same
bytes). Each bench that reads the book gets a copy of its own for its run (the SQLite file copied;
the PostgreSQL database made from the book as a template), passed as `--database-url` (and
`--postgres-url`), so a bench that writes (audit rows, a file moved away and back) leaves the next
one the book as imported. Copies go after each bench, the book after the run. When the book was not
filled (`--only` without statute_book_bench, or that bench failed) each bench imports what it needs
itself, as its own CLI does.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import psycopg

ADMIN = Path(sys.executable).with_name("citegen-admin")
POSTGRES_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=3"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/"


@dataclass(slots=True)
class SharedBook:
    """The run's statute book: an SQLite file in `folder` and the PostgreSQL database `postgresql`;
    `filled` once statute_book_bench imported data/law into both and data/cases went into the file."""

    folder: Path
    postgresql: str
    filled: bool = False

    @property
    def sqlite(self) -> Path:
        return self.folder / "book.sqlite3"

    def filling_arguments(self) -> tuple[str, ...]:
        """What statute_book_bench is given to import into the book and leave it."""
        return ("--keep-sqlite", str(self.sqlite), "--keep-postgresql", self.postgresql)

    def add_cases(self, cases: Path, environment: Mapping[str, str], log: Path) -> str | None:
        """data/cases into the filled SQLite file (`citegen-admin import`, its output appended to
        `log`); None when done, else why the book stays unfilled."""
        if not self.sqlite.exists() or not _postgres_has(self.postgresql):
            return "statute_book_bench left no book to share"
        with log.open("a", encoding="utf-8") as output:
            command = [str(ADMIN), "import", str(cases), "--database-url", f"sqlite:///{self.sqlite}"]
            done = subprocess.run(command, env=dict(environment), stdout=output, stderr=subprocess.STDOUT, check=False)
        if done.returncode != 0:
            return f"importing {cases.name} into the shared book failed with exit status {done.returncode} (log: {log})"
        self.filled = True
        return None

    @contextlib.contextmanager
    def lent(self, name: str, postgresql: bool) -> Iterator[tuple[str, ...]]:
        """The arguments that hand bench `name` its own copy of the book (none when it is not filled),
        the copies removed afterwards."""
        if not self.filled:
            yield ()
            return
        copy = self.folder / f"{name}.sqlite3"
        for suffix in ("", "-wal"):  # no writer is open: the file and its WAL are one consistent state
            if Path(f"{self.sqlite}{suffix}").exists():
                shutil.copyfile(f"{self.sqlite}{suffix}", f"{copy}{suffix}")
        arguments = ["--database-url", f"sqlite:///{copy}"]
        database = f"{name}_{uuid.uuid4().hex[:8]}"
        try:
            if postgresql:
                _postgres(f'CREATE DATABASE "{database}" TEMPLATE "{self.postgresql}"')
                arguments += ["--postgres-url", POSTGRES_URL + database]
            yield tuple(arguments)
        finally:
            for stale in self.folder.glob(f"{copy.name}*"):
                stale.unlink()
            if postgresql:
                _postgres(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@contextlib.contextmanager
def shared_book() -> Iterator[SharedBook]:
    """An empty book for one run, removed afterwards (the PostgreSQL database when it was made)."""
    folder = Path(tempfile.mkdtemp(prefix="citegen-book-"))
    book = SharedBook(folder, f"citegen_book_{uuid.uuid4().hex[:8]}")
    try:
        yield book
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(psycopg.OperationalError):  # no server: nothing was made there either
            _postgres(f'DROP DATABASE IF EXISTS "{book.postgresql}" WITH (FORCE)')


def _postgres(statement: str) -> None:
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(statement)


def _postgres_has(database: str) -> bool:
    try:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
    except psycopg.OperationalError:
        return False
    return found is not None
