"""verify(citation) -> Verdict against the samples, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import func, select

from grammars import CaseCitation, CaseNumber, ParsedCitation, StatuteCitation
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lookups import BoundedCache
from verifier.models import AUDIT
from verifier.rules import case_problems, court_family_problem
from verifier.verify import Verifier


def case(number: str, court: str | None = None, date: str | None = None, delivery: str | None = None,
         disposition: str | None = None, panel: str | None = None) -> CaseCitation:
    year, code, serial = number.split("/")
    return CaseCitation(CaseNumber(int(year), code, int(serial)), court,
                        dt.date.fromisoformat(date) if date else None, delivery, disposition, panel)


# (citation, status, a field the verdict must report: canonical / mismatch field / candidate count)
CASES: list[tuple[str, ParsedCitation, str, str | None]] = [
    ("statute verified", StatuteCitation("민법", 750), "verified", "민법 제750조"),
    ("statute by official 약칭", StatuteCitation("주택임대차법", 1), "not_found", "주택임대차보호법 제1조"),
    ("statute by informal abbreviation", StatuteCitation("민소법", 1), "verified", "민사소송법 제1조"),
    ("provision 항 호의 목", StatuteCitation("민법", 23, paragraph=1, item=3, item_branch=2, subitem="가"),
     "verified", "민법 제23조 제1항 제3호의2 가목"),
    ("missing paragraph", StatuteCitation("민법", 23, paragraph=3), "not_found", None),
    ("missing article", StatuteCitation("민법", 751), "not_found", None),
    ("heading row is no article", StatuteCitation("민법", 1), "not_found", None),
    ("deleted article", StatuteCitation("민법", 3, article_branch=2), "mismatch", "article"),
    ("moved article", StatuteCitation("민법", 5), "mismatch", "article"),
    ("unknown act", StatuteCitation("가짜법", 1), "not_found", None),
    ("unresolved back-reference", StatuteCitation(None, 3, back_reference="같은 법"), "ambiguous", None),
    ("case verified", case("2024/도/4202", "대법원", "2024-07-11", "선고", "판결"), "verified",
     "대법원 2024. 7. 11. 선고 2024도4202 판결"),
    ("bare number completed", case("2024/도/4202"), "verified", "대법원 2024. 7. 11. 선고 2024도4202 판결"),
    ("wrong date", case("2024/도/4202", "대법원", "2024-07-12", "선고", "판결"), "mismatch", "date"),
    ("자 with 결정", case("2022/마/6489", "대법원", "2023-01-12", "자", "결정"), "verified",
     "대법원 2023. 1. 12.자 2022마6489 결정"),
    ("선고 where the record is 자",
     case("2022/마/6489", "대법원", "2023-01-12", "선고", "결정"), "mismatch", "delivery"),
    ("전원합의체 not marked", case("2015/도/2004", "대법원", "2020-06-18", "선고", "판결"), "mismatch", "panel"),
    ("court abbreviation", case("2022/나/2034567", "서울고법", "2023-05-04", "선고", "판결"), "verified",
     "서울고등법원 2023. 5. 4. 선고 2022나2034567 판결"),
    ("헌재 on its 종국일자", case("2017/헌마/1281", "헌법재판소", "2020-03-26", "선고", "결정"), "verified",
     "헌법재판소 2020. 3. 26. 선고 2017헌마1281 결정"),
    ("헌재 with its panel", case("2015/헌바/35", "헌법재판소", "2015-09-24", "선고", "결정", "전원재판부"), "verified",
     "헌법재판소 2015. 9. 24. 선고 2015헌바35 전원재판부 결정"),
    ("헌재 wrong date", case("2015/헌바/35", "헌법재판소", "2015-09-25", "선고", "결정"), "mismatch", "date"),
    ("one number, two courts", case("2022/가합/1234"), "ambiguous", "2"),
    ("absent in a covered period", case("2024/도/9999", "대법원", "2024-07-11", "선고", "판결"), "not_found", None),
    ("absent outside the covered period", case("1985/도/9999", "대법원", "1986-07-11", "선고", "판결"),
     "not_covered", None),
    ("absent at an uncovered court", case("2023/고단/1", "광주지방법원", "2023-07-11", "선고", "판결"),
     "not_covered", None),
    ("대법원 code at a high court", case("2024/다/1", "서울고등법원", "2024-07-11", "선고", "판결"), "not_found", None),
    ("판결 notified with 자", case("2024/다/1", "대법원", "2024-07-11", "자", "판결"), "not_found", None),
    ("decided before it was filed", case("2024/다/1", "대법원", "2023-07-11", "선고", "판결"), "not_found", None),
]


@pytest.mark.parametrize(("citation", "status", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_verdict(loaded: Database, citation: ParsedCitation, status: str, expected: str | None) -> None:
    with Verifier(loaded) as verifier:
        verdict = verifier.verify(citation)
    assert verdict.status == status, verdict.detail
    assert verdict.detail
    if status == "verified":
        assert verdict.canonical == expected and verdict.source
    elif status == "mismatch":
        assert [m.field for m in verdict.mismatches] == [expected] and verdict.source
    elif status == "ambiguous" and expected:
        assert len(verdict.candidates) == int(expected)
    elif expected:
        assert verdict.canonical == expected


def test_statutes_are_not_covered_in_a_database_without_any(database: Database) -> None:
    with Verifier(database) as verifier:
        assert verifier.verify(StatuteCitation("민법", 750)).status == "not_covered"


def test_cache_answers_repeats_and_the_audit_log_gets_every_call_in_batches(database: Database,
                                                                             sample_dir: Path) -> None:
    import_paths(database, [sample_dir / "law"])
    loaded = database
    citation = StatuteCitation("민법", 750)
    with Verifier(loaded, audit_batch=3) as verifier:
        first = verifier.verify(citation)
        assert verifier.verify(StatuteCitation("민법", 750)) is first  # cached value, no lookup
        with loaded.engine.connect() as connection:
            assert connection.execute(select(func.count()).select_from(AUDIT)).scalar_one() == 0
        verifier.verify(StatuteCitation("민법", 751))  # third call fills the batch
        with loaded.engine.connect() as connection:
            assert connection.execute(select(func.count()).select_from(AUDIT)).scalar_one() == 3
        verifier.verify(citation)
    with loaded.engine.connect() as connection:  # close() flushed the rest
        statuses = connection.execute(select(AUDIT.c.status).order_by(AUDIT.c.id)).scalars().all()
    assert statuses == ["verified", "verified", "not_found", "verified"]


RULES = [
    ("헌재 code elsewhere", "헌마", "대법원", 2020, "헌법재판소"),
    ("헌재 with a civil code", "다", "헌법재판소", 2020, "헌가"),
    ("상고 code at a district court", "도", "서울중앙지방법원", 2020, "대법원"),
    ("1심 code at the 대법원", "가합", "대법원", 2020, "1심"),
    ("누 at the 대법원 after 1998", "누", "대법원", 2005, "1심 or 항소"),
    ("허 at a district court", "허", "서울중앙지방법원", 2020, "특허법원"),
]


@pytest.mark.parametrize(("code", "court", "year", "named"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_court_family_rule_rejects(code: str, court: str, year: int, named: str) -> None:
    problem = court_family_problem(code, court, year)
    assert problem is not None and named in problem


FITTING = [("다 at the 대법원", "다", "대법원", 2020), ("누 at the 대법원 before 1998", "누", "대법원", 1994),
           ("나 at a high court", "나", "서울고등법원", 2022), ("헌바 at the 헌법재판소", "헌바", "헌법재판소", 2015),
           ("허 at the 특허법원", "허", "특허법원", 2020), ("다카 at the 대법원", "다카", "대법원", 1988)]


@pytest.mark.parametrize(("code", "court", "year"), [f[1:] for f in FITTING], ids=[f[0] for f in FITTING])
def test_court_family_rule_accepts(code: str, court: str, year: int) -> None:
    assert court_family_problem(code, court, year) is None


def test_constitutional_court_decides_by_pronounced_decisions() -> None:
    fields = [field for field, _ in case_problems(case("2020/헌마/1", "헌법재판소", "2021-01-01", "자", "판결"))]
    assert fields == ["delivery", "disposition", "delivery"]


def test_threads_sharing_one_verifier_get_the_single_threaded_answers(loaded: Database) -> None:
    citations = [c[1] for c in CASES] * 8
    with Verifier(loaded, audit=False) as alone:
        expected = [alone.verify(citation).status for citation in citations]
    with Verifier(loaded, audit_batch=7) as shared, ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(lambda c: shared.verify(c).status, citations)) == expected


def test_lookup_answers_are_bounded_oldest_dropped_first() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    computed: list[str] = []

    def answer(key: str) -> int:
        return cache.get(key, lambda: computed.append(key) or len(computed))

    assert [answer(key) for key in ("a", "b", "a", "c")] == [1, 2, 1, 3]
    assert len(cache) == 2 and computed == ["a", "b", "c"]
    assert answer("b") == 2 and answer("a") == 4  # "a" was the oldest, so it went for "c"
    with pytest.raises(ValueError, match="expected a cache size of at least 1, got 0"):
        BoundedCache(0)


# Values no record holds, which PostgreSQL refuses as a query's value (4-byte integers, text without NUL):
# answered as SQLite answers them, before any query, and their audit rows written.
UNSEARCHABLE = [
    ("article past any statute's", StatuteCitation("민법", 10_000), "not_found"),
    ("article past 4-byte integers", StatuteCitation("민법", 3_000_000_000), "not_found"),
    ("paragraph past 4-byte integers", StatuteCitation("민법", 750, paragraph=2**31), "not_found"),
    ("NUL in the act's name", StatuteCitation("민\x00법", 750), "not_found"),
    ("case serial past 4-byte integers", case("2024/도/3000000000", "대법원", "2024-07-11", "선고", "판결"),
     "not_found"),
    ("NUL in the court", case("2023/고단/1", "광주지방\x00법원", "2023-07-11", "선고", "판결"), "not_covered"),
]


@pytest.mark.parametrize(("citation", "status"), [u[1:] for u in UNSEARCHABLE], ids=[u[0] for u in UNSEARCHABLE])
def test_values_no_column_can_hold_are_answered_alike_on_every_backend(loaded: Database, citation: ParsedCitation,
                                                                       status: str) -> None:
    with Verifier(loaded) as verifier:
        verdict = verifier.verify(citation)
        assert verdict.status == status, verdict.detail
        assert verifier.flush_audit() and verifier.audit_rows_pending == 0
        assert verifier.verify(StatuteCitation("민법", 750)).verified  # the reader connection is still good
