"""Rules a case citation must satisfy whatever the database holds (reference §1.4.3, §1.1).

- 사건부호 ↔ court family: 상고·재항고·특별항고 codes are the 대법원's alone; 1심 and 항소 codes never
  reach it; 허 is the 특허법원's; 헌가…헌아 belong to the 헌법재판소 and it to them. The families are
  derived from the official descriptions (심급 words), as the reference notes do; 누 was the
  대법원's 행정 code until the 1998 reform.
- `자` (notified) goes with 결정/명령, never with a 판결; the 헌법재판소 pronounces (선고) 결정s.
- 전원합의체 is the 대법원's full bench, 전원재판부/지정재판부 the 헌법재판소's panels.
- A case is decided no earlier than the year its number was filed.

Each rule returns a sentence saying what is wrong, or nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from grammars import (
    CASE_CODES_BY_TEXT,
    CONSTITUTIONAL_COURT_CODES,
    COURTS_BY_NAME,
    LEGACY_CODES,
    CaseCitation,
    CourtKind,
)

SUPREME = "대법원"
CONSTITUTIONAL = "헌법재판소"
CONSTITUTIONAL_CODES = frozenset(code.code for code in CONSTITUTIONAL_COURT_CODES)
SUPREME_ONLY_CODES = frozenset(
    code.code for code in CASE_CODES_BY_TEXT.values()
    if "(" not in code.description and any(word in code.description for word in ("상고", "재항고", "특별항고"))
) | LEGACY_CODES
LOWER_ONLY_CODES = frozenset(
    code.code for code in CASE_CODES_BY_TEXT.values() if "1심" in code.description or "항소" in code.description)
PATENT_COURT_CODES = frozenset({"허", "재허", "카허"})
_NU_REFORM_YEAR = 1998  # 누: 대법원 행정 code before, 행정항소 code from then on


def court_family_problem(code: str, court: str, case_year: int) -> str | None:
    """Why a court cannot have decided a case with this 사건부호, or None."""
    if (code in CONSTITUTIONAL_CODES) != (court == CONSTITUTIONAL):
        if court == CONSTITUTIONAL:
            return f"the 헌법재판소 decides only 헌가…헌아 cases, not {code}"
        return f"{code} is a 헌법재판소 code, not one of the {court}'s"
    supreme_only = code in SUPREME_ONLY_CODES or (code == "누" and case_year < _NU_REFORM_YEAR)
    if supreme_only and court != SUPREME:
        return f"{code} cases are decided by the 대법원, not the {court}"
    if court == SUPREME and code in LOWER_ONLY_CODES and not (code == "누" and case_year < _NU_REFORM_YEAR):
        return f"{code} is a 1심 or 항소 code: the 대법원 does not decide {code} cases"
    known = COURTS_BY_NAME.get(court)
    if code in PATENT_COURT_CODES and known is not None and known.kind is not CourtKind.PATENT:
        return f"{code} cases are decided by the 특허법원, not the {court}"
    return None


def case_problems(citation: CaseCitation) -> Iterator[tuple[str, str]]:
    """(field, why) for every rule the citation breaks, on the fields it has."""
    number = citation.case_number
    if citation.court is not None and (problem := court_family_problem(number.code, citation.court, number.year)):
        yield "court", problem
    if citation.delivery == "자" and citation.disposition == "판결":
        yield "delivery", "a 판결 is pronounced (선고), never notified (자)"
    if citation.court == CONSTITUTIONAL:
        if citation.disposition not in (None, "결정"):
            yield "disposition", f"the 헌법재판소 decides by 결정, not {citation.disposition}"
        if citation.delivery == "자":
            yield "delivery", "the 헌법재판소 pronounces (선고) its decisions on the 종국일자"
    if citation.panel == "전원합의체" and citation.court not in (None, SUPREME):
        yield "panel", f"전원합의체 is the 대법원's full bench, not the {citation.court}'s"
    if citation.panel in ("전원재판부", "지정재판부") and citation.court not in (None, CONSTITUTIONAL):
        yield "panel", f"{citation.panel} is a 헌법재판소 panel, not the {citation.court}'s"
    if citation.date is not None and citation.date.year < number.year:
        yield "date", f"a case filed in {number.year} cannot be decided in {citation.date.year}"
