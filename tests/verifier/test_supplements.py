"""Verdicts on the provisions of a 부칙, against 부칙 texts cut from the shipped book (small_books)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from small_books import Act, import_acts

from grammars import StatuteCitation, Supplement
from verifier import Database, Verifier

TODAY = dt.date(2026, 12, 1)
INCOME_TAX = "소득세법"
# 법률 제20615호's 부칙, cut down (제2조–제13조 written as law.go.kr writes the articles it leaves out): its
# 제16조 (다른 법률의 개정) quotes the provisions it amends at the start of lines (`제111조 중 "…"을 "…"으로
# 한다.`), which are no articles of the 부칙.
SUPPLEMENT_20615 = """제1조(시행일) 이 법은 2025년 1월 1일부터 시행한다.


제2조 내지 제13조 생략


제14조(교부금에 관한 경과조치) 이 법 시행 전에 발생한 소득에 대하여는 제169조의 개정규정 중 "교부금"은 \
"종전의 교부금"으로 본다.


제15조(비거주자에 대한 조세조약상 비과세 또는 면제 적용 신청에 관한 경과조치) 제156조의2제1항의 개정규정 시행 전에 \
발생한 국내원천 인적용역소득에 관하여는 같은 개정규정에도 불구하고 종전의 규정에 따른다.


제16조(다른 법률의 개정) ① 법률 제19190호 국세징수법 일부개정법률 일부를 다음과 같이 개정한다.


제111조 중 "이자소득, 배당소득 또는 금융투자소득"을 "이자소득 또는 배당소득"으로 한다.


② 법률 제18589호 농어촌특별세법 일부개정법률 일부를 다음과 같이 개정한다.


제2조제1항제2호 중 "이자소득ㆍ배당소득ㆍ금융투자소득"을 "이자소득ㆍ배당소득"으로 한다.


제4조 단서중 "양도소득세 또는 금융투자소득세"를 "양도소득세"로 한다."""
# an old 부칙 numbers its articles without titles
SUPPLEMENT_1961 = """제1조 이 법은 공포한 날로부터 시행한다.

제2조 이 법 시행전에 생긴 사항에 관하여도 이 법을 적용한다.

제3조 법인세법중 다음과 같이 개정한다.

제5조 및 제6조를 삭제한다."""
INCOME_TAX_ACT = Act("001565", [
    (17160, INCOME_TAX, "법률", "1961-12-08", 821, "1962-01-01", "제정"),
    (268523, INCOME_TAX, "법률", "2024-12-31", 20615, "2025-01-01", "일부개정"),
], [(1, 0, 1, 2, "목적", False, "", None)],
    [(17160, "부칙 <제821호,1961.12.8>", None),
     (268523, "부칙 <제821호,1961.12.8>", SUPPLEMENT_1961),
     (268523, "부칙 <제20615호,2024.12.31>", SUPPLEMENT_20615)])


@pytest.mark.parametrize(("number", "article", "paragraph", "status"), [
    (20615, 16, 1, "verified"),
    (20615, 16, 2, "verified"),      # its ② follows a quoted line: still 제16조's
    (20615, 111, None, "not_found"),  # the 국세징수법 article 제16조 amends
    (20615, 4, None, "not_found"),    # `제4조 단서중 "…"`
    (20615, 15, None, "verified"),
    (20615, 14, None, "verified"),    # titled, quoting a provision itself
    (20615, 2, None, "verified"),     # left out of this text (`제2조 내지 제13조 생략`)
    (821, 3, None, "verified"),       # untitled, after 제2조
    (821, 5, None, "not_found"),      # untitled, after 제3조: a provision it amends
], ids=["article-of-the-amending-lines", "its-second-paragraph", "quoted-article", "quoted-with-a-proviso",
        "titled-article", "titled-quoting-a-provision", "left-out", "untitled-next-article",
        "untitled-out-of-turn"])
def test_lines_quoting_the_provisions_a_supplement_amends_are_no_articles_of_it(
        database: Database, tmp_path: Path, number: int, article: int, paragraph: int | None, status: str) -> None:
    import_acts(database, tmp_path, INCOME_TAX_ACT)
    citation = StatuteCitation(INCOME_TAX, article, paragraph=paragraph, supplement=Supplement(None, "법률", number))
    with Verifier(database, audit=False) as verifier:
        verdict = verifier.verify(citation, TODAY)
    assert verdict.status == status, verdict.detail
