"""Opening the database: URL handling, SQLite pragmas, schema checks and Alembic migrations.

Migrations ship inside the package (verifier/migrations), so an installed package can migrate
without an alembic.ini. A database with none of our tables is created on first use; a database
at another revision is refused with a message that says to run `citegen-admin init`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from verifier.errors import DatabaseUnreachableError, SchemaMismatchError
from verifier.models import Base

logger = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def _normalise_url(url: str) -> str:
    # SQLAlchemy's default PostgreSQL driver is psycopg2, which we do not ship.
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # noqa: ANN001 (DB-API object)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise SchemaMismatchError(f"expected migrations in {MIGRATIONS_DIR}, got none")
    return head


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
    def open(cls, url: str, *, upgrade: bool = False) -> Database:
        engine = cls._create_engine(url)
        database = cls(engine)
        try:
            with engine.connect() as connection:
                revision = MigrationContext.configure(connection).get_current_revision()
                ours = set(inspect(connection).get_table_names()) & set(Base.metadata.tables)
        except SQLAlchemyError as error:  # refused, unreachable, or not a database at all
            engine.dispose()
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
            raise DatabaseUnreachableError(
                f"expected a reachable database at {database.url}, got: {reason}") from error
        head = head_revision()
        if revision != head:
            if upgrade or (revision is None and not ours):
                database.migrate()
            else:
                engine.dispose()
                found = f"revision {revision}" if revision else "tables without a schema revision"
                raise SchemaMismatchError(
                    f"expected the database at {database.url} at schema revision {head}, got {found}; "
                    "run `citegen-admin init` to upgrade it")
        return database

    @staticmethod
    def _create_engine(url: str) -> Engine:
        try:
            parsed = make_url(_normalise_url(url))
        except ArgumentError as error:
            raise DatabaseUnreachableError(f"expected a database URL such as sqlite:///path, got {url!r}") from error
        try:
            if parsed.get_backend_name() == "sqlite":
                if parsed.database and parsed.database != ":memory:":
                    folder = Path(parsed.database).expanduser().parent
                    try:
                        folder.mkdir(parents=True, exist_ok=True)
                    except OSError as error:
                        raise DatabaseUnreachableError(
                            f"expected a reachable database folder {folder}, got: {error.strerror}") from error
                engine = create_engine(parsed)
                event.listen(engine, "connect", _sqlite_pragmas)
                return engine
            if parsed.get_backend_name() == "postgresql":
                return create_engine(parsed, connect_args={"connect_timeout": 5}, pool_pre_ping=True)
        except NoSuchModuleError as error:
            raise DatabaseUnreachableError(f"expected a database driver for {parsed.drivername}, got none") from error
        raise DatabaseUnreachableError(
            f"expected an sqlite:// or postgresql:// URL, got {parsed.get_backend_name()!r}")

    def migrate(self) -> None:
        """Bring the schema to the newest revision (idempotent)."""
        try:
            with self.engine.begin() as connection:
                command.upgrade(_alembic_config(connection), "head")
        except (CommandError, SQLAlchemyError) as error:
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
            raise SchemaMismatchError(f"expected a database this version can upgrade to revision {head_revision()}, "
                                      f"got one it cannot ({reason}); use a fresh database") from error
        logger.info("database %s at schema revision %s", self.url, head_revision())

    def revision(self) -> str | None:
        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    def close(self) -> None:
        self.engine.dispose()
