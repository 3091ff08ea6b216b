"""Opening databases: first use creates the schema, other revisions are refused, bad URLs are clear."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text

from verifier.database import Database, _alembic_config, head_revision
from verifier.errors import DatabaseUnreachableError, SchemaMismatchError
from verifier.models import METADATA


def test_first_use_creates_the_schema_the_models_describe(database: Database) -> None:
    assert database.revision() == head_revision()
    with database.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), METADATA) == []


def test_the_head_read_from_the_migrations_is_alembics_and_opening_imports_no_alembic(database_url: str) -> None:
    from alembic.script import ScriptDirectory

    assert head_revision() == ScriptDirectory.from_config(_alembic_config()).get_current_head()
    Database.open(database_url).close()  # created; then opened again in a fresh interpreter
    code = ("import sys; from verifier.database import Database; database = Database.open(sys.argv[1]); "
            "print(database.revision(), sorted(m for m in sys.modules if m.startswith('alembic')))")
    opened = subprocess.run([sys.executable, "-c", code, database_url], capture_output=True, text=True, check=True)
    assert opened.stdout.split(None, 1) == [head_revision(), "[]\n"]


def test_reopening_and_init_are_idempotent(database_url: str) -> None:
    Database.open(database_url).close()
    again = Database.open(database_url, upgrade=True)
    assert again.revision() == head_revision()
    again.close()


@pytest.mark.parametrize(("revision", "remedy"), [
    ("0001", "run `citegen-admin init` to upgrade it"),
    # a newer citegen's: `init` would say to start afresh, losing its data
    ("9999_newer", "upgrade citegen to the version that made it"),
], ids=["older", "newer"])
def test_a_database_at_another_revision_is_refused_with_what_to_do(database: Database, database_url: str,
                                                                   revision: str, remedy: str) -> None:
    with database.engine.begin() as connection:
        connection.execute(text(f"UPDATE alembic_version SET version_num = '{revision}'"))
    with pytest.raises(SchemaMismatchError, match=re.escape(remedy)):
        Database.open(database_url)


def test_tables_without_a_revision_are_refused(database_url: str) -> None:
    stray = Database.open(database_url)
    with stray.engine.begin() as connection:
        connection.execute(text("DROP TABLE alembic_version"))
    stray.close()
    with pytest.raises(SchemaMismatchError, match="without a schema revision"):
        Database.open(database_url)
    with pytest.raises(SchemaMismatchError, match="cannot"):  # init cannot guess what they are
        Database.open(database_url, upgrade=True)


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    database = Database.open(f"sqlite:///{tmp_path / 'deep' / 'er' / 'v.sqlite3'}")  # folders made on first use
    with database.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
    database.close()


UNREACHABLE = [
    ("no server on the port", "postgresql://postgres@127.0.0.1:1/test", "reachable database"),
    ("not a URL", "just some words", "database URL"),
    ("unsupported backend", "mysql://root@127.0.0.1/x", "sqlite:// or postgresql://"),
    ("SQLite file in a missing place", "sqlite:////proc/no/such/dir/v.sqlite3", "reachable database"),
]


@pytest.mark.parametrize(("url", "message"), [u[1:] for u in UNREACHABLE], ids=[u[0] for u in UNREACHABLE])
def test_unreachable_database_is_a_clear_error(url: str, message: str) -> None:
    with pytest.raises(DatabaseUnreachableError, match=message):
        Database.open(url)


def test_a_file_that_is_no_database_is_a_clear_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes.sqlite3"
    notes.write_text("민법 제750조", encoding="utf-8")
    with pytest.raises(DatabaseUnreachableError, match="not a database"):
        Database.open(f"sqlite:///{notes}")
