"""The version a statute citation names, as courts write it: `구`, `개정전의` and the note in
parentheses between the act and the article.

    구 집합건물의 소유 및 관리에 관한 법률(2003. 7. 18. 법률 제6925호로 개정되기 전의 것) 제9조
    행정소송법(1984. 12. 15. 법률 제3754호로 전부개정된 것) 제23조 제2항
    구 ‘…에 관한 법률’(2008. 6. 13. 법률 제9112호로 개정되고, 2010. 4. 15. 법률 제10257호로 개정되기 전의 것)
    구 조세감면규제법(1998. 12. 28. 법률 제5584호 조세특례제한법으로 전문개정되기 전의 것) 제56조
    국가보안법(1980. 12. 31. 법률 제3318호로 전문개정되고 1991. 5. 31. 법률 제4373호로 일부개정되기 전의 것,
        이하 "구법"이라 한다)
    …(2010. 1. 1. 법률 제9932호로 개정되어 2011. 1. 1. 시행되기 전의 것, 이하 같다)

A note may follow the provision instead (`구 민법 제750조(2015. 2. 3. 법률 제13125호로 개정되기 전의 것)`, `…
부칙(2008. 6. 13. 법률 제9112호) 제2조 제1항(2010. 4. 15. 법률 제10257호로 개정된 것)`): it dates the act all the same.

`NOTE` is the regex of a whole note (no groups: it is embedded in the finder's patterns);
`read_note` turns the matched text into an `AmendmentNote` and the name it declares, if any. A
parenthesis that is not a note in this shape (`(2008. 6. 13. 법률 제9112호)` after a 부칙, `(상해)`) is
no note, so the act it follows is not directly followed by its article and no citation is read.

A provision of a 부칙 names the 부칙 by the amendment's day, number or both, before or after the word
(`SUPPLEMENT`, read by `read_supplement`):

    민법 부칙(2005. 3. 31. 법률 제7427호) 제2조      부칙(2005. 5. 26.) 제3항
    법률 제7428호 부칙 제2조                         부칙 <제5305호, 1997. 3. 13.> 제2조

Statutes name the 부칙 of an amendment by the amending act, its number before the name of the act it
amended (`AMENDING_ACT`, the number read by `number_before`):

    법률 제10275호 국적법 일부개정법률 부칙 제2조제1항    법률 제3586호 공무원연금법개정법률 부칙 제7조
    대통령령 제24697호 자본시장과 금융투자업에 관한 법률 시행령 일부개정령 부칙 제8조
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import cast

from grammars.boundary import MIDDLE_DOTS
from grammars.citation import AmendmentChange, AmendmentNote, StatuteCitation, Supplement

_S = r"[ \t\u00a0\u3000]?"  # at most one space where notes put one
_DATE = r"(?:19|20)[0-9]{2}\.[ ]?[0-9]{1,2}\.[ ]?[0-9]{1,2}\."
# What the number counts: 법률, 대통령령, 총리령, …부령, and rules such as 대법원규칙.
_KIND = r"(?:법률|대통령령|총리령|[가-힣]{1,12}부령|[가-힣]{1,12}규칙)"
# `전부 개정` as often as `전부개정` (read as one word: `read_note`)
_CHANGE = r"(?:(?:전부|전문|전면|일부|타법)[ ]?개정|개정|제정|폐지)"
# Between 제 and an amendment's number: a space, or a line break a copy leaves there (`법률 제⏎8489호로`), inside
# the parentheses of a note, whose shape leaves no doubt; never a blank line, which no citation spans
_WRAP = r"[ \t\u00a0\u3000]?(?:\r?\n[ \t\u00a0\u3000]?)?"
_QUOTE = "['\"‘’“”]"
# The new title of an amendment that renamed the act, with its particle: `조세특례제한법으로`, `…법률로`.
_RENAMED = rf"(?P<renamed>[가-힣][가-힣0-9{MIDDLE_DOTS} ]{{0,60}}?(?:법률|법|령|규칙|규정))(?:으로|로)"
_CLAUSE = (
    rf"(?:(?P<date>{_DATE}){_S})?(?P<kind>{_KIND}){_S}제{_WRAP}(?P<number>[1-9][0-9]{{0,5}})호(?:로|{_S}{_RENAMED}){_S}"
    rf"(?:다시{_S})?(?P<change>{_CHANGE})"
)
_EARLIER = r"되고,?" + _S
_LAST = rf"(?:되어{_S}(?P<effective>{_DATE}){_S}시행되기{_S}전의{_S}것|(?P<before>되기{_S}전의{_S}것)|된{_S}것)"
# `, 이하 같다`, `, 이하 "구법"이라 한다`, `, 다음부터 ‘폭력행위처벌법’이라 한다`, and without the quote marks a
# PDF's text may lose (`, 이하 구 도시정비법 이라 한다`: a paper's copy of a judgment), a short name ending as a law's.
_DECLARATION = (
    rf",{_S}(?:이하|다음부터){_S}(?:같다|(?:{_QUOTE}(?P<declared>[^'\"‘’“”()\n]{{1,30}}){_QUOTE}"
    rf"|(?:이를{_S})?(?P<declared_bare>[가-힣][가-힣 ]{{0,14}}(?:법|령|규칙|규정)))"
    rf"{_S}(?:이?라고|이?라){_S}(?:한다|함))"
)


def _uncaptured(regex: str) -> str:
    return re.sub(r"\(\?P<[a-z_]+>", "(?:", regex)


NOTE = (rf"\({_S}(?:{_uncaptured(_CLAUSE)}{_EARLIER})*{_uncaptured(_CLAUSE)}{_uncaptured(_LAST)}"
        rf"(?:{_uncaptured(_DECLARATION)})?{_S}\)")
_CLAUSES = re.compile(rf"{_CLAUSE}(?:(?P<earlier>{_EARLIER})|{_LAST})")
_DECLARED = re.compile(_DECLARATION)
_DATE_NUMBERS = re.compile(r"([0-9]{4})\.[ ]?([0-9]{1,2})\.[ ]?([0-9]{1,2})\.")


def _date(written: str | None) -> dt.date | None:
    numbers = None if written is None else _DATE_NUMBERS.fullmatch(written)
    if numbers is None:  # no date written (a date that `_DATE` matched always has its numbers)
        return None
    year, month, day = (int(part) for part in numbers.groups())
    try:
        return dt.date(year, month, day)
    except ValueError:  # a note naming no real day names no date
        return None


def read_note(written: str) -> tuple[AmendmentNote, str | None]:
    """The note matched by `NOTE`, as a value, and the short name it declares (`구법`), if any."""
    clauses = list(_CLAUSES.finditer(written))
    notes = [
        AmendmentNote(law_kind=clause["kind"], number=int(clause["number"]),
                      change=cast(AmendmentChange, clause["change"].replace(" ", "")),  # `_CHANGE`'s words
                      before=clause["earlier"] is None and (clause["before"] or clause["effective"]) is not None,
                      promulgated_on=_date(clause["date"]), effective_on=_date(clause["effective"]),
                      renamed_to=clause["renamed"])
        for clause in clauses
    ]
    declared = _DECLARED.search(written)
    return replace(notes[-1], earlier=tuple(notes[:-1])), (declared["declared"] or declared["declared_bare"]
                                                          if declared else None)


_NUMBERED = rf"(?:{_KIND}{_S})?제{_S}[1-9][0-9]{{0,5}}호"
_BRACKETED = rf"(?:{_DATE}(?:,?{_S}{_NUMBERED})?|{_NUMBERED}(?:,?{_S}{_DATE})?)"
# `법률 제7428호 부칙`, `부칙(2005. 5. 26.)`, `부칙 <제5305호, 1997. 3. 13.>` (law.go.kr's heading), `부칙`.
# `부칙(1993. 12. 31. 법률 제4674호로 개정될 당시의 부칙)`, `…호로 개정된 법률의 부칙)`: the amendment named in words
_WHOSE = rf"(?:로{_S}(?:{_CHANGE}(?:될{_S}당시의|된{_S}법률의){_S}부칙))"
SUPPLEMENT = (rf"(?:{_NUMBERED}{_S})?부칙(?:{_S}(?:\({_S}{_BRACKETED}{_WHOSE}?{_S}\)|<{_S}{_BRACKETED}{_S}>))?")
_SUPPLEMENT_PARTS = re.compile(rf"(?P<date>{_DATE})|(?:(?P<kind>{_KIND}){_S})?제{_S}(?P<number>[1-9][0-9]{{0,5}})호")


# What an amending act is called after the act it amends (`국적법 일부개정법률`, `소득세법개정법률`, `…시행령
# 일부개정령`, `…법 폐지법률`): its 부칙 is the amended act's 부칙 of that amendment.
AMENDING_ACT = r"(?:일부개정|전부개정|중개정|개정|폐지)(?:법률|령|규칙)"
_AMENDING_SUFFIX = re.compile(rf"{_S}{AMENDING_ACT}$")
_NUMBER_BEFORE = re.compile(rf"(?<![가-힣])(?P<kind>{_KIND}){_S}제{_S}(?P<number>[1-9][0-9]{{0,5}})호{_S}$")


def without_amending_act(name: str) -> str:
    """`국적법 일부개정법률` -> `국적법`: the act an amending act amends (a name written whole in 「」)."""
    return _AMENDING_SUFFIX.sub("", name)


def numbered_supplement(text: str, citation: StatuteCitation,
                        span: tuple[int, int]) -> tuple[StatuteCitation, tuple[int, int]]:
    """`법률 제10275호 국적법 일부개정법률 부칙 제2조`: a 부칙 written with no number of its own takes the
    number written right before the act's name (the citation at `span`), and the citation starts there."""
    supplement = citation.supplement
    if supplement is None or supplement.number is not None:
        return citation, span
    found = _NUMBER_BEFORE.search(text, max(0, span[0] - 40), span[0])
    if found is None:
        return citation, span
    numbered = replace(supplement, law_kind=found["kind"], number=int(found["number"]))
    return replace(citation, supplement=numbered), (found.start(), span[1])


def read_supplement(written: str) -> Supplement:
    """The 부칙 that `SUPPLEMENT` matched, as a value."""
    date = kind = number = None
    for part in _SUPPLEMENT_PARTS.finditer(written):
        if part["date"]:
            date = _date(part["date"])
        else:
            kind, number = part["kind"], int(part["number"])
    return Supplement(date, kind, number)
