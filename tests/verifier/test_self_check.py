"""The statute book checks itself: real articles (tests/fixtures/legalize-self-check.tar.xz, built by
make_legalize_self_check.py from the current tree) whose cross-references the resolver once misread or
the verifier could not check, resolved as bench/statute_book_bench.py resolves them (each article a
document of its act) and verified against the imported files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from grammars import StatuteCitation, Supplement, declared_names
from verifier import Database, import_paths
from verifier.models import ACTS, SPANS
from verifier.resolver import DocumentResolver
from verifier.verdict import Verdict
from verifier.verify import Verifier

SELF_CHECK = Path(__file__).parents[1] / "fixtures" / "legalize-self-check.tar.xz"


@pytest.fixture
def book(database: Database) -> Database:
    (report,) = import_paths(database, [SELF_CHECK])
    assert report.counts["acts"] == 14 and not report.skipped
    return database


@pytest.fixture
def verifier(book: Database) -> Iterator[Verifier]:
    with Verifier(book, audit=False) as verifier:
        yield verifier


def _text(book: Database, act: str, number: int, branch: int = 0) -> str:
    with book.engine.connect() as connection:
        return str(connection.execute(select(SPANS.c.text).join(ACTS, ACTS.c.id == SPANS.c.act_id).where(
            ACTS.c.name == act, SPANS.c.number == number, SPANS.c.branch == branch)).scalar_one())


def _checked(book: Database, verifier: Verifier, act: str, number: int, branch: int = 0,
             declared: dict[str, str] | None = None) -> list[tuple[str, str | None, str]]:
    """(as written, resolved, verdict) for each statute citation of the article, as the self-check reads it."""
    text = _text(book, act, number, branch)
    resolver = DocumentResolver(book, own_act=act, own_article=(number, branch), lookups=verifier.lookups,
                                declared=declared)
    rows = []
    for span in resolver.resolve_text(text):
        resolved = span.resolution.resolved
        assert isinstance(resolved, StatuteCitation)
        status = verifier.verify(resolved).status if resolved.is_complete else "unresolved"
        rows.append((text[slice(*span.found.span)], span.resolution.canonical, status))
    return rows


def test_a_paragraph_written_alone_is_the_articles_own(book: Database, verifier: Verifier) -> None:
    # 한국수출입은행법 시행령 제12조의2 ③: `제1항제4호의 위원의 임기는 3년으로 하고, 같은 항 제6호의 위원의 임기는
    # 2년으로 한다` — 같은 항 is this article's 제1항, not that of 「민법」 제32조 cited in ① (which has no 항).
    rows = _checked(book, verifier, "한국수출입은행법 시행령", 12, 2)
    assert ("같은 항 제6호", "한국수출입은행법 시행령 제12조의2 제1항 제6호", "verified") in rows
    assert not any(canonical and canonical.startswith("민법 제32조 제") for _, canonical, _ in rows)


def test_without_its_article_a_paragraph_makes_the_back_reference_uncertain(book: Database) -> None:
    text = "「지방공기업법 시행령」 제47조의2에 따른 법인, 제1항제4호의 위원 및 같은 항 제6호의 위원"
    spans = DocumentResolver(book, own_act="한국수출입은행법 시행령").resolve_text(text)
    assert [s.resolution.certain for s in spans] == [True, False]
    assert "제1항" in spans[1].resolution.doubts[0]


def test_같은_법_after_an_act_named_without_a_provision(book: Database, verifier: Verifier) -> None:
    # 국가유산영향진단법 시행령 제7조: `「지방공기업법」에 따른 지방공사가 같은 법 시행령 제47조의2에 따라`.
    rows = _checked(book, verifier, "국가유산영향진단법 시행령", 7)
    assert ("같은 법 시행령 제47조의2", "지방공기업법 시행령 제47조의2", "verified") in rows


# (text from the statute book, the act it is of, canonical forms in order)
ASIDES = [
    # 국세기본법 제49조: 같은 조 outside the parenthesis is 제60조, not the 같은 법 제68조 inside it.
    ("「부가가치세법」 제60조제1항(같은 법 제68조제2항에서 준용되는 경우를 포함한다), 같은 조 제2항제1호",
     "국세기본법", ["부가가치세법 제60조 제1항", "부가가치세법 제68조 제2항", "부가가치세법 제60조 제2항 제1호"]),
    # 전자장치 부착 등에 관한 법률 제2조: the article's title between it and its 항, which the finder reads
    # inside the citation (it found `제5조의2` alone, and the resolver attached the 항 to it for `같은 조`)
    ("「특정범죄 가중처벌 등에 관한 법률」 제5조의2(약취ㆍ유인죄의 가중처벌)제2항제2호의 죄 및 같은 조 제6항의 죄",
     "전자장치 부착 등에 관한 법률",
     ["특정범죄 가중처벌 등에 관한 법률 제5조의2 제2항 제2호", "특정범죄 가중처벌 등에 관한 법률 제5조의2 제6항"]),
]


@pytest.mark.parametrize(("text", "act", "canonical"), ASIDES)
def test_back_references_past_parentheses(book: Database, text: str, act: str, canonical: list[str]) -> None:
    spans = DocumentResolver(book, own_act=act, own_article=(2, 0)).resolve_text(text)
    assert [span.resolution.canonical for span in spans] == canonical


def test_a_rules_영_is_its_decree(book: Database, verifier: Verifier) -> None:
    # 자연재해대책법 시행규칙 제14조 ⑤: `영 제33조제1항제5호 및 같은 조 제2항에 따라`: 같은 조 is the 시행령's.
    rows = _checked(book, verifier, "자연재해대책법 시행규칙", 14)
    assert ("영 제33조제1항제5호", "자연재해대책법 시행령 제33조 제1항 제5호", "verified") in rows
    assert ("같은 조 제2항", "자연재해대책법 시행령 제33조 제2항", "verified") in rows


def test_이_영_is_the_documents_own_decree(book: Database, verifier: Verifier) -> None:
    # 군인자녀 … 특례 규정 제5조: `「초ㆍ중등교육법 시행령」 제81조제1항에도 불구하고 이 영 제4조제3항에 따라`.
    act = "군인자녀의 교육여건 개선을 위한 고등학교의 학생 모집 등에 관한 특례 규정"
    rows = _checked(book, verifier, act, 5)
    assert ("이 영 제4조제3항", f"{act} 제4조 제3항", "verified") in rows


def test_the_supplement_of_an_amending_act_is_verified_against_its_block(book: Database, verifier: Verifier) -> None:
    # 국적법 시행령 제16조: `법률 제10275호 국적법 일부개정법률 부칙 제2조제1항에 따라`.
    rows = _checked(book, verifier, "국적법 시행령", 16)
    assert ("법률 제10275호 국적법 일부개정법률 부칙 제2조제1항", "국적법 부칙(법률 제10275호) 제2조 제1항",
            "verified") in rows


def test_a_decrees_법률_supplement_is_its_법률s(book: Database, verifier: Verifier) -> None:
    # As 장애인 등에 대한 특수교육법 시행령 제2조 writes it (`법률 제8483호 부칙 제1조 단서에 따라`): a 법률's
    # number amends no 시행령, so the 부칙 is the 법률's.
    (span,) = DocumentResolver(book, own_act="국적법 시행령").resolve_text("법률 제10275호 부칙 제2조제1항에 따라")
    assert span.resolution.canonical == "국적법 부칙(법률 제10275호) 제2조 제1항"
    assert verifier.verify(span.resolution.resolved).status == "verified"


def _verdict(verifier: Verifier, article: int | None, paragraph: int | None = None, **supplement: object) -> Verdict:
    return verifier.verify(StatuteCitation("국적법", article, paragraph=paragraph,
                                           supplement=Supplement(**supplement)))  # type: ignore[arg-type]


def test_supplement_verdicts(verifier: Verifier) -> None:
    verdict = _verdict(verifier, 2, 1, law_kind="법률", number=10275)
    assert verdict.status == "verified" and "부칙 <제10275호,2010.5.4>" in verdict.detail
    assert verdict.provision is not None and verdict.provision.text is not None
    assert verdict.provision.text.startswith("제2조(국적선택 불이행으로")
    # the block has no 제9조, and no 제2조 제9항
    assert _verdict(verifier, 9, law_kind="법률", number=10275).status == "not_found"
    assert _verdict(verifier, 2, 9, law_kind="법률", number=10275).status == "not_found"
    # no amendment of that number: named, with the nearest one
    missing = _verdict(verifier, 2, law_kind="법률", number=10276)
    assert missing.status == "not_found" and "nearest" in missing.detail
    # the number with another date
    import datetime as dt
    wrong_day = _verdict(verifier, 2, law_kind="법률", number=10275, promulgated_on=dt.date(2010, 5, 5))
    assert wrong_day.status == "mismatch" and wrong_day.mismatches[0].database == "2010. 5. 4."
    # by its date alone
    assert _verdict(verifier, 2, 1, promulgated_on=dt.date(2010, 5, 4)).status == "verified"
    # named by neither: several blocks have a 제2조
    unnamed = _verdict(verifier, 2)
    assert unnamed.status == "ambiguous" and len(unnamed.candidates) > 1


def test_a_decrees_rules_cite_the_decree_as_영(book: Database, verifier: Verifier) -> None:
    # 외무공무원임용령 시행규칙 제2조: `영 제7조의 규정에 의한 외무인사위원회` — 영 is 외무공무원임용령 (a 대통령령
    # no 법률 names), not a `외무공무원임용령 시행령`, which does not exist.
    rows = _checked(book, verifier, "외무공무원임용령 시행규칙", 2)
    assert ("영 제7조", "외무공무원임용령 제7조", "verified") in rows


def test_a_ministrys_part_of_an_act_cites_that_act_as_법(book: Database, verifier: Verifier) -> None:
    # 농림축산식품부 소관 식품산업진흥법 시행규칙 제2조: `법 제9조에 따라` — 법 is 식품산업진흥법.
    rows = _checked(book, verifier, "농림축산식품부 소관 식품산업진흥법 시행규칙", 2)
    assert ("법 제9조", "식품산업진흥법 제9조", "verified") in rows


def test_a_short_name_declared_in_another_article_stands_for_its_act(book: Database, verifier: Verifier) -> None:
    # 임금채권보장법 제4조 declares `「고용보험 및 산업재해보상보험의 보험료징수 등에 관한 법률」(이하
    # "고용산재보험료징수법"이라 한다)`; 제9조 cites `고용산재보험료징수법 제13조제6항`.
    full = "고용보험 및 산업재해보상보험의 보험료징수 등에 관한 법률"
    declared = declared_names(_text(book, "임금채권보장법", 4))
    assert declared == {"고용산재보험료징수법": full}
    rows = _checked(book, verifier, "임금채권보장법", 9, declared=declared)
    assert ("고용산재보험료징수법 제13조제6항", f"{full} 제13조 제6항", "verified") in rows
    alone = _checked(book, verifier, "임금채권보장법", 9)  # the article alone does not say what the name is
    assert ("고용산재보험료징수법 제13조제6항", "고용산재보험료징수법 제13조 제6항", "not_found") in alone
    # in one document the declaration holds from where it is written on
    text = _text(book, "임금채권보장법", 4) + "\n" + _text(book, "임금채권보장법", 9)
    spans = DocumentResolver(book, own_act="임금채권보장법", lookups=verifier.lookups).resolve_text(text)
    assert f"{full} 제13조 제6항" in [span.resolution.canonical for span in spans]
