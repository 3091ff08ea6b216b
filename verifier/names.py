"""Normal forms for the things the database is keyed by: court names, act names, 사건번호, dates."""

from __future__ import annotations

import datetime as dt
import functools
import re
import unicodedata

from grammars import CASE_CODES_BY_TEXT, COURTS, LEGACY_CODES, CaseNumber

# Every spelling of a court the data or a draft uses, mapped to its canonical name.
COURT_NAMES: dict[str, str] = {
    **{alias: court.name for court in COURTS for alias in court.abbreviations},
    **{court.name: court.name for court in COURTS},
    "대판": "대법원", "대결": "대법원",
}

_MIDDLE_DOTS = str.maketrans({"·": "ㆍ", "・": "ㆍ", "･": "ㆍ", "‧": "ㆍ"})
_SPACES = re.compile(r"\s+")
_CASE_NUMBER = re.compile(
    r"\s*(?:\((?P<seat>[가-힣]{1,3})\)\s*)?(?P<year>\d{4}|\d{2})\s*(?P<code>[가-힣]{1,4})\s*(?P<serial>\d{1,7})")


# Another act's 부칙 as legalize-kr writes it inside an act's 부칙 (`부칙(출입국관리법) <제1234호,2020.1.1>`),
# read into the text of the block stored before it
INLINE_SUPPLEMENT_HEADING = re.compile(r"^부칙[ \t]*(?:\([^)\n]*\))?[ \t]*<([^>\n]*)>[ \t]*$", re.M)


def own_supplement_text(text: str) -> str:
    """A stored 부칙 block's text without the other acts' blocks read into it: what the act's own 부칙 says,
    its `이 법` the act."""
    return INLINE_SUPPLEMENT_HEADING.split(text, maxsplit=1)[0]


def normalise_court(name: str) -> str:
    """`서울고법` -> `서울고등법원`; unknown names come back trimmed, never dropped."""
    cleaned = _SPACES.sub(" ", unicodedata.normalize("NFC", name)).strip()
    return COURT_NAMES.get(cleaned, COURT_NAMES.get(cleaned.replace(" ", ""), cleaned))


@functools.lru_cache(maxsize=1 << 16)  # a draft names the same acts again and again, each looked up by it
def normalise_act_name(name: str) -> str:
    """NFC, middle dots folded to `ㆍ` (U+318D) as law.go.kr writes them, single spaces, no 「」."""
    cleaned = unicodedata.normalize("NFC", name).translate(_MIDDLE_DOTS).strip().strip("「」").strip()
    return _SPACES.sub(" ", cleaned)


def is_known_case_code(code: str) -> bool:
    return code in CASE_CODES_BY_TEXT or code in LEGACY_CODES


def parse_case_number(text: str) -> CaseNumber | None:
    """The first 사건번호 of a data field: `2006허1803, 1827` -> 2006허1803; None if there is none."""
    match = _CASE_NUMBER.match(unicodedata.normalize("NFC", text))
    if match is None or not is_known_case_code(match["code"]):
        return None
    year = int(match["year"])
    return CaseNumber(year=year + 1900 if year < 100 else year, code=match["code"],
                      serial=int(match["serial"]), seat=match["seat"])


def parse_date(text: str) -> dt.date | None:
    """`20240711`, `2024-07-11`, `2024.7.11.`; 단기 years (`42890525` = 1956-05-25) are converted. A year
    of other than four digits is no date (`95.3.3` would be the year 95, and widen case coverage by
    nineteen centuries)."""
    digits = re.findall(r"\d+", text)
    if len(digits) == 1 and len(digits[0]) == 8:
        year, month, day = int(digits[0][:4]), int(digits[0][4:6]), int(digits[0][6:])
    elif len(digits) == 3 and len(digits[0]) == 4:
        year, month, day = (int(part) for part in digits)
    else:
        return None
    if year > 4000:  # 단기 (Dangi) year
        year -= 2333
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None
