"""parse_citation: canonical strings in, citation values out; `parse(c.canonical()) == c`."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammars import (
    COURTS,
    CaseCitation,
    CaseNumber,
    CitationForm,
    CitationParser,
    ParsedCitation,
    StatuteCitation,
    default_lexicon,
    find_citations,
    parse_citation,
)
from grammars.courts import OUT_OF_SEAT_PREFIXES
from grammars.languages.case import DISPOSITIONS, PANELS, default_codes
from grammars.languages.statute import SUBITEM_LETTERS

small = st.integers(1, 99)
case_citations = st.builds(
    CaseCitation,
    case_number=st.builds(
        CaseNumber,
        year=st.integers(1948, 2099),
        code=st.sampled_from(default_codes()),
        serial=st.integers(1, 9_999_999),
        seat=st.none() | st.sampled_from(OUT_OF_SEAT_PREFIXES),
    ),
    court=st.sampled_from([court.name for court in COURTS]),
    date=st.dates(dt.date(1948, 1, 1), dt.date(2099, 12, 31)),
    delivery=st.sampled_from(["선고", "자"]),
    disposition=st.sampled_from(DISPOSITIONS),
    panel=st.none() | st.sampled_from(PANELS),
)


@st.composite
def statute_citations(draw: st.DrawFn) -> StatuteCitation:
    item = draw(st.none() | st.integers(1, 999))
    return StatuteCitation(
        act=draw(st.sampled_from(sorted(default_lexicon().acts))),
        article=draw(st.integers(1, 9999)),
        article_branch=draw(st.none() | small),
        paragraph=draw(st.none() | small),
        item=item,
        item_branch=None if item is None else draw(st.none() | small),
        subitem=None if item is None else draw(st.none() | st.sampled_from(SUBITEM_LETTERS)),
    )


@settings(max_examples=300, deadline=None)
@given(case_citations)
def test_case_citations_round_trip(citation: CaseCitation) -> None:
    assert parse_citation(citation.canonical()) == citation


@settings(max_examples=300, deadline=None)
@given(statute_citations())
def test_statute_citations_round_trip(citation: StatuteCitation) -> None:
    assert parse_citation(citation.canonical()) == citation


@settings(max_examples=200, deadline=None)
@given(case_citations | statute_citations(), st.sampled_from(["", "원고는 ", "(", "참조: "]),
       st.sampled_from(["", "에 따라 청구한다.", ")", "; 이상"]), st.booleans())
def test_canonical_citations_are_found_whole_in_prose(
    citation: ParsedCitation, before: str, after: str, lenient: bool
) -> None:
    text = before + citation.canonical() + after
    found = find_citations(text, lenient=lenient)
    assert [(f.span, f.citation, f.form) for f in found] == [
        ((len(before), len(text) - len(after)), citation, CitationForm.CANONICAL)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "대법원 2024. 7. 11. 선고 2024도4202 판결.",  # trailing period: whole strings only
        " 민법 제750조",
        "대법원 2024.7.11. 선고 2024도4202 판결",
        "(2024도4202)",
        "같은 법 제3조",
        "민소법 제1조",
        "민법 제750조, 제751조",
    ],
    ids=["empty", "trailing-dot", "leading-space", "loose-date", "bare-number", "back-reference", "informal",
         "list"],
)
def test_non_canonical_text_parses_to_none(text: str) -> None:
    assert parse_citation(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("주택임대차법 제3조 제1항", StatuteCitation("주택임대차보호법", 3, paragraph=1)),
        ("대한민국헌법 제27조", StatuteCitation("헌법", 27)),  # the canonical form is `헌법 제27조`
        ("대법원 1996. 2. 29. 선고 95다38677 판결",
         CaseCitation(CaseNumber(1995, "다", 38677), "대법원", dt.date(1996, 2, 29), "선고", "판결")),
        ("서울고등법원(춘천재판부) 2013. 1. 2. 선고 (춘천)2012노368 판결",
         CaseCitation(CaseNumber(2012, "노", 368, "춘천"), "서울고등법원(춘천재판부)", dt.date(2013, 1, 2),
                      "선고", "판결")),
    ],
    ids=["official-abbreviation", "constitution", "two-digit-year", "out-of-seat"],
)
def test_parse_fills_the_fields(text: str, expected: object) -> None:
    assert parse_citation(text) == expected


def test_parse_with_a_database_lexicon_admits_existing_articles_only() -> None:
    parser = CitationParser.for_lexicon({"민법": ["750", "3의2"]})
    assert parser.parse("민법 제3조의2 제1항") == StatuteCitation("민법", 3, article_branch=2, paragraph=1)
    assert parser.parse("민법 제3조") is None
    assert parse_citation("민법 제751조", lexicon={"민법": ["750"]}) is None
