"""Forms of real text the finder missed in blind batches (tests/realtext: p158-p195 and p196-p230, labelled
before the finder ran on them): HWP's middle dots, an article's title before its paragraph, an informal name,
lists of dated decisions, two-digit years after a court, numbers joined by a middle dot or a tilde, a bracketed
tail or date, a 단체협약, one-sided gaps in a number, a note's unquoted declaration, a note after 본문."""

from __future__ import annotations

import datetime as dt

import pytest

from grammars import CaseCitation, CaseNumber, CitationForm, StatuteCitation, find_citations

F = CitationForm


def found(text: str) -> list[tuple[str, object]]:
    return [(text[f.span[0]:f.span[1]], f.citation) for f in find_citations(text)]


def test_a_name_written_with_hwps_middle_dot_is_the_acts() -> None:
    # U+119E (the vowel arae-a), as text converted from HWP writes ㆍ (a labour lawyer's blog)
    text = "②남녀고용평등과 일ᆞ가정 양립 지원에 관한 법률 제8조, ③근로기준법 제6조"
    assert found(text)[0] == ("남녀고용평등과 일ᆞ가정 양립 지원에 관한 법률 제8조",
                              StatuteCitation("남녀고용평등과 일ㆍ가정 양립 지원에 관한 법률", 8))


def test_an_informal_name_of_the_commercial_lease_act_is_read_as_the_act() -> None:
    assert found("「상가임대차보호법」 제10조 제2항에서") == [
        ("「상가임대차보호법」 제10조 제2항", StatuteCitation("상가건물 임대차보호법", 10, paragraph=2))]


@pytest.mark.parametrize("text, written, citation", [
    ("- 형법 제269조(낙태) 제1항(이하 ‘자기낙태죄 조항’)", "형법 제269조(낙태) 제1항",
     StatuteCitation("형법", 269, paragraph=1)),
    ("근로기준법 제23조(해고 등의 제한) 제1항에 따라", "근로기준법 제23조(해고 등의 제한) 제1항",
     StatuteCitation("근로기준법", 23, paragraph=1)),
    ("형법 제270조(의사 등의 낙태, 부동의낙태)\n제1항", "형법 제270조(의사 등의 낙태, 부동의낙태)\n제1항",
     StatuteCitation("형법", 270, paragraph=1)),
    # the title alone is prose after the citation, and a note or a declaration is no title
    ("민법 제750조(불법행위의 내용)에 따라", "민법 제750조", StatuteCitation("민법", 750)),
    ("민법 제3조(이하 ‘이 조항’) 제1항", "민법 제3조", StatuteCitation("민법", 3)),
    ("민법 제539조(제3자를 위한 계약) 제1항", "민법 제539조(제3자를 위한 계약) 제1항",
     StatuteCitation("민법", 539, paragraph=1)),
    # a review: a bracket holding a citation or a version note is no title
    ("민법 제750조(민법 제751조 참조) 제1항", "민법 제750조", StatuteCitation("민법", 750)),
    ("형법 제30조(2020. 1. 1. 개정) 제1항", "형법 제30조", StatuteCitation("형법", 30)),
], ids=["title", "title-with-spaces", "title-then-a-line-break", "title-alone", "declaration", "title-with-a-digit",
        "a-citation-in-brackets", "a-date-in-brackets"])
def test_an_articles_title_before_its_paragraph_is_inside_the_citation(text, written, citation) -> None:
    assert found(text)[0] == (written, citation)


def test_a_citation_or_version_note_in_brackets_is_still_read() -> None:
    assert [w for w, _ in found("민법 제750조(민법 제751조 참조) 제1항")] == ["민법 제750조", "민법 제751조"]
    citation = found("구 소득세법 제94조(법률 제12169호로 개정되기 전의 것) 제1항")[0][1]
    assert citation.amendment is not None


SUPREME = "대법원"


@pytest.mark.parametrize("text, later", [
    ("(대법원 2000. 2. 25. 선고 99도4305 판결, 2004. 3. 26. 선고 2003도8231 판결 등 참조)",
     ("2004. 3. 26. 선고 2003도8231 판결",
      CaseCitation(CaseNumber(2003, "도", 8231), SUPREME, dt.date(2004, 3, 26), "선고", "판결"))),
    # after 대판 the abbreviation's disposition and delivery too
    ("(대판 1995. 9. 26. 94므1638, 1996. 9. 20 . 96므530 참조)",
     ("1996. 9. 20 . 96므530",
      CaseCitation(CaseNumber(1996, "므", 530), SUPREME, dt.date(1996, 9, 20), "선고", "판결"))),
    ("서울고등법원 2020. 1. 2. 선고 2019나1 판결,\n2021. 3. 4. 선고 2020나2 판결",
     ("2021. 3. 4. 선고 2020나2 판결",
      CaseCitation(CaseNumber(2020, "나", 2), "서울고등법원", dt.date(2021, 3, 4), "선고", "판결"))),
], ids=["supreme-court", "after-대판", "a-line-apart"])
def test_a_later_decision_of_a_list_with_its_own_date_shares_the_court_written_first(text, later) -> None:
    citations = find_citations(text)
    assert found(text)[1] == later and citations[1].form is F.DATED_LIST_ITEM


@pytest.mark.parametrize("text", [
    "대법원 2000. 2. 25. 선고 99도4305 판결이 있다. 2004. 3. 26. 선고 2003도8231 판결은",  # prose between
    "민법 제750조, 2004. 3. 26. 선고 2003도8231 판결",  # a statute before it has no court
    "(2000. 2. 25. 선고 99도4305 판결, 2004. 3. 26. 선고 2003도8231 판결)",  # no court written at all
    # a review: 도 is the 대법원's, never a 지방법원's
    "수원지방법원 2021. 5. 6. 선고 2020고단123 판결, 2004. 3. 26. 선고 2003도8231 판결로 확정",
    "대법원 2000. 2. 25. 선고 99도4305 판결, 2004. 3. 26. 선고 2003고단8231 판결",
], ids=["prose-between", "after-a-statute", "no-court", "supreme-code-after-a-district-court",
        "district-code-after-the-supreme-court"])
def test_a_dated_decision_takes_no_court_that_was_not_written_for_its_list(text) -> None:
    assert all(citation.court is None for written, citation in found(text) if written.startswith("2004"))


@pytest.mark.parametrize("text, citation", [
    ("㉠대결73.7.26. 73마656", CaseCitation(CaseNumber(1973, "마", 656), SUPREME, dt.date(1973, 7, 26), "자", "결정")),
    ("대판 91.3.29, 90다819", CaseCitation(CaseNumber(1990, "다", 819), SUPREME, dt.date(1991, 3, 29), "선고", "판결")),
    ("대판 00.3.4. 99다1", CaseCitation(CaseNumber(1999, "다", 1), SUPREME, dt.date(2000, 3, 4), "선고", "판결")),
    ("대판 05.3.4. 2004다1", CaseCitation(CaseNumber(2004, "다", 1), SUPREME, dt.date(2005, 3, 4), "선고", "판결")),
    # a review: two-digit case years from 00 to 47 are of the 2000s, and so are their decisions
    ("대판 05.3.4, 04다123", CaseCitation(CaseNumber(2004, "다", 123), SUPREME, dt.date(2005, 3, 4), "선고", "판결")),
    ("대법원 99. 3. 4. 선고 2000다1 판결", CaseCitation(CaseNumber(2000, "다", 1), SUPREME, None, "선고", "판결")),
], ids=["glued-대결", "comma", "into-2000", "four-digit-number", "two-digit-number-of-the-2000s", "decided-before"])
def test_a_two_digit_year_after_a_court_takes_its_century_from_the_case_number(text, citation) -> None:
    assert found(text)[0][1] == citation


def test_a_two_digit_year_without_a_court_is_no_date() -> None:
    citations = [citation for _, citation in found("가격은 12.3.4. 12다345 참조")]
    assert citations == [CaseCitation(CaseNumber(2012, "다", 345))]


def test_numbers_joined_by_a_middle_dot_are_a_list() -> None:
    text = "【수원지방법원 2023.8.24. 선고 2021나79254·79261 판결】"
    court, date = "수원지방법원", dt.date(2023, 8, 24)
    first, later = CaseNumber(2021, "나", 79254), CaseNumber(2021, "나", 79261)
    assert found(text) == [
        ("수원지방법원 2023.8.24. 선고 2021나79254", CaseCitation(first, court, date, "선고", "판결")),
        ("79261 판결", CaseCitation(later, court, date, "선고", "판결")),
    ]


def test_a_panel_and_disposition_in_brackets_after_the_number_are_the_citations() -> None:
    text = "대상판결\n대법원 2018.6.21, 선고 2011다112391(전원합의체 판결)\n평석요지"
    assert found(text) == [("대법원 2018.6.21, 선고 2011다112391(전원합의체 판결)", CaseCitation(
        CaseNumber(2011, "다", 112391), SUPREME, dt.date(2018, 6, 21), "선고", "판결", "전원합의체"))]


def test_a_collective_agreement_is_no_act() -> None:
    assert found("이 사건 단체협약 제27조에 상여금 지급은") == []


@pytest.mark.parametrize("text, written, number", [
    ("대법원 2014. 7. 24. 선고 2013 두16591 판결", "대법원 2014. 7. 24. 선고 2013 두16591 판결",
     CaseNumber(2013, "두", 16591)),
    ("대법원 2015. 12. 24. 선고 2013두 25924 판결", "대법원 2015. 12. 24. 선고 2013두 25924 판결",
     CaseNumber(2013, "두", 25924)),
    ("대전가정법원 천안지원 2023드합 10744 이혼", "대전가정법원 천안지원 2023드합 10744",
     CaseNumber(2023, "드합", 10744)),
], ids=["space-before-the-code", "space-after-the-code", "after-a-court"])
def test_a_number_spaced_on_one_side_after_a_court_or_date_is_read(text, written, number) -> None:
    (first, citation), = found(text)
    assert (first, citation.case_number) == (written, number)


@pytest.mark.parametrize("text", ["2024가 1000명이 왔다", "그 해 2024가 1000원"], ids=["particle", "amount"])
def test_a_number_spaced_on_one_side_alone_is_prose(text) -> None:
    assert found(text) == []


def test_numbers_joined_to_a_bare_one_by_a_middle_dot_or_a_tilde_are_a_list() -> None:
    numbers = [(written, c.case_number) for written, c in found("2001헌가9~15\u20242004헌가5(병합), 2003헌가5·6")]
    assert numbers == [("2001헌가9", CaseNumber(2001, "헌가", 9)), ("15", CaseNumber(2001, "헌가", 15)),
                       ("2004헌가5", CaseNumber(2004, "헌가", 5)), ("2003헌가5", CaseNumber(2003, "헌가", 5)),
                       ("6", CaseNumber(2003, "헌가", 6))]
    # after a comma a lone number is a page, not a serial
    page = "대법원 2019. 1. 2. 선고 2018다1234, 12면 참조"
    assert [w for w, _ in found(page)] == ["대법원 2019. 1. 2. 선고 2018다1234"]


def test_a_declaration_in_a_note_without_its_quote_marks_is_read() -> None:
    text = ("구 도시 및 주거환경정비법( 법률 제9444호로 개정되기 전의 것, 이하 구 도시정비법 이라 한다) "
            "제4조 제1항, 제3항은")
    first, later = find_citations(text)
    assert first.declares == "구 도시정비법" and first.citation.amendment is not None
    assert (later.citation.act, later.citation.paragraph) == ("도시 및 주거환경정비법", 3)


def test_a_note_after_the_part_of_a_provision_cited_is_left_with_the_part() -> None:
    """A citation has no part (본문, 단서): read with its note, a rewrite dropped 단서 from the text (a review)."""
    text = "민법 제781조 제1항 본문(2005. 3. 31. 법률 제7427호로 개정되기 전의 것) 중 “자는 부의 성과"
    assert [w for w, _ in found(text)] == ["민법 제781조 제1항"]


def test_a_date_in_brackets_after_the_number_is_the_decisions() -> None:
    assert found("서울고법 2021나2008550 (2022.01.11.)\n\n* 사건") == [
        ("서울고법 2021나2008550 (2022.01.11.)",
         CaseCitation(CaseNumber(2021, "나", 2008550), "서울고등법원", dt.date(2022, 1, 11)))]


@pytest.mark.parametrize("text", [
    "예산은 10조4천억원이다", "총 12조3000억원 규모", "매출 20조 5천억 원", "2019다1234원",
], ids=["trillions", "trillions-in-digits", "spaced", "won"])
def test_an_amount_of_money_is_no_case_number(text) -> None:
    """조 is the 사건부호 of 즉결심판 and the unit of a trillion: `10조4천억원` read as the case 2010조4."""
    assert found(text) == []


@pytest.mark.parametrize("text, reading", [
    ("조달사업에 관한 법률 시행령 제15조 제5항 및 동법률시행규칙 제10조", "동법 시행규칙"),
    ("국가재정법 제3조, 같은 법률 시행령 제3조", "같은 법 시행령"),
], ids=["동법률", "같은 법률"])
def test_the_same_law_written_법률_is_the_back_reference(text, reading) -> None:
    """`동법률 시행규칙` (a 조달청 notice) was read as an act named 동법률 by its shape."""
    assert found(text)[-1][1].back_reference == reading


@pytest.mark.parametrize("text", [
    "피고인은 2024. 3. 4. 12가 3456 승용차를 운전하였다",  # a car's plate after a date
    "피고인은 1992. 3. 19. 91다 8018 차량을 운전하였다",
    "2024. 3. 4. 2023나 12명이 참석하였다",
    "2019다1234~5개월 동안", "2019다1234·5건의 소송", "2020다1234~2022년", "2024가합100~200만원을 청구",
    "서울중앙지방법원 2019가합1234 ~ 2020. 3. 4.까지 계속", "2001헌가15~9",
], ids=["plate", "plate-two-digit-year", "count", "months", "cases", "years", "money", "until-a-date", "descending"])
def test_counts_plates_and_amounts_beside_numbers_are_no_citations(text) -> None:
    """A review of the one-sided gaps and the joined numbers: each read a count, a plate or a year as a case."""
    numbers = [str(c.case_number) for _, c in found(text) if isinstance(c, CaseCitation)]
    assert numbers in ([], ["2019다1234"], ["2020다1234"], ["2019가합1234"], ["2024가합100"], ["2001헌가15"]), numbers


def test_a_court_and_a_one_sided_gap_still_need_a_serial_that_is_no_count() -> None:
    assert [str(c.case_number) for _, c in found("서울중앙지방법원 2023가 1심 판결")] == []


def test_the_supreme_courts_own_first_instance_cases_share_its_court_in_a_list() -> None:
    text = "대법원 2016. 11. 24. 선고 2016수64 판결, 2017. 2. 3. 선고 2016수12 판결"
    assert found(text)[1][1].court == "대법원"


@pytest.mark.parametrize("text, written", [
    ("구 자본시장과 금융투자업에 관한 법률 제174조(미공개정보 이용행위의 금지) 제1항",
     "구 자본시장과 금융투자업에 관한 법률 제174조(미공개정보 이용행위의 금지) 제1항"),
    ("금융소비자 보호에 관한 법률 시행령 제30조(약관의 개정 등) 제2항",
     "금융소비자 보호에 관한 법률 시행령 제30조(약관의 개정 등) 제2항"),
], ids=["공개정보", "개정-in-a-title"])
def test_titles_holding_개정_as_a_word_are_titles(text, written) -> None:
    assert found(text)[0][0] == written


def test_a_case_in_brackets_after_an_article_is_a_citation_of_its_own() -> None:
    assert [w for w, _ in found("근로기준법 제23조(대법원 91다8018 판결 참조) 제1항에 따라")] == [
        "근로기준법 제23조", "대법원 91다8018 판결"]


@pytest.mark.parametrize("declaration, declared", [
    ("이하 이를 구 도시정비법이라 한다", "구 도시정비법"), ("이하 라 한다", None), ("이하 이라 한다", None),
    ("이하 이 사건 조항의 적용에 있어서는 같은 법이라 한다", None),
], ids=["이를", "empty", "a-particle", "a-clause"])
def test_an_unquoted_declaration_is_a_short_name_ending_as_a_laws(declaration, declared) -> None:
    text = f"구 도시 및 주거환경정비법(법률 제9444호로 개정되기 전의 것, {declaration}) 제4조 제1항"
    declares = [f.declares for f in find_citations(text)]
    assert declares == [declared] if declared else declares == [], declares  # no note read: no citation


def test_a_date_in_brackets_before_the_cases_year_is_no_date() -> None:
    assert found("서울고법 2021나2008550 (2019.01.11.)")[0][1].date is None


def test_a_decree_glued_to_a_known_act_written_without_spaces_is_read_as_the_act_spells_it() -> None:
    text = "가. 국가를당사자로하는계약에관한법률시행령 제95조"
    assert found(text)[0][1] == StatuteCitation("국가를 당사자로 하는 계약에 관한 법률 시행령", 95)
