"""The case-citation language: `대법원 2024. 7. 11. 선고 2024도4202 판결` and its kin.

court · space · real date · (` 선고` | `자`) · space · case number · (` 전원합의체` …)? · ` 판결|결정|명령`.
Which court may use which 사건부호 is a verifier rule (../shared/reference/legal-citations.md §1.2),
not a grammar rule; `courts=` and `codes=` narrow the language when a request asks for it.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable

from grammars.case_codes import ALL_CASE_CODES, LEGACY_CODES
from grammars.citation import Delivery, Disposition, case_year
from grammars.courts import COURTS, COURTS_BY_NAME
from grammars.errors import GrammarError
from grammars.expr import Alt, Capture, Expr, Literals, Opt, Regex, seq
from grammars.grammar import CitationGrammar
from grammars.languages.dates import FIRST_YEAR, LAST_YEAR, check_year_range, date_expr
from grammars.languages.drafts import LOOSE_GAP, LOOSE_SPACE

PANELS = ("전원합의체", "전원재판부", "지정재판부")
# Supreme Court shorthand of drafts: 대판 = 대법원 판결 (선고), 대결 = 대법원 결정 (자).
SUPREME_SHORTHAND: dict[str, tuple[Disposition, Delivery]] = {"대판": ("판결", "선고"), "대결": ("결정", "자")}
FULL_BENCH_MARK = "(전)"  # `대판(전)`: 전원합의체
ANY_DIGIT = Literals(tuple("0123456789"))
DISPOSITIONS = ("판결", "결정", "명령")
# Serials seen reach 7 digits (서울고법 `2018나2045678`); a leading zero never occurs.
SERIAL = Regex("[1-9][0-9]{0,6}")
# A serial of every length: the serial's states are a regex's, each position one state whatever its digit
WARM_SERIAL = "1234567"


def default_codes() -> tuple[str, ...]:
    """The 325 대법원 codes, the 8 헌재 codes and the legacy ones old numbers still carry (`88다카21219`)."""
    return tuple(code.code for code in ALL_CASE_CODES) + tuple(sorted(LEGACY_CODES))


def case_year_literals(first_year: int = FIRST_YEAR, last_year: int = LAST_YEAR) -> Literals:
    """Years as a case number writes them (`case_year`)."""
    check_year_range(first_year, last_year)
    return Literals(tuple(case_year(year) for year in range(first_year, last_year + 1)))


def _chosen(kind: str, chosen: Iterable[str] | None, known: Iterable[str]) -> tuple[str, ...]:
    known = tuple(known)
    if chosen is None:
        return known
    if isinstance(chosen, str):
        raise GrammarError(f"expected an iterable of {kind}s, got the single string {chosen!r}")
    wanted = set(chosen)
    unknown = sorted(wanted.difference(known))
    if unknown:
        raise GrammarError(f"expected {kind}s from grammars' tables, got unknown {unknown[:5]!r}")
    if not wanted:
        raise GrammarError(f"expected at least one {kind}, got none")
    return tuple(item for item in known if item in wanted)  # table order, whatever order was asked


def case_number_expr(codes: tuple[str, ...], seats: tuple[str, ...], first_year: int, last_year: int) -> Expr:
    number = seq(
        Capture("case_year", case_year_literals(first_year, last_year)),
        Capture("code", Literals(codes)),
        Capture("serial", SERIAL),
    )
    if not seats:
        return number
    return seq(Opt(seq("(", Capture("seat", Literals(seats)), ")")), number)


def malformed_heads(
    court_names: tuple[str, ...], codes: tuple[str, ...], first_year: int, last_year: int
) -> tuple[Expr, ...]:
    """Heads that begin no canonical citation, as the lenient finder reads them: a court, its
    abbreviation or 대판/대결, with or without (전), glued, loosely spaced or hyphened to a digit
    (`서울고법 2`, `대판2`, `대법원  2`, `대법원-2`), and a case number outside a citation
    (`2024도4`, `(2024도4`, `2024 도 4`, `2025-구단-1`; the gap is the same on both sides of the code,
    so `2024가 1000`, a number and the particle 가, stays prose)."""
    written = [*court_names, *(short for name in court_names for short in COURTS_BY_NAME[name].abbreviations)]
    if "대법원" in court_names:
        written += tuple(SUPREME_SHORTHAND)
    court = seq(Literals(tuple(written)), Opt(Literals((FULL_BENCH_MARK,))), Alt((LOOSE_GAP, Literals(("-",)))))
    code = Literals(codes)
    number = seq(
        case_year_literals(first_year, last_year),
        Alt((code, seq(Regex(LOOSE_SPACE), code, Regex(LOOSE_SPACE)), seq("-", code, "-"))),
    )
    return seq(court, ANY_DIGIT), seq(number, ANY_DIGIT)


def glued_case_number() -> Expr:
    """A case number glued to the word before it (`판례는2024도4202`): with `forbid_shorthand` an anchor that
    counts inside a word too, as the statute heads' glued one does (statute.glued_head), so a case number
    is written only inside a canonical citation, which holds it and goes on; at a word's start the bare
    number is a malformed head already."""
    return seq(case_year_literals(), Literals(default_codes()), ANY_DIGIT)


def case_grammar(
    courts: Iterable[str] | None = None,
    codes: Iterable[str] | None = None,
    *,
    first_year: int = FIRST_YEAR,
    last_year: int = LAST_YEAR,
    forbid_shorthand: bool = False,
) -> CitationGrammar:
    """Canonical case citations of the given courts (names of grammars.courts) and 사건부호.

    The anchor is a court name, a space and any digit: `대법원 9` too, which begins no citation, so
    that a bare `대법원 95다38677` cannot slip out as free text. With `forbid_shorthand` every
    malformed head anchors as well (`malformed_heads`: `서울고법 2`, `대판 2`, a bare `2024도4202`); no
    citation begins with them, so generation cannot write a case citation otherwise than canonically.
    """
    court_names = _chosen("court name", courts, (court.name for court in COURTS))
    code_texts = _chosen("사건부호", codes, default_codes())
    # A 원외재판부 prefix `(춘천)` belongs to the numbers of that seat's court only.
    seats = tuple(dict.fromkeys(seat for name in court_names if (seat := COURTS_BY_NAME[name].seat)))
    court = Literals(court_names)
    expr = seq(
        Capture("court", court),
        " ",
        Capture("date", date_expr(first_year, last_year)),
        Capture("delivery", Alt((Literals((" 선고",)), Literals(("자",))))),
        " ",
        case_number_expr(code_texts, seats, first_year, last_year),
        Opt(seq(" ", Capture("panel", Literals(PANELS)))),
        " ",
        Capture("disposition", Literals(DISPOSITIONS)),
    )
    anchor: Expr = seq(court, " ", ANY_DIGIT)
    if forbid_shorthand:
        anchor = Alt((anchor, *malformed_heads(court_names, code_texts, first_year, last_year)))
    return CitationGrammar(name="case", expr=expr, anchor=anchor,
                           warm=_warm_citations(code_texts, court_names[0], first_year, last_year))


# 사건부호 that begin longer ones (`다`, `다카`: 32 of them), whose state, the serial's start and the longer codes'
# rest, is walked in Python (0.5 ms a first visit), warmed where they are the commonest: the Supreme Court's civil
# appeals (37 of the 150 case numbers of tests/realtext), a district court's civil cases (가합, 가단, 가소), its
# administrative (구합, 구단) and family (드합, 드단) ones. All 32 would add 15 ms to the grammar's compile.
WARM_CODES = ("다", "가", "구", "드")


def _warm_citations(codes: tuple[str, ...], court: str, first_year: int, last_year: int
                    ) -> tuple[tuple[str, str], ...]:
    """What every case citation shares after its court (`CitationGrammar.warm`): where a date's month and its
    day begin (a day of 31, of 30 and of February, in a common year and in a leap year: a dozen or thirty
    numbers end inside number tokens there, each walked on in Python), where its number begins (a hundred
    years end there), after the year (where any 사건부호 begins), after the 사건부호 (where the serial begins)
    and along a serial of every length, whose rows are a regex's, walked in Python: 0.3-1.7 ms a state on a
    first visit. Then each decade's first digits (`199`, `2024`'s `202`: a state of its own where a token ends,
    0.1 ms a first visit) in a date and in a case number (two digits before 2000: `95다`), and after the
    commonest 사건부호 that begin longer ones (`WARM_CODES`), and along each panel (`전원합의체`: states inside a
    word, 0.1 ms a first visit each)."""
    years = range(first_year, last_year + 1)
    lead, last = f" {last_year}. 1. 1. 선고 ", case_year(last_year)
    warm = [(court, f"{lead}{last}{codes[0]}{WARM_SERIAL} 판결"), (court, f" {last_year}. 4. 1.")]
    warm += [(court, f" {year}. 2. 1.") for year in (
        next((y for y in reversed(years) if not calendar.isleap(y)), None),
        next((y for y in reversed(years) if calendar.isleap(y)), None),
    ) if year is not None]
    decades = [max(decade, first_year) for decade in range(first_year - first_year % 10, last_year + 1, 10)]
    warm += [(court, f" {year}.") for year in decades]
    warm += [(court, f"{lead}{case_year(year)}") for year in decades]
    warm += [(court, f"{lead}{last}{code}") for code in WARM_CODES if code in codes]
    warm += [(court, f"{lead}{last}{codes[0]}{WARM_SERIAL} {panel}") for panel in PANELS]
    return tuple(warm)
