"""find_citations over the messy forms of drafts (reference §1.3, §2.3) and over prose that must not match."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import pytest

from grammars import CaseCitation, CaseNumber, CitationForm, StatuteCitation, declared_names, find_citations
from grammars.find import SAME_DECREE_KIND, CitationFinder, default_finder, read_scanned

F = CitationForm

MESSY = [
    ("대법원 2024. 7. 11. 선고 2024도4202 판결", F.CANONICAL,
     CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고", "판결")),
    ("(2024도4202)", F.BARE_CASE_NUMBER, CaseCitation(CaseNumber(2024, "도", 4202))),
    ("대법원 2018도19444", F.BARE_CASE_NUMBER, CaseCitation(CaseNumber(2018, "도", 19444), "대법원")),
    ("(창원)2012노368", F.BARE_CASE_NUMBER, CaseCitation(CaseNumber(2012, "노", 368, "창원"))),
    ("수원지방법원-2025-구단-10915", F.BARE_CASE_NUMBER, CaseCitation(CaseNumber(2025, "구단", 10915), "수원지방법원")),
    ("대판 2024.7.11, 2024도4202", F.SUPREME_COURT_ABBREVIATION,
     CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고", "판결")),
    ("대결 2023. 1. 12. 2022마6489", F.SUPREME_COURT_ABBREVIATION,
     CaseCitation(CaseNumber(2022, "마", 6489), "대법원", dt.date(2023, 1, 12), "자", "결정")),
    ("대판(전) 2020. 6. 18. 2015도2004", F.SUPREME_COURT_ABBREVIATION,
     CaseCitation(CaseNumber(2015, "도", 2004), "대법원", dt.date(2020, 6, 18), "선고", "판결", "전원합의체")),
    ("서울고법 2019나2012345 판결", F.COURT_ABBREVIATION,
     CaseCitation(CaseNumber(2019, "나", 2012345), "서울고등법원", disposition="판결")),
    ("헌재 2022. 7. 21. 2017헌가4", F.COURT_ABBREVIATION,
     CaseCitation(CaseNumber(2017, "헌가", 4), "헌법재판소", dt.date(2022, 7, 21))),
    ("대법원 2024. 7. 11 선고 2024 도 4202", F.SPACED_CASE_NUMBER,
     CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고")),
    ("대법원 1999. 8. 19., 선고, 99다23383, 전원합의체 판결", F.COMMA_SEPARATED,
     CaseCitation(CaseNumber(1999, "다", 23383), "대법원", dt.date(1999, 8, 19), "선고", "판결", "전원합의체")),
    ("대법원 2007.7.26. 선고 2007다29119 판결", F.LOOSE_SPACING,
     CaseCitation(CaseNumber(2007, "다", 29119), "대법원", dt.date(2007, 7, 26), "선고", "판결")),
    ("대법원 1989.3.28 선고 88다카21219", F.LOOSE_SPACING,
     CaseCitation(CaseNumber(1988, "다카", 21219), "대법원", dt.date(1989, 3, 28), "선고")),
    ("대법원 2023. 2. 30. 선고 2022도1 판결", F.IMPOSSIBLE_DATE,  # no such day: no date, and the form says why
     CaseCitation(CaseNumber(2022, "도", 1), "대법원", None, "선고", "판결")),
    ("대법원\u00a02024.\u00a07.\u00a011.\u3000선고 2024도4202 판결", F.LOOSE_SPACING,  # no-break, ideographic spaces
     CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고", "판결")),
    ("대법원 2024년 7월 11일 선고 2024도4202 판결", F.LOOSE_SPACING,
     CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고", "판결")),
    ("민법 제750조", F.CANONICAL, StatuteCitation("민법", 750)),
    ("개인정보보호법 제15조", F.LOOSE_SPACING, StatuteCitation("개인정보 보호법", 15)),
    ("아동·청소년의 성보호에 관한 법률 제2조", F.LOOSE_SPACING, StatuteCitation("아동ㆍ청소년의 성보호에 관한 법률", 2)),
    ("「개인정보보호법」 제15조", F.QUOTED_ACT, StatuteCitation("개인정보 보호법", 15)),
    ("근로기준법 시행령 제23조의2 제1항 제2호 가목", F.CANONICAL,
     StatuteCitation("근로기준법 시행령", 23, 2, 1, 2, subitem="가")),
    ("근로기준법 제3조제1항제2호가목", F.COMPACT_PROVISION, StatuteCitation("근로기준법", 3, None, 1, 2, subitem="가")),
    ("민법제750조", F.LOOSE_SPACING, StatuteCitation("민법", 750)),
    ("민법 제 750 조", F.LOOSE_SPACING, StatuteCitation("민법", 750)),
    ("민소법 제1조", F.ABBREVIATED_ACT, StatuteCitation("민사소송법", 1)),
    ("주택임대차법 제3조", F.ABBREVIATED_ACT, StatuteCitation("주택임대차보호법", 3)),
    ("「의료법」 제3조제1항", F.QUOTED_ACT, StatuteCitation("의료법", 3, paragraph=1)),
    ("「민법」 제750조", F.QUOTED_ACT, StatuteCitation("민법", 750)),
    ("같은 법 제3조", F.BACK_REFERENCE, StatuteCitation(None, 3, back_reference="같은 법")),
    ("동법 제3조 제2항", F.BACK_REFERENCE, StatuteCitation(None, 3, paragraph=2, back_reference="동법")),
    ("이 법 제5조의2", F.BACK_REFERENCE, StatuteCitation(None, 5, 2, back_reference="이 법")),
    ("법 제3조", F.BACK_REFERENCE, StatuteCitation(None, 3, back_reference="법")),
    ("동조", F.BACK_REFERENCE, StatuteCitation(None, None, back_reference="동조")),
    ("같은 조 제4항", F.BACK_REFERENCE, StatuteCitation(None, None, paragraph=4, back_reference="같은 조")),
    ("동항 제2호", F.BACK_REFERENCE, StatuteCitation(None, None, item=2, back_reference="동항")),
    ("동법 제3항", F.BACK_REFERENCE, StatuteCitation(None, None, paragraph=3, back_reference="동법")),
    ("같은 법 시행령 제30조", F.DECREE_BACK_REFERENCE, StatuteCitation(None, 30, back_reference="같은 법 시행령")),
    ("동법 시행규칙 제5조 제1항", F.DECREE_BACK_REFERENCE,
     StatuteCitation(None, 5, paragraph=1, back_reference="동법 시행규칙")),
    ("같은법시행령 제3조의2", F.DECREE_BACK_REFERENCE, StatuteCitation(None, 3, 2, back_reference="같은 법 시행령")),
    ("같은 영 제5조", F.SAME_DECREE, StatuteCitation(None, 5, back_reference="같은 영")),
    ("같은 시행령 제5조 제2항", F.SAME_DECREE, StatuteCitation(None, 5, paragraph=2, back_reference="같은 시행령")),
    ("동령 제5조의2", F.SAME_DECREE, StatuteCitation(None, 5, 2, back_reference="동령")),
    ("동 시행령 제5조", F.SAME_DECREE, StatuteCitation(None, 5, back_reference="동 시행령")),
    ("같은시행규칙 제7조", F.SAME_DECREE, StatuteCitation(None, 7, back_reference="같은 시행규칙")),
    ("근로기준법 시행령(이하 '영'이라 한다) 제30조", F.DECLARES_SHORT_NAME, StatuteCitation("근로기준법 시행령", 30)),
    ("「도로교통법 시행규칙」(이하 “규칙”이라고 한다) 제91조 제1항", F.DECLARES_SHORT_NAME,
     StatuteCitation("도로교통법 시행규칙", 91, paragraph=1)),
    ("소득세법(이하 '법') 제94조", F.DECLARES_SHORT_NAME, StatuteCitation("소득세법", 94)),
    ("민법 제75O조", F.OCR_CONFUSION, StatuteCitation("민법", 750)),  # Latin O for 0
    ("민법 제l7조 제1O항", F.OCR_CONFUSION, StatuteCitation("민법", 17, paragraph=10)),  # l for 1
    ("형법 제I7조", F.OCR_CONFUSION, StatuteCitation("형법", 17)),  # I for 1 (reference §1.3: 제I7조)
    ("민법 제750 조", F.LOOSE_SPACING, StatuteCitation("민법", 750)),
    ("민법 제７５０조", F.FULL_WIDTH, StatuteCitation("민법", 750)),
    ("대법윈 2024. 7. 11. 선고 2024도4202 판결", F.OCR_CONFUSION,
     CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고", "판결")),
    ("대법원 ２０２４． ７． １１． 선고 ２０２４도４２０２ 판결", F.FULL_WIDTH,
     CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고", "판결")),
]


@pytest.mark.parametrize(("text", "form", "citation"), MESSY, ids=[text for text, _, _ in MESSY])
def test_messy_forms_are_found_with_their_fields(text: str, form: CitationForm, citation: object) -> None:
    # Embedded in prose, so spans are checked against a real offset.
    prose = f"원고는 {text} 참조."
    found = find_citations(prose)
    assert len(found) == 1, found
    start, end = found[0].span
    written = text[1:-1] if text.startswith("(") and text.endswith(")") else text
    assert prose[start:end] == written
    assert (found[0].citation, found[0].form) == (citation, form)


PROSE = [
    "제3자에게 대항할 수 없다.",
    "2024년 7월 11일에 선고되었다.",
    "문의: 010-1234-5678, 02-123-4567",
    "민법학 연구의 방법론",
    "그 주장에 동조했다.",
    "같은 조건이라면",
    "해결 방법 제3조 같은 것은 없다.",  # 법 glued to 방
    "숫자 2024가 1000보다 크다.",  # 가 is a particle here, not the code 가
    "온도가 1500도3분 동안",
    "2024. 7. 11. 대법원은 판단하였다.",
    "민법 제3자 보호",
    "「별표 1」 제3조",
    "A4용지 12나 34장",
    "동법으로 해결한다.",
    "전화 02-123-4567, 2024-10-15",
    "영 제5조에 따라",  # 영 is a 시행령 only after one is named
    "사내 규칙 제3조를 어겼다.",  # an internal rule: no 시행규칙 cited before
    "민법 제O조, 민법 제lI조",  # a placeholder and letters alone: no digit to read them by
    "지하철 제1O호선",  # no statute named before the number
    "법윈 앞에서",
    "같은 법 시행령으로 정한다.",  # no article
    # `같은 영`, `같은 규칙`, `동령` count only as whole words right before 제N조
    "같은 영역 제3조에서 본다.",
    "같은 영 역시 제3조를 둔다.",
    "같은 규칙적인 제3조의 배열",
    "동령리 제3조 마을",
    "행동령 제3조",
    "같은 시행령으로 정한다.",
    "사내 규칙 제3조 및 같은 규칙 제5조",  # no rule cited before: an internal rule's
    "단기 4293년 5월 12일",  # a date alone is no citation
]


@pytest.mark.parametrize("text", PROSE, ids=PROSE)
def test_ordinary_prose_has_no_citation(text: str) -> None:
    assert find_citations(text) == []


def test_strict_finding_sees_canonical_citations_only() -> None:
    text = "대법원 2024. 7. 11. 선고 2024도4202 판결과 대판 2024.7.11, 2024도4202, 민법 제750조 및 같은 법 제751조"
    found = find_citations(text, lenient=False)
    assert [text[f.span[0]:f.span[1]] for f in found] == ["대법원 2024. 7. 11. 선고 2024도4202 판결", "민법 제750조"]
    assert {f.form for f in found} == {F.CANONICAL}
    assert len(find_citations(text)) == 4


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("대한민국헌법 제27조", "대한민국헌법 제27조"),  # not the shorter `헌법 제27조` inside it
        ("근로기준법 시행령 제30조", "근로기준법 시행령 제30조"),
        ("군형법 제3조", "군형법 제3조"),
        ("민법 제3조의 규정", "민법 제3조"),  # a possessive 의 is not a branch
        ("대법원 2001. 12. 11. 선고 2001다83838, 2001다83845 판결", "대법원 2001. 12. 11. 선고 2001다83838"),
    ],
    ids=["constitution", "decree", "military-criminal-act", "possessive", "two-numbers"],
)
def test_overlaps_resolve_longest_first(text: str, written: str) -> None:
    found = find_citations(text)
    assert text[found[0].span[0]:found[0].span[1]] == written


CASE_TEXT = "2020. 1. 2. 선고 2019다1234 판결"
# (text, lexicon, citations found leniently, found strictly): a citation begins only at a word boundary.
WORD_BOUNDARIES = [
    ("군형법 제100조", {"형법": ["100"]}, ["군형법 제100조"], []),  # not 형법 inside 군형법: an act by its shape
    ("군형법 제100조", {"형법": ["100"], "군형법": ["100"]}, ["군형법 제100조"], ["군형법 제100조"]),
    ("구민법 제3조", None, ["구민법 제3조"], []),  # 구민법 (the code before 민법) by its shape, not 민법
    ("구 민법 제3조", None, ["구 민법 제3조"], ["민법 제3조"]),  # the old version of 민법, cited: 구 is kept
    ("x민법 제3조, 2민법 제3조, ㅋ민법 제3조, é민법 제3조", None, [], []),
    ("(민법 제3조)\n민법 제4조·민법 제5조", None, ["민법 제3조", "민법 제4조", "민법 제5조"],
     ["민법 제3조", "민법 제4조", "민법 제5조"]),
    ("민법 제750조에 따르면", None, ["민법 제750조"], ["민법 제750조"]),  # a particle may follow
    (f"서울대법원 {CASE_TEXT}", None, [CASE_TEXT], []),  # no 대법원 inside 서울대법원: no court found
    (f"그는 대법원 {CASE_TEXT}을", None, [f"대법원 {CASE_TEXT}"], [f"대법원 {CASE_TEXT}"]),
    ("사건2024도4202에서", None, [], []),
]


@pytest.mark.parametrize(
    ("text", "lexicon", "lenient", "strict"), WORD_BOUNDARIES, ids=[f"{t}-{bool(x)}" for t, x, _, _ in WORD_BOUNDARIES]
)
def test_citations_begin_at_a_word_boundary(text: str, lexicon: dict | None, lenient: list, strict: list) -> None:
    for mode, expected in ((True, lenient), (False, strict)):
        found = find_citations(text, lenient=mode, lexicon=lexicon)
        assert [text[f.span[0]:f.span[1]] for f in found] == expected, mode


def test_a_court_name_inside_a_longer_word_is_not_the_court() -> None:
    assert find_citations(f"서울대법원 {CASE_TEXT}")[0].citation.court is None


def test_citations_come_in_text_order() -> None:
    text = "동조 제2항, 민법 제750조, (2024도4202), 같은 법 제751조"
    found = find_citations(text)
    assert [f.span[0] for f in found] == sorted(f.span[0] for f in found) and len(found) == 4


def test_finding_with_a_database_lexicon_knows_its_names() -> None:
    found = find_citations("의료법 제3조와 민법 제750조", lexicon={"의료법": ["3"]})
    assert [f.citation for f in found] == [StatuteCitation("의료법", 3)]


LISTS = [
    ("민법 제750조, 제751조 및 제752조의2 제1항",
     [("제751조", StatuteCitation("민법", 751)), ("제752조의2 제1항", StatuteCitation("민법", 752, 2, 1))]),
    ("민법 제750조 제1항, 제2항", [("제2항", StatuteCitation("민법", 750, paragraph=2))]),
    ("민법 제750조 제1항 제1호, 제2호", [("제2호", StatuteCitation("민법", 750, paragraph=1, item=2))]),
    ("같은 법 제3조와 제4조", [("제4조", StatuteCitation(None, 4, back_reference="같은 법"))]),
    ("대법원 2001. 12. 11. 선고 2001다83838, 2001다83845 판결",
     [("2001다83845 판결",
       CaseCitation(CaseNumber(2001, "다", 83845), "대법원", dt.date(2001, 12, 11), "선고", "판결"))]),
    ("대법원 2001. 12. 11. 선고 2001다83838, (창원)2001다9 전원합의체 판결",
     [("(창원)2001다9 전원합의체 판결",
       CaseCitation(CaseNumber(2001, "다", 9, "창원"), "대법원", dt.date(2001, 12, 11), "선고", "판결", "전원합의체"))]),
    ("(2024도4202, 2024도4203)", []),  # no court or date to share: two bare numbers
    ("민법 제750조, 제3자에게", []),
    ("민법 제750조 제3자에게", []),
]


@pytest.mark.parametrize(("text", "later"), LISTS, ids=[text for text, _ in LISTS])
def test_later_items_of_a_list_share_what_the_list_wrote_once(text: str, later: list) -> None:
    found = find_citations(text)
    continuations = [(text[f.span[0]:f.span[1]], f.citation) for f in found if f.form is F.LIST_CONTINUATION]
    assert continuations == later
    assert len(found) == (2 if text.startswith("(") else 1 + len(later))


def test_the_head_of_a_case_list_takes_the_disposition_written_after_the_last_number() -> None:
    head = find_citations("대법원 2001. 12. 11. 선고 2001다83838, 2001다9 전원합의체 판결")[0].citation
    expected = CaseCitation(CaseNumber(2001, "다", 83838), "대법원", dt.date(2001, 12, 11), "선고", "판결", "전원합의체")
    assert head == expected


SHORTHAND = [
    ("대법원 2006. 5. 12. 선고 2006허1803, 1827 판결", ["1827 판결"], [CaseNumber(2006, "허", 1827)]),
    ("대법원 2006. 5. 12. 선고 2006허1803, 1827, 2006허1900, 5 판결", ["1827", "2006허1900", "5 판결"],
     [CaseNumber(2006, "허", 1827), CaseNumber(2006, "허", 1900), CaseNumber(2006, "허", 5)]),
    ("서울고법 2013. 1. 3. 선고 (춘천)2012나368, 369 판결", ["369 판결"], [CaseNumber(2012, "나", 369, "춘천")]),
    ("대법원 2006. 5. 12. 선고 2006허1803, 1827", [], []),  # not closed by a disposition
    ("대법원 2019. 1. 2. 선고 2018다1234, 12면 참조", [], []),  # a page number
    ("대법원 2020. 1. 2. 선고 2019다1234, 2020. 3. 4. 선고 2019다5678 판결", [], []),  # a second citation
    ("(2006허1803, 1827 판결)", [], []),  # no court or date to share
]


@pytest.mark.parametrize(("text", "written", "numbers"), SHORTHAND, ids=[text for text, _, _ in SHORTHAND])
def test_a_later_number_written_as_its_serial_takes_the_year_and_code_before_it(
        text: str, written: list[str], numbers: list[CaseNumber]) -> None:
    found = find_citations(text)
    later = [f for f in found if f.form in (F.CASE_NUMBER_SHORTHAND, F.LIST_CONTINUATION)]
    assert [text[f.span[0]:f.span[1]] for f in later] == written
    assert [f.citation.case_number for f in later] == numbers
    assert len({(f.citation.court, f.citation.date, f.citation.disposition) for f in [found[0], *later]}) == 1


# (text, every citation found, as written): `영`/`규칙` count only after a 시행령/시행규칙 is cited or declared.
SHORT_NAMES = [
    ("근로기준법 시행령 제3조, 영 제5조", ["근로기준법 시행령 제3조", "영 제5조"]),
    ("영 제5조, 근로기준법 시행령 제3조", ["근로기준법 시행령 제3조"]),
    ("근로기준법 시행령(이하 '영'이라 한다) 제4조를 보면 영 제5조 제2항, 제6조",
     ["근로기준법 시행령(이하 '영'이라 한다) 제4조", "영 제5조 제2항", "제6조"]),
    ("같은 법 시행령 제4조, 영 제5조", ["같은 법 시행령 제4조", "영 제5조"]),
    ("시행령·시행규칙 검토: 사내 규칙 제3조, 영 제5조", []),  # named in a title, never cited
    ("도로교통법 시행규칙 제91조 및 규칙 제3조", ["도로교통법 시행규칙 제91조", "규칙 제3조"]),
    ("근로기준법 시행령 제3조 및 규칙 제3조", ["근로기준법 시행령 제3조"]),  # a 시행령 makes no 규칙
    ("도로교통법 시행규칙 제91조, 건축물의 설비기준 등에 관한 규칙 제3조", ["도로교통법 시행규칙 제91조"]),  # a rule's name
    ("도로교통법 시행규칙 제91조, 민사소송규칙 제3조", ["도로교통법 시행규칙 제91조", "민사소송규칙 제3조"]),
    # A 시행령/시행규칙 match dropped as overlapping a longer one (`20 조 1 …`: 조 is a 사건부호) enables nothing.
    ("동법 시행령 제 20 조 1 전원합의체 판결에서 영 제5조", ["20 조 1 전원합의체 판결"]),
    ("「시행규칙」 제 30 조 1234567 판결, 규칙 제3조", ["30 조 1234567 판결"]),
]

# (text, every citation found, as written): `같은 영`, `동령`, `같은 시행령/시행규칙` are found wherever they stand
# (the resolver sends them to review when nothing fits before them); `같은 규칙` only after a rule is cited.
SAME_DECREE = [
    ("근로기준법 시행령 제3조, 근로기준법 제23조, 같은 영 제5조 및 동령 제6조",
     ["근로기준법 시행령 제3조", "근로기준법 제23조", "같은 영 제5조", "동령 제6조"]),
    ("같은 영 제5조, 같은 시행령 제6조, 동 시행령 제7조", ["같은 영 제5조", "같은 시행령 제6조", "동 시행령 제7조"]),
    ("같은 시행규칙 제5조", ["같은 시행규칙 제5조"]),
    ("같은 규칙 제5조", []),
    ("민사소송규칙 제3조, 같은 규칙 제5조", ["민사소송규칙 제3조", "같은 규칙 제5조"]),
    ("도로교통법 시행규칙 제91조, 같은 규칙 제5조", ["도로교통법 시행규칙 제91조", "같은 규칙 제5조"]),
    ("근로기준법 시행령 제3조 및 같은 영역 제5조", ["근로기준법 시행령 제3조"]),  # no `영 제5조` inside
    ("도로교통법 시행규칙 제91조, 같은 규칙적인 제5조", ["도로교통법 시행규칙 제91조"]),
    ("근로기준법 시행령 제3조, 같은 영 제5조, 제6조", ["근로기준법 시행령 제3조", "같은 영 제5조", "제6조"]),
]


@pytest.mark.parametrize(("text", "written"), SAME_DECREE, ids=[text for text, _ in SAME_DECREE])
def test_the_same_decree_or_rule_is_found_as_a_whole_word_before_an_article(text: str, written: list[str]) -> None:
    found = find_citations(text)
    assert [text[f.span[0]:f.span[1]] for f in found] == written
    for f in found:
        if f.form is F.SAME_DECREE:
            assert f.citation.act is None and f.citation.back_reference in SAME_DECREE_KIND


@pytest.mark.parametrize(("text", "written"), SHORT_NAMES, ids=[text for text, _ in SHORT_NAMES])
def test_short_names_of_a_decree_count_only_after_the_text_cites_one(text: str, written: list[str]) -> None:
    found = find_citations(text)
    assert [text[f.span[0]:f.span[1]] for f in found] == written
    short = [f.citation.back_reference for f in found if f.form is F.DECREE_SHORT_NAME]
    assert short == [w.split(" ")[0] for w in written if w.startswith(("영 ", "규칙 "))]


def test_a_declared_short_name_is_reported_with_its_citation() -> None:
    text = "근로기준법 시행령(이하 '영'이라 한다) 제30조, 같은 법 시행령(이하 “영”) 제31조 및 민법 제750조"
    assert [f.declares for f in find_citations(text)] == ["영", "영", None]


def test_scanned_text_is_read_one_character_for_one() -> None:
    text = "대법윈 ２０２４. 7. 11. 선고 2024도4202 판결과 민법 제75O조 ＭＯＤＥＬ Ｉ"
    assert len(read_scanned(text)) == len(text)
    assert read_scanned(text).endswith("민법 제750조 MODEL I")


# (text, as written, form, scanned reading): scanned text keeps the form that says what a citation took from
# the text before it; the reading names the form only of a citation that is otherwise canonical.
SCANNED_FORMS = [
    ("대법원 2006. 5. 12. 선고 2006허1803, １８２７ 판결", "１８２７ 판결", F.CASE_NUMBER_SHORTHAND, F.FULL_WIDTH),
    ("민법 제750조, 제７５１조", "제７５１조", F.LIST_CONTINUATION, F.FULL_WIDTH),
    ("민법 제750조, 같은 법 제７５１조", "같은 법 제７５１조", F.BACK_REFERENCE, F.FULL_WIDTH),
    ("민법 제750조, 같은 법 제75l조", "같은 법 제75l조", F.BACK_REFERENCE, F.OCR_CONFUSION),
    ("민법 제750조, 민법 제７５１조", "민법 제７５１조", F.FULL_WIDTH, F.FULL_WIDTH),
    ("민법 제750조, 민법 제75l조", "민법 제75l조", F.OCR_CONFUSION, F.OCR_CONFUSION),
    ("민법 제７５０조, 민법 제751조", "민법 제751조", F.CANONICAL, None),
    ("대법원 ２０２４．７．１１． 선고 ２０２４도４２０２ 판결", "대법원 ２０２４．７．１１． 선고 ２０２４도４２０２ 판결",
     F.LOOSE_SPACING, F.FULL_WIDTH),
]


@pytest.mark.parametrize(("text", "written", "form", "scanned"), SCANNED_FORMS,
                         ids=[text for text, *_ in SCANNED_FORMS])
def test_scanned_text_keeps_the_form_found_and_records_the_reading(
        text: str, written: str, form: CitationForm, scanned: CitationForm | None) -> None:
    (found,) = [f for f in find_citations(text) if text[f.span[0]:f.span[1]] == written]
    assert (found.form, found.scanned) == (form, scanned)


# The forms of issue 12, as real judgments, 헌재 decisions, lawyers and statutes write them:
# (text, [(span as written, its reading)]), the reading as citegen.recite.evaluate.reading() gives it.
REAL_FORMS = [
    ("국가보안법 제3조, 인신보호법 제15조", [("국가보안법 제3조", "국가보안법 제3조"), ("인신보호법 제15조", "인신보호법 제15조")]),
    ("구 집합건물의 소유 및 관리에 관한 법률(2003. 7. 18. 법률 제6925호로 개정되기 전의 것) 제9조",
     [("구 집합건물의 소유 및 관리에 관한 법률(2003. 7. 18. 법률 제6925호로 개정되기 전의 것) 제9조",
       "구 집합건물의 소유 및 관리에 관한 법률(2003. 7. 18. 법률 제6925호로 개정되기 전의 것) 제9조")]),
    ("행정소송법(1984. 12. 15. 법률 제3754호로 전부개정된 것) 제23조 제2항",
     [("행정소송법(1984. 12. 15. 법률 제3754호로 전부개정된 것) 제23조 제2항",
       "행정소송법(1984. 12. 15. 법률 제3754호로 전부개정된 것) 제23조 제2항")]),
    ("구 소득세법(2009. 12. 31. 법률 제9897호로 개정되어 2010. 1. 1. 시행되기 전의 것, 이하 같다) 제94조",
     [("구 소득세법(2009. 12. 31. 법률 제9897호로 개정되어 2010. 1. 1. 시행되기 전의 것, 이하 같다) 제94조",
       "구 소득세법(2009. 12. 31. 법률 제9897호로 개정되어 2010. 1. 1. 시행되기 전의 것) 제94조")]),
    # A note naming the title the amendment gave the act, as judgments cite 조세특례제한법's former name.
    ("구 조세감면규제법(1998. 12. 28. 법률 제5584호 조세특례제한법으로 전문개정되기 전의 것) 제56조",
     [("구 조세감면규제법(1998. 12. 28. 법률 제5584호 조세특례제한법으로 전문개정되기 전의 것) 제56조",
       "구 조세감면규제법(1998. 12. 28. 법률 제5584호 조세특례제한법으로 전문개정되기 전의 것) 제56조")]),
    ("개정전의 헌법 제11조", [("개정전의 헌법 제11조", "구 헌법 제11조")]),
    ("구 민법 제3조", [("구 민법 제3조", "구 민법 제3조")]),
    ("민법 제476조,\n제477조", [("민법 제476조", "민법 제476조"), ("제477조", "민법 제477조")]),
    ("헌법 제12조 제1항 후문과 제3항", [("헌법 제12조 제1항", "헌법 제12조 제1항"), ("제3항", "헌법 제12조 제3항")]),
    ("형법 제329조부터 제331조까지", [("형법 제329조", "형법 제329조"), ("제331조", "형법 제331조")]),
    ("민법 제667조 내지 제671조", [("민법 제667조", "민법 제667조"), ("제671조", "민법 제671조")]),
    # A range's far end on the next line, as a list's may be; never across a blank line.
    ("형법 제329조부터\n제331조까지", [("형법 제329조", "형법 제329조"), ("제331조", "형법 제331조")]),
    ("민법 제667조 내지\r\n제671조", [("민법 제667조", "민법 제667조"), ("제671조", "민법 제671조")]),
    ("민법 제667조 내지\n\n제671조", [("민법 제667조", "민법 제667조")]),
    # A judgment's lines wrapped inside a case citation: one line break between its words, never a blank line
    # (read in part, the bare number was completed from the database and its court and date written twice).
    ("대법원 2019. 2. 21. 선고\n2017다38279 판결", [("대법원 2019. 2. 21. 선고\n2017다38279 판결",
                                                 "대법원 2019. 2. 21. 선고 2017다38279 판결")]),
    ("대법원\r\n2019. 2. 21. 선고 2017다38279 판결", [("대법원\r\n2019. 2. 21. 선고 2017다38279 판결",
                                                   "대법원 2019. 2. 21. 선고 2017다38279 판결")]),
    ("대법원 2019. 2. 21.\n선고 2017다38279 판결", [("대법원 2019. 2. 21.\n선고 2017다38279 판결",
                                                  "대법원 2019. 2. 21. 선고 2017다38279 판결")]),
    # but a line beginning with 판결 after the number is a heading (a law firm's page, tests/realtext p113)
    ("서울고등법원 2023누68205\n판결 요약", [("서울고등법원 2023누68205", "서울고등법원 ? ? 2023누68205 ?")]),
    ("원심판결 부산고등법원(창원) 2013. 1. 10. 선고 2012노368 판결",
     [("부산고등법원(창원) 2013. 1. 10. 선고 2012노368 판결", "부산고등법원(창원재판부) 2013. 1. 10. 선고 2012노368 판결")]),
    ("대판 2019.2.21,\n2017다38279", [("대판 2019.2.21,\n2017다38279", "대법원 2019. 2. 21. 선고 2017다38279 판결")]),
    ("대법원 2019. 2. 21. 선고\n\n2017다38279 판결", [("2017다38279 판결", "? ? ? 2017다38279 판결")]),
    ("민법 750조", [("민법 750조", "민법 제750조")]),
    # Statute book (제주특별법 제438조): a list goes on past paired parts and an aside in parentheses.
    ("「공유수면 관리 및 매립에 관한 법률」 제6조제2항(방치선박등이 같은 법 제6조제1항 각 호에 해당하는지 여부의 확인 방법과 "
     "관련된 사항에 한정한다), 제22조제1항ㆍ제3항, 제13조제1항 각 호 외의 부분 본문ㆍ단서, 제14조",
     [("「공유수면 관리 및 매립에 관한 법률」 제6조제2항", "공유수면 관리 및 매립에 관한 법률 제6조 제2항"),
      ("같은 법 제6조제1항", "같은 법 제6조 제1항"), ("제22조제1항", "공유수면 관리 및 매립에 관한 법률 제22조 제1항"),
      ("제3항", "공유수면 관리 및 매립에 관한 법률 제22조 제3항"),
      ("제13조제1항", "공유수면 관리 및 매립에 관한 법률 제13조 제1항"), ("제14조", "공유수면 관리 및 매립에 관한 법률 제14조")]),
    # Statute book: the 부칙 of an amending act, named after the act it amends, its number before the name.
    ("법률 제10275호 국적법 일부개정법률 부칙 제2조제1항에 따라",
     [("법률 제10275호 국적법 일부개정법률 부칙 제2조제1항", "국적법 부칙(법률 제10275호) 제2조 제1항")]),
    ("법률 제3586호 공무원연금법개정법률 부칙 제7조제2항ㆍ제3항에 따른",
     [("법률 제3586호 공무원연금법개정법률 부칙 제7조제2항", "공무원연금법 부칙(법률 제3586호) 제7조 제2항"),
      ("제3항", "공무원연금법 부칙(법률 제3586호) 제7조 제3항")]),
    ("법률 제12663호 한국산업은행법 전부개정법률 부칙 제7조에 따라",
     [("법률 제12663호 한국산업은행법 전부개정법률 부칙 제7조", "한국산업은행법 부칙(법률 제12663호) 제7조")]),
    ("대통령령 제24697호 자본시장과 금융투자업에 관한 법률 시행령 일부개정령 부칙 제8조에 따른",
     [("대통령령 제24697호 자본시장과 금융투자업에 관한 법률 시행령 일부개정령 부칙 제8조",
       "자본시장과 금융투자업에 관한 법률 시행령 부칙(대통령령 제24697호) 제8조")]),
    ("법률 제7100호 「화물자동차 운수사업법 일부개정법률」 부칙 제3조제2항에 따른",
     [("법률 제7100호 「화물자동차 운수사업법 일부개정법률」 부칙 제3조제2항", "화물자동차 운수사업법 부칙(법률 제7100호) 제3조 제2항")]),
    # Statute book (어촌ㆍ어항법 시행령 제20조): 이 after a parenthesis is its particle, not `이 법`.
    ("시장ㆍ군수ㆍ구청장(이하 \"지정권자\"라 한다)이 법 제19조제1항 본문의 규정에 따라",
     [("법 제19조제1항", "법 제19조 제1항")]),
    # Statute book (국토의 계획 및 이용에 관한 법률 시행령 제59조): `제3호의 1` is one of them, no 제3호의1.
    ("법 제56조제1항제1호 내지 제3호의 1에 해당하는 개발행위",
     [("법 제56조제1항제1호", "법 제56조 제1항 제1호"), ("제3호", "법 제56조 제1항 제3호")]),
    # `이 영`, `이 규칙`: the document's own decree or rule, whatever 시행령 was cited before.
    ("「초ㆍ중등교육법 시행령」 제81조제1항에도 불구하고 이 영 제4조제3항에 따라",
     [("「초ㆍ중등교육법 시행령」 제81조제1항", "초ㆍ중등교육법 시행령 제81조 제1항"), ("이 영 제4조제3항", "이 영 제4조 제3항")]),
    ("근기법 23조 1항", [("근기법 23조 1항", "근로기준법 제23조 제1항")]),
    ("민법 제52조의 4", [("민법 제52조의 4", "민법 제52조의4")]),
    ("민법 제 48조 3항", [("민법 제 48조 3항", "민법 제48조 제3항")]),
    ("민법 - 제750조", [("민법 - 제750조", "민법 제750조")]),
    ("식품위생법시행령 제9조", [("식품위생법시행령 제9조", "식품위생법 시행령 제9조")]),
    ("근로기준법 제3조제1항제2호", [("근로기준법 제3조제1항제2호", "근로기준법 제3조 제1항 제2호")]),
    ("특정범죄가중법 제5조4 제5항", []),  # a typo'd article is no citation, never 제5조
    ("헌법 제37조 제2항", [("헌법 제37조 제2항", "헌법 제37조 제2항")]),
    ("[대법원 1990. 5. 22., 선고, 90므26, 판결]", [("[대법원 1990. 5. 22., 선고, 90므26, 판결]", "대법원 1990. 5. 22. 선고 90므26 판결")]),
    ("[전원재판부 2015헌바35, 2015. 9. 24.]",
     [("[전원재판부 2015헌바35, 2015. 9. 24.]", "헌법재판소 2015. 9. 24. 선고 2015헌바35 전원재판부 결정")]),
    ("서울지방법원 남부지원 1986. 2. 5. 선고 85가합1370호 판결",
     [("서울지방법원 남부지원 1986. 2. 5. 선고 85가합1370호 판결", "서울지방법원 남부지원 1986. 2. 5. 선고 85가합1370 판결")]),
    ("서울고등 2019나1234", [("서울고등 2019나1234", "서울고등법원 ? ? 2019나1234 ?")]),
    ("대법원 1954. 5. 12. 선고 4287형상55 판결", [("대법원 1954. 5. 12. 선고 4287형상55 판결", "대법원 1954. 5. 12. 선고 4287형상55 판결")]),
    ("대법원 4293. 5. 12. 선고 4292민상123 판결", [("대법원 4293. 5. 12. 선고 4292민상123 판결", "대법원 1960. 5. 12. 선고 4292민상123 판결")]),
    ("89르114(본심),848(반심)", [("89르114", "? ? ? 89르114 ?"), ("848", "? ? ? 89르848 ?")]),
    ("2012다86895(본소), 86901(반소)", [("2012다86895", "? ? ? 2012다86895 ?"), ("86901", "? ? ? 2012다86901 ?")]),
    ("2019-누-2010", [("2019-누-2010", "? ? ? 2019누2010 ?")]),
    ("98헌바88 결정문", [("98헌바88", "? ? ? 98헌바88 ?")]),
    ("특정범죄 가중처벌 등에 관한 법률(이하 ‘특정범죄가중법’이라고 한다) 제5조의4 제5항",
     [("특정범죄 가중처벌 등에 관한 법률(이하 ‘특정범죄가중법’이라고 한다) 제5조의4 제5항",
       "특정범죄 가중처벌 등에 관한 법률 제5조의4 제5항")]),
    # `위 제46조` (judgments), `같은 제24호`, `같은 제3항ㆍ제5항`, `같은 제38조의3제1항` (statutes, in the statute
    # book: 「관세법」 제87조에 따라 … 같은 제38조의3제1항 전단에 따라): completed by verifier.resolver.
    ("민법 제750조에 따라, 위 제46조 제1항, 제2항은", [("민법 제750조", "민법 제750조"), ("위 제46조 제1항", "위 제46조 제1항"),
                                         ("제2항", "위 제46조 제2항")]),
    ("「관세법」 제87조에 따라 같은 제38조의3제1항 전단에 따라",
     [("「관세법」 제87조", "관세법 제87조"), ("같은 제38조의3제1항", "같은 제38조의3 제1항")]),
    ("민법 제20조제1항 및 같은 제3항ㆍ제5항, 같은 제24호 가목",
     [("민법 제20조제1항", "민법 제20조 제1항"), ("같은 제3항", "같은 제3항"), ("제5항", "같은 제5항"),
      ("같은 제24호 가목", "같은 제24호 가목")]),
    # Lists run past the part of a provision (`중 제288조제1항에 대한 부분`, `각 호 외의 부분 전단`), whose own
    # article is no citation; a decree glued to the provision before it (`제5항같은법시행령`) is one.
    ("「민사집행법」 제290조제2항 중 제288조제1항에 대한 부분, 제291조",
     [("「민사집행법」 제290조제2항", "민사집행법 제290조 제2항"), ("제291조", "민사집행법 제291조")]),
    ("「관세법」 제20조제1항 각 호 외의 부분 전단, 제21조제2항",
     [("「관세법」 제20조제1항", "관세법 제20조 제1항"), ("제21조제2항", "관세법 제21조 제2항")]),
    ("구 법인세법(1994. 12. 22. 법률 제4804호로 개정되기 전의 것) 제32조 제5항같은법시행령 제94조의2",
     [("구 법인세법(1994. 12. 22. 법률 제4804호로 개정되기 전의 것) 제32조 제5항",
       "구 법인세법(1994. 12. 22. 법률 제4804호로 개정되기 전의 것) 제32조 제5항"),
      ("같은법시행령 제94조의2", "같은 법 시행령 제94조의2")]),
    ("민법 제3조 중 일부, 제5조", [("민법 제3조", "민법 제3조")]),  # `중` without a provision's part ends the list
    # A provision of a 부칙, named by the amendment's day, number or both; short 부칙 number paragraphs only.
    ("민법 제3조, 부칙(2005. 5. 26.) 제3항, 제4항",
     [("민법 제3조", "민법 제3조"), ("부칙(2005. 5. 26.) 제3항", "? 부칙(2005. 5. 26.) 제3항"),
      ("제4항", "? 부칙(2005. 5. 26.) 제4항")]),
    ("법률 제7428호 부칙 제2조", [("법률 제7428호 부칙 제2조", "? 부칙(법률 제7428호) 제2조")]),
    ("민법 부칙(2005. 3. 31. 법률 제7427호) 제2조 제1항",
     [("민법 부칙(2005. 3. 31. 법률 제7427호) 제2조 제1항", "민법 부칙(2005. 3. 31. 법률 제7427호) 제2조 제1항")]),
    ("구 민법(1990. 1. 13. 법률 제4199호로 개정되기 전의 것) 부칙 제12조",
     [("구 민법(1990. 1. 13. 법률 제4199호로 개정되기 전의 것) 부칙 제12조",
       "구 민법(1990. 1. 13. 법률 제4199호로 개정되기 전의 것) 부칙 제12조")]),
    ("국가보안법 부칙 <제5305호, 1997. 3. 13.> 제2항",
     [("국가보안법 부칙 <제5305호, 1997. 3. 13.> 제2항", "국가보안법 부칙(1997. 3. 13. 제5305호) 제2항")]),
    ("같은 법 부칙 제2항", [("같은 법 부칙 제2항", "같은 법 부칙 제2항")]),
    # A bare `부칙 제3조` only after a statute (articles of association have 부칙 too), and a 부칙 needs a provision.
    ("정관 부칙 제3조에 따라", []),
    ("민법 제1조 및 부칙 제3조, 민법 부칙 제3편", [("민법 제1조", "민법 제1조"), ("부칙 제3조", "? 부칙 제3조")]),
    # … but only after a statute is cited: a contract's own `위 제3조`, and no provision (`같은 제3편`).
    ("위 제3조에 따라 같은 제2항의 기간", []),
    ("민법 제3조 및 같은 제3편", [("민법 제3조", "민법 제3조")]),
    # An act no lexicon holds whose name ends in `…에 관한 법률`: the name runs back to the clause's prose.
    ("피고는 손해배상청구권의 소멸시효에 관한 법률 제766조를",
     [("손해배상청구권의 소멸시효에 관한 법률 제766조", "손해배상청구권의 소멸시효에 관한 법률 제766조")]),
    ("에 관한 법률 제3조, 관한 법률 제3조", []),
    # … and not past a provision or a number (statute book: 제4조제1항 및 법률 제8995호 10ㆍ27법난 … 부칙 제2항);
    # the number names the amendment whose 부칙 it is.
    ("제4조제1항 및 법률 제8995호 10ㆍ27법난 피해자의 명예회복 등에 관한 법률 부칙 제2항",
     [("법률 제8995호 10ㆍ27법난 피해자의 명예회복 등에 관한 법률 부칙 제2항",
       "10ㆍ27법난 피해자의 명예회복 등에 관한 법률 부칙(법률 제8995호) 제2항")]),
    # Words ending like a law that name none, and a generic ending alone: no act is read.
    ("취업규칙 제3조, 행동령 제3조, 관계 법률 제3조, 소방법개정법률 제3조", []),
    # The third batch of real passages (tests/realtext p118-p157). A version note after the provision dates
    # the act as one before it does; `전부 개정` spaced; a line break inside the note's number.
    ("구 민법 제750조(2015. 2. 3. 법률 제\n13125호로 전부 개정되기 전의 것)에",
     [("구 민법 제750조(2015. 2. 3. 법률 제\n13125호로 전부 개정되기 전의 것)",
       "구 민법(2015. 2. 3. 법률 제13125호로 전부개정되기 전의 것) 제750조")]),
    ("구 민법 제750조(불법행위의 내용)", [("구 민법 제750조", "구 민법 제750조")]),  # a title is no note
    # An unknown `…에 관한 법률` runs back to the clause, not past an adverb opening it.
    ("한편 성폭력범죄의 처벌 및 피해자보호 등에 관한 법률 제5조",
     [("성폭력범죄의 처벌 및 피해자보호 등에 관한 법률 제5조", "성폭력범죄의 처벌 및 피해자보호 등에 관한 법률 제5조")]),
    # A generic ending takes the word of the title before it, never a pointer or prose; a treaty its parties.
    ("피고인은 경찰범죄 처벌법 제7조를", [("경찰범죄 처벌법 제7조", "경찰범죄 처벌법 제7조")]),
    ("관련 특별법 제3조, 이 사건 처벌법 제3조, 피고는 처벌법 제3조", []),
    ("한·중 조세조약 제22조 제1항", [("한·중 조세조약 제22조 제1항", "한ㆍ중 조세조약 제22조 제1항")]),
    # A high court's seat written apart, a division between court and number, a date with hyphens.
    ("광주고등법원 제주재판부 2015.12.2. 선고 2014누535 판결",
     [("광주고등법원 제주재판부 2015.12.2. 선고 2014누535 판결", "광주고등법원(제주재판부) 2015. 12. 2. 선고 2014누535 판결")]),
    ("서울고등법원 제3특별부 2006누22080", [("서울고등법원 제3특별부 2006누22080", "서울고등법원 ? ? 2006누22080 ?")]),
    ("서울중앙지법  2020-6-16.  선고  2020카합20518  결정",
     [("서울중앙지법  2020-6-16.  선고  2020카합20518  결정", "서울중앙지방법원 2020. 6. 16. 선고 2020카합20518 결정")]),
    # The counterclaim's number, its role written before the disposition that closes the list.
    ("[대법원 2017. 5. 18. 선고 2012다86895(본소), 86901(반소) 전원합의체 판결]",
     [("대법원 2017. 5. 18. 선고 2012다86895", "대법원 2017. 5. 18. 선고 2012다86895 전원합의체 판결"),
      ("86901(반소) 전원합의체 판결", "대법원 2017. 5. 18. 선고 2012다86901 전원합의체 판결")]),
    # A 부칙 named by the amendment in words.
    ("구 관세법 부칙(1993. 12. 31. 법률 제4674호로 개정될 당시의 부칙) 제4조",
     [("구 관세법 부칙(1993. 12. 31. 법률 제4674호로 개정될 당시의 부칙) 제4조", "구 관세법 부칙(1993. 12. 31. 법률 제4674호) 제4조")]),
    # The 시행규칙 of the act declared `법`.
    ("여객자동차 운수사업법(이하 ‘법’이라 한다) 제9조 및 법 시행규칙 제26조",
     [("여객자동차 운수사업법(이하 ‘법’이라 한다) 제9조", "여객자동차 운수사업법 제9조"),
      ("법 시행규칙 제26조", "법 시행규칙 제26조")]),
]


@pytest.mark.parametrize(("text", "expected"), REAL_FORMS, ids=[text for text, _ in REAL_FORMS])
def test_real_writing_is_found_with_its_reading(text: str, expected: list[tuple[str, str]]) -> None:
    from citegen.recite.evaluate import reading  # the bench's notation for a found citation

    assert [(text[slice(*f.span)], reading(f.citation)) for f in find_citations(text)] == expected


def test_a_version_note_and_its_declaration_are_kept_with_the_citation() -> None:
    text = ('개정전의 국가보안법(1980. 12. 31. 법률 제3318호로 전문개정되고 1991. 5. 31. 법률 제4373호로 '
            '일부개정되기 전의 것, 이하 "구법"이라 한다) 제3조, 제5조')
    first, second = find_citations(text)
    note = first.citation.amendment
    assert first.citation.former and first.declares == "구법" and first.form is F.VERSION
    assert (note.number, note.change, note.before, note.promulgated_on) == (4373, "일부개정", True, dt.date(1991, 5, 31))
    assert [(n.number, n.change, n.before) for n in note.earlier] == [(3318, "전문개정", False)]
    assert second.citation == replace(first.citation, article=5) and second.form is F.LIST_CONTINUATION


def test_every_article_of_a_range_ends_with_the_range_form() -> None:
    found = find_citations("「민사집행법」 제152조부터 제161조까지의 규정을 준용한다.")
    assert [(f.citation.act, f.citation.article, f.form) for f in found] == [
        ("민사집행법", 152, F.QUOTED_ACT), ("민사집행법", 161, F.RANGE)]
    assert [c.article for c in found[1].through] == list(range(153, 161))
    (_, paragraphs) = find_citations("법 제74조제1항부터 제3항까지의 규정에 따른")
    assert [(c.article, c.paragraph) for c in paragraphs.through] == [(74, 2)]
    (_, branched) = find_citations("형법 제329조부터 제331조의2까지")
    assert branched.through == ()  # 제331조 is inside, and whatever else the run holds is not plain


def test_a_rule_cites_its_decree_as_영_without_naming_it() -> None:
    # Statute book (자연재해대책법 시행규칙 제14조): a 시행규칙's `영` is its 시행령, named nowhere in the text.
    from citegen.recite.evaluate import reading  # the bench's notation for a found citation

    text = "영 제33조제1항제5호 및 같은 조 제2항에 따라 실과(室課)별 행동 요령에"
    written = [text[slice(*found.span)] for found in default_finder().find(text)]
    assert written == ["같은 조 제2항"]  # elsewhere `영` alone names nothing
    found = default_finder().find(text, within="자연재해대책법 시행규칙")
    assert [(text[slice(*f.span)], reading(f.citation)) for f in found] == [
        ("영 제33조제1항제5호", "영 제33조 제1항 제5호"), ("같은 조 제2항", "같은 조 제2항")]


def test_declared_names_reads_a_short_name_declared_for_an_act_named_without_a_provision() -> None:
    text = ("「고용보험 및 산업재해보상보험의 보험료징수 등에 관한 법률」(이하 \"고용산재보험료징수법\"이라 한다), "
            "「근로기준법 시행령」 (이하 영이라 한다), 「별표 1」(이하 '별표'라 한다)")
    assert declared_names(text) == {
        "고용산재보험료징수법": "고용보험 및 산업재해보상보험의 보험료징수 등에 관한 법률", "영": "근로기준법 시행령"}


# Texts where a statute found by its name has a shaped twin (same start, same end of the name), and
# where it has none (a shaped head that takes `구` after a letter, which the name does not; a quoted name; a
# back-reference).
TWINS = [
    "근로기준법 제23조, 제24조 및 형사소송법 제250조 제1항", "구 민사소송법 제3조와 구민사소송법 제3조",
    "A구 민사소송법 제3조", "「민법」 제3조",
    "민법 부칙(2005. 3. 31. 법률 제7427호) 제2조", "법률 제7428호 민법 부칙 제2조", "민법시행령 제3조",
    "특정범죄 가중처벌 등에 관한 법률 제5조의4, 특정범죄가중처벌 등에 관한 법률 제5조",
    "근로기준법 시행령(이하 '영'이라 한다) 제30조, 영 제31조", "근로기준법 제23조, 같은 법 시행령 제3조",
]


def test_a_shaped_twin_of_a_statute_found_by_name_is_skipped_without_changing_what_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    finder = default_finder()
    passages = Path(__file__).parents[1] / "realtext" / "passages.jsonl"
    texts = [*TWINS, *(json.loads(line)["text"] for line in passages.read_text("utf-8").splitlines())]
    skipping = [(list(finder._lenient_matches(t)), finder.find(t)) for t in texts]
    monkeypatch.setattr(finder, "_shaped_statutes", lambda text, _: CitationFinder._shaped_statutes(finder, text, set()))
    unskipped = [(list(finder._lenient_matches(t)), finder.find(t)) for t in texts]
    assert [found for _, found in skipping] == [found for _, found in unskipped]
    assert len(skipping[0][0]) == len(unskipped[0][0]) - 3  # 근로기준법 제23조, its 제24조, 형사소송법 제250조 제1항
    assert sum(len(m) for m, _ in skipping) < sum(len(m) for m, _ in unskipped)
