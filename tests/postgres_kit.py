"""The test PostgreSQL server (127.0.0.1:5432, trust auth): one way for every test to reach it."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from verifier.database import Database
from verifier.importers import import_paths


def connect_or_skip(conninfo: str) -> psycopg.Connection:
    """An autocommit connection to `conninfo`; where the server is unreachable the test is skipped, or
    fails when CITEGEN_REQUIRE_POSTGRES is set (CI must not skip PostgreSQL)."""
    try:
        return psycopg.connect(conninfo, autocommit=True)
    except psycopg.OperationalError as error:
        if os.environ.get("CITEGEN_REQUIRE_POSTGRES"):
            pytest.fail(f"CITEGEN_REQUIRE_POSTGRES is set but PostgreSQL is unreachable: {error}")
        pytest.skip(f"PostgreSQL unreachable: {error}")


def postgres_database_with(folder: Path, records: list[dict], prefix: str) -> Iterator[tuple]:
    """(admin connection, name, Database) of a database of its own on the PostgreSQL server holding
    `records`, dropped afterwards; skipped only when the server is unreachable and
    CITEGEN_REQUIRE_POSTGRES is unset."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = connect_or_skip("host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=3")
    admin.execute(f"CREATE DATABASE {name}")
    path = folder / "records.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    database = Database.open(f"postgresql://postgres@127.0.0.1:5432/{name}")
    import_paths(database, [path])
    try:
        yield admin, name, database
    finally:
        database.engine.dispose()
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()

