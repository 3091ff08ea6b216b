"""Finding citations in running text, canonical and messy: the first step of re-citation.

`find_citations(text)` returns each citation found as a `FoundCitation(span, citation, form)`, where
`form` names how it was written. Canonical finding (`lenient=False`) runs the grammars' own
expressions; lenient finding runs the patterns below and in grammars.find_cases, which recognise
the variants of ../shared/reference/legal-citations.md §1.3 and §2.3 and of real judgments, 헌재
decisions, lawyers' writing and statutes (tests/realtext), and fill only the fields that were written
(a back-reference keeps `back_reference` and leaves `act` None for the resolver). An act the lexicon
does not know is read by its shape (grammars.act_names) and comes out as a StatuteCitation, to be
verified as not_found rather than lost as prose; `구`, `개정전의` and a version note are read into
`former` and `amendment` (grammars.versions), never dropped. Later items of a list or range share
the act written first. Overlapping matches are resolved longest first. Each lenient pattern says
which false positive it blocks.

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

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from grammars.act_names import SHAPE_HEAD, KnownNames, fold_name, head_of, official_dots
from grammars.boundary import NOT_AFTER_WORD
from grammars.citation import StatuteCitation, Supplement
from grammars.expr import Literals
from grammars.find_cases import case_pattern, find_cases, header_patterns
from grammars.found import CitationForm, FoundCitation
from grammars.languages.drafts import LINE_GAP, LOOSE_SPACE
from grammars.languages.lexicon import Lexicon
from grammars.languages.statute import BACK_REFERENCES
from grammars.match_memo import ENTRIES, Fields, memoized_reader
from grammars.name_pattern import first_characters, lenient_names
from grammars.overlaps import longest_first
from grammars.parse import CitationParser, build_statute, default_parser
from grammars.patterns import load_or_compile
from grammars.provisions import ARTICLE, LOWER_LEVELS, NUMBER, SUPPLEMENT_PROVISION, list_items
from grammars.scanned import as_scanned, read_scanned
from grammars.versions import (
    AMENDING_ACT,
    NOTE,
    SUPPLEMENT,
    numbered_supplement,
    read_note,
    read_supplement,
    without_amending_act,
)

_SPACE = LOOSE_SPACE
_GAP = _SPACE + "*"
SHORT_NAMES = ("법", "영", "규칙")  # what `(이하 '영'이라 한다)` may declare; `법 제3조` and `영 제5조` use them
OWN_ACT = ("이 법", "이 영", "이 규칙")  # the document's own 법률, decree or rule
_OTHER_REFERENCES = (*(reference for reference in BACK_REFERENCES if reference not in OWN_ACT), "법")
# The kind of act each short name of a subordinate act stands for, named in the text before it.
DECREE_KIND_OF_SHORT_NAME = {"영": "시행령", "규칙": "시행규칙"}
# `같은 영 제5조`, `동령 제5조`, `같은 시행규칙 제3조`: the very 시행령/시행규칙 (or, for `같은 규칙`, any rule)
# cited before, even with another act cited since; unlike `같은 법`, which names a 법률. Keyed by spelling.
SAME_DECREE_KIND = {"같은 영": "시행령", "같은 시행령": "시행령", "동령": "시행령", "동 시행령": "시행령",
                    "같은 시행규칙": "시행규칙", "같은 규칙": "규칙"}
_SAME_DECREE_BY_FOLD = {fold_name(spelling): spelling for spelling in SAME_DECREE_KIND}
_QUOTE = "['\"‘’“”]"
_LAW_ENDING = "(?:법|법률|령|규칙|규정)"
# `(이하 '영'이라 한다)`, `(이하 "법")`, `(이하 규칙이라고 한다)`, `(이하 '영'이라 함)`, and any quoted
# name (`(이하 ‘특정범죄가중법’이라고 한다)`), which only a quote mark delimits.
_DECLARATION = (
    rf"\({_GAP}(?:이하|다음부터){_GAP}(?:{_QUOTE}?(?P<declared>{Literals(SHORT_NAMES).to_regex()}){_QUOTE}?"
    rf"|{_QUOTE}(?P<declared_name>[^'\"‘’“”()\n]{{1,30}}){_QUOTE})"
    rf"(?:{_GAP}이?라고?{_GAP}(?:한다|함))?{_GAP}\)"
)
# `「고용보험 … 법률」(이하 "고용산재보험료징수법"이라 한다)` with no provision after it: a short name declared for
# an act, which the document's citations by that name then mean (verifier.resolver).
_NAME_DECLARATION = re.compile(rf"「{_GAP}(?P<act>[^」\n]{{0,79}}?{_LAW_ENDING}){_GAP}」{_GAP}{_DECLARATION}")


def declared_names(text: str) -> dict[str, str]:
    """{short name: act as written} for the acts `text` names in 「」 and declares a short name for; a
    statute declares one in an article (often 제1조, 제2조) for all of them, and its decrees use it too."""
    return {(match["declared"] or match["declared_name"]).strip(): match["act"]
            for match in _NAME_DECLARATION.finditer(text)}


# `구 민법`, `개정전의 헌법`: a version other than the one in force (grammars.versions). 구 stands alone
# (`구법` is a word) and is followed by one space.
_FORMER = rf"(?P<former>구|개정{_SPACE}?전의){_SPACE}"
# The tail every statute head shares: a version note, a short-name declaration, a 부칙 (of an amending act:
# `국적법 일부개정법률 부칙`), `-` (`민법 - 제750조`), then the provision, on the next line too.
_TAIL = (
    rf"(?:{_GAP}(?P<note>{NOTE}))?(?:{_GAP}(?P<declaration>{_DECLARATION}))?"
    rf"(?:{_GAP}(?P<amending>{AMENDING_ACT})(?={_GAP}부칙))?(?:{_GAP}(?P<supplement>{SUPPLEMENT}))?"
    rf"{LINE_GAP.to_regex()}(?:[-–—:]{_GAP})?{SUPPLEMENT_PROVISION}"
    # the note after the provision, where judgments often put it (`구 민법 제750조(…개정되기 전의 것)`); not after
    # the part of it cited (`제1항 본문(… 개정되기 전의 것)`): a citation has no part, and a rewrite would drop it
    rf"(?(note)|(?:{_GAP}(?P<note_after>{NOTE}))?)"
)
# `법률 제7428호 부칙 제2조`, `부칙(2005. 5. 26.) 제3항`, `부칙 제3조`: a 부칙 whose act the text leaves out. A
# bare `부칙 제3조` counts only after a statute is cited (`_kind_needed`): rules and articles of
# association have 부칙 too.
_SUPPLEMENT_ALONE = rf"{NOT_AFTER_WORD}(?P<supplement>{SUPPLEMENT}){_GAP}{SUPPLEMENT_PROVISION}"


def _statute_pattern(names: Iterable[str]) -> str:
    names = tuple(names)
    # Every alternative below begins with a name's first character or one of these (구, 개정, quote marks,
    # back-references, short names): a lookahead on them all fails most positions of a text at once, a
    # fifth of the scan; one on the latter spares most words their four alternatives.
    others = (*_OTHER_REFERENCES, *OWN_ACT, *SAME_DECREE_KIND, *DECREE_KIND_OF_SHORT_NAME)
    starts = ("구", "개", "「", "‘", "'", *others)
    return (
        first_characters((*names, *starts)) +
        # Every head starts a word (one lookbehind for all: one per alternative made the scan 40 %
        # slower). A name glued to a preceding word (`군형법` for 형법, `국민법`) is not a statute name.
        rf"(?:{NOT_AFTER_WORD}{_FORMER})?"
        # 「」 or ‘’ mark a name the lexicon may not know; a law-like ending keeps out 「별표 1」 and titles.
        # The quote mark itself starts a new word, so no boundary is asked before it.
        rf"(?:「(?P<quoted>[^」\n]{{1,80}}?{_LAW_ENDING})」|[‘'](?P<single_quoted>[^’'\n]{{1,80}}?{_LAW_ENDING})[’']"
        # Judgments glue the next act to a provision (`제32조 제5항같은법시행령(…) 제94조의2`): after `제5항`, a
        # name starts a word too.
        rf"|(?:{NOT_AFTER_WORD}|(?<=[0-9][조항호]))(?:(?P<act>{first_characters(names)}{lenient_names(names)})"
        # `같은 법 시행령`, `동법 시행규칙`: the decree or rule of the act cited before; `법 시행규칙`: of the act
        # declared `법` (`여객자동차운수사업법(이하 ‘법’이라 한다)`), or of a decree's own 법률.
        # (`동법률 시행규칙`, as a 조달청 notice writes it, is `동법 시행규칙`)
        rf"|{first_characters(others)}(?:(?P<decree_of>같은{_SPACE}?법(?:률)?|동법(?:률)?|법){_GAP}"
        rf"(?P<decree_kind>시행령|시행규칙)"
        # `같은 영`, `동령`, `같은 규칙`: only right before `제N조`, so `같은 영역`, `같은 규칙적인`, `동령리`
        # stay prose.
        rf"|(?P<same_decree>같은{_SPACE}?(?:시행령|시행규칙|영|규칙)|동령|동{_SPACE}?시행령)"
        # A bare `법 제3조` counts only when 법 stands alone: `민법학 제3조`, `방법 제3조` are not references.
        # `이 법`, but not `…한다)이 법 제19조`, where 이 is the particle of what the parenthesis closes.
        rf"|(?P<back_reference>{Literals(_OTHER_REFERENCES).to_regex()}|(?<![)」』\]\"”’'])(?:{Literals(OWN_ACT).to_regex()}))"
        # `영 제5조`, `규칙 제3조`: standing alone, so not the end of `시행령` or `민사소송규칙`, nor of a
        # rule's own name (`…에 관한 규칙 제3조`); the finder also asks for a 시행령/시행규칙 cited before,
        # so that `사내 규칙 제3조` in a text citing none is no citation.
        rf"|(?<!관한 )(?<!대한 )(?P<short_name>영|규칙))))"
        # `근로기준법 시행령(이하 '영'이라 한다) 제30조`: the declaration sits between name and article.
        + _TAIL
    )


# `동조`, `같은 항` cite the previous article or paragraph; the lookahead blocks verbs and nouns built
# on them (`동조했다`, `같은 조건`) while letting the particles 의/에 through (`동조의 규정`).
# `동법 제3항` skips the article (the resolver takes the one cited before); it needs the 항, so that
# `동법` alone, a word for "the same method", is left alone.
_SAME_PROVISION = re.compile(  # (?=[동같]): each match starts so, and the check spares most positions the rest
    rf"(?=[동같]){NOT_AFTER_WORD}(?:(?:동령|동법|같은 법|같은 영){_SPACE})?"
    rf"(?:(?P<back_reference>동조|같은 조|동항|같은 항)(?=[의에]?(?![가-힣]))(?!{_GAP}각{_GAP}[호목])"
    rf"|(?P<act_reference>같은 법|동법)(?={_GAP}제{_GAP}[1-9][0-9]?{_GAP}항)){LOWER_LEVELS}"
)


# `위 제46조`, as judgments write it: an article of the act cited before. Only with an article, since
# `위 제1항` is as often the document's own paragraph (a contract's) as a statute's. `같은 제24호`, `같은
# 제3항ㆍ제5항`, `「관세법」 제87조에 따라 … 같은 제38조의3제1항`, as statutes write them: a provision of what was
# cited before, below the level written first. Both need a statute cited before them (`_kind_needed`),
# so that a contract's `위 제3조` in a text citing no statute stays prose.
_SAME_LEVEL = re.compile(  # (?=[위같]): as for `_SAME_PROVISION`
    rf"(?=[위같]){NOT_AFTER_WORD}(?:(?P<above>위){_SPACE}(?=제{_GAP}{NUMBER}{_GAP}조)"
    rf"|(?P<same>같은){_SPACE}(?=제{_GAP}[1-9]))"
    rf"(?P<provision>(?:{ARTICLE})?{LOWER_LEVELS})"
)
_ANY_STATUTE = "statute"  # the kind `위`/`같은` need cited before them: any statute
_KINDS = frozenset({_ANY_STATUTE, "시행령", "시행규칙", "규칙"})  # every kind a match may need cited before it
PIECE = 1 << 20  # characters of text found at a time (`CitationFinder.iter_find`)


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of consecutive pieces of `text`, each of at least `PIECE` characters (but the last),
    cut between the two line breaks of a blank line."""
    start = 0
    while len(text) - start > PIECE:
        cut = text.find("\n\n", start + PIECE)
        if cut < 0:
            break
        yield start, cut + 1
        start = cut + 1
    yield start, len(text)


def _pop_first(fields: dict[str, str | None], *names: str) -> str | None:
    """Remove the alternative groups `names` from `fields`; the value of the one that matched."""
    values = [fields.pop(name) for name in names]
    return next((value for value in values if value is not None), None)


class CitationFinder:
    """Compiled patterns for one lexicon; shared, immutable. With a `cache_dir`, the statute pattern
    (seconds to compile over the statute book's names) is kept there for the next process
    (grammars.patterns)."""

    def __init__(self, parser: CitationParser, cache_dir: Path | None = None) -> None:
        self.lexicon = parser.lexicon
        self.parser = parser
        self.case_pattern = case_pattern(cache_dir)
        self.header_patterns = header_patterns(cache_dir)
        written_names = self.lexicon.grammar_names + tuple(self.lexicon.informal)
        self.statute_pattern = load_or_compile("lenient statute pattern\0" + "\0".join(written_names),
                                               functools.partial(_statute_pattern, written_names), cache_dir)
        # Reversed, so that the first of two names that fold alike wins.
        self.name_by_fold = {fold_name(name): name for name in reversed(written_names)}
        self._read_statute = memoized_reader(self.statute_pattern, self._statute)
        # Kept with the statute pattern too: `re` takes 25 ms of every process's start-up to compile these two.
        self.shaped_tail = load_or_compile("shaped statute tail\0" + _TAIL, lambda: _TAIL, cache_dir)
        tail_groups = self.shaped_tail.groupindex
        self._shaped_tail_groups = tuple(sorted(tail_groups, key=tail_groups.__getitem__))  # all named
        self.supplement_alone = load_or_compile("supplement alone\0" + _SUPPLEMENT_ALONE, lambda: _SUPPLEMENT_ALONE,
                                                cache_dir)
        self._known = KnownNames(self.name_by_fold, self._known_name)  # what `head_of` asks of the lexicon

    @functools.cached_property
    def canonical_case_pattern(self) -> re.Pattern[str]:
        return re.compile(NOT_AFTER_WORD + self.parser.case.expr.to_regex())

    @functools.cached_property
    def canonical_statute_pattern(self) -> re.Pattern[str]:
        return re.compile(NOT_AFTER_WORD + self.parser.statute.expr.to_regex())

    def find(self, text: str, lenient: bool = True, *, within: str | None = None) -> list[FoundCitation]:
        """`within`: the act `text` is part of, if any (an article of a 시행규칙 cites its 시행령 as `영`
        without naming it first)."""
        if not lenient:
            return _longest_first(self._canonical(text))
        return list(self.iter_find(text, within=within))

    def iter_find(self, text: str, *, within: str | None = None) -> Iterator[FoundCitation]:
        """`find(text)` (lenient) a piece at a time, in order: pieces of about `PIECE` characters, each
        ending at a blank line, which no citation spans; what a piece needs from those before it (the
        kinds of act cited, for `영`, `규칙`, `위 제46조`) is carried over. A long text's citations are
        then never all in memory at once. A 시행규칙's own text has its 시행령 in view from the start."""
        cited: set[str] = {"시행령"} if within is not None and within.endswith(" 시행규칙") else set()
        for start, end in _pieces(text):
            piece = text[start:end]
            read = read_scanned(piece)
            scanned = read != piece  # once: a comparison per citation would cost the text's length each
            for found in self._lenient(read, cited):
                if scanned:
                    found = as_scanned(found, piece[slice(*found.span)], read[slice(*found.span)])
                if start:  # built directly: `replace` costs more than finding a citation
                    found = FoundCitation((found.span[0] + start, found.span[1] + start), found.citation,
                                          found.form, found.declares, found.scanned, found.through)
                yield found

    def _canonical(self, text: str) -> Iterator[FoundCitation]:
        for match in self.canonical_case_pattern.finditer(text):
            yield FoundCitation(match.span(), self.parser.case_from_match(match), CitationForm.CANONICAL)
        for match in self.canonical_statute_pattern.finditer(text):
            citation = self.parser.statute_from_match(match)
            form = CitationForm.CANONICAL
            if citation.canonical() != match.group():  # an official 약칭, rendered with the full name
                form = CitationForm.ABBREVIATED_ACT
            yield FoundCitation(match.span(), citation, form)

    def _lenient(self, text: str, cited: set[str]) -> list[FoundCitation]:
        """The matches kept in `text`, a piece after pieces whose citations named the kinds of act `cited`
        (to which this piece's are added)."""
        found = list(self._lenient_matches(text))
        needed = [_kind_needed(f) for f in found]
        if all(kind is None for kind in needed):
            kept = _longest_first(found)
            _note_kinds(kept, cited)
            return kept
        # `영`, `규칙`, `같은 규칙` stand for a 시행령, 시행규칙, rule only after a kept citation names one: a match
        # dropped as overlapping a longer one cites nothing, so it enables nothing. They themselves name no
        # kind a citation before them has not, so the other matches alone decide.
        others = _longest_first(f for f, kind in zip(found, needed, strict=True) if kind is None)
        first_cited = _first_cited(others)
        kept = _longest_first(f for f, kind in zip(found, needed, strict=True) if kind is None or kind in cited
                              or (kind in first_cited and first_cited[kind] < f.span[0]))
        _note_kinds(others, cited)
        return kept

    def _lenient_matches(self, text: str) -> Iterator[FoundCitation]:
        """Every match of the lenient patterns, overlapping ones and `영`/`규칙` with no 시행령/시행규칙 included."""
        yield from find_cases(text, self.case_pattern, self.header_patterns)
        named: set[tuple[int, int]] = set()  # (start, end of the name) of statutes found by a name of the lexicon
        for match in self.statute_pattern.finditer(text):
            read = self._read_statute(match)
            if read is None:
                continue
            citation, declared, form = read
            span = match.span()
            if citation.act is not None:  # the form stays: a 부칙 it numbers was written, and decided it
                citation, span = numbered_supplement(text, citation, span)
                if match.start("act") >= 0 and citation.back_reference is None:
                    named.add((match.start(), match.end("act")))
            yield FoundCitation(span, citation, form, declared)
            yield from list_items(text, match.end(), citation)
        yield from self._shaped_statutes(text, named)
        for match in self.supplement_alone.finditer(text) if "부칙" in text else ():  # a search in C spares most texts
            alone, _ = _provision(None, False, match.groupdict())
            if not _no_provision(alone):
                yield FoundCitation(match.span(), alone, CitationForm.SUPPLEMENT)
                yield from list_items(text, match.end(), alone)
        for match in _SAME_PROVISION.finditer(text):
            fields: dict[str, Any] = match.groupdict()  # named groups: build_statute's fields
            del fields["subitem_open"]
            reference = _pop_first(fields, "back_reference", "act_reference")
            citation = build_statute(act=None, article=None, back_reference=reference, **fields)
            yield FoundCitation(match.span(), citation, CitationForm.BACK_REFERENCE)
            yield from list_items(text, match.end(), citation)
        for match in _SAME_LEVEL.finditer(text):
            if not match["provision"]:
                continue  # `같은 제3편`: no provision
            fields = match.groupdict()
            reference = _pop_first(fields, "above", "same")
            for written_only in ("provision", "je", "subitem_open"):
                del fields[written_only]
            citation = build_statute(act=None, back_reference=reference, **fields)
            yield FoundCitation(match.span(), citation, CitationForm.BACK_REFERENCE)
            yield from list_items(text, match.end(), citation)

    def _statute(self, written: str, fields: Fields) -> tuple[StatuteCitation, str | None, CitationForm] | None:
        """What a statute match (`written`, with its groups `fields`) states, the short name it declares
        and its form; None where it is no citation. Pure, so `_read_statute` memoizes it."""
        groups = dict(fields)  # as matched, for the form
        written_act = _pop_first(fields, "quoted", "single_quoted", "act")
        decree_of, decree_kind = fields.pop("decree_of"), fields.pop("decree_kind")
        short_name = fields.pop("short_name")
        same_decree = fields.pop("same_decree")
        former = fields.pop("former") is not None
        if decree_of:  # spelled as the back-reference is (`같은법 시행령` too)
            reference = "법" if decree_of == "법" else "동법" if decree_of.startswith("동") else "같은 법"
            fields["back_reference"] = f"{reference} {decree_kind}"
        if same_decree:
            fields["back_reference"] = _SAME_DECREE_BY_FOLD[fold_name(same_decree)]
        fields["back_reference"] = fields["back_reference"] or short_name
        act, abbreviated = None, False
        if written_act is not None:
            if groups["supplement"] is not None:  # `「국적법 일부개정법률」 부칙 제2조`: 국적법's 부칙
                written_act = without_amending_act(written_act)
            written_name = self.name_by_fold.get(fold_name(written_act), written_act)
            act = self.lexicon.canonical_name(written_name) or official_dots(written_act)
            abbreviated = written_name in self.lexicon.aliases or written_name in self.lexicon.informal
        citation, declared = _provision(act, former, fields)
        if groups["je"] is None and citation.act is None and groups["supplement"] is None:
            return None  # `법 3조`, `같은 법 3조`: a back-reference needs its 제
        if _no_provision(citation):
            return None  # `민법 부칙 제3편`
        return citation, declared, _statute_form(written, groups, citation, abbreviated)

    def _shaped_statutes(self, text: str, named: set[tuple[int, int]]) -> Iterator[FoundCitation]:
        """Statutes whose act the lexicon does not know, or writes otherwise: grammars.act_names. A head
        that starts and ends as a name in `named` (start, end) is skipped: the same tail follows it, so it
        would be found with the same span and list items as the name's citation, after it, and
        `_longest_first` keeps the first of two equal spans (the shaped twin of most statutes a draft cites)."""
        for match in SHAPE_HEAD.finditer(text):
            head = head_of(text, match, self._known)
            if head is None or (head.start, match.end()) in named:
                continue
            tail = self.shaped_tail.match(text, match.end())
            if tail is None:
                continue
            if not head.known and tail["je"] is None and tail["note"] is None and tail["supplement"] is None:
                continue  # an unknown word before `3조` alone is too weak a sign (`총 3조`)
            citation, declared = _shaped_provision(head.name, head.former, self._shaped_tail_groups, tail.groups())
            if _no_provision(citation):
                continue
            citation, (start, _) = numbered_supplement(text, citation, (head.start, tail.end()))
            form = CitationForm.LOOSE_SPACING if head.known else CitationForm.UNLISTED_ACT
            if citation.former or citation.amendment:
                form = CitationForm.VERSION
            if citation.supplement:
                form = CitationForm.SUPPLEMENT
            yield FoundCitation((start, tail.end()), citation, form, declared)
            yield from list_items(text, tail.end(), citation)

    def _known_name(self, written: str) -> str | None:
        name = self.name_by_fold.get(fold_name(written))
        return None if name is None else self.lexicon.canonical_name(name)


def _provision(act: str | None, former: bool, fields: dict[str, str | None]) -> tuple[StatuteCitation, str | None]:
    """The citation a statute match's tail states (grammars.versions for the note and the 부칙), and the
    short name declared between the act and its article, if any. A pattern without a note or a
    declaration (`supplement_alone`) leaves their groups out."""
    fields = dict(fields)
    note, note_after, supplement = fields.pop("note", None), fields.pop("note_after", None), fields.pop("supplement")
    note = note or note_after  # before the article or after it: the same note
    fields.pop("amending", None)
    declared = fields.pop("declared", None) or fields.pop("declared_name", None)
    for written_only in ("provision", "declaration", "je", "subitem_open", "declared_name"):
        fields.pop(written_only, None)
    amendment = None
    if note is not None:
        amendment, declared_in_note = read_note(note)
        declared = declared or declared_in_note
    return build_statute(act=act, former=former, amendment=amendment,
                         supplement=None if supplement is None else read_supplement(supplement), **fields), declared


@functools.lru_cache(maxsize=ENTRIES // 16)  # drafts cite the same provisions of the same acts again and again
def _shaped_provision(act: str, former: bool, names: tuple[str, ...],
                      groups: tuple[str | None, ...]) -> tuple[StatuteCitation, str | None]:
    """`_provision` of a shaped statute's tail, given by the `names` and values of its pattern's groups (all named)."""
    return _provision(act, former, dict(zip(names, groups, strict=True)))


def _no_provision(citation: StatuteCitation) -> bool:
    """A 부칙 followed by no article or paragraph (`부칙 제3편`) cites none."""
    return citation.article is None and citation.paragraph is None and citation.back_reference is None


def _kind_needed(found: FoundCitation) -> str | None:
    """The kind of act that must be cited before a match for it to be a citation: a 시행령/시행규칙 before
    `영`/`규칙` (and the later items of their lists), any rule before `같은 규칙` (prose calls internal rules
    규칙: `사내 규칙 제3조 … 같은 규칙 제5조`), any statute before `위 제46조`, `같은 제24호`
    and a bare `부칙 제3조`."""
    if not isinstance(found.citation, StatuteCitation):
        return None
    reference = found.citation.back_reference
    if reference is None:  # a bare `부칙 제3조` needs a statute before it
        return _ANY_STATUTE if found.citation.act is None and found.citation.supplement == Supplement() else None
    if reference in ("위", "같은"):
        return _ANY_STATUTE
    if reference in DECREE_KIND_OF_SHORT_NAME:
        return DECREE_KIND_OF_SHORT_NAME[reference]
    return "규칙" if SAME_DECREE_KIND.get(reference) == "규칙" else None


def _first_cited(found: Iterable[FoundCitation]) -> dict[str, int]:
    """Where citations in text order first name (or declare a short name for) each kind of act."""
    first: dict[str, int] = {}
    for citation in found:
        for kind in _decree_kinds(citation):
            first.setdefault(kind, citation.span[0])
        if len(first) == len(_KINDS):  # every kind seen: no later citation changes a first
            break
    return first


def _note_kinds(found: Iterable[FoundCitation], cited: set[str]) -> None:
    """Add to `cited` the kinds of act that `found` name, as `_first_cited` reads them."""
    for citation in found:
        if cited.issuperset(_KINDS):
            return
        cited.update(_decree_kinds(citation))


def _decree_kinds(found: FoundCitation) -> frozenset[str]:
    """The kinds of act (시행령, 시행규칙, 규칙) a statute citation names or declares a short name for, and
    `_ANY_STATUTE`."""
    if not isinstance(found.citation, StatuteCitation):
        return frozenset()
    return _kinds_named(found.citation.act or found.citation.back_reference or "", found.declares)


@functools.lru_cache(maxsize=ENTRIES)  # a few hundred names and short names, met once per citation
def _kinds_named(name: str, declares: str | None) -> frozenset[str]:
    named = (name, DECREE_KIND_OF_SHORT_NAME.get(declares or "", ""))
    return frozenset({_ANY_STATUTE, *(kind for kind in ("시행령", "시행규칙", "규칙")
                                      if any(written.endswith(kind) for written in named))})


def _statute_form(written: str, groups: Fields, citation: StatuteCitation, abbreviated: bool) -> CitationForm:
    if groups["declaration"]:
        return CitationForm.DECLARES_SHORT_NAME
    if citation.supplement:
        return CitationForm.SUPPLEMENT
    if citation.former or citation.amendment:
        return CitationForm.VERSION
    if groups["decree_of"]:
        return CitationForm.DECREE_BACK_REFERENCE
    if groups["short_name"]:
        return CitationForm.DECREE_SHORT_NAME
    if groups["same_decree"]:
        return CitationForm.SAME_DECREE
    if citation.back_reference:
        return CitationForm.BACK_REFERENCE
    if groups["quoted"] or groups["single_quoted"]:
        return CitationForm.QUOTED_ACT
    if abbreviated:
        return CitationForm.ABBREVIATED_ACT
    if citation.canonical() == written:
        return CitationForm.CANONICAL
    provision = groups["provision"]
    parts = sum(1 for level in ("paragraph", "item", "subitem") if groups[level])
    if parts and not re.search(r"\s", provision or ""):
        return CitationForm.COMPACT_PROVISION
    return CitationForm.LOOSE_SPACING


def _longest_first(found: Iterable[FoundCitation]) -> list[FoundCitation]:
    """Keep the longest of overlapping matches (the earlier on a tie), in text order (grammars.overlaps)."""
    candidates = list(found)
    return [candidates[index] for index in longest_first([f.span for f in candidates])]


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
