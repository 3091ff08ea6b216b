"""Who owns a sync's run: a run resumed with another page size, or with another `--since`, and a second
sync of a stream started while the first is still running. Real databases (SQLite, and PostgreSQL where
`database_url` gives it), replayed law.go.kr answers (lawgo_replay.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from lawgo_replay import TODAY, FakeTime, Killed, ReplayFactory, prec_list_in_pages_of_any_size, snapshot, sync
from sqlalchemy import select

from verifier.database import Database
from verifier.sync import SyncTakenOverError
from verifier.sync.state import CURSORS

_LISTS = ("law", "prec")  # the 판례 list is paged at any size; the others' built pages are two rows


def _uninterrupted(tmp_path: Any, replay: ReplayFactory, fake_time: FakeTime) -> dict[str, Any]:
    whole = Database.open(f"sqlite:///{tmp_path / 'whole.sqlite3'}")
    try:
        sync(whole, replay(paged={"prec": prec_list_in_pages_of_any_size}), fake_time, concurrency=1,
             targets=_LISTS)
        return snapshot(whole)
    finally:
        whole.close()


@pytest.mark.parametrize("resumed_size", [1, 3, 4, 100])
def test_a_run_resumed_with_another_page_size_imports_every_row(
        database_url: str, tmp_path: Any, replay: ReplayFactory, fake_time: FakeTime, resumed_size: int) -> None:
    expected = _uninterrupted(tmp_path, replay, fake_time)
    database = Database.open(database_url)
    try:
        # the law body, 판례 page 1 (two rows), the first row of page 2; killed at the next body
        with pytest.raises(Killed):
            sync(database, replay(kill_after=4, paged={"prec": prec_list_in_pages_of_any_size}), fake_time,
                 concurrency=1, page_size=2, targets=_LISTS)
        with database.engine.connect() as connection:
            assert connection.execute(select(CURSORS.c.next_page).where(CURSORS.c.stream == "prec")).scalar() == 2
        resumed = sync(database, replay(paged={"prec": prec_list_in_pages_of_any_size}), fake_time,
                       concurrency=1, page_size=resumed_size, targets=_LISTS)
        assert resumed.resumed == ["prec"]
        assert snapshot(database) == expected
    finally:
        database.close()


def test_an_explicit_since_other_than_the_stopped_runs_starts_a_new_run(
        database: Database, replay: ReplayFactory, fake_time: FakeTime, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(Killed):
        sync(database, replay(kill_after=2), fake_time, targets=("prec",))
    later = replay()
    report = sync(database, later, fake_time, targets=("prec",), since=dt.date(2020, 1, 1))
    assert report.resumed == []
    windows = {url.params.get("prncYd") for url in later.seen if url.path.endswith("lawSearch.do")}
    assert windows == {f"20200101~{TODAY:%Y%m%d}"}
    assert "the run under way (the beginning to 2026-11-30) is replaced by one from 2020-01-01" in caplog.text
    assert report.as_json()["streams"]["prec"]["added"] == 5  # the two imported before count with the rest


def test_a_second_sync_takes_the_run_over_and_the_first_stops_losing_nothing(
        database_url: str, tmp_path: Any, replay: ReplayFactory, fake_time: FakeTime) -> None:
    expected = _uninterrupted(tmp_path, replay, fake_time)
    database = Database.open(database_url)
    started: list[dict[str, Any]] = []

    def second_sync_after_the_first_prec_item(stream: str, done: int, _total: int | None, what: str) -> None:
        if stream == "prec" and not what and started:  # the first reached a page after the takeover
            raise Killed("Ctrl-C on the first sync")
        if stream == "prec" and what and not started:
            started.append(sync(database, replay(paged={"prec": prec_list_in_pages_of_any_size}), FakeTime(),
                                concurrency=1, targets=_LISTS).as_json())

    try:
        # left alone after the takeover, the first would go on to page 2 and be stopped there, leaving a
        # cursor with a page and no window for every later sync to fail on
        with pytest.raises(SyncTakenOverError, match="another sync of prec started and took this run over"):
            sync(database, replay(paged={"prec": prec_list_in_pages_of_any_size}), fake_time,
                 concurrency=1, targets=_LISTS, on_progress=second_sync_after_the_first_prec_item)
        assert started and started[0]["resumed"] == ["prec"]
        with database.engine.connect() as connection:
            cursors = {row.stream: (row.next_page, row.run_owner) for row in connection.execute(select(CURSORS))}
        assert cursors == {name: (None, None) for name in _LISTS}
        later = sync(database, replay(paged={"prec": prec_list_in_pages_of_any_size}), fake_time, concurrency=1,
                     targets=_LISTS)
        assert later.resumed == []
        assert snapshot(database) == expected
    finally:
        database.close()
