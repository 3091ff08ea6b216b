"""Opening the database: URL handling, SQLite pragmas, schema checks and Alembic migrations.

Every call has a timeout (`CALL_TIMEOUT_S`), and an SQLite connection that fails is retired with
the whole pool, so a file moved away and back is served again without a restart.

Migrations ship inside the package (verifier/migrations), so an installed package can migrate
without an alembic.ini. A database with none of our tables is created on first use; a database
at another revision is refused with a message that says to run `citegen-admin init`.
"""

from __future__ import annotations

import functools
import logging
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import ConnectionPoolEntry

from verifier.errors import DatabaseUnreachableError, SchemaMismatchError
from verifier.models import METADATA

if TYPE_CHECKING:
    from alembic.config import Config

logger = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# The longest one statement may run or wait for a lock (SQLite's busy timeout, PostgreSQL's
# statement and lock timeouts): past it the call fails instead of freezing whoever waits on it.
CALL_TIMEOUT_S = 10.0


def _normalise_url(url: str) -> str:
    # SQLAlchemy's default PostgreSQL driver is psycopg2, which we do not ship.
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    # The driver's own transaction handling (BEGIN only before a write, none before a SAVEPOINT)
    # would let a SAVEPOINT's release commit the work around it: SQLAlchemy begins each transaction
    # itself instead (`_begin_sqlite`), so a savepoint nests inside a real transaction.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _begin_sqlite(connection: Connection) -> None:
    # An AUTOCOMMIT connection (the verifier's long-lived reader) must hold no transaction: in WAL
    # mode an open one would keep reading the snapshot it began with.
    if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
        connection.exec_driver_sql("BEGIN")


def _open_existing_sqlite(path: Path) -> sqlite3.Connection:
    # mode=rw: a file moved away is an error until it is back, not a new empty database that a
    # pooled connection would then keep reading (`no such table`) after the file returns.
    return sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=CALL_TIMEOUT_S, check_same_thread=False)


def _recycle_sqlite_on_error(context: ExceptionContext) -> None:
    # Any operational error (file gone, replaced, locked past the timeout) retires every pooled
    # connection, so the next call opens the file as it is now: the service recovers by itself.
    if isinstance(context.original_exception, sqlite3.OperationalError):
        context.is_disconnect = True


def _alembic_config(connection: Connection | None = None) -> Config:
    from alembic.config import Config  # noqa: PLC0415  Alembic (0.2 s to import) only where a schema changes

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


# `revision = "0003"`, `down_revision = "0002"` (or None) at the top of each migration, as Alembic writes them.
_REVISION_LINE = re.compile(r'^(down_revision|revision)(?:: [^=]+)? = (?:"([^"]+)"|None)$', re.MULTILINE)


@functools.cache
def head_revision() -> str:
    """The newest migration's revision: the one no other revises, read from the migrations' own lines
    (opening a database must not import Alembic); Alembic's script directory decides anything else (a
    branch, a merge, a file it does not read so)."""
    revises: dict[str, str | None] = {}
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        found = {name: value or None for name, value in _REVISION_LINE.findall(path.read_text("utf-8"))}
        revision = found.get("revision")
        if revision is None:
            return _alembic_head()
        revises[revision] = found.get("down_revision")
    heads = set(revises) - set(revises.values())
    return heads.pop() if len(heads) == 1 else _alembic_head()


def _known_revisions() -> set[str]:
    """Every revision the migrations here name."""
    return {revision for path in (MIGRATIONS_DIR / "versions").glob("*.py")
            for name, revision in _REVISION_LINE.findall(path.read_text("utf-8")) if name == "revision"}


def _alembic_head() -> str:
    from alembic.script import ScriptDirectory  # noqa: PLC0415

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    if head is None:
        raise SchemaMismatchError(f"expected migrations in {MIGRATIONS_DIR}, got none")
    return head


def _current_revision(connection: Connection, tables: set[str]) -> str | None:
    """The revision Alembic recorded in the database (its one `alembic_version` row), None before any."""
    if "alembic_version" not in tables:
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return " ".join(sorted(rows)) or None  # two rows (two heads) are no revision of ours


class Database:
    """An engine on one database URL, with its schema known to be current.

    `Database.open(url)` creates an empty database's schema (first use) and refuses one at another
    revision; `Database.open(url, upgrade=True)` migrates it instead (what `init` does).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.url = engine.url.render_as_string(hide_password=True)
        self.dialect = engine.dialect.name

    @classmethod
    def open(cls, url: str, *, upgrade: bool = False, create: bool = True) -> Database:
        """The database at `url`, its schema made on first use; `create=False` (a service that only reads
        it) refuses an SQLite file that does not exist or is empty, leaving the path as it was."""
        engine = cls._create_engine(url, create)
        database = cls(engine)
        try:
            with engine.connect() as connection:
                tables = set(inspect(connection).get_table_names())
                revision = _current_revision(connection, tables)
                ours = tables & set(METADATA.tables)
        except SQLAlchemyError as error:  # refused, unreachable, or not a database at all
            engine.dispose()
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
            raise DatabaseUnreachableError(
                f"expected a reachable database at {database.url}, got: {reason}") from error
        head = head_revision()
        if revision != head:
            if upgrade or (revision is None and not ours):
                try:
                    database.migrate()
                except SchemaMismatchError:
                    engine.dispose()  # else its pooled connections are left for the collector to close
                    raise
            else:
                engine.dispose()
                found = f"revision {revision}" if revision else "tables without a schema revision"
                # a revision no migration here names was made by a newer citegen: `init` cannot help
                remedy = ("upgrade citegen to the version that made it" if revision and revision not in
                          _known_revisions() else "run `citegen-admin init` to upgrade it")
                raise SchemaMismatchError(
                    f"expected the database at {database.url} at schema revision {head}, got {found}; {remedy}")
        return database

    @staticmethod
    def _create_engine(url: str, create: bool = True) -> Engine:
        try:
            parsed = make_url(_normalise_url(url))
        except ArgumentError as error:
            raise DatabaseUnreachableError(f"expected a database URL such as sqlite:///path, got {url!r}") from error
        try:
            if parsed.get_backend_name() == "sqlite":
                arguments: dict[str, Any] = {"connect_args": {"timeout": CALL_TIMEOUT_S}}
                if parsed.database and parsed.database != ":memory:":
                    path = Path(parsed.database).expanduser()
                    if not create and (not path.is_file() or path.stat().st_size == 0):
                        what = "an empty file" if path.is_file() else "no such file"
                        raise DatabaseUnreachableError(f"expected a database file at {path}, got {what}")
                    try:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        sqlite3.connect(path).close()  # created here on first use, never by the pool
                    except (OSError, sqlite3.Error) as error:
                        raise DatabaseUnreachableError(
                            f"expected a reachable database file {path}, got: {error}") from error
                    arguments["creator"] = functools.partial(_open_existing_sqlite, path)
                engine = create_engine(parsed, pool_pre_ping=True, **arguments)
                event.listen(engine, "connect", _sqlite_pragmas)
                event.listen(engine, "begin", _begin_sqlite)
                event.listen(engine, "handle_error", _recycle_sqlite_on_error)
                return engine
            if parsed.get_backend_name() == "postgresql":
                milliseconds = f"{CALL_TIMEOUT_S * 1000:.0f}"
                timeouts = f"-c statement_timeout={milliseconds} -c lock_timeout={milliseconds}"
                given = parsed.query.get("options")  # the URL's own (a search_path, …) come first
                options = " ".join([*([given] if isinstance(given, str) else given or ()), timeouts])
                return create_engine(parsed.difference_update_query(["options"]),
                                     connect_args={"connect_timeout": 5, "options": options}, pool_pre_ping=True)
        except NoSuchModuleError as error:
            raise DatabaseUnreachableError(f"expected a database driver for {parsed.drivername}, got none") from error
        raise DatabaseUnreachableError(
            f"expected an sqlite:// or postgresql:// URL, got {parsed.get_backend_name()!r}")

    def migrate(self) -> None:
        """Bring the schema to the newest revision (idempotent)."""
        from alembic import command  # noqa: PLC0415
        from alembic.util.exc import CommandError  # noqa: PLC0415

        try:
            with self.engine.begin() as connection:
                command.upgrade(_alembic_config(connection), "head")
        except (CommandError, SQLAlchemyError) as error:
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
            raise SchemaMismatchError(f"expected a database this version can upgrade to revision {head_revision()}, "
                                      f"got one it cannot ({reason}); use a fresh database") from error
        logger.info("database %s at schema revision %s", self.url, head_revision())

    def fingerprint(self) -> str | None:
        """A value that changes whenever the data may have, cheap to read, for caches of what is derived
        from them (the lexicon: `verifier.lexicon`): for an SQLite file, the identity, size and change
        times of the file and of its write-ahead log while that holds frames (every commit writes one of
        them). None where there is no such sign (PostgreSQL, a database in memory): nothing is cached."""
        if self.dialect != "sqlite" or not self.engine.url.database or self.engine.url.database == ":memory:":
            return None
        signs = []
        for path in (Path(self.engine.url.database).expanduser(), Path(f"{self.engine.url.database}-wal").expanduser()):
            try:
                status = path.stat()
            except FileNotFoundError:
                continue
            if status.st_size:  # an empty log (each reader's open makes one) holds nothing
                signs.append(f"{path.name}:{status.st_dev}:{status.st_ino}:{status.st_size}:{status.st_mtime_ns}:"
                             f"{status.st_ctime_ns}")
        return ";".join(signs) or None

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A connection whose reads all see one state of the database, for what is read in several
        statements and must agree (the lexicon's acts and the aliases naming them): an import committing
        between two reads is seen by neither. SQLite reads one snapshot in any transaction (WAL mode, and
        `_begin_sqlite` begins one); PostgreSQL's default READ COMMITTED sees each commit at the next
        statement, so its transaction is REPEATABLE READ."""
        with self.engine.connect() as connection:
            if self.dialect == "postgresql":
                connection = connection.execution_options(isolation_level="REPEATABLE READ")
            with connection.begin():
                yield connection

    def revision(self) -> str | None:
        with self.engine.connect() as connection:
            return _current_revision(connection, set(inspect(connection).get_table_names()))

    def close(self) -> None:
        self.engine.dispose()
