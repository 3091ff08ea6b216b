"""Finding citations in running text, canonical and messy: the first step of re-citation.

`find_citations(text)` returns each citation found as a `FoundCitation(span, citation, form)`, where
`form` names how it was written. Canonical finding (`lenient=False`) runs the grammars' own
expressions; lenient finding runs the patterns below, which recognise the drafts' variants of
../shared/reference/legal-citations.md §1.3 and §2.3 and fill only the fields that were written
(a back-reference keeps `back_reference` and leaves `act` None for the resolver). Overlapping
matches are resolved longest first. Each lenient pattern says which false positive it blocks.

Scanned text is read through `read_scanned`: full-width digits and punctuation, and a few OCR
confusions that cannot be anything else where they stand (`제75O조`, `제l7조`, `대법윈`), are read
as what they stand for; the span stays the one written and `scanned` says what was read otherwise. The
form stays the one found in what was read (a `１８２７ 판결` keeps the form saying it took its year and
사건부호 from the number before it); only a citation otherwise canonical takes the reading as its form.

Like the automaton, finding starts a citation only at a word boundary (grammars.boundary), so a name
inside a longer word is no citation: `군형법 제100조` holds no `형법` one, and in `서울대법원 2020. 1. 1.
선고 2019다1 판결` only the date and number are found, with no court.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from enum import Enum

from grammars.boundary import NOT_AFTER_WORD
from grammars.citation import CaseCitation, ParsedCitation, StatuteCitation
from grammars.courts import COURTS, OUT_OF_SEAT_PREFIXES
from grammars.expr import Literals
from grammars.languages.case import DISPOSITIONS, FULL_BENCH_MARK, PANELS, SUPREME_SHORTHAND, default_codes
from grammars.languages.drafts import LOOSE_SPACE
from grammars.languages.lexicon import Lexicon
from grammars.languages.statute import BACK_REFERENCES, SUBITEM_LETTERS
from grammars.parse import CitationParser, build_case, build_case_number, build_statute, default_parser


class CitationForm(str, Enum):
    """How a found citation was written; a citation with several quirks gets the first that applies."""

    CANONICAL = "canonical"
    SUPREME_COURT_ABBREVIATION = "대판/대결"
    COURT_ABBREVIATION = "court abbreviation"
    BARE_CASE_NUMBER = "bare case number"
    SPACED_CASE_NUMBER = "spaced case number"
    COMMA_SEPARATED = "commas instead of 선고"
    LOOSE_SPACING = "loose spacing or dots"
    BACK_REFERENCE = "back-reference"
    QUOTED_ACT = "「」-quoted act"
    ABBREVIATED_ACT = "약칭 or informal abbreviation"
    COMPACT_PROVISION = "compact provision"
    LIST_CONTINUATION = "later provision of a list"
    CASE_NUMBER_SHORTHAND = "later case number without its year and 사건부호"
    DECREE_BACK_REFERENCE = "같은 법 시행령/시행규칙"
    DECREE_SHORT_NAME = "영/규칙 for a 시행령/시행규칙"
    SAME_DECREE = "같은 영/같은 시행령/동령/같은 규칙 for the 시행령/시행규칙 cited before"
    DECLARES_SHORT_NAME = "declares a short name (이하 '…'이라 한다)"
    FULL_WIDTH = "full-width digits or punctuation"
    OCR_CONFUSION = "OCR confusion"


@dataclass(frozen=True, slots=True)
class FoundCitation:
    span: tuple[int, int]  # text[span[0]:span[1]] is the citation as written
    citation: ParsedCitation
    form: CitationForm
    # The short name (`법`, `영`, `규칙`) the citation declares for its act: `근로기준법 시행령(이하 '영'이라
    # 한다) 제30조`. Later `영 제5조` refer to it, so a rewrite must keep the declaration.
    declares: str | None = None
    # FULL_WIDTH or OCR_CONFUSION where the citation was read otherwise than written (`read_scanned`).
    scanned: CitationForm | None = None


_SPACE = LOOSE_SPACE
_GAP = _SPACE + "*"
_COURT_BY_ABBREVIATION = {short: court.name for court in COURTS for short in court.abbreviations}
# `2024. 7. 11.`, `2024.7.11`, `2024년 7월 11일`; only ever part of a case pattern that needs a number,
# so `2024년 7월` in prose is not a citation.
_DATE = (
    rf"(?P<year>(?:19|20)[0-9]{{2}})(?:{_GAP}\.{_GAP}|년{_GAP})"
    rf"(?P<month>[0-9]{{1,2}})(?:{_GAP}\.{_GAP}|월{_GAP})"
    rf"(?P<day>[0-9]{{1,2}})(?:{_GAP}\.|일)?"
)


_CASE_NUMBER = (
    rf"(?:\({_GAP}(?P<seat>{Literals(OUT_OF_SEAT_PREFIXES).to_regex()}){_GAP}\){_GAP})?"
    # Blocks `12024도…` (a longer number is not a year), `1500도` (not a year of the courts) and
    # `…4202` running on into more digits.
    rf"(?<![0-9])(?P<case_year>(?:19|20)[0-9]{{2}}|[0-9]{{2}})"
    # The same gap on both sides of the code: `2024 도 4202` is a spaced number and
    # `2025-구단-10915` the 국세법령정보시스템 style, while `2024가 1000` is a number followed
    # by the particle 가 in prose.
    rf"(?P<gap>{_SPACE}?|-)(?P<code>{Literals(default_codes()).to_regex()})(?P=gap)"
    rf"(?P<serial>[1-9][0-9]{{0,6}})(?![0-9])"
)
_CASE_TAIL = (
    rf"(?:{_GAP}(?:,{_GAP})?(?P<panel>{Literals(PANELS).to_regex()}))?"
    rf"(?:{_GAP}(?P<disposition>{Literals(DISPOSITIONS).to_regex()}))?"
)
# `대법원 2001. 12. 11. 선고 2001다83838, 2001다83845 판결`: the later numbers of a list share the
# court and date written before them and the disposition written after the last. A later number may
# be its serial alone (`2006허1803, 1827 판결`: 2006허1827), taking the year and 사건부호 of the number
# before it; only in a list closed by a disposition, so that the `2020` of `2019다1, 2020. 3. 4. …` or a
# page number after a comma is not read as one.
_CASE_LIST_ITEM = re.compile(
    rf"{_GAP},{_GAP}(?P<listed>(?:{_CASE_NUMBER}|(?P<later_serial>[1-9][0-9]{{0,6}})(?![0-9])){_CASE_TAIL})"
)


def _case_pattern() -> re.Pattern[str]:
    written = tuple(court.name for court in COURTS) + tuple(_COURT_BY_ABBREVIATION) + tuple(SUPREME_SHORTHAND)
    courts = Literals(written)
    return re.compile(
        NOT_AFTER_WORD
        + rf"(?:(?P<court>{courts.to_regex()})(?P<full_bench>{re.escape(FULL_BENCH_MARK)})?(?:{_GAP}|-))?"
        # Every run of spaces is followed by something it cannot also match (a comma, 선고, a digit),
        # so a long run of spaces costs linear time, never a backtracking blow-up.
        rf"(?:(?P<date>{_DATE}){_GAP}(?:(?P<comma>,){_GAP})?(?:(?P<delivery>선고|자){_GAP}(?:,{_GAP})?)?)?"
        + _CASE_NUMBER
        + _CASE_TAIL
    )


_NUMBER = r"[1-9][0-9]{0,3}"
_LOWER_LEVELS = (
    rf"(?:{_GAP}제{_GAP}(?P<paragraph>[1-9][0-9]?){_GAP}항)?"
    rf"(?:{_GAP}제{_GAP}(?P<item>[1-9][0-9]{{0,2}}){_GAP}호(?:{_GAP}의{_GAP}(?P<item_branch>[1-9][0-9]?))?"
    rf"(?:{_GAP}(?P<subitem>[{''.join(SUBITEM_LETTERS)}]){_GAP}목)?)?"
)
# `제3조의 규정`: the branch needs digits after 의, so a possessive 의 is left out of the citation.
_ARTICLE = rf"제{_GAP}(?P<article>{_NUMBER}){_GAP}조(?:{_GAP}의{_GAP}(?P<article_branch>[1-9][0-9]?))?"
_PROVISION = rf"(?P<provision>{_ARTICLE}{_LOWER_LEVELS})"
# Drafts write the official middle dot ㆍ (U+318D) as · or ・, and drop the spaces of long names
# (`개인정보보호법`); names are matched and looked up modulo both.
_MIDDLE_DOTS = str.maketrans({"·": "ㆍ", "・": "ㆍ"})


def fold_name(name: str) -> str:
    return "".join(name.split()).translate(_MIDDLE_DOTS)


# Full-width ASCII (`제７５０조`, `２０２４．７．１１．`), as Asian input methods and PDF exports write it.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_ANY_FULL_WIDTH = re.compile("[\uff01-\uff5e]")  # a search in C spares most texts the translation
# Letters OCR reads for digits. Read as digits only inside an article, paragraph or item number that
# holds a real digit too (`제75O조`, `제l7조`, `제1O항`): `제O조`, a `Model I` or an `l` in English prose
# stay letters, so no confusion alone makes a number, let alone a citation.
_DIGIT_LOOKALIKES = str.maketrans("OoIl|", "00111")
_SCANNED_NUMBER = re.compile(rf"제{_SPACE}*(?=[0-9OoIl|]*[0-9])[0-9OoIl|]{{1,4}}(?={_GAP}[조항호])")
# `법윈` is no Korean word; OCR reads it for 법원 (`대법윈`, `서울고등법윈`).
_MISREAD, _MEANT = "법윈", "법원"


def read_scanned(text: str) -> str:
    """`text` as its writer meant it where scanning or a full-width input method changed it, one
    character for one, so every span of the result is a span of `text`."""
    read = text.translate(_FULL_WIDTH) if _ANY_FULL_WIDTH.search(text) else text
    read = _SCANNED_NUMBER.sub(lambda number: number.group().translate(_DIGIT_LOOKALIKES), read)
    return read.replace(_MISREAD, _MEANT)


def _as_scanned(found: FoundCitation, written: str, read: str) -> FoundCitation:
    """A citation found in `read_scanned` text, with `scanned` saying what was read otherwise."""
    if written == read:
        return found
    full_width = written.translate(_FULL_WIDTH) == read
    scanned = CitationForm.FULL_WIDTH if full_width else CitationForm.OCR_CONFUSION
    # The reading is the last quirk in CitationForm's order: it replaces only CANONICAL, so that a form
    # saying what the citation took from the text before it (a list, a serial alone, 같은 법) stays.
    form = scanned if found.form is CitationForm.CANONICAL else found.form
    return replace(found, form=form, scanned=scanned)


def _lenient_names(names: Iterable[str]) -> str:
    alternatives = sorted(set(names), key=len, reverse=True)
    return "(?:" + "|".join(
        re.escape(name).replace("\\ ", _SPACE + "?").replace("ㆍ", "[ㆍ·・]") for name in alternatives
    ) + ")"


SHORT_NAMES = ("법", "영", "규칙")  # what `(이하 '영'이라 한다)` may declare; `법 제3조` and `영 제5조` use them
# The kind of act each short name of a subordinate act stands for, named in the text before it.
DECREE_KIND_OF_SHORT_NAME = {"영": "시행령", "규칙": "시행규칙"}
# `같은 영 제5조`, `동령 제5조`, `같은 시행규칙 제3조`: the very 시행령/시행규칙 (or, for `같은 규칙`, any rule)
# cited before, even with another act cited since; unlike `같은 법`, which names a 법률. Keyed by spelling.
SAME_DECREE_KIND = {"같은 영": "시행령", "같은 시행령": "시행령", "동령": "시행령", "동 시행령": "시행령",
                    "같은 시행규칙": "시행규칙", "같은 규칙": "규칙"}
_SAME_DECREE_BY_FOLD = {fold_name(spelling): spelling for spelling in SAME_DECREE_KIND}
_QUOTE = "['\"‘’“”]"
# `(이하 '영'이라 한다)`, `(이하 "법")`, `(이하 규칙이라고 한다)`, `(이하 '영'이라 함)`.
_DECLARATION = (
    rf"\({_GAP}이하{_GAP}{_QUOTE}?(?P<declared>{Literals(SHORT_NAMES).to_regex()}){_QUOTE}?"
    rf"(?:{_GAP}이?라고?{_GAP}(?:한다|함))?{_GAP}\)"
)


def _statute_pattern(names: Iterable[str]) -> re.Pattern[str]:
    return re.compile(
        # 「」 marks a name the lexicon may not know; a law-like ending keeps out 「별표 1」 and titles.
        # The quote mark itself starts a new word, so no boundary is asked before it.
        rf"(?:「(?P<quoted>[^」\n]{{1,80}}?(?:법|법률|령|규칙|규정))」"
        # Every other head starts a word (one lookbehind for all: one per alternative made the scan 40 %
        # slower). A name glued to a preceding word (`군형법` for 형법, `국민법`) is not a statute name.
        rf"|{NOT_AFTER_WORD}(?:(?P<act>{_lenient_names(names)})"
        # `같은 법 시행령`, `동법 시행규칙`: the decree or rule of the act cited before.
        rf"|(?P<decree_of>같은{_SPACE}?법|동법){_GAP}(?P<decree_kind>시행령|시행규칙)"
        # `같은 영`, `동령`, `같은 규칙`: only right before `제N조`, so `같은 영역`, `같은 규칙적인`, `동령리` stay prose.
        rf"|(?P<same_decree>같은{_SPACE}?(?:시행령|시행규칙|영|규칙)|동령|동{_SPACE}?시행령)"
        # A bare `법 제3조` counts only when 법 stands alone: `민법학 제3조`, `방법 제3조` are not references.
        rf"|(?P<back_reference>{Literals((*BACK_REFERENCES, '법')).to_regex()})"
        # `영 제5조`, `규칙 제3조`: standing alone, so not the end of `시행령` or `민사소송규칙`, nor of a
        # rule's own name (`…에 관한 규칙 제3조`); the finder also asks for a 시행령/시행규칙 cited before,
        # so that `사내 규칙 제3조` in a text citing none is no citation.
        rf"|(?<!관한 )(?<!대한 )(?P<short_name>영|규칙)))"
        # `근로기준법 시행령(이하 '영'이라 한다) 제30조`: the declaration sits between name and article.
        rf"(?:{_GAP}(?P<declaration>{_DECLARATION}))?"
        rf"{_GAP}{_PROVISION}"
    )


# `동조`, `같은 항` cite the previous article or paragraph; the lookahead blocks verbs and nouns built
# on them (`동조했다`, `같은 조건`) while letting the particles 의/에 through (`동조의 규정`).
# `동법 제3항` skips the article (the resolver takes the one cited before); it needs the 항, so that
# `동법` alone, a word for "the same method", is left alone.
_SAME_PROVISION = re.compile(
    rf"{NOT_AFTER_WORD}(?:(?P<back_reference>동조|같은 조|동항|같은 항)(?=[의에]?(?![가-힣]))"
    rf"|(?P<act_reference>같은 법|동법)(?={_GAP}제{_GAP}[1-9][0-9]?{_GAP}항)){_LOWER_LEVELS}"
)


# `민법 제750조, 제751조`, `… 제1항 및 제2항`: later provisions of a list belong to the act (and, when
# they start below the article, to the article) cited first. The separator is required, so a citation
# followed by prose (`민법 제750조 제3자`) gains nothing.
_LIST_ITEM = re.compile(
    rf"{_GAP}(?:,|및|과|와){_GAP}(?P<provision>(?:{_ARTICLE})?{_LOWER_LEVELS})"
)


def _list_items(text: str, end: int, first: StatuteCitation) -> Iterator[FoundCitation]:
    previous = first
    while (item := _LIST_ITEM.match(text, end)) and item.group("provision"):
        fields = item.groupdict()
        del fields["provision"]
        if fields["article"] is None:
            fields["article"] = str(previous.article)
            fields["article_branch"] = _str_or_none(previous.article_branch)
            if fields["paragraph"] is None:
                fields["paragraph"] = _str_or_none(previous.paragraph)
        previous = build_statute(act=first.act, back_reference=first.back_reference, **fields)
        yield FoundCitation(item.span("provision"), previous, CitationForm.LIST_CONTINUATION)
        end = item.end()


def _str_or_none(number: int | None) -> str | None:
    return None if number is None else str(number)


def _pop_first(fields: dict[str, str | None], *names: str) -> str | None:
    """Remove the alternative groups `names` from `fields`; the value of the one that matched."""
    values = [fields.pop(name) for name in names]
    return next((value for value in values if value is not None), None)


def _safe_date(year: str, month: str, day: str) -> dt.date | None:
    try:
        return dt.date(int(year), int(month), int(day))
    except ValueError:  # a messy date that names no day (2월 30일) is kept as "no date found"
        return None


class CitationFinder:
    """Compiled patterns for one lexicon; shared, immutable."""

    def __init__(self, parser: CitationParser) -> None:
        self.lexicon = parser.lexicon
        self.parser = parser
        self.case_pattern = _case_pattern()
        written_names = self.lexicon.grammar_names + tuple(self.lexicon.informal)
        self.statute_pattern = _statute_pattern(written_names)
        # Reversed, so that the first of two names that fold alike wins.
        self.name_by_fold = {fold_name(name): name for name in reversed(written_names)}

    @functools.cached_property
    def canonical_case_pattern(self) -> re.Pattern[str]:
        return re.compile(NOT_AFTER_WORD + self.parser.case.expr.to_regex())

    @functools.cached_property
    def canonical_statute_pattern(self) -> re.Pattern[str]:
        return re.compile(NOT_AFTER_WORD + self.parser.statute.expr.to_regex())

    def find(self, text: str, lenient: bool = True) -> list[FoundCitation]:
        if not lenient:
            return _longest_first(self._canonical(text))
        read = read_scanned(text)
        found = self._lenient(read)
        if read == text:
            return found
        return [_as_scanned(f, text[slice(*f.span)], read[slice(*f.span)]) for f in found]

    def _canonical(self, text: str) -> Iterator[FoundCitation]:
        for match in self.canonical_case_pattern.finditer(text):
            yield FoundCitation(match.span(), self.parser.case_from_match(match), CitationForm.CANONICAL)
        for match in self.canonical_statute_pattern.finditer(text):
            citation = self.parser.statute_from_match(match)
            form = CitationForm.CANONICAL
            if citation.canonical() != match.group():  # an official 약칭, rendered with the full name
                form = CitationForm.ABBREVIATED_ACT
            yield FoundCitation(match.span(), citation, form)

    def _lenient(self, text: str) -> list[FoundCitation]:
        found = list(self._lenient_matches(text))
        needed = [_kind_needed(f) for f in found]
        if all(kind is None for kind in needed):
            return _longest_first(found)
        # `영`, `규칙`, `같은 규칙` stand for a 시행령, 시행규칙, rule only after a kept citation names one: a match
        # dropped as overlapping a longer one cites nothing, so it enables nothing. They themselves name no
        # kind a citation before them has not, so the other matches alone decide.
        others = (f for f, kind in zip(found, needed, strict=True) if kind is None)
        first_cited = _first_cited(_longest_first(others))
        return _longest_first(f for f, kind in zip(found, needed, strict=True)
                              if kind is None or (kind in first_cited and first_cited[kind] < f.span[0]))

    def _lenient_matches(self, text: str) -> Iterator[FoundCitation]:
        """Every match of the lenient patterns, overlapping ones and `영`/`규칙` with no 시행령/시행규칙 included."""
        for match in self.case_pattern.finditer(text):
            yield from self._case_list(text, match)
        for match in self.statute_pattern.finditer(text):
            first = self._statute(match)
            yield first
            yield from _list_items(text, match.end(), first.citation)
        for match in _SAME_PROVISION.finditer(text):
            fields = match.groupdict()
            reference = _pop_first(fields, "back_reference", "act_reference")
            citation = build_statute(act=None, article=None, back_reference=reference, **fields)
            yield FoundCitation(match.span(), citation, CitationForm.BACK_REFERENCE)

    def _case_list(self, text: str, match: re.Match[str]) -> Iterator[FoundCitation]:
        first = self._case(match)
        head = first.citation
        items, end = [], match.end()
        # Only a head that wrote a court or date and no disposition yet can share them with a list.
        is_head = head.disposition is None and (head.court is not None or head.date is not None)
        while is_head and (item := _CASE_LIST_ITEM.match(text, end)):
            items.append(item)
            end = item.end()
            if item.group("disposition"):
                break
        if items and not items[-1].group("disposition"):  # unclosed: no serial alone counts
            items = list(itertools.takewhile(lambda item: not item.group("later_serial"), items))
        if not items:
            yield first
            return
        last = items[-1]
        shared = replace(head, panel=head.panel or last.group("panel"), disposition=last.group("disposition"))
        yield FoundCitation(first.span, shared, first.form)
        number = head.case_number
        for item in items:
            if item.group("later_serial"):
                number = replace(number, serial=int(item.group("later_serial")))
                form = CitationForm.CASE_NUMBER_SHORTHAND
            else:
                number = build_case_number(*item.group("case_year", "code", "serial", "seat"))
                form = CitationForm.LIST_CONTINUATION
            yield FoundCitation(item.span("listed"), replace(shared, case_number=number), form)

    def _case(self, match: re.Match[str]) -> FoundCitation:
        fields = match.groupdict()
        written_court = fields["court"]
        court = _COURT_BY_ABBREVIATION.get(written_court, written_court)
        disposition, delivery = fields["disposition"], fields["delivery"]
        panel = fields["panel"] or ("전원합의체" if fields["full_bench"] else None)
        if written_court in SUPREME_SHORTHAND:
            court = "대법원"
            implied_disposition, implied_delivery = SUPREME_SHORTHAND[written_court]
            disposition, delivery = disposition or implied_disposition, delivery or implied_delivery
        date = _safe_date(fields["year"], fields["month"], fields["day"]) if fields["date"] else None
        citation = build_case(
            case_year=fields["case_year"], code=fields["code"], serial=fields["serial"], seat=fields["seat"],
            court=court, date=date, delivery=delivery, panel=panel, disposition=disposition,
        )
        return FoundCitation(match.span(), citation, _case_form(match, citation))

    def _statute(self, match: re.Match[str]) -> FoundCitation:
        fields = match.groupdict()
        written_act = _pop_first(fields, "quoted", "act")
        decree_of, decree_kind = fields.pop("decree_of"), fields.pop("decree_kind")
        short_name, declared = fields.pop("short_name"), fields.pop("declared")
        same_decree = fields.pop("same_decree")
        for written_only in ("provision", "declaration"):
            del fields[written_only]
        if decree_of:  # spelled as the back-reference is (`같은법 시행령` too)
            fields["back_reference"] = f"{'동법' if decree_of == '동법' else '같은 법'} {decree_kind}"
        if same_decree:
            fields["back_reference"] = _SAME_DECREE_BY_FOLD[fold_name(same_decree)]
        fields["back_reference"] = fields["back_reference"] or short_name
        act, abbreviated = None, False
        if written_act is not None:
            written_name = self.name_by_fold.get(fold_name(written_act), written_act)
            act = self.lexicon.canonical_name(written_name) or written_act
            abbreviated = written_name in self.lexicon.aliases or written_name in self.lexicon.informal
        citation = build_statute(act=act, **fields)
        return FoundCitation(match.span(), citation, _statute_form(match, citation, abbreviated), declared)


def _kind_needed(found: FoundCitation) -> str | None:
    """The kind of act that must be cited before a match for it to be a citation: a 시행령/시행규칙 before
    `영`/`규칙` (and the later items of their lists), any rule before `같은 규칙` (prose calls internal rules
    규칙: `사내 규칙 제3조 … 같은 규칙 제5조`)."""
    if not isinstance(found.citation, StatuteCitation) or found.citation.back_reference is None:
        return None
    reference = found.citation.back_reference
    if reference in DECREE_KIND_OF_SHORT_NAME:
        return DECREE_KIND_OF_SHORT_NAME[reference]
    return "규칙" if SAME_DECREE_KIND.get(reference) == "규칙" else None


def _first_cited(found: Iterable[FoundCitation]) -> dict[str, int]:
    """Where citations in text order first name (or declare a short name for) each kind of act."""
    first: dict[str, int] = {}
    for citation in found:
        for kind in _decree_kinds(citation):
            first.setdefault(kind, citation.span[0])
    return first


def _decree_kinds(found: FoundCitation) -> set[str]:
    """The kinds of act (시행령, 시행규칙, 규칙) a statute citation names or declares a short name for."""
    if not isinstance(found.citation, StatuteCitation):
        return set()
    named = [found.citation.act or found.citation.back_reference or ""]
    if found.declares in DECREE_KIND_OF_SHORT_NAME:
        named.append(DECREE_KIND_OF_SHORT_NAME[found.declares])
    return {kind for kind in ("시행령", "시행규칙", "규칙") for name in named if name.endswith(kind)}


def _case_form(match: re.Match[str], citation: CaseCitation) -> CitationForm:
    court = match.group("court")
    if citation.is_complete and citation.canonical() == match.group():
        return CitationForm.CANONICAL
    if court in SUPREME_SHORTHAND:
        return CitationForm.SUPREME_COURT_ABBREVIATION
    if court in _COURT_BY_ABBREVIATION:
        return CitationForm.COURT_ABBREVIATION
    if court is None or match.group("date") is None:
        return CitationForm.BARE_CASE_NUMBER
    if match.group("gap"):
        return CitationForm.SPACED_CASE_NUMBER
    if match.group("comma") or "," in match.group():
        return CitationForm.COMMA_SEPARATED
    return CitationForm.LOOSE_SPACING


def _statute_form(match: re.Match[str], citation: StatuteCitation, abbreviated: bool) -> CitationForm:
    if match.group("declaration"):
        return CitationForm.DECLARES_SHORT_NAME
    if match.group("decree_of"):
        return CitationForm.DECREE_BACK_REFERENCE
    if match.group("short_name"):
        return CitationForm.DECREE_SHORT_NAME
    if match.group("same_decree"):
        return CitationForm.SAME_DECREE
    if citation.back_reference:
        return CitationForm.BACK_REFERENCE
    if match.group("quoted"):
        return CitationForm.QUOTED_ACT
    if abbreviated:
        return CitationForm.ABBREVIATED_ACT
    if citation.canonical() == match.group():
        return CitationForm.CANONICAL
    provision = match.group("provision")
    parts = sum(1 for level in ("paragraph", "item", "subitem") if match.group(level))
    if parts and not re.search(r"\s", provision):
        return CitationForm.COMPACT_PROVISION
    return CitationForm.LOOSE_SPACING


def _longest_first(found: Iterable[FoundCitation]) -> list[FoundCitation]:
    """Keep the longest of overlapping matches (the earlier on a tie), in text order. Linear in the
    text: a byte per character marks where kept matches lie."""
    candidates = sorted(found, key=lambda f: (f.span[0] - f.span[1], f.span[0]))
    taken = bytearray(max((f.span[1] for f in candidates), default=0))
    kept: list[FoundCitation] = []
    for candidate in candidates:
        start, end = candidate.span
        if taken.find(1, start, end) < 0:
            taken[start:end] = b"\x01" * (end - start)
            kept.append(candidate)
    return sorted(kept, key=lambda f: f.span[0])


@functools.cache
def default_finder() -> CitationFinder:
    return CitationFinder(default_parser())


def find_citations(
    text: str, lenient: bool = True, lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None = None
) -> list[FoundCitation]:
    """Every citation in `text`, in order; `lenient=False` finds canonical ones only.

    With a lexicon (a database's), statute names are those of the lexicon; build a `CitationFinder`
    once instead when scanning many documents against a large one.
    """
    finder = default_finder() if lexicon is None else CitationFinder(CitationParser.for_lexicon(lexicon))
    return finder.find(text, lenient)
