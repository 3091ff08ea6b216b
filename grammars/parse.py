"""Parsing a canonical citation: the grammar's own expression, rendered as a regex with named groups.

`parse_citation(text)` accepts exactly the strings the case and statute grammars accept (the whole
string, nothing around it) and returns the value they denote, or None. The same expression is what
the compiler turns into a token mask, so "a citation" has one definition. An official 약칭 the
grammar admits (`주택임대차법 제3조`) parses to its act's full name, so `canonical()` renders the
full name: for every other citation `parse_citation(c.canonical()) == c` and back.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any, cast

from grammars.citation import (
    AmendmentNote,
    BackReference,
    CaseCitation,
    CaseNumber,
    Delivery,
    Disposition,
    Panel,
    ParsedCitation,
    StatuteCitation,
    Supplement,
)
from grammars.errors import GrammarError
from grammars.grammar import CitationGrammar
from grammars.languages.articles import HEAD_SEPARATOR
from grammars.languages.case import case_grammar
from grammars.languages.dates import parse_date
from grammars.languages.lexicon import Lexicon, as_lexicon
from grammars.languages.statute import statute_grammar

_ARTICLE_WRITTEN = re.compile(r"([0-9]+)조(?:의([0-9]+))?")


def full_year(written: str) -> int:
    """`95` -> 1995, `2024` -> 2024: two digits are the years before 2000 (from 1948 on)."""
    year = int(written)
    if len(written) == 2:
        return 1900 + year if year >= 48 else 2000 + year
    return year


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text else None


def build_case_number(case_year: str, code: str, serial: str, seat: str | None = None) -> CaseNumber:
    return CaseNumber(year=full_year(case_year), code=code, serial=int(serial), seat=seat)


def build_case(
    *,
    case_year: str,
    code: str,
    serial: str,
    seat: str | None = None,
    court: str | None = None,
    date: dt.date | None = None,
    delivery: str | None = None,
    panel: str | None = None,
    disposition: str | None = None,
) -> CaseCitation:
    # The grammar's Literals admit only the words these types name. The types are quoted: a Union of
    # Literals built at run time hashes every word, on every citation found.
    return CaseCitation(
        case_number=build_case_number(case_year, code, serial, seat),
        court=court,
        date=date,
        delivery=cast("Delivery | None", delivery),
        disposition=cast("Disposition | None", disposition),
        panel=cast("Panel | None", panel),
    )


def build_statute(
    *,
    act: str | None,
    article: str | None,
    article_branch: str | None = None,
    paragraph: str | None = None,
    item: str | None = None,
    item_branch: str | None = None,
    subitem: str | None = None,
    back_reference: str | None = None,
    former: bool = False,
    amendment: AmendmentNote | None = None,
    supplement: Supplement | None = None,
) -> StatuteCitation:
    return StatuteCitation(
        act=act,
        article=_int_or_none(article),
        article_branch=_int_or_none(article_branch),
        paragraph=_int_or_none(paragraph),
        item=_int_or_none(item),
        item_branch=_int_or_none(item_branch),
        subitem=subitem,
        back_reference=cast("BackReference | None", back_reference),  # the grammar admits only these words
        former=former,
        amendment=amendment,
        supplement=supplement,
    )


class CitationParser:
    """Built once per grammar pair, then shared. The patterns compile on first use: Python's `re`
    takes seconds over a 5,600-act lexicon, which lenient finding never needs; so does the statute
    grammar itself when `for_lexicon` builds it (a second over the statute book's 200,000 article labels)."""

    def __init__(self, case: CitationGrammar, statute: CitationGrammar | None, lexicon: Lexicon) -> None:
        """`statute` None: the statute grammar of `lexicon`, built on first use."""
        self.case = case
        self._statute = statute
        self.lexicon = lexicon

    @functools.cached_property
    def statute(self) -> CitationGrammar:
        return self._statute or statute_grammar(self.lexicon)

    @functools.cached_property
    def case_pattern(self) -> re.Pattern[str]:
        return re.compile(self.case.expr.to_regex())

    @functools.cached_property
    def statute_pattern(self) -> re.Pattern[str]:
        return re.compile(self.statute.expr.to_regex())

    @classmethod
    def for_lexicon(cls, lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None) -> CitationParser:
        return cls(case_grammar(), None, as_lexicon(lexicon))

    def parse(self, text: str) -> ParsedCitation | None:
        found = self.case_pattern.fullmatch(text)
        if found is not None:
            return self.case_from_match(found)
        found = self.statute_pattern.fullmatch(text)
        if found is not None:
            return self.statute_from_match(found)
        return None

    def case_from_match(self, found: re.Match[str]) -> CaseCitation:
        fields = found.groupdict()
        return build_case(
            case_year=fields["case_year"],
            code=fields["code"],
            serial=fields["serial"],
            seat=fields.get("seat"),
            court=fields["court"],
            date=parse_date(fields["date"]),
            delivery=fields["delivery"].strip(),
            panel=fields["panel"],
            disposition=fields["disposition"],
        )

    def statute_from_match(self, found: re.Match[str]) -> StatuteCitation:
        fields: dict[str, Any] = found.groupdict()  # the grammar's named groups: build_statute's fields
        written_act, _, written_article = fields.pop("head").rpartition(HEAD_SEPARATOR)
        article_written = _ARTICLE_WRITTEN.fullmatch(written_article)
        if article_written is None:  # the statute grammar's head always ends in an article
            raise GrammarError(f"expected an article such as 제3조 after the act, got {written_article!r}")
        article, article_branch = article_written.groups()
        act = self.lexicon.canonical_name(written_act)
        return build_statute(act=act, article=article, article_branch=article_branch, **fields)


@functools.cache
def default_parser() -> CitationParser:
    return CitationParser.for_lexicon(None)


def parse_citation(
    text: str, lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None = None
) -> ParsedCitation | None:
    """The citation a canonical string denotes, or None when the whole string is not one.

    With a lexicon (a database's), statute names and articles are those of the lexicon; build a
    `CitationParser` once instead when parsing many strings against a large one.
    """
    parser = default_parser() if lexicon is None else CitationParser.for_lexicon(lexicon)
    return parser.parse(text)
