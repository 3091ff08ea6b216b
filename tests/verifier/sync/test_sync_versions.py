"""Statute versions from `lawSearch.do?target=eflaw`: every version an act gained since the last
sync is imported as its own version of the point-in-time model (act_versions, article_spans), oldest
first, once, and a sync stopped half-way resumes to the database an uninterrupted one makes.

The list pages are the recorded eflaw answer (fixtures/real/eflaw-search-jadongcha.xml) or rows
built in its shape; every body is built from the real 건축법 body (`version_body`)."""

from __future__ import annotations

import datetime as dt

import pytest
from lawgo_replay import Answer, FakeTime, Killed, Replay, ReplayFactory, body, snapshot, sync, version_body
from sqlalchemy import select

from grammars import StatuteCitation
from verifier.database import Database
from verifier.models import ACTS, ARTICLES, SPANS, VERSIONS
from verifier.verify import Verifier

Routes = dict[tuple[str, str, str], Answer]


def _row(mst: str, promulgated: str, status: str, *, effective: str | None = None) -> str:
    """Built: an eflaw row of 건축법 (the fields of built/eflaw-search-page1.xml) for another version."""
    page = body("built/eflaw-search-page1.xml").decode()
    row = page[page.index("<law id="):page.index("</law>") + len("</law>")]
    return (row.replace("277031", mst).replace("<공포일자>20251001", f"<공포일자>{promulgated}")
            .replace("<시행일자>20251001", f"<시행일자>{effective or promulgated}")
            .replace("<현행연혁코드>현행", f"<현행연혁코드>{status}"))


def _page(rows: list[str]) -> bytes:
    """Built: a LawSearch page of eflaw `rows`, all of the list."""
    return (f'<?xml version="1.0" encoding="UTF-8"?><LawSearch><target>eflaw</target><totalCnt>{len(rows)}'
            f"</totalCnt><page>1</page>{''.join(rows)}</LawSearch>").encode()


def test_every_version_an_eflaw_list_names_is_imported_as_its_own_version_oldest_first(
        database: Database, replay: ReplayFactory, fake_time: FakeTime) -> None:
    # the recorded page, its totalCnt (413, the whole list) narrowed to the five rows it holds
    listed = body("real/eflaw-search-jadongcha.xml").replace(b"<totalCnt>413<", b"<totalCnt>5<")
    versions = {  # MST: (법령ID, name, 공포일자, 공포번호, 시행일자, 제개정구분) as the recorded rows give them
        "107433": ("011268", "서식설계기준 변경에 따른 자동차관리법 시행규칙 등 일부개정령", "20100830", "00277",
                   "20100830", "일괄개정"),
        "266643": ("001747", "자동차관리법", "20241203", "20554", "20251204", "일부개정"),
        "277015": ("001747", "자동차관리법", "20251001", "21065", "20251001", "타법개정"),
        "260419": ("001747", "자동차관리법", "20240213", "20298", "20250814", "일부개정"),
        "261151": ("001747", "자동차관리법", "20240319", "20391", "20250320", "타법개정"),
    }
    routes: Routes = {("lawSearch.do", "eflaw", "1"): listed}
    for mst, (law_id, name, promulgated, number, effective, change) in versions.items():
        routes["lawService.do", "law", mst] = version_body(promulgated, law_id=law_id, name=name, number=number,
                                                           effective=effective, change=change,
                                                           purpose=f"MST {mst}의 목적으로 한다.")
    answers = Replay(routes)
    report = sync(database, answers, fake_time, targets=("law",), since=dt.date(2010, 1, 1), concurrency=1,
                  page_size=5)
    [listing] = [url.params for url in answers.seen if url.path.endswith("lawSearch.do")]
    # every status (1 연혁, 2 시행예정, 3 현행) of what was promulgated in the window, oldest first
    assert (listing["target"], listing["nw"], listing["ancYd"], listing["sort"]) == (
        "eflaw", "1,2,3", "20100101~20261130", "dasc")
    fetched = [url.params["MST"] for url in answers.seen if url.path.endswith("lawService.do")]
    assert fetched == ["107433", "260419", "261151", "266643", "277015"]  # by 공포일자, not as listed
    assert report.as_json()["streams"]["law"]["added"] == 5
    with database.engine.connect() as connection:
        act_id = connection.execute(select(ACTS.c.id).where(ACTS.c.law_id == "001747")).scalar_one()
        held = connection.execute(select(VERSIONS.c.sequence, VERSIONS.c.mst, VERSIONS.c.status,
                                         VERSIONS.c.effective_on).where(VERSIONS.c.act_id == act_id)
                                  .order_by(VERSIONS.c.sequence)).all()
        assert [tuple(row) for row in held] == [
            (1, 260419, "연혁", dt.date(2025, 8, 14)), (2, 261151, "연혁", dt.date(2025, 3, 20)),
            (3, 266643, "시행예정", dt.date(2025, 12, 4)), (4, 277015, "현행", dt.date(2025, 10, 1))]
        purposes = connection.execute(select(SPANS.c.first, SPANS.c.last, SPANS.c.text).where(
            SPANS.c.act_id == act_id, SPANS.c.number == 1, SPANS.c.branch == 0).order_by(SPANS.c.first)).all()
    assert [(first, last, text.rsplit("에 ", 1)[-1]) for first, last, text in purposes] == [
        (sequence, sequence, f"MST {mst}의 목적으로 한다.")
        for sequence, mst in enumerate(["260419", "261151", "266643", "277015"], start=1)]
    with Verifier(database, audit=False) as verifier:  # the version in force on a date is the one checked
        checked = verifier.verify(StatuteCitation("자동차관리법", 1), on=dt.date(2025, 9, 1))
        assert checked.status == "verified" and checked.provision is not None
        assert "MST 261151의" in (checked.provision.text or "")


def _two_amendments() -> Routes:
    """Built: 건축법's next two versions, promulgated after the first sync, listed newest first, each
    changing 제1조."""
    listed = _page([_row("291000", "20261228", "현행"), _row("290000", "20261215", "연혁")])
    return {("lawSearch.do", "eflaw", "1"): listed,
            ("lawService.do", "law", "290000"): version_body("20261215", number="21100", purpose="첫째 개정으로 한다."),
            ("lawService.do", "law", "291000"): version_body("20261228", number="21200", purpose="둘째 개정으로 한다.")}


LATER = dt.date(2027, 1, 5)


@pytest.mark.parametrize("kill_after", [None, 0, 1], ids=["uninterrupted", "killed-before-a-body", "killed-after-one"])
def test_two_amendments_between_two_syncs_are_two_versions_and_a_third_sync_changes_nothing(
        database: Database, replay: ReplayFactory, fake_time: FakeTime, kill_after: int | None) -> None:
    sync(database, replay(), fake_time, targets=("law",))
    routes = _two_amendments()
    if kill_after is not None:
        with pytest.raises(Killed):
            sync(database, Replay(routes, kill_after=kill_after), fake_time, targets=("law",), until=LATER,
                 concurrency=1)
    report = sync(database, Replay(routes), fake_time, targets=("law",), until=LATER)
    assert report.resumed == ([] if kill_after is None else ["law"])
    streams = report.as_json()["streams"]["law"]
    assert (streams["added"], streams["skipped"]) == (2, 0)
    with database.engine.connect() as connection:
        held = connection.execute(select(VERSIONS.c.sequence, VERSIONS.c.mst, VERSIONS.c.promulgation_number)
                                  .order_by(VERSIONS.c.sequence)).all()
        assert [tuple(row) for row in held] == [(1, 277031, 21065), (2, 290000, 21100), (3, 291000, 21200)]
        purposes = connection.execute(select(SPANS.c.first, SPANS.c.last, SPANS.c.text).where(
            SPANS.c.number == 1, SPANS.c.branch == 0).order_by(SPANS.c.first)).all()
        assert [(first, last, text.rsplit("에 ", 1)[-1]) for first, last, text in purposes] == [
            (1, 1, "이바지하는 것을 목적으로 한다."), (2, 2, "첫째 개정으로 한다."), (3, 3, "둘째 개정으로 한다.")]
        unchanged = connection.execute(select(SPANS.c.first, SPANS.c.last).where(SPANS.c.number == 2)).all()
        assert [tuple(row) for row in unchanged] == [(1, 3)]  # an article no amendment touched: one span
        assert connection.execute(select(ARTICLES.c.title).where(ARTICLES.c.number == 1)).scalar_one() == "목적"
    settled = snapshot(database)
    again = Replay(_two_amendments())
    report = sync(database, again, fake_time, targets=("law",), until=LATER + dt.timedelta(days=1))
    [window] = [url.params["ancYd"] for url in again.seen if url.path.endswith("lawSearch.do")]
    assert window == "20261207~20270106"  # a month back: both versions listed again, neither fetched
    assert report.as_json()["streams"]["law"]["skipped_why"] == {"held already": 2}
    assert not [url for url in again.seen if url.path.endswith("lawService.do")]
    assert {table: rows for table, rows in snapshot(database).items() if table != "sync_cursors"} == {
        table: rows for table, rows in settled.items() if table != "sync_cursors"}


def test_a_version_listed_once_per_effective_date_is_fetched_and_imported_once(
        database: Database, fake_time: FakeTime) -> None:
    listed = _page([_row("290000", "20260101", "현행", effective="20260301"),
                    _row("290000", "20260101", "연혁", effective="20260101")])
    answers = Replay({("lawSearch.do", "eflaw", "1"): listed,
                      ("lawService.do", "law", "290000"): version_body("20260101", effective="20260301")})
    report = sync(database, answers, fake_time, targets=("law",), page_size=5)
    assert [url.params["MST"] for url in answers.seen if url.path.endswith("lawService.do")] == ["290000"]
    assert report.as_json()["streams"]["law"]["added"] == 1
    [listing] = [url.params for url in answers.seen if url.path.endswith("lawSearch.do")]
    assert listing["nw"] == "2,3"  # a first sync: the versions in force or scheduled, the history is legalize-kr's
    with database.engine.connect() as connection:
        assert tuple(connection.execute(select(VERSIONS.c.mst, VERSIONS.c.status)).one()) == (290000, "현행")
