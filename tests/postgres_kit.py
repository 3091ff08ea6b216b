"""The test PostgreSQL server (127.0.0.1:5432, trust auth): one way for every test to reach it."""

from __future__ import annotations

import os

import psycopg
import pytest


def connect_or_skip(conninfo: str) -> psycopg.Connection:
    """An autocommit connection to `conninfo`; where the server is unreachable the test is skipped, or
    fails when CITEGEN_REQUIRE_POSTGRES is set (CI must not skip PostgreSQL)."""
    try:
        return psycopg.connect(conninfo, autocommit=True)
    except psycopg.OperationalError as error:
        if os.environ.get("CITEGEN_REQUIRE_POSTGRES"):
            pytest.fail(f"CITEGEN_REQUIRE_POSTGRES is set but PostgreSQL is unreachable: {error}")
        pytest.skip(f"PostgreSQL unreachable: {error}")
