"""Imports that a review showed writing what is not law, each refused whole or written right now, on both
backends: an act body naming one article twice (stored as one article with the first's 항 and the
second's title, which then verified a 제3항 the act never had), a two-digit year (stored as the year 95,
widening case coverage by nineteen centuries), and two imports of one court's decisions committing at
once (on PostgreSQL the later one's coverage undid the earlier's)."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from grammars import StatuteCitation
from verifier.database import Database
from verifier.errors import ImportFileError
from verifier.importers import import_paths
from verifier.importers.records import CaseRecord
from verifier.importers.store import RecordWriter
from verifier.models import ACTS, CASES, COVERAGE
from verifier.names import parse_case_number
from verifier.verify import Verifier


def _jsonl(folder: Path, records: list[dict[str, object]]) -> Path:
    path = folder / "records.jsonl"
    path.write_text("\n".join(json.dumps(record, ensure_ascii=False) for record in records), encoding="utf-8")
    return path


def test_an_act_body_naming_an_article_twice_is_refused_and_nothing_written(database: Database, tmp_path) -> None:
    act = {"type": "act", "law_id": "777", "name": "중복시험법", "articles": [
        {"article": "1", "title": "목적", "provisions": [{"paragraph": 1}, {"paragraph": 2}, {"paragraph": 3}]},
        {"article": "2", "title": "정의"}, {"article": "1", "title": "벌칙"}]}
    with pytest.raises(ImportFileError, match=r"each article once.*got 제1조 again") as error:
        import_paths(database, [_jsonl(tmp_path, [act, {"type": "coverage", "kind": "statute"}])])
    assert "중복시험법" in str(error.value)
    with database.engine.connect() as connection:
        assert connection.execute(select(ACTS.c.name)).all() == []
    checker = Verifier(database)
    try:
        assert checker.verify(StatuteCitation("중복시험법", 1, paragraph=3)).status != "verified"
    finally:
        checker.close()


def test_a_decision_dated_with_a_two_digit_year_is_refused(database: Database, tmp_path) -> None:
    case = {"type": "case", "court": "대법원", "date": "95.3.3", "case_number": "95다12345", "disposition": "판결"}
    with pytest.raises(ImportFileError, match="as a date"):
        import_paths(database, [_jsonl(tmp_path, [case])])
    with database.engine.connect() as connection:
        assert connection.execute(select(CASES.c.decided_on)).all() == []
        assert connection.execute(select(COVERAGE.c.starts_on)).all() == []


def _decisions(connection, *dated: tuple[str, dt.date]) -> None:
    writer = RecordWriter(connection, "jsonl:decisions.jsonl")
    for number, day in dated:
        writer.write(CaseRecord("대법원", day, parse_case_number(number), "선고", "판결"))
    writer.finish()


def test_two_imports_committing_at_once_widen_coverage_to_both_ranges(database: Database) -> None:
    """The first import's transaction is open when the second writes its coverage (on PostgreSQL the
    second reads the row before the first commits, then waits on it)."""
    first = database.engine.connect()
    transaction = first.begin()
    _decisions(first, ("90다1", dt.date(1990, 1, 1)), ("2000다1", dt.date(2000, 12, 31)))

    def second() -> None:
        with database.engine.begin() as connection:
            _decisions(connection, ("2010다1", dt.date(2010, 1, 1)), ("2020다1", dt.date(2020, 12, 31)))

    later = threading.Thread(target=second)
    later.start()
    time.sleep(1)  # the second is waiting on the first's row (or its lock on SQLite)
    transaction.commit()
    first.close()
    later.join(30)
    with database.engine.connect() as connection:
        assert connection.execute(select(COVERAGE.c.starts_on, COVERAGE.c.ends_on).where(
            COVERAGE.c.court == "대법원")).one() == (dt.date(1990, 1, 1), dt.date(2020, 12, 31))
