"""Imports that a review showed writing what is not law, each refused whole or written right now, on both
backends: an act body naming one article twice (stored as one article with the first's 항 and the
second's title, which then verified a 제3항 the act never had), a two-digit year (stored as the year 95,
widening case coverage by nineteen centuries), and two imports of one court's decisions committing at
once (on PostgreSQL the later one's coverage undid the earlier's), and a statute-book import that adds
nothing to an act or skips it (it rewrote the act's row all the same)."""

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
from verifier.importers.history import ActHistory, write_act
from verifier.importers.legalize import ActVersion, ArticleText
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


def _version(mst: int, name: str, year: int) -> ActVersion:
    article = ArticleText(1, 0, "목적", False, "이 법은 시험을 목적으로 한다.", ())
    return ActVersion(law_id="990001", mst=mst, name=name, kind="법률", promulgated_on=dt.date(year, 1, 1),
                      promulgation_number=mst, effective_on=dt.date(year, 1, 1), status="현행", change=None,
                      origin=f"test MST {mst}", articles=(article,), supplements=())


def _act_row(database: Database) -> tuple[str, int]:
    with database.engine.connect() as connection:
        return tuple(connection.execute(select(ACTS.c.name, ACTS.c.mst).where(ACTS.c.law_id == "990001")).one())


def test_an_act_skipped_or_unchanged_by_a_book_import_keeps_its_row(database: Database) -> None:
    """A copy of a version held already (nothing added) and an older version alone (skipped: not the whole
    history) each renamed the act back to the older name and MST, which no version row then matched."""
    with database.engine.begin() as connection:
        write_act(connection, ActHistory("990001", [_version(100, "구시험법", 2020), _version(200, "신시험법", 2022)]))
    assert _act_row(database) == ("신시험법", 200)
    with database.engine.begin() as connection:
        assert write_act(connection, ActHistory("990001", [_version(100, "구시험법", 2020)])).versions_added == 0
    assert _act_row(database) == ("신시험법", 200)
    with database.engine.begin() as connection:
        assert write_act(connection, ActHistory("990001", [_version(50, "옛시험법", 2010)])).skipped
    assert _act_row(database) == ("신시험법", 200)


def test_an_alias_whose_official_flag_is_not_a_boolean_is_refused(database: Database, tmp_path) -> None:
    """`"official": "false"` was read as true: an informal abbreviation stored as an official 약칭."""
    act = {"type": "act", "law_id": "001700", "name": "민사소송법", "articles": [{"article": "1"}]}
    alias = {"type": "alias", "alias": "민소법", "act": "민사소송법", "official": "false"}
    with pytest.raises(ImportFileError, match="'official' as true or false, got 'false'"):
        import_paths(database, [_jsonl(tmp_path, [act, alias])])
    with database.engine.connect() as connection:
        assert connection.execute(select(ACTS.c.name)).all() == []
