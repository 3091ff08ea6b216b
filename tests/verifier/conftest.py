"""Each test gets its own database: a fresh SQLite file, or a fresh PostgreSQL schema.

PostgreSQL is 127.0.0.1:5432 (user postgres, db `test`). It is skipped only when unreachable and
CITEGEN_REQUIRE_POSTGRES is unset; CI sets it, and then unreachable is a failure.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the samples module beside this file

from legalize_history import build_legalize_repo
from verifier_samples import SAMPLES

from tests.postgres_kit import connect_or_skip
from verifier.database import Database
from verifier.importers import import_paths

POSTGRES_CONNINFO = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=3"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[psycopg.Connection]:
    connection = connect_or_skip(POSTGRES_CONNINFO)
    yield connection
    connection.close()


BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


@contextmanager
def _empty_database_url(backend: str, folder: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{folder / f'verifier-{uuid.uuid4().hex[:8]}.sqlite3'}"
        return
    admin: psycopg.Connection = request.getfixturevalue("postgres_admin")
    schema = f"verifier_test_{uuid.uuid4().hex[:12]}"
    admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to an empty database of the backend the test runs on."""
    with _empty_database_url(request.param, tmp_path, request) as url:
        yield url


@pytest.fixture
def both_backends(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """URLs to an empty SQLite and an empty PostgreSQL database, for tests that compare the two."""
    with _empty_database_url("sqlite", tmp_path, request) as sqlite, \
            _empty_database_url("postgresql", tmp_path, request) as postgresql:
        yield sqlite, postgresql


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database.open(database_url)
    yield db
    db.close()


def write_samples(root: Path) -> Path:
    for name, text in SAMPLES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def sample_dir(tmp_path: Path) -> Path:
    return write_samples(tmp_path / "samples")


@pytest.fixture(scope="session", params=BACKENDS)
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """A database holding every sample, shared by the tests that only read it (and write audit rows)."""
    folder = tmp_path_factory.mktemp("loaded")
    with _empty_database_url(request.param, folder, request) as url:
        db = Database.open(url)
        import_paths(db, [write_samples(folder / "samples") / "law", folder / "samples" / "cases"])
        yield db
        db.close()


@pytest.fixture(scope="session")
def legalize_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_legalize_repo(tmp_path_factory.mktemp("legalize") / "repo")


@pytest.fixture(scope="session", params=BACKENDS)
def book_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, legalize_repo: Path
             ) -> Iterator[str]:
    """The URL of a database holding the real history fixture (for commands given a URL)."""
    folder = tmp_path_factory.mktemp("book")
    with _empty_database_url(request.param, folder, request) as url:
        db = Database.open(url)
        import_paths(db, [legalize_repo])
        db.close()
        yield url


@pytest.fixture(scope="session")
def book(book_url: str) -> Iterator[Database]:
    """A database holding the real history fixture, shared by tests that only read it."""
    db = Database.open(book_url)
    yield db
    db.close()
