"""Point-in-time verdicts against the real history fixture (tests/fixtures, law.go.kr via legalize-kr)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from grammars import AmendmentNote, StatuteCitation
from verifier import Database, Verifier

TODAY = dt.date(2026, 12, 1)
NOTE_6626 = AmendmentNote("법률", 6626, "전부개정", True, dt.date(2002, 1, 26))


def S(act: str, article: int, **fields: object) -> StatuteCitation:
    return StatuteCitation(act, article, **fields)  # type: ignore[arg-type]


@pytest.fixture
def verifier(book: Database) -> Verifier:
    with Verifier(book, audit=False) as verifier:
        yield verifier


@pytest.mark.parametrize(("citation", "on", "status", "says"), [
    (S("대한민국헌법", 12, paragraph=3), TODAY, "verified", "in force on 2026. 12. 1."),
    (S("헌법", 37, paragraph=2), TODAY, "verified", "in force on 2026. 12. 1."),  # the name courts cite it by
    (S("형법", 298, paragraph=2), TODAY, "not_found", "has no 제2항"),
    (S("형법", 298), TODAY, "verified", "exists"),
    (S("주택임대차특별법", 3), TODAY, "not_found", "no act named '주택임대차특별법'"),
    (S("민사소송법", 263), dt.date(2000, 1, 1), "verified", "in force on 2000. 1. 1."),
    (S("근로기준법", 27, paragraph=1), dt.date(1990, 1, 1), "verified", "1990. 1. 1."),
    (S("근로기준법", 35), dt.date(1998, 1, 1), "verified", "1998. 1. 1."),
    (S("근로기준법", 1), dt.date(1950, 1, 1), "ambiguous", "none of them singled out"),
    # 방송법 of 1963 was repealed by another act (타법폐지, 1980): today's 방송법 is meant
    (S("방송법", 2), TODAY, "verified", "in force on 2026. 12. 1."),
    # a 1948 군정법령 shares the name and has no repeal on record: the act enacted later is in force
    (S("민사소송법", 1), TODAY, "verified", "in force on 2026. 12. 1."),
    (S("국고금관리법", 7), TODAY, "verified", "spacing '국고금관리법'"),
], ids=["constitution-paragraph", "constitution-as-cited", "invented-paragraph", "article", "unknown-act",
        "old-version-by-date", "repealed-act-by-date", "current-act-by-date", "before-both",
        "repealed-by-another-act", "superseded-without-repeal", "title-spaced-otherwise"])
def test_point_in_time(verifier: Verifier, citation: StatuteCitation, on: dt.date, status: str, says: str) -> None:
    verdict = verifier.verify(citation, on)
    assert verdict.status == status, verdict.detail
    assert says in verdict.detail


def test_verified_carries_the_provision_text_in_the_version_checked(verifier: Verifier) -> None:
    now = verifier.verify(S("근로기준법", 27), TODAY)
    then = verifier.verify(S("근로기준법", 27), dt.date(1990, 1, 1))
    assert now.provision is not None and then.provision is not None
    assert now.provision.title == "해고사유 등의 서면통지" and then.provision.title == "해고등의 제한"
    assert then.provision.text is not None and "정당한 이유" in then.provision.text
    assert then.provision.address == "https://www.law.go.kr/LSW/lsInfoP.do?lsiSeq=4971"
    assert then.provision.effective_on is not None and then.provision.effective_on <= dt.date(1990, 1, 1)


def test_deleted_provision_is_outdated_with_the_former_form(verifier: Verifier) -> None:
    verdict = verifier.verify(S("근로기준법", 35), TODAY)
    assert verdict.status == "outdated" and not verdict.verified
    assert "was deleted" in verdict.detail and "법률 제21373호" in verdict.detail
    assert verdict.suggestion == "구 근로기준법(2026. 2. 19. 법률 제21373호로 타법개정되기 전의 것) 제35조"
    assert verdict.provision is not None and verdict.provision.title == "예고해고의 적용예외"


def test_repealed_act_stays_citable_as_former(verifier: Verifier) -> None:
    assert verifier.verify(S("근로기준법", 27, former=True), TODAY).status == "verified"


@pytest.mark.parametrize(("note", "status", "field", "truth"), [
    (NOTE_6626, "verified", None, None),
    (AmendmentNote("법률", 6625, "전부개정", True, dt.date(2002, 1, 26)), "mismatch", "amendment",
     "2002. 1. 26. 법률 제6626호"),
    (AmendmentNote("법률", 6626, "전부개정", True, dt.date(2002, 1, 27)), "mismatch", "amendment date", "2002. 1. 26."),
    (AmendmentNote("법률", 6626, "일부개정", True, dt.date(2002, 1, 26)), "mismatch", "amendment kind", "전부개정"),
], ids=["true-note", "wrong-number", "wrong-date", "wrong-kind"])
def test_version_note_is_checked_against_real_amendments(verifier: Verifier, note: AmendmentNote, status: str,
                                                         field: str | None, truth: str | None) -> None:
    verdict = verifier.verify(S("민사소송법", 263, former=True, amendment=note), TODAY)
    assert verdict.status == status, verdict.detail
    assert [(m.field, m.database) for m in verdict.mismatches] == ([(field, truth)] if field else [])
    if status == "verified":
        assert verdict.provision is not None and verdict.provision.title == "증거신청의 채부"
        assert verdict.provision.promulgation_number == 5809  # the version before 법률 제6626호
        assert verdict.canonical == "구 민사소송법(2002. 1. 26. 법률 제6626호로 전부개정되기 전의 것) 제263조"


def test_note_made_by_names_that_version(verifier: Verifier) -> None:
    made = AmendmentNote("법률", 6626, "전부개정", False, dt.date(2002, 1, 26))
    verdict = verifier.verify(S("민사소송법", 263, amendment=made), TODAY)
    assert verdict.status == "verified" and verdict.provision is not None
    assert verdict.provision.title == "청구의 변경의 불허가"  # 제263조 of the 2002 text


@pytest.mark.parametrize(("article", "item", "verified"), [
    (2, 1, True),    # 제2조 ① holds the definitions' 제1호; ② has no items
    (2, 10, False),  # ① ends at 제9호
    (52, 1, False),  # ① and ② both hold a 제1호: 제52조제1호 names neither
])
def test_item_cited_without_its_paragraph(verifier: Verifier, article: int, item: int, verified: bool) -> None:
    assert verifier.verify(S("근로기준법", article, item=item), TODAY).verified is verified


def test_former_without_note_tries_the_act_in_force_first(verifier: Verifier) -> None:
    # 구 민사소송법: an earlier version of the 1960 법률, not the 1948 군정법령 that shares its name
    verdict = verifier.verify(S("민사소송법", 263, former=True), TODAY)
    assert verdict.provision is not None and verdict.provision.promulgation_number != 181
    assert verifier.verify(S("방송법", 2, former=True), TODAY).status == "verified"


def test_former_without_note_says_which_period(verifier: Verifier) -> None:
    verdict = verifier.verify(S("민사소송법", 263, former=True), TODAY)
    assert verdict.status == "verified" and "existed from" in verdict.detail
    never = verifier.verify(S("대한민국헌법", 12, paragraph=9, former=True), TODAY)
    assert never.status == "not_found"


def test_future_version_not_in_force(verifier: Verifier) -> None:
    # 민사소송법's newest version (법률 제21455호) takes effect on 2028-03-01: not the one checked today
    verdict = verifier.verify(S("민사소송법", 1), TODAY)
    assert verdict.provision is not None and verdict.provision.promulgation_number == 7427


def test_book_without_history_checks_the_earliest_version_held(database: Database, tmp_path: Path) -> None:
    # a tree holds one version per act; 민사소송법's takes effect on 2028-03-01 and no earlier one is held
    import tarfile

    REAL_HISTORY = Path(__file__).parents[1] / "fixtures" / "legalize-real-history.tar.xz"

    from verifier.importers.book import import_book

    with tarfile.open(REAL_HISTORY) as tar:
        newest = [name for name in tar.getnames() if name.endswith("kr/민사소송법/법률.md")][-1]
        text = tar.extractfile(newest).read()  # type: ignore[union-attr]
    (tmp_path / "kr").mkdir()
    (tmp_path / "kr" / "법률.md").write_bytes(text)
    import_book(database, tmp_path)
    with Verifier(database, audit=False) as verifier:
        verdict = verifier.verify(S("민사소송법", 1), TODAY)
        noted = verifier.verify(S("민사소송법", 263, former=True, amendment=NOTE_6626), TODAY)
        former = verifier.verify(S("민사소송법", 263, former=True), TODAY)
    assert verdict.status == "verified" and "earliest version held" in verdict.detail
    # without the history, a true note is neither confirmed nor called wrong
    assert noted.status == former.status == "not_covered" and "only" in noted.detail
