"""`run_sync` against replayed law.go.kr answers: real parsing, real databases (SQLite, and
PostgreSQL where marked), real retries and rate limiting on a fake clock."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import httpx
import pytest
from lawgo_replay import OC, TODAY, FakeTime, Killed, Replay, ReplayFactory, body, snapshot, sync, version_body
from sqlalchemy import select

from verifier.database import Database
from verifier.models import ACTS, ALIASES, ARTICLES, CASES, SPANS, SUPPLEMENTS, VERSIONS
from verifier.sync import (
    ApiRefusedError,
    ApiUnreachableError,
    ResponseShapeError,
    SyncError,
)
from verifier.sync.state import CURSORS, ITEMS


def _import_act_named(database: Database, name: str, law_id: str) -> None:
    with database.engine.begin() as connection:
        connection.execute(ACTS.insert().values(law_id=law_id, name=name, source="test"))


def test_a_first_sync_imports_statute_versions_cases_decisions_and_aliases(database: Database, replay: ReplayFactory,
                                                                           fake_time: FakeTime) -> None:
    _import_act_named(database, "주택임대차보호법", "001248")
    report = sync(database, replay(), fake_time)
    streams = report.as_json()["streams"]
    assert {name: (s["added"], s["updated"], s["skipped"]) for name, s in streams.items()} == {
        "law": (1, 0, 0), "prec": (5, 0, 1), "detc": (2, 0, 0), "abbreviations": (1, 0, 1)}
    assert list(streams["prec"]["skipped_why"]) == [
        "expected 사건번호, 선고일자, 법원명 and 판결유형, got '조심2023서1234', '20231130', '조세심판원', '결정'"]
    assert streams["abbreviations"]["skipped_why"] == {"no act of that name in the database (sync law first)": 1}
    with database.engine.connect() as connection:
        version = connection.execute(select(VERSIONS)).one()
        assert (version.mst, version.name, version.promulgation_number, version.effective_on, version.change) == (
            277031, "건축법", 21065, dt.date(2025, 10, 1), "타법개정")
        article = connection.execute(select(SPANS).where(SPANS.c.number == 2, SPANS.c.branch == 0)).one()
        assert article.title == "정의" and "1.11-가" in article.structure.split(" ")
        assert "「국토의 계획 및 이용에 관한 법률」" in article.text
        assert connection.execute(select(ARTICLES.c.title).where(ARTICLES.c.number == 1)).scalar_one() == "목적"
        supplements = connection.execute(select(SUPPLEMENTS.c.heading)).scalars().all()
        assert len(supplements) == 86 and supplements[0] == "부칙 <제8974호,2008.3.21>"
        cases = connection.execute(select(CASES.c.court, CASES.c.case_year, CASES.c.case_code, CASES.c.case_serial,
                                          CASES.c.decided_on)).all()
        assert ("헌법재판소", 2007, "헌바", 12, dt.date(2008, 8, 28)) in cases
        assert ("대법원", 2023, "다", 302036, dt.date(2024, 2, 8)) in cases and len(cases) == 7
        assert connection.execute(select(ALIASES.c.alias)).scalars().all() == ["주택임대차법"]
        assert connection.execute(select(ITEMS)).all() == []  # a finished run leaves no items behind
        cursors = {row.stream: (row.synced_through, row.next_page) for row in connection.execute(select(CURSORS))}
    assert cursors == {name: (TODAY, None) for name in ("law", "prec", "detc", "abbreviations")}


def test_the_next_sync_lists_from_the_last_ones_end_less_a_lookback_and_fetches_only_what_it_lacks(
        database: Database, replay: ReplayFactory, fake_time: FakeTime) -> None:
    sync(database, replay(), fake_time, targets=("law", "prec"))
    next_day = replay()
    report = sync(database, next_day, fake_time, targets=("law", "prec"), until=TODAY + dt.timedelta(days=1))
    windows = {url.params["target"]: url.params.get("ancYd") or url.params.get("prncYd") for url in next_day.seen
               if url.path.endswith("lawSearch.do")}
    # a month back for statutes, a year for decisions (law.go.kr publishes many long after 선고)
    assert windows == {"eflaw": "20261101~20261201", "prec": "20251201~20261201"}
    bodies = [url.params["ID"] for url in next_day.seen if url.path.endswith("lawService.do")]
    assert bodies == ["900102"]  # the only row the database does not hold (skipped the first time too)
    streams = report.as_json()["streams"]
    assert streams["law"]["skipped_why"] == {"held already": 1}
    assert (streams["prec"]["added"], streams["prec"]["skipped_why"]["held already"]) == (0, 5)


@pytest.mark.parametrize("kill_after", [0, 1, 4], ids=["before-the-first-body", "after-one", "mid-page-two"])
def test_a_sync_killed_mid_way_resumes_to_the_database_an_uninterrupted_one_makes(
        database_url: str, tmp_path: Any, replay: ReplayFactory, fake_time: FakeTime, kill_after: int) -> None:
    whole = Database.open(f"sqlite:///{tmp_path / 'whole.sqlite3'}")
    expected = sync(whole, replay(), fake_time, concurrency=1).as_json()["streams"]
    database = Database.open(database_url)
    try:
        with pytest.raises(Killed):
            sync(database, replay(kill_after=kill_after), fake_time)
        with database.engine.connect() as connection:
            done = connection.execute(select(ITEMS.c.item)).scalars().all()
        # each body imported is marked on its own transaction; the law stream (one item) finished
        # before the kill and cleared its items, the 판례 stream holds the rest
        assert len(done) == max(kill_after - 1, 0)
        resumed = sync(database, replay(), fake_time)
        assert resumed.resumed == (["law"] if kill_after == 0 else ["prec"])
        assert resumed.as_json()["streams"] | {"law": expected["law"]} == expected  # law: nothing left to do
        assert snapshot(database) == snapshot(whole)
    finally:
        database.close()
        whole.close()


def test_5xx_and_network_errors_are_retried_with_backoff_on_the_clock(database: Database, replay: ReplayFactory,
                                                                       fake_time: FakeTime) -> None:
    flaky = replay(faults={("lawSearch.do", "detc", "1"): [500, httpx.ConnectError("refused"), 503]})
    report = sync(database, flaky, fake_time, targets=("detc",))
    assert report.as_json()["streams"]["detc"]["added"] == 2
    assert [pause for pause in fake_time.sleeps if pause >= 1] == [1.0, 2.0, 4.0]


@pytest.mark.parametrize(("answers", "error", "says"), [
    pytest.param([500] * 4, ApiUnreachableError, "expected HTTP 200, got 500 Internal Server Error, 4 times", id="500"),
    pytest.param([httpx.Response(429, headers={"Retry-After": "30"})] * 4, ApiRefusedError, "got 429", id="quota"),
    pytest.param([body("built/key-refused.json")], ApiRefusedError,
                 "law.go.kr refused the OC key: '사용자 정보 검증에 실패하였습니다.", id="wrong-key"),
    pytest.param([body("real/error-page-unregistered.html")], ApiRefusedError,
                 "HTML error page '미신청된 목록/본문에 대한 접근입니다.'", id="html-error-page"),
    pytest.param(["<!DOCTYPE html><html><head><title>시스템 점검</title></head><body></body></html>".encode()],
                 ResponseShapeError,
                 "expected law.go.kr XML, got an HTML page '시스템 점검'", id="maintenance-page"),
    pytest.param([body("built/prec-search-renamed-key.xml")], ResponseShapeError,
                 "expected <판례일련번호> in every <prec>, got row 1 without it", id="changed-schema"),
    pytest.param([body("built/prec-search-page1.xml")[:300]], ResponseShapeError,
                 "expected a well-formed PrecSearch list", id="truncated-list"),
])
def test_a_bad_answer_to_a_list_stops_the_sync_naming_it(database: Database, replay: ReplayFactory,
                                                          fake_time: FakeTime, answers: list[Any],
                                                          error: type[SyncError], says: str) -> None:
    bad = replay(faults={("lawSearch.do", "prec", "2"): answers})
    with pytest.raises(error) as raised:
        sync(database, bad, fake_time, targets=("prec",))
    assert says in str(raised.value)
    assert "lawSearch.do?OC=***&target=prec&display=2&page=2" in raised.value.request
    with database.engine.connect() as connection:  # page 1 is in, the cursor waits at page 2
        assert len(connection.execute(select(ITEMS)).all()) == 2
        assert connection.execute(select(CURSORS.c.next_page)).scalar_one() == 2
    if error is ApiRefusedError and "429" in says:
        assert fake_time.sleeps.count(30.0) == 3  # Retry-After is honoured


@pytest.mark.parametrize(("answer", "says"), [
    pytest.param(body("real/law-service-001823.xml")[:200_000], "expected well-formed UTF-8 XML", id="truncated"),
    pytest.param(body("real/error-page-unregistered.html"), "HTML error page", id="html-instead-of-xml"),
    pytest.param(b'<?xml version="1.0"?><LawService><x/></LawService>', "expected a law.go.kr root", id="other-root"),
    pytest.param(body("real/law-service-001823.xml").replace("법령ID>".encode(), "법령번호>".encode()),
                 # the importers' body check (issue 17) names the node before the sync's schema check runs
                 "expected an object with 법령ID and 법령명_한글, got an object without 법령ID at 법령/기본정보",
                 id="changed-schema"),
])
def test_a_bad_body_leaves_the_database_as_it_was_before_that_item(database: Database, replay: ReplayFactory,
                                                                    fake_time: FakeTime, answer: bytes,
                                                                    says: str) -> None:
    before = snapshot(database)
    with pytest.raises(SyncError) as raised:
        sync(database, replay(faults={("lawService.do", "law", "277031"): [answer]}), fake_time, targets=("law",))
    assert says in str(raised.value) and "lawService.do?OC=***&target=law&MST=277031&type=XML" in str(raised.value)
    after = snapshot(database)
    assert {table: rows for table, rows in after.items() if table != "sync_cursors"} == {
        table: rows for table, rows in before.items() if table != "sync_cursors"}


def test_no_record_bodies_and_empty_lists_are_outcomes_not_errors(database: Database, replay: ReplayFactory,
                                                                    fake_time: FakeTime) -> None:
    answers = replay(faults={("lawService.do", "prec", "217381"): [body("built/prec-service-no-record.xml")],
                             ("lawSearch.do", "detc", "1"): [body("built/detc-search-empty.xml")]})
    streams = sync(database, answers, fake_time, targets=("prec", "detc")).as_json()["streams"]
    assert streams["prec"]["skipped_why"]["law.go.kr has no body for it"] == 1
    assert (streams["detc"]["added"], streams["detc"]["skipped"]) == (0, 0)


def test_court_narrows_the_list_request_and_the_import(database: Database, replay: ReplayFactory,
                                                       fake_time: FakeTime) -> None:
    answers = replay()
    streams = sync(database, answers, fake_time, targets=("prec",), courts=("대법원",)).as_json()["streams"]
    assert set(streams) == {"prec:대법원"}
    assert all(url.params["curt"] == "대법원" for url in answers.seen if url.path.endswith("lawSearch.do"))
    assert streams["prec:대법원"]["skipped_why"]["court 서울고등법원 not asked for"] == 1


def test_the_key_is_in_requests_only_never_in_messages_logs_or_the_database(
        database: Database, replay: ReplayFactory, fake_time: FakeTime, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    answers = replay(faults={("lawSearch.do", "detc", "1"): [500, body("real/error-page-unregistered.html")]})
    with pytest.raises(SyncError) as raised:
        sync(database, answers, fake_time)
    assert all(url.params["OC"] == OC for url in answers.seen)
    assert OC not in str(raised.value) and OC not in caplog.text and "OC=***" in caplog.text
    assert OC not in repr(snapshot(database))


def test_requests_are_spaced_by_the_rate_limit(database: Database, replay: ReplayFactory, fake_time: FakeTime) -> None:
    start = fake_time.now
    report = sync(database, replay(), fake_time, targets=("prec",), concurrency=1)
    assert report.requests == 9  # 3 list pages, 6 bodies
    assert fake_time.now - start == pytest.approx((report.requests - 1) / 5.0)


def test_a_version_older_than_one_held_is_skipped_and_touches_nothing(database: Database, replay: ReplayFactory,
                                                                      fake_time: FakeTime) -> None:
    sync(database, replay(), fake_time, targets=("law",))
    before = snapshot(database)
    older_row = body("built/eflaw-search-page1.xml").replace(b"277031", b"260000")
    older_body = body("real/law-service-001823.xml").replace(
        "<공포일자>20251001".encode(), "<공포일자>20240101".encode(), 1)
    answers = replay(faults={("lawSearch.do", "eflaw", "1"): [older_row],
                             ("lawService.do", "law", "260000"): [older_body]})
    streams = sync(database, answers, fake_time, targets=("law",), until=TODAY + dt.timedelta(days=1)).as_json()
    [why] = streams["streams"]["law"]["skipped_why"]
    assert why.startswith("expected versions after MST 277031 (promulgated 2025-10-01), got MST 260000")
    after = snapshot(database)
    assert {table: rows for table, rows in after.items() if table != "sync_cursors"} == {
        table: rows for table, rows in before.items() if table != "sync_cursors"}


def _newer_version_keeping(articles: int, change: str) -> Replay:
    """건축법's next version (MST 290000, promulgated 2026-01-01) whose body keeps its first `articles`."""
    import re

    newer = version_body("20260101", change=change).decode()
    units = list(re.finditer(r"<조문단위.*?</조문단위>\s*", newer, flags=re.S))
    shrunk = newer[:units[articles].start()] + newer[units[-1].end():]
    newer_row = body("built/eflaw-search-page1.xml").replace(b"277031", b"290000")
    return {("lawSearch.do", "eflaw", "1"): [newer_row], ("lawService.do", "law", "290000"): [shrunk.encode()]}


@pytest.mark.parametrize("change", ["일부개정", "전부개정"])
def test_a_new_version_that_drops_most_articles_is_refused_unless_it_replaces_the_whole_text(
        database: Database, replay: ReplayFactory, fake_time: FakeTime, change: str) -> None:
    sync(database, replay(), fake_time, targets=("law",))
    before = snapshot(database)
    answers = replay(faults=_newer_version_keeping(60, change))
    later = TODAY + dt.timedelta(days=40)
    if change == "전부개정":  # a full revision: its 60 articles are the act's articles now
        sync(database, answers, fake_time, targets=("law",), until=later)
        with database.engine.connect() as connection:
            assert len(connection.execute(select(ARTICLES.c.id)).all()) == 56  # 60 rows less 4 편/장 headings
        return
    with pytest.raises(ResponseShapeError, match=r"일부개정 of 건축법 that drops articles .* would remove 110 of 166 "):
        sync(database, answers, fake_time, targets=("law",), until=later)
    after = snapshot(database)
    assert {table: rows for table, rows in after.items() if table != "sync_cursors"} == {
        table: rows for table, rows in before.items() if table != "sync_cursors"}


def test_a_case_body_without_its_fields_is_a_changed_schema_one_with_them_empty_a_skipped_row(
        database: Database, replay: ReplayFactory, fake_time: FakeTime) -> None:
    renamed = body("built/prec-service-217381.xml").replace("사건번호>".encode(), "사건No>".encode())
    with pytest.raises(ResponseShapeError, match=r"expected <사건번호> in <PrecService>, got a body without it"):
        sync(database, replay(faults={("lawService.do", "prec", "217381"): [renamed]}), fake_time, targets=("prec",))
    emptied = body("built/prec-service-217381.xml").replace("2016두64876".encode(), b"")
    streams = sync(database, replay(faults={("lawService.do", "prec", "217381"): [emptied]}), fake_time,
                   targets=("prec",)).as_json()["streams"]
    assert streams["prec"]["skipped"] == 2 and any("got ''" in why for why in streams["prec"]["skipped_why"])
