"""One document through the re-citation pipeline: find → resolve → verify → decide → edit.

The parts that know the law are injected (eyecite's "lookups are injected"): `find` is
`grammars.CitationFinder.iter_find` (the citations of a text as they are found); an `Authority` wraps
the verifier's per-document resolver and `verify`; an optional `Regenerator` wraps the engine. The composition root
(`citegen.commands.recite`) adapts the real ones; this module imports neither.

Decisions, one per citation found (`Action`):
- `kept`       already canonical and verified, or verified and written with a short-name declaration
               (`근로기준법 시행령(이하 '영'이라 한다) 제30조`) that a rewrite would drop;
- `rewritten`  resolved with certainty, verified, and replaced by its canonical form;
- `suggested`  a canonical form is proposed (the database's correction, a re-generated slot that
               verifies, an uncertain resolution, an unverifiable form) but the text is left as written;
- `review`     nothing to propose: the reviewer must look.
Only `rewritten` changes a document; an uncertain meaning is never silently changed. A rewrite
replaces exactly the span of the citation found, with a canonical form that the finder reads back as
one citation keeping every part the draft stated (act, 구 and version note, 부칙, article, paragraph, item;
court, date, number, disposition); a resolution or verdict that would change one of them goes to
review with the reason. Re-generation likewise offers only a citation that keeps what was stated. What a
resolution took from the rest of the document (the act before `같은 법 시행령`, the 법률 of the 시행령
before `같은 법`, the 시행령 before `같은 영`, a declared `영`, the year and 사건부호 before `1827` in
`2006허1803, 1827`) is listed in the outcome's `context`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from typing import Literal, Protocol, cast

from citegen.recite.documents import Document
from citegen.recite.errors import RegenerationError
from citegen.recite.xmltext import Edit
from grammars import (
    CITED_NAMES,
    CaseCitation,
    CitationForm,
    FoundCitation,
    IncompleteCitationError,
    ParsedCitation,
    StatuteCitation,
    head_written_apart,
)

logger = logging.getLogger(__name__)

Action = Literal["kept", "rewritten", "suggested", "review"]
NEEDS_REVIEW: frozenset[str] = frozenset({"suggested", "review"})
CONTEXT_CHARS = 400  # prose on each side handed to the regenerator, which keeps what its model's context holds
MEMO_ENTRIES = 100_000  # answers a pipeline keeps of each kind, the oldest dropped first
_VERDICT_REASONS = {"verified": "verified", "mismatch": "the database records it differently",
                    "not_found": "not in the database", "ambiguous": "more than one record matches",
                    "not_covered": "the database does not cover this court or period"}
# What a citation found in these forms takes from the text before it, beyond its own span.
_CONTEXT_OF_FORM = {
    CitationForm.LIST_CONTINUATION: "the act, or court and date, written once for its list",
    CitationForm.CASE_NUMBER_SHORTHAND: "year and 사건부호 of the number before it, court and date of its list",
    CitationForm.DATED_LIST_ITEM: "the court written once for its list",
}


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the resolver made of a found citation: a complete citation, or None when it could not."""

    citation: ParsedCitation | None
    changes: tuple[str, ...] = ()  # what it filled in or corrected, in words
    uncertain: bool = False
    reason: str = ""
    context: tuple[str, ...] = ()  # those of the changes taken from earlier citations or declarations


class Verdict(Protocol):
    """The verifier's verdict on a complete citation, as far as the batch reads it."""

    @property
    def status(self) -> str: ...  # verified | mismatch | not_found | ambiguous | not_covered

    @property
    def canonical(self) -> str | None: ...  # the database's canonical form, where it has one

    @property
    def detail(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Check:
    """A verdict given as a plain value (by a regenerator checking its own output, or a test)."""

    status: str
    canonical: str | None = None
    detail: str = ""


class DocumentResolver(Protocol):
    def resolve(self, text: str, found: FoundCitation) -> Resolution:
        """`found`, the next citation of `text` in text order: the text before it may declare short names or
        open an aside that a back-reference reads past."""
        ...


class Authority(Protocol):
    def document_resolver(self) -> DocumentResolver: ...

    def verify(self, citation: ParsedCitation) -> Verdict: ...


class Regenerator(Protocol):
    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        """A canonical citation for the slot between `before` and `after` (where `written` was
        found, with the fields the draft gave), or None; RegenerationError for a slot the model could
        not take (the prose kept is bounded by its context) or failed to decode."""
        ...


@dataclass(frozen=True, slots=True)
class CitationOutcome:
    stream: int  # which text stream of the document (0 for plain text; a docx part index)
    span: tuple[int, int]
    original: str
    canonical: str | None
    verdict: str  # the Check status, or "unresolved"
    action: Action
    reason: str
    form: str
    changes: tuple[str, ...] = ()
    context: tuple[str, ...] = ()  # what the mapping took from the text around the citation, in words
    scanned: str | None = None  # how scanned or full-width text was read otherwise, where it was


# Every field of an outcome but where it stands (`stream` and `span`, its first two), in order.
_PLACELESS = attrgetter(*(f.name for f in fields(CitationOutcome)[2:]))


def placeless(outcome: CitationOutcome) -> tuple[object, ...]:
    """What an outcome says, apart from where it stands: equal for the same citation decided alike."""
    return cast("tuple[object, ...]", _PLACELESS(outcome))


@dataclass(frozen=True, slots=True)
class RecitedDocument:
    outcomes: tuple[CitationOutcome, ...]
    edits: dict[int, list[Edit]] = field(default_factory=dict)


@dataclass(slots=True)
class RecitePipeline:
    find: Callable[[str], Iterable[FoundCitation]]
    authority: Authority
    regenerator: Regenerator | None = None
    # Answers kept for the run, at most MEMO_ENTRIES each (all dropped when full: plain dicts, since a
    # cachetools cache's bookkeeping in Python cost more per citation than the rest of deciding), as a
    # batch meets the same citations again and again: `_read_back`'s by canonical form (reading one
    # back is a find), and, without a regenerator, `_decide`'s by what was written and how it resolved.
    _read_backs: dict[str, ParsedCitation | None] = field(default_factory=dict, init=False, repr=False)
    _decisions: dict[tuple[object, ...], CitationOutcome] = field(default_factory=dict, init=False, repr=False)

    def recite(self, document: Document) -> RecitedDocument:
        edits: dict[int, list[Edit]] = {}
        outcomes = tuple(self.outcomes_of(document, edits))
        return RecitedDocument(outcomes, edits)

    def outcomes_of(self, document: Document, edits: dict[int, list[Edit]]) -> Iterator[CitationOutcome]:
        """`recite`'s outcomes one at a time, in stream and text order, each rewrite added to `edits` (by
        stream) as it comes: a 50 MB draft's 650,000 outcomes are then never all in memory at once (the
        batch writes each to its result as it is decided)."""
        resolver = self.authority.document_resolver()  # one per document: back-references are local
        for stream, text in enumerate(document.streams):
            for found in self.find(text):  # as found: a 50 MB draft holds 650,000, never all found at once
                outcome = self._decided(text, stream, found, resolver.resolve(text, found))
                if outcome.action == "rewritten" and not document.is_editable(stream, *outcome.span):
                    outcome = replace(outcome, action="suggested",
                                       reason="the citation crosses a tab, line break or field; not rewritten")
                if outcome.action == "rewritten":
                    assert outcome.canonical is not None  # narrowed: rewritten always has one
                    edits.setdefault(stream, []).append(Edit(*outcome.span, outcome.canonical))
                logger.debug("%s %r -> %r (%s)", outcome.action, outcome.original, outcome.canonical, outcome.verdict)
                yield outcome

    def _decided(self, text: str, stream: int, found: FoundCitation, resolution: Resolution) -> CitationOutcome:
        """`_decide`'s outcome, from the run's memo where it can be: a decision depends on where the
        citation stands only through re-generation, which reads the text around it."""
        if self.regenerator is not None:
            return self._decide(text, stream, found, resolution)
        start, end = found.span
        key = (text[start:end], found.citation, found.form, found.declares, found.through, found.scanned, resolution)
        decided = self._decisions.get(key)
        if decided is None:
            if len(self._decisions) >= MEMO_ENTRIES:
                self._decisions.clear()
            decided = self._decisions[key] = self._decide(text, stream, found, resolution)
        if decided.span == found.span and decided.stream == stream:
            return decided
        return CitationOutcome(stream, found.span, *_PLACELESS(decided))  # `replace`, without its per-field work

    def _decide(self, text: str, stream: int, found: FoundCitation, resolution: Resolution) -> CitationOutcome:
        start, end = found.span
        original = text[start:end]
        from_form: tuple[str, ...] = (_CONTEXT_OF_FORM[found.form],) if found.form in _CONTEXT_OF_FORM else ()
        inside = self._range_inside(found, resolution.citation)
        if inside:  # unwritten, so never rewritten; verified and listed for the reviewer
            from_form += ("the range also cites " + ", ".join(f"{c.provision()} ({status})" for c, status in inside),)
        base = CitationOutcome(stream, (start, end), original, None, "unresolved", "review",
                               resolution.reason or "could not be resolved", found.form.value,
                               resolution.changes, from_form + resolution.context,
                               found.scanned.value if found.scanned else None)
        citation = resolution.citation
        if citation is None:
            return self._regenerate(text, found, base)
        try:
            canonical = citation.canonical()
        except IncompleteCitationError as error:  # the resolver's doubt says why better, where it gave one
            return self._regenerate(text, found, replace(base, reason=resolution.reason or str(error)))
        check = self.authority.verify(citation)
        proposed = check.canonical or canonical
        outcome = replace(base, canonical=proposed, verdict=check.status,
                          reason=check.detail or _VERDICT_REASONS.get(check.status, check.status))
        if check.status == "verified":
            unverified = [c.provision() for c, status in inside if status != "verified"]
            if unverified:
                return replace(outcome, action="review",
                               reason=f"the range also cites {', '.join(unverified)}, which do not verify")
            problem = self._replacement_problem(found.citation, proposed)
            if problem is not None and original != proposed:
                return replace(outcome, action="review", reason=problem)
            overwritten = _what_completion_overwrites(text, found)
            if overwritten is not None and original != proposed:
                return replace(outcome, action="review", reason=overwritten)
            if resolution.uncertain:
                return replace(outcome, action="suggested",
                                reason=resolution.reason or "the resolution is uncertain")
            if original == proposed:
                return replace(outcome, action="kept", reason="already canonical")
            if found.declares is not None:
                return replace(outcome, action="kept", reason=f"verified; left as written: a rewrite would "
                                                              f"drop its declaration of {found.declares!r}")
            return replace(outcome, action="rewritten",
                           reason="; ".join(resolution.changes) or f"canonical form of a {base.form} citation")
        if check.status == "not_found":
            return self._regenerate(text, found, replace(outcome, canonical=None))
        if check.status == "ambiguous":
            return replace(outcome, canonical=None, action="review")
        # mismatch (the database's form) or not_covered (the canonical form, unverifiable here)
        return replace(outcome, action="suggested" if proposed != original else "review")

    def _range_inside(self, found: FoundCitation, resolved: ParsedCitation | None
                      ) -> list[tuple[StatuteCitation, str]]:
        """The provisions a range cites between its ends (`제329조부터 제331조까지`: 제330조), each with
        its verdict, in the act (and version) the range's end resolved to; none when it did not."""
        if not found.through or not isinstance(resolved, StatuteCitation) or resolved.act is None:
            return [(c, "unresolved") for c in found.through]
        inside = []
        for between in found.through:
            citation = replace(between, act=resolved.act, back_reference=None, former=resolved.former,
                               amendment=resolved.amendment)
            inside.append((citation, self.authority.verify(citation).status))
        return inside

    def _regenerate(self, text: str, found: FoundCitation, outcome: CitationOutcome) -> CitationOutcome:
        if self.regenerator is None:
            return outcome
        start, end = outcome.span
        try:
            suggestion = self.regenerator.suggest(text[max(0, start - CONTEXT_CHARS):start], found.citation,
                                                  text[end:end + CONTEXT_CHARS])
        except RegenerationError as error:  # this citation's, not the document's: its other citations go on
            return replace(outcome, reason=f"{outcome.reason}; re-generation failed: {error}")
        if suggestion is None:
            return replace(outcome, reason=f"{outcome.reason}; re-generation produced no citation")
        verdict = self._verdict_of(suggestion)
        if verdict != "verified":  # well-formed by construction, but not a citation to offer a reviewer
            return replace(outcome, reason=f"{outcome.reason}; re-generated {suggestion!r}, which is {verdict}")
        problem = self._replacement_problem(found.citation, suggestion)
        if problem is not None:  # `민법 제1200조 -> 민법 제750조` is another citation, not a correction
            return replace(outcome, reason=f"{outcome.reason}; re-generated {suggestion!r}, but {problem}")
        return replace(outcome, canonical=suggestion, action="suggested",
                       reason=f"{outcome.reason}; re-generated under the citation automaton and verified, for review")

    def _verdict_of(self, suggestion: str) -> str:
        """What the verifier says of a re-generated citation: the automaton guarantees its form, not its truth."""
        read = self._read_back(suggestion)
        return "not a single complete citation" if read is None else self.authority.verify(read).status

    def _read_back(self, canonical: str) -> ParsedCitation | None:
        """The one complete citation the finder reads in `canonical`, spanning all of it; None otherwise."""
        if canonical in self._read_backs:
            return self._read_backs[canonical]
        found = list(self.find(canonical))
        read = None
        if len(found) == 1 and found[0].span == (0, len(canonical)) and found[0].citation.is_complete:
            read = found[0].citation
        if len(self._read_backs) >= MEMO_ENTRIES:
            self._read_backs.clear()
        self._read_backs[canonical] = read
        return read

    def _replacement_problem(self, written: ParsedCitation, replacement: str) -> str | None:
        """Why `replacement` may not stand for the citation as written, in words; None when it may."""
        read = self._read_back(replacement)
        if read is None:
            return f"{replacement!r} does not read back as one complete citation"
        changed = stated_changes(written, read)
        if changed:
            return f"{replacement!r} would change what the draft states ({'; '.join(changed)})"
        return None


_STATED = {"case": ("case_number", "court", "date", "delivery", "disposition", "panel"),
           "statute": ("act", "former", "amendment", "article", "article_branch", "paragraph", "item", "item_branch",
                       "subitem", "supplement")}


def stated_changes(written: ParsedCitation, replacement: ParsedCitation) -> list[str]:
    """The parts `written` states (those found in the draft) that `replacement` differs in, in words:
    a replacement may fill what the draft left out, never change what it wrote."""
    if written.kind != replacement.kind:
        return [f"a {written.kind} citation would become a {replacement.kind} citation"]
    changed = []
    for name in _STATED[written.kind]:
        stated, proposed = getattr(written, name), getattr(replacement, name)
        if name == "act":  # the act's title and the name courts cite it by are one act (대한민국헌법, 헌법)
            stated, proposed = CITED_NAMES.get(stated, stated), CITED_NAMES.get(proposed, proposed)
        if stated not in (None, False) and stated != proposed:
            changed.append(f"{name} {stated} -> {proposed}")
    return changed


def _what_completion_overwrites(text: str, found: FoundCitation) -> str | None:
    """Why a case citation read without its court or date must not be completed from the database over
    what the draft wrote: a date not in the calendar (`1996. 2. 30.`), or a court, date, 선고 or 자 just
    before it (`대법원(2019. 2. 21. 선고 …)`, a blank line between), which the completion would repeat."""
    if found.form is CitationForm.IMPOSSIBLE_DATE:
        return "the date written is not in the calendar; the database's is proposed, not written over it"
    if not isinstance(found.citation, CaseCitation) or (found.citation.court and found.citation.date):
        return None
    apart = head_written_apart(text, found.span[0])
    return None if apart is None else f"{apart!r} just before it looks like this citation's own head, written apart"
