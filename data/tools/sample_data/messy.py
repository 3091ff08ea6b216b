"""Messy ways drafts write a citation (../shared/reference/legal-citations.md §1.3, §2.3).

Each writer returns how the citation is written; the expected canonical form is always the
record's or provision's own `canonical()`. Spans in the labels cover the citation as written,
without surrounding brackets or parentheses.
"""

from __future__ import annotations

from collections.abc import Callable

from grammars import COURTS_BY_NAME, StatuteCitation
from sample_data.cases import CaseRecord


def _dotted(record: CaseRecord, tight: bool = False, final_dot: bool = True) -> str:
    day = record.date
    text = f"{day.year}.{day.month}.{day.day}" if tight else f"{day.year}. {day.month}. {day.day}"
    return text + ("." if final_dot else "")


def _when(record: CaseRecord, date: str) -> str:
    """`2024. 7. 11. 선고` for a judgment, `2023. 1. 12.자` for a decision or order."""
    return f"{date} 선고" if record.delivery == "선고" else f"{date}자"


def _spaced_number(record: CaseRecord) -> str:
    number = record.number
    year = f"{number.year % 100:02d}" if number.year < 2000 else str(number.year)
    return f"{year} {number.code} {number.serial}"


def court_abbreviation(court: str) -> str | None:
    abbreviations = COURTS_BY_NAME[court].abbreviations if court in COURTS_BY_NAME else ()
    return abbreviations[0] if abbreviations else None


CaseWriter = Callable[[CaseRecord], str]

CASE_FORMS: dict[str, CaseWriter] = {
    "canonical": lambda r: r.citation().canonical(),
    "bare case number": lambda r: str(r.number),
    "court and number only": lambda r: f"{r.court} {r.number}",
    "대판 with compact date and comma": lambda r: f"대판 {_dotted(r, tight=True, final_dot=False)}, {r.number}",
    "대결 without 자": lambda r: f"대결 {_dotted(r)} {r.number}",
    "대판(전) for 전원합의체": lambda r: f"대판(전) {_dotted(r)} {r.number}",
    "no final dot, spaced number, no 판결": lambda r: f"{r.court} {_dotted(r, final_dot=False)} 선고 {_spaced_number(r)}",
    "no spaces in date": lambda r: (f"{r.court} {_when(r, _dotted(r, tight=True))} {r.number}"
                                    f"{' 전원합의체' if r.panel == '전원합의체' else ''} {r.disposition}"),
    "commas instead of 선고 (law.go.kr header)": lambda r: (
        f"{r.court} {_dotted(r)}, 선고, {r.number}, {'전원합의체 ' if r.panel == '전원합의체' else ''}{r.disposition}"),
    "court abbreviation": lambda r: (
        f"{court_abbreviation(r.court)} {_when(r, _dotted(r))} {r.number} {r.disposition}"),
    "헌재 short form": lambda r: f"헌재 {_dotted(r)} {r.number}",
    # Scanned and full-width text: OCR reads 원 as 윈; Asian input methods write full-width digits.
    "대법윈 (OCR)": lambda r: r.citation().canonical().replace("대법원", "대법윈", 1),
    "full-width digits": lambda r: full_width(r.citation().canonical()),
}

_FULL_WIDTH_DIGITS = str.maketrans("0123456789.", "０１２３４５６７８９．")


def full_width(text: str) -> str:
    return text.translate(_FULL_WIDTH_DIGITS)


def provision_text(citation: StatuteCitation, compact: bool) -> str:
    """`제23조 제1항 제2호 가목`, or the statute-text style `제23조제1항제2호가목`."""
    provision = citation.provision()
    return provision.replace(" ", "") if compact else provision
