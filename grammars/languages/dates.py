"""Real calendar dates written the canonical way, `2024. 7. 11.`, as a grammar expression.

The expression admits exactly the dates that exist: 30-day months stop at 30, February at 28,
and `2. 29.` follows only a leap year. Years are `Literals` (the compiler builds a trie), so
leap years are simply the subset of them that divide the right way.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

from grammars.errors import GrammarError
from grammars.expr import Alt, Expr, Literals, Seq, seq

# The first year a Korean court of the present system decided a case (the 1948 Constitution).
FIRST_YEAR = 1948
LAST_YEAR = 2099



def _numbers(*values: int) -> Literals:
    return Literals(tuple(str(value) for value in values))


# Literals rather than small regexes: the compiler builds tries for them without a regex engine.
_MONTHS_OF_31 = _numbers(1, 3, 5, 7, 8, 10, 12)
_MONTHS_OF_30 = _numbers(4, 6, 9, 11)
_DAYS_TO_31 = _numbers(*range(1, 32))
_DAYS_TO_30 = _numbers(*range(1, 31))
_DAYS_TO_28 = _numbers(*range(1, 29))

_DATE_NUMBERS = re.compile(r"([0-9]{4})\. ([0-9]{1,2})\. ([0-9]{1,2})\.")


def check_year_range(first_year: int, last_year: int) -> None:
    if not 1000 <= first_year <= last_year <= 9999:
        raise GrammarError(
            f"expected a year range of four-digit years with first <= last, got {first_year}..{last_year}"
        )


def year_literals(
    first_year: int = FIRST_YEAR, last_year: int = LAST_YEAR, *, leap_only: bool = False
) -> Literals:
    check_year_range(first_year, last_year)
    years = range(first_year, last_year + 1)
    return Literals(tuple(str(y) for y in years if not leap_only or calendar.isleap(y)))


def date_expr(first_year: int = FIRST_YEAR, last_year: int = LAST_YEAR) -> Expr:
    """`YYYY. M. D.` for every real date of the years first_year..last_year."""
    month_and_day = Alt((
        Seq((_MONTHS_OF_31, Literals((". ",)), _DAYS_TO_31)),
        Seq((_MONTHS_OF_30, Literals((". ",)), _DAYS_TO_30)),
        seq("2. ", _DAYS_TO_28),
    ))
    ordinary = seq(year_literals(first_year, last_year), ". ", month_and_day, ".")
    leap_day = seq(year_literals(first_year, last_year, leap_only=True), ". 2. 29.")
    return Alt((ordinary, leap_day))


def parse_date(text: str) -> dt.date:
    """The date of a string that `date_expr` accepted (so it is real by construction)."""
    found = _DATE_NUMBERS.fullmatch(text)
    if found is None:
        raise GrammarError(f"expected a date written `YYYY. M. D.`, got {text!r}")
    year, month, day = (int(part) for part in found.groups())
    return dt.date(year, month, day)
