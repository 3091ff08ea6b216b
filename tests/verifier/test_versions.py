"""Point-in-time verdicts against the real history fixture (tests/fixtures, law.go.kr via legalize-kr), and
against small books cut from the shipped one (small_books)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from small_books import Act, import_acts

from grammars import AmendmentNote, StatuteCitation, Supplement
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


# --- histories the legalize fixture lacks, cut from the shipped book (small_books) ---------------

PROSECUTION = "검찰청법"
# 검찰청법 (법령ID 001286), enacted 1949, repealed by another act (법률 제21490호, in force 2026. 10. 2.), and
# the 1948 군정법령 of the same name, which the book holds without its repeal.
PROSECUTION_ACTS = (
    Act("001286", [(4602, PROSECUTION, "법률", "1949-12-20", 81, "1949-12-20", "제정"),
                   (242095, PROSECUTION, "법률", "2022-05-09", 18861, "2022-09-10", "일부개정"),
                   (285047, PROSECUTION, "법률", "2026-03-24", 21490, "2026-10-02", "타법폐지")],
        [(4, 0, 1, 2, "검사의 직무", False, "1 1.1 2", None)]),
    Act("113032", [(62801, PROSECUTION, "군정법령", "1948-08-02", 213, "1948-08-02", "제정")],
        [(4, 0, 1, 1, None, False, "", "검찰관은 검사 및 검사보로 한다.")]),
)


@pytest.mark.parametrize(("on", "status", "mst"), [
    (dt.date(2026, 10, 1), "verified", 242095),
    (dt.date(2026, 10, 2), "outdated", 242095),  # repealed that day: the 1948 군정법령 is not meant again
    (dt.date(2026, 12, 6), "outdated", 242095),
], ids=["before-the-repeal", "the-day-of-the-repeal", "after-the-repeal"])
def test_a_repealed_act_is_meant_not_an_older_namesake_without_its_repeal(
        database: Database, tmp_path: Path, on: dt.date, status: str, mst: int) -> None:
    import_acts(database, tmp_path, *PROSECUTION_ACTS)
    with Verifier(database, audit=False) as verifier:
        verdict = verifier.verify(S(PROSECUTION, 4), on)
    assert verdict.status == status, verdict.detail
    assert verdict.provision is not None and verdict.provision.mst == mst
    if status == "outdated":
        assert "repealed by 2026. 3. 24. 법률 제21490호" in verdict.detail


CIVIL = "민법"
# 민법 제428조의2 (보증의 방식), inserted by 법률 제13125호 (in force 2016. 2. 4.); 법률 제13710호, promulgated
# later and in force earlier (2016. 1. 6.), already prints it, as law.go.kr does.
CIVIL_2016 = Act("001706", [
    (58431, CIVIL, "법률", "1958-02-22", 471, "1960-01-01", "제정"),
    (165484, CIVIL, "법률", "2014-12-30", 12881, "2014-12-30", "일부개정"),
    (167985, CIVIL, "법률", "2015-02-03", 13125, "2016-02-04", "일부개정"),
    (178964, CIVIL, "법률", "2016-01-06", 13710, "2016-01-06", "일부개정"),
], [(428, 0, 1, 4, "보증채무의 내용", False, "1 2", None),
    (428, 2, 3, 4, "보증의 방식", False, "1 2 3", None)])


@pytest.mark.parametrize(("on", "status", "says"), [
    (dt.date(2016, 1, 5), "not_found", "a version not yet in force has it (from 2016. 2. 4."),
    (dt.date(2016, 1, 6), "not_found", "a version not yet in force has it (from 2016. 2. 4."),
    (dt.date(2016, 2, 3), "not_found", "a version not yet in force has it (from 2016. 2. 4."),
    (dt.date(2016, 2, 4), "verified", "in force on 2016. 2. 4."),
], ids=["before-both", "under-the-later-amendment", "the-day-before", "in-force"])
def test_an_article_printed_before_its_amendment_takes_effect_is_not_yet_in_force(
        database: Database, tmp_path: Path, on: dt.date, status: str, says: str) -> None:
    import_acts(database, tmp_path, CIVIL_2016)
    with Verifier(database, audit=False) as verifier:
        verdict = verifier.verify(S(CIVIL, 428, article_branch=2), on)
        former = verifier.verify(S(CIVIL, 428, article_branch=2, former=True), on)
        untouched = verifier.verify(S(CIVIL, 428), on)
    assert verdict.status == status, verdict.detail
    assert says in verdict.detail
    if status == "not_found":  # nor did a version in force before the day
        assert former.status == "not_found", former.detail
    assert untouched.status == "verified", untouched.detail


@pytest.mark.parametrize("change", ["전문개정", "전면개정"])
def test_older_words_for_a_whole_amendment_name_it(verifier: Verifier, change: str) -> None:
    note = AmendmentNote("법률", 6626, change, True, dt.date(2002, 1, 26))  # type: ignore[arg-type]
    verdict = verifier.verify(S("민사소송법", 263, former=True, amendment=note), TODAY)
    assert verdict.status == "verified", verdict.detail
    assert verdict.provision is not None and verdict.provision.promulgation_number == 5809


def test_a_repeal_by_another_act_is_named_by_a_note_saying_repealed(verifier: Verifier) -> None:
    # the 1963 방송법 was repealed by 법률 제3347호 (1980. 12. 31.), a 타법폐지
    note = AmendmentNote("법률", 3347, "폐지", True, dt.date(1980, 12, 31))
    verdict = verifier.verify(S("방송법", 2, former=True, amendment=note), TODAY)
    assert verdict.status == "verified", verdict.detail
    assert verdict.provision is not None and verdict.provision.promulgation_number == 2535


CARE = "국민건강보험 요양급여의 기준에 관한 규칙"
# 보건복지부령 numbers restarted when the ministry was renamed: 제408호 is the amendment of 2007. 7. 25. and
# that of 2016. 6. 30.
CARE_RULE = Act("006697", [
    (71928, CARE, "보건복지부령", "2005-10-11", 328, "2005-10-11", "일부개정"),
    (79858, CARE, "보건복지부령", "2007-07-25", 408, "2008-07-26", "일부개정"),
    (183815, CARE, "보건복지부령", "2016-06-03", 404, "2016-06-03", "일부개정"),
    (184447, CARE, "보건복지부령", "2016-06-30", 408, "2016-07-01", "일부개정"),
], [(9, 0, 1, 2, "비급여대상", False, "1 2", None),
    (9, 0, 3, 4, "비급여대상", False, "1 2", "① 요양급여의 대상에서 제외되는 사항은 별표 2와 같다.")],
    [(79858, "부칙 <제408호,2007.7.25>", None),
     (184447, "부칙 <제408호,2007.7.25>", "제1조 (시행일) 이 규칙은 공포한 날부터 1년이 경과한 날부터 시행한다."),
     (184447, "부칙 <제408호,2016.6.30>", "제1조(시행일) 이 규칙은 2016년 7월 1일부터 시행한다.\n\n"
                                       "제2조(비급여대상 변경에 따른 적용례) 별표 2의 개정규정은 2016년 7월 1일 이후 "
                                       "실시하는 요양급여부터 적용한다.")])


@pytest.mark.parametrize(("promulgated_on", "before", "number"), [
    (dt.date(2016, 6, 30), True, 404),
    (dt.date(2016, 6, 30), False, 408),
    (dt.date(2007, 7, 25), True, 328),
], ids=["before-the-2016-one", "made-by-the-2016-one", "before-the-2007-one"])
def test_a_reused_amendment_number_is_told_apart_by_the_notes_date(
        database: Database, tmp_path: Path, promulgated_on: dt.date, before: bool, number: int) -> None:
    import_acts(database, tmp_path, CARE_RULE)
    note = AmendmentNote("보건복지부령", 408, "개정", before, promulgated_on)
    with Verifier(database, audit=False) as verifier:
        verdict = verifier.verify(S(CARE, 9, former=before, amendment=note), TODAY)
    assert verdict.status == "verified", verdict.detail
    assert verdict.provision is not None and verdict.provision.promulgation_number == number


def test_a_supplement_of_a_reused_number_names_the_version_of_its_date(database: Database, tmp_path: Path) -> None:
    import_acts(database, tmp_path, CARE_RULE)
    supplement = Supplement(dt.date(2016, 6, 30), "보건복지부령", 408)
    with Verifier(database, audit=False) as verifier:
        verdict = verifier.verify(S(CARE, 2, supplement=supplement), TODAY)
    assert verdict.status == "verified", verdict.detail
    assert verdict.provision is not None and verdict.provision.mst == 184447
    assert verdict.provision.promulgated_on == dt.date(2016, 6, 30)
