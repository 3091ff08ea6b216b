"""The statute book `python -m bench` imports once: each bench that reads it gets a copy of its own,
gone after that bench, and a book never filled lends nothing (the bench then imports for itself)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from bench.shared_book import POSTGRES_ADMIN, shared_book
from tests.postgres_kit import connect_or_skip


def _count(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        (count,) = connection.execute("SELECT count(*) FROM acts").fetchone()
    connection.close()
    return int(count)


def test_an_unfilled_book_lends_nothing() -> None:
    with shared_book() as book, book.lent("find_bench", postgresql=False) as arguments:
        assert arguments == ()


def test_each_reader_gets_its_own_copy_and_writes_to_it_alone() -> None:
    with shared_book() as book:
        with sqlite3.connect(book.sqlite) as connection:
            connection.execute("CREATE TABLE acts (name TEXT)")
            connection.execute("INSERT INTO acts VALUES ('민법')")
        connection.close()
        book.filled = True
        with book.lent("adversarial_bench", postgresql=False) as arguments:
            flag, url = arguments
            copy = Path(url.removeprefix("sqlite:///"))
            assert flag == "--database-url" and copy != book.sqlite and _count(copy) == 1
            with sqlite3.connect(copy) as connection:
                connection.execute("INSERT INTO acts VALUES ('형법')")
            connection.close()
            assert _count(copy) == 2
        assert _count(book.sqlite) == 1
        assert not copy.exists()
        folder = book.folder
    assert not folder.exists()


@pytest.mark.postgres
def test_a_postgresql_reader_gets_a_database_made_from_the_book() -> None:
    admin = connect_or_skip(POSTGRES_ADMIN)
    with admin, shared_book() as book:
        book.sqlite.touch()
        admin.execute(f'CREATE DATABASE "{book.postgresql}"')
        with psycopg.connect(POSTGRES_ADMIN.replace("dbname=postgres", f"dbname={book.postgresql}")) as filling:
            filling.execute("CREATE TABLE acts (name text)")
            filling.execute("INSERT INTO acts VALUES ('민법')")
        book.filled = True
        with book.lent("adversarial_bench", postgresql=True) as arguments:
            url = arguments[arguments.index("--postgres-url") + 1]
            with psycopg.connect(url, autocommit=True) as reader:
                reader.execute("INSERT INTO acts VALUES ('형법')")
                assert reader.execute("SELECT count(*) FROM acts").fetchone() == (2,)
        lent = url.rsplit("/", 1)[1]
        names = {row[0] for row in admin.execute("SELECT datname FROM pg_database")}
        assert lent not in names and book.postgresql in names
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as again:
        names = {row[0] for row in again.execute("SELECT datname FROM pg_database")}
    assert book.postgresql not in names
