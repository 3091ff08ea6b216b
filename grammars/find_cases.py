"""Finding case citations in running text, for grammars.find: the lenient case pattern (court, date,
선고/자, number, disposition, each optional around a number), lists that share a court and date,
and law.go.kr's bracketed headers. Each regex comment says which false positive it blocks."""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import cast

from grammars.boundary import MIDDLE_DOTS, NOT_AFTER_WORD
from grammars.case_codes import SUPREME_COURT_CODES
from grammars.citation import CaseCitation, Disposition, Panel
from grammars.courts import COURTS, OUT_OF_SEAT_PREFIXES
from grammars.expr import Literals
from grammars.found import CitationForm, FoundCitation
from grammars.languages.case import DISPOSITIONS, FULL_BENCH_MARK, PANELS, SUPREME_SHORTHAND, default_codes
from grammars.languages.drafts import LOOSE_SPACE
from grammars.match_memo import Fields, memoized_reader
from grammars.name_pattern import literal_trie
from grammars.parse import build_case, build_case_number, full_year
from grammars.patterns import load_or_compile

_SPACE = LOOSE_SPACE
_GAP = _SPACE + "*"
# Between the words of a case citation's head a judgment's lines may wrap (`… 선고\n2017다38279 판결`):
# one line break, never a blank line, so two paragraphs do not fuse. Read in part, such a citation was a
# bare number, and re-citation wrote its court and date again after the ones already there.
_LINE_GAP = rf"{_GAP}(?:\r?\n{_GAP})?"
_COURT_BY_ABBREVIATION = {short: court.name for court in COURTS for short in court.abbreviations}
# `서울고등 2019나1234`: a high court without its 법원, as short headers write it.
_COURT_BY_ABBREVIATION |= {court.name.removesuffix("법원"): court.name for court in COURTS
                           if court.name.endswith("고등법원")}
_WRITTEN_COURTS = (*(court.name for court in COURTS), *_COURT_BY_ABBREVIATION, *SUPREME_SHORTHAND)
# `2024. 7. 11.`, `2024.7.11`, `2024년 7월 11일`, `2020-6-16.`, `4287. 5. 12.` (단기, the calendar of decisions before
# 1962); only ever part of a case pattern that needs a number, so `2024년 7월` in prose is not a citation.
_YEAR = r"(?:19|20)[0-9]{2}|42[89][0-9]"
# After a court, older writing gives the year in two digits (`대결73.7.26. 73마656`, `대판 91.3.29, 90마819`);
# the case number's year says the century (`_safe_date`). Without a court, `12.3.4. 12다345` is no date.
_SHORT_YEAR_AFTER_COURT = r"(?(court)[0-9]{2}(?=\.)|(?!))"


def _date(year: str, suffix: str = "") -> str:
    """A date, its year written as `year`; its groups are year, month and day with `suffix`."""
    return (
        rf"(?P<year{suffix}>{year})(?:{_GAP}\.{_GAP}|년{_GAP}|-)"
        rf"(?P<month{suffix}>[0-9]{{1,2}})(?:{_GAP}\.{_GAP}|월{_GAP}|-)"
        rf"(?P<day{suffix}>[0-9]{{1,2}})(?:{_GAP}\.|일)?"
    )


_DATE = _date(_YEAR)
_DANGI = 2333  # 단기 year - 2333 = 서기 year
_MOST_YEARS_TO_DECIDE = 10  # a two-digit year read this long after the case number's year at most
# 사건부호 of the 단기 years, before the present list (`4287형상55`, `4292민상123`).
_OLD_CODES = ("민상", "형상", "민항", "형항", "행상", "민재항", "민공")


def _case_number(after_head: str = "") -> str:
    """The case number pattern; `after_head`, another way the gap after the code may go (the case pattern's)."""
    return (
        rf"(?:\({_GAP}(?P<seat>{Literals(OUT_OF_SEAT_PREFIXES).to_regex()}){_GAP}\){_GAP})?"
        # Blocks `12024도…` (a longer number is not a year), `1500도` (not a year of the courts) and
        # `…4202` running on into more digits.
        rf"(?<![0-9])(?P<case_year>(?P<long_year>(?:19|20)[0-9]{{2}}|42[89][0-9])|[0-9]{{2}})"
        # The same gap on both sides of the code: `2024 도 4202` is a spaced number and
        # `2025-구단-10915` the 국세법령정보시스템 style, while `2024가 1000` is a number followed
        # by the particle 가 in prose.
        rf"(?P<gap>{_SPACE}?|-)(?P<code>{Literals((*default_codes(), *_OLD_CODES)).to_regex()})(?:(?P=gap){after_head})"
        # `85가합1370호`: the number's own 호 belongs to it.
        rf"(?P<serial>[1-9][0-9]{{0,6}})(?![0-9]){_NOT_A_COUNT}(?:호(?![가-힣]))?"
    )


# A unit glued to a serial makes it an amount or a count (`10조4천억원`, `12조3000억`: 조 is also the 사건부호 of
# 즉결심판; `2023나 12명`, `2023가 1심`, `2019다1234·5건`, `~5개월`), never a case number.
_NOT_A_COUNT = "(?![천백십만억조원심명건개회년월일차번세층])"


_CASE_NUMBER = _case_number()
# After a court, or 선고/자, a number of a four-digit year is one whatever its gaps: a PDF's text spaces one side only
# (`대법원 2014. 7. 24. 선고 2013 두16591 판결`, `… 2013두 25924 판결`, `대전가정법원 천안지원 2023드합 10744`).
# After a bare date it is not: `2024. 3. 4. 12가 3456 승용차` is a car's plate.
_GAP_AFTER_HEAD = rf"|(?(long_year)(?(court){_SPACE}?|(?(delivery){_SPACE}?|(?!)))|(?!))"
_PANEL = Literals(PANELS).to_regex()
_DISPOSITION = Literals(DISPOSITIONS).to_regex()
_CASE_TAIL = (
    # `2011다112391(전원합의체 판결)`: panel and disposition in brackets after the number (a case note's header)
    rf"(?:{_GAP}(?P<tail_open>\((?={_GAP}(?:{_PANEL}|{_DISPOSITION}))))?"
    rf"(?:{_GAP}(?:,{_GAP})?(?P<panel>{_PANEL}))?"
    # `87가합687 제11부판결`: the deciding division, written before the disposition only. Never on the next
    # line: `서울고등법원 2023누68205\n판결 요약` is a heading after the number (a law firm's page).
    rf"(?:{_GAP}(?P<disposition>(?:제[1-9][0-9]{{0,2}}(?:민사|형사|행정)?부{_GAP})?"
    # `98헌바88 결정문` names the document: the citation stops before it.
    rf"{_DISPOSITION})(?!문))?(?(tail_open){_GAP}\))"
)
# `대법원 2001. 12. 11. 선고 2001다83838, 2001다83845 판결`: the later numbers of a list share the
# court and date written before them and the disposition written after the last. A later number may
# be its serial alone (`2006허1803, 1827 판결`: 2006허1827), taking the year and 사건부호 of the number
# before it; only in a list closed by a disposition, so that the `2020` of `2019다1, 2020. 3. 4. …` or a
# page number after a comma is not read as one.
# `89르114(본심),848(반심)`, `2012다86895(본소), 86901(반소)`: numbers marked as the claim and the
# counterclaim of one case are a list, closed or not.
_ROLE = r"\((?:본소|반소|본심|반심)\)"
# A role written before the list's closing panel or disposition is inside the last number's span, which
# then runs to 판결 (`86901(반소) 전원합의체 판결`).
_BEFORE_TAIL = (rf"(?={_GAP}(?:,{_GAP})?(?:{_PANEL}|제[1-9]|"
                rf"{_DISPOSITION}))")
_CASE_LIST_ITEM = re.compile(
    # `2021나79254·79261 판결`, `2003헌가5·6`: a middle dot joins the numbers of cases decided together, as a
    # comma does; `2001헌가9~15`: a run of them
    rf"(?P<role_before>{_ROLE})?{_GAP}(?P<separator>[,~{MIDDLE_DOTS}]){_GAP}"
    rf"(?P<listed>(?:{_CASE_NUMBER}|(?P<later_serial>[1-9][0-9]{{0,6}})(?![0-9.]){_NOT_A_COUNT})"
    rf"(?:(?P<role_inside>{_ROLE}){_BEFORE_TAIL})?{_CASE_TAIL})(?P<role>{_ROLE})?"
)


def case_pattern(cache_dir: Path | None = None) -> re.Pattern[str]:
    """The lenient case pattern; kept in `cache_dir` across processes where one is given (grammars.patterns)."""
    return load_or_compile("lenient case pattern", _case_source, cache_dir)


def _case_source() -> str:
    return (
        NOT_AFTER_WORD
        # A court the table lacks is read by its shape: a branch of an old or renamed court
        # (`서울지방법원 남부지원`), kept as written. The 230 courts and abbreviations as a trie: as a flat
        # alternation they cost a check each at every word of a text, a third of the pattern's scan.
        + rf"(?:(?P<court>{literal_trie(_WRITTEN_COURTS)}|[가-힣]{{1,8}}(?:지방|가정)법원{_SPACE}[가-힣]{{1,4}}지원)"
        + rf"(?P<full_bench>{re.escape(FULL_BENCH_MARK)})?(?:{_LINE_GAP}|-)"
        # the deciding division, written after the court too (`서울고등법원 제3특별부 2006누22080`): no part of
        # the citation's value, as before the disposition
        + rf"(?:제[1-9][0-9]{{0,2}}(?:민사|형사|행정|특별)?부{_LINE_GAP})?)?"
        # Every run of spaces is followed by something it cannot also match (a comma, 선고, a digit),
        # so a long run of spaces costs linear time, never a backtracking blow-up.
        rf"(?:(?P<date>{_date(f'{_YEAR}|{_SHORT_YEAR_AFTER_COURT}')}){_LINE_GAP}(?:(?P<comma>,){_LINE_GAP})?"
        rf"(?:(?P<delivery>선고|자){_LINE_GAP}(?:,{_LINE_GAP})?)?)?"
        + _case_number(_GAP_AFTER_HEAD)
        # `서울고법 2021나2008550 (2022.01.11.)`: the date in brackets after the number, where none came before
        + rf"(?(date)|(?:{_GAP}\((?P<date_after>{_date(_YEAR, '_after')})\))?)"
        + _CASE_TAIL
    )


# What ends a case citation's head (a court, a date, 선고 or 자), then only spaces, line breaks and an
# opening bracket: `대법원(2019. 2. 21. 선고 2017다38279 판결)`, `… 선고\n\n2017다38279`.
_HEAD_BEFORE = re.compile(
    rf"(?:{literal_trie(_WRITTEN_COURTS)}|선고|자|[0-9]{{1,2}}{_GAP}\.|[0-9]{{1,2}}일)[\s(\[\uff08]*\Z")
_HEAD_REACH = 40  # characters looked back: the longest court name, a date and the gaps around them


def head_written_apart(text: str, start: int) -> str | None:
    """The words of a case citation's head just before `start` (across spaces, line breaks and an opening
    bracket), where the finder read a citation starting at `start` without them; None where there are none.
    Filled in from the database, such a citation would repeat its court or date."""
    found = _HEAD_BEFORE.search(text, max(0, start - _HEAD_REACH), start)
    return None if found is None else found.group().strip()


def header_patterns(cache_dir: Path | None = None) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """law.go.kr's headers, whole or not at all: `[대법원 1990. 5. 22., 선고, 90므26, 판결]`,
    `[대법원 1999. 8. 19., 선고, 99다23383, 전원합의체 판결]` and the 헌재's `[전원재판부 2015헌바35, 2015. 9. 24.]`.
    Kept in `cache_dir` as the case pattern is (a hundredth of a second to compile in each process)."""
    return (load_or_compile("court header pattern", _court_header_source, cache_dir),
            load_or_compile("bench header pattern", _bench_header_source, cache_dir))


def _court_header_source() -> str:
    courts = Literals(tuple(court.name for court in COURTS)).to_regex()
    return (rf"\[(?P<court>{courts}){_GAP}{_DATE}{_GAP},{_GAP}(?P<delivery>선고|자){_GAP},{_GAP}{_CASE_NUMBER}"
            rf"{_GAP},{_GAP}(?:(?P<panel>{_PANEL}){_GAP})?"
            rf"(?P<disposition>{_DISPOSITION}){_GAP}\]")


def _bench_header_source() -> str:
    return rf"\[(?P<panel>전원재판부|지정재판부){_GAP}{_CASE_NUMBER}{_GAP},{_GAP}{_DATE}{_GAP}\]"


def find_cases(text: str, pattern: re.Pattern[str],
               headers: tuple[re.Pattern[str], re.Pattern[str]]) -> Iterator[FoundCitation]:
    """Every match of the lenient case `pattern` (`case_pattern()`), with the later numbers of its
    lists, and of the law.go.kr `headers` (`header_patterns()`), overlapping ones included."""
    read_head = _head_reader(pattern)
    before: FoundCitation | None = None  # the last citation with a court, for a list of dated decisions
    for match in pattern.finditer(text):
        head, form = read_head(match)
        if before is not None and head.court is None and head.date is not None and \
                _LIST_SEPARATOR.fullmatch(text, before.span[1], match.start()) and \
                (shared := _dated_list_item(head, before)) is not None:
            head, form = shared, CitationForm.DATED_LIST_ITEM
        for found in _case_list(text, match, head, form):
            before = found if cast(CaseCitation, found.citation).court is not None else None
            yield found
    yield from _headers(text, headers)


# `대법원 2000. 2. 25. 선고 99도4305 판결, 2004. 3. 26. 선고 2003도8231 판결 등 참조`: a later decision of a list
# written with its own date and number shares the court written first (and, after `대판`/`대결`, the
# disposition and delivery the abbreviation states: `대판 1995. 9. 26. 94므1638, 1996. 9. 20. 96므530`).
_LIST_SEPARATOR = re.compile(rf"{_GAP},{_LINE_GAP}")
# The 사건부호 of appeals the 대법원 decides (상고, 재항고, 특별항고, and their 재심): a decision of another court
# written in a list of the 대법원's names its own court, and the other way round.
_SUPREME_CODES = frozenset(code.code for code in SUPREME_COURT_CODES
                           if any(word in code.description for word in ("상고", "재항고", "특별항고")))
# Elections and 기관소송 are heard first by the 대법원 or a 고등법원 alike (수, 주, 추, …)
_EITHER_CODES = frozenset(code.code for code in SUPREME_COURT_CODES if code.category == "선거특별")


def _decides(court: str, code: str) -> bool:
    if court == "헌법재판소" or code.startswith("헌"):
        return court == "헌법재판소" and code.startswith("헌")
    return code in _EITHER_CODES or (code in _SUPREME_CODES) == (court == "대법원")


def _dated_list_item(item: CaseCitation, before: FoundCitation) -> CaseCitation | None:
    """`item` of the court `before` was of; None where that court does not decide its 사건부호 (`수원지방법원 …
    2020고단123 판결, 2022. 1. 7. 선고 2021도999 판결로 확정`: 도 is the 대법원's)."""
    shared = cast(CaseCitation, before.citation)
    if not _decides(cast(str, shared.court), item.case_number.code):  # `before` always has a court
        return None
    if before.form is CitationForm.SUPREME_COURT_ABBREVIATION:
        item = replace(item, disposition=item.disposition or shared.disposition,
                       delivery=item.delivery or shared.delivery)
    return replace(item, court=shared.court)


@functools.cache
def _head_reader(pattern: re.Pattern[str]) -> Callable[[re.Match[str]], tuple[CaseCitation, CitationForm]]:
    """The citation and form of a match of `pattern`, read once per distinct match (grammars.match_memo)."""
    return memoized_reader(pattern, _case_head)


def _case_head(written: str, fields: Fields) -> tuple[CaseCitation, CitationForm]:
    head = _case_citation(fields)
    return head, _case_form(written, fields, head)


def _headers(text: str, patterns: tuple[re.Pattern[str], re.Pattern[str]]) -> Iterator[FoundCitation]:
    court_header, bench_header = patterns
    if "[" not in text:
        return
    for match in court_header.finditer(text):
        fields = match.groupdict()
        yield FoundCitation(match.span(), build_case(
            case_year=fields["case_year"], code=fields["code"], serial=fields["serial"], seat=fields["seat"],
            court=fields["court"], date=_safe_date(fields["year"], fields["month"], fields["day"]),
            delivery=fields["delivery"], panel=fields["panel"], disposition=fields["disposition"]),
            CitationForm.CASE_HEADER)
    for match in bench_header.finditer(text):
        fields = match.groupdict()
        yield FoundCitation(match.span(), build_case(
            case_year=fields["case_year"], code=fields["code"], serial=fields["serial"], seat=fields["seat"],
            court="헌법재판소", date=_safe_date(fields["year"], fields["month"], fields["day"]),
            delivery="선고", panel=fields["panel"], disposition="결정"), CitationForm.CASE_HEADER)

# `2003헌가5·6`, `2001헌가9~15`: a bare number with more joined to it is a list too
_JOINED = re.compile(rf"[~{MIDDLE_DOTS}][1-9]")


def _case_list(text: str, match: re.Match[str], head: CaseCitation, form: CitationForm) -> Iterator[FoundCitation]:
    first = FoundCitation(match.span(), head, form)
    items: list[re.Match[str]] = []
    end = match.end()
    # Only a head that wrote a court or date and no disposition yet can share them with a list.
    is_head = head.disposition is None and (head.court is not None or head.date is not None
                                             or text.startswith(("(본", "(반"), end) or _JOINED.match(text, end))
    while is_head and (item := _CASE_LIST_ITEM.match(text, end)):
        items.append(item)
        end = item.end()
        if item.group("disposition"):
            break
    if items and not items[-1].group("disposition") and items[-1].group("role", "role_inside") == (None, None):
        # unclosed: no serial alone counts after a comma (`2019다1234, 12면`), as none is a page after `·` or `~`
        items = list(itertools.takewhile(
            lambda item: not item.group("later_serial") or item.group("separator") != ",", items))
    if not items:
        yield first
        return
    last = items[-1]
    shared = replace(head, panel=head.panel or cast("Panel | None", last.group("panel")),
                     disposition=_disposition(last.group("disposition")))
    yield FoundCitation(first.span, shared, first.form)
    number = head.case_number
    for item in items:
        if item.group("later_serial"):
            if item.group("separator") == "~" and int(item.group("later_serial")) <= number.serial:
                break  # a run ends above where it starts (`2019다1234~5` is no run: a count follows, or a typo)
            number = replace(number, serial=int(item.group("later_serial")))
            form = CitationForm.RANGE if item.group("separator") == "~" else CitationForm.CASE_NUMBER_SHORTHAND
        else:
            number = build_case_number(*item.group("case_year", "code", "serial", "seat"))
            form = CitationForm.LIST_CONTINUATION
        yield FoundCitation(item.span("listed"), replace(shared, case_number=number), form)

def _case_citation(fields: Fields) -> CaseCitation:
    written_court = fields["court"]
    court = _COURT_BY_ABBREVIATION.get(written_court, written_court)
    disposition, delivery = _disposition(fields["disposition"]), fields["delivery"]
    panel = fields["panel"] or ("전원합의체" if fields["full_bench"] else None)
    if written_court in SUPREME_SHORTHAND:
        court = "대법원"
        implied_disposition, implied_delivery = SUPREME_SHORTHAND[written_court]
        disposition, delivery = disposition or implied_disposition, delivery or implied_delivery
    date = None
    if fields["date"] or fields["date_after"]:
        where = "" if fields["date"] else "_after"
        date = _safe_date(fields[f"year{where}"], fields[f"month{where}"], fields[f"day{where}"], fields["case_year"])
        if where and date is not None and date.year < full_year(fields["case_year"]):
            date = None  # a date in brackets before the case was filed is no decision's (a posting's, a hearing's)
    return build_case(
        case_year=fields["case_year"], code=fields["code"], serial=fields["serial"], seat=fields["seat"],
        court=court, date=date, delivery=delivery, panel=panel, disposition=disposition,
    )


def _disposition(written: str | None) -> Disposition | None:
    """`판결` of `제11부판결`: the division before it is not part of the citation's value (the pattern
    ends in one of DISPOSITIONS)."""
    return cast(Disposition, written[-2:]) if written else None


def _safe_date(year: str, month: str, day: str, case_year: str = "") -> dt.date | None:
    """The date written, `None` where it names no day. A two-digit year is the first such year from the
    case number's on (`73.7.26.` of 73마656: 1973; `00.3.4.` of 99다1: 2000; `05.3.4.` of 04다123: 2005),
    none more than `_MOST_YEARS_TO_DECIDE` after it (`99. 3. 4.` of 2000다1 is no date)."""
    if len(year) == 2:
        if len(case_year) not in (2, 4) or case_year.startswith("42"):  # 단기 numbers have no two-digit dates
            return None
        filed = full_year(case_year)
        year_ad = filed - filed % 100 + int(year)
        year_ad += 100 if year_ad < filed else 0
        if year_ad - filed > _MOST_YEARS_TO_DECIDE:
            return None
    else:
        year_ad = int(year) - _DANGI if year.startswith("42") else int(year)
    try:
        return dt.date(year_ad, int(month), int(day))
    except ValueError:  # a messy date that names no day (2월 30일) is kept as "no date found"
        return None


def _case_form(written: str, fields: Fields, citation: CaseCitation) -> CitationForm:
    court = fields["court"]
    dated = fields["date"] is not None or fields["date_after"] is not None
    if dated and citation.date is None:  # `1996. 2. 30.`: no date the database could check
        return CitationForm.IMPOSSIBLE_DATE
    if citation.is_complete and citation.canonical() == written:
        return CitationForm.CANONICAL
    if court in SUPREME_SHORTHAND:
        return CitationForm.SUPREME_COURT_ABBREVIATION
    if court in _COURT_BY_ABBREVIATION:
        return CitationForm.COURT_ABBREVIATION
    if court is None or not dated:
        return CitationForm.BARE_CASE_NUMBER
    if fields["gap"]:
        return CitationForm.SPACED_CASE_NUMBER
    if fields["comma"] or "," in written:
        return CitationForm.COMMA_SEPARATED
    return CitationForm.LOOSE_SPACING
