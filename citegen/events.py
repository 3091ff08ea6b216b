"""What one sequence emits, and the per-sequence machine that turns token bytes into it.

Per sequence the events read ``(ProseDelta | CitationStart CitationDelta* CitationEnd)* Finished``.
Text is decoded incrementally, so a token that ends inside a UTF-8 character adds nothing until
the character is complete. Offsets are character offsets into the whole generated text.

The constraint says *at which token* a citation opened or closed; the exact character offsets
come from the text: a citation starts where its anchor starts (the anchor is what made the
automaton enter the citation, so it ends inside the entering token) and ends at the longest
prefix that parses as a citation, once the index says the text can no longer extend it (neither
inside a citation nor pending). Once a citation could have ended, only text up to the last such
point is sent, so a delta never carries text that later turns out to be prose.

Prose that may still become a citation goes out marked `tentative`: from the start of the token
after which the index first said *pending* (a partial anchor is alive), for as long as it keeps
saying so. Such prose either ends up as a `CitationStart`'s `prefix` or is confirmed by the next
prose delta that is not tentative (or by the end of the answer), so a consumer that holds tentative
prose never shows text that turns out to be the head of a citation. This is the one place that
decides it: the automaton that constrains the citation is the one that marks it.

A stop string ends the text before it wherever it stands in prose: between two citations too, reaching
into the next one's head, and in the prose held when the answer ends; inside a citation it does not
(that text goes out as the citation's as it is decided). With several, the earliest in the text wins.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from citegen.constraint import AnchorFinder, Transition
from grammars import ParsedCitation

FinishReason = Literal["stop", "length", "cancelled"]


@dataclass(frozen=True, slots=True)
class ProseDelta:
    """Free text. `tentative`: it may still become the head of a citation (see the module doc)."""

    text: str
    tentative: bool = False


@dataclass(frozen=True, slots=True)
class CitationStart:
    """`prefix`: the citation's first characters, already sent as prose (the anchor's head)."""

    start: int
    prefix: str


@dataclass(frozen=True, slots=True)
class CitationDelta:
    text: str


@dataclass(frozen=True, slots=True)
class CitationEnd:
    """The citation's exact text and span; `citation` is None if it does not parse (a generation
    stopped inside it)."""

    text: str
    start: int
    end: int
    citation: ParsedCitation | None


@dataclass(frozen=True, slots=True)
class Finished:
    reason: FinishReason
    prompt_tokens: int
    completion_tokens: int
    text: str


@dataclass(frozen=True, slots=True)
class Failed:
    """The sequence was stopped by an engine error (already logged); no more events follow."""

    error: Exception


Event = ProseDelta | CitationStart | CitationDelta | CitationEnd | Finished | Failed


class TextEventMachine:
    """Bytes of one sequence in, events out."""

    def __init__(
        self,
        *,
        anchor: AnchorFinder | None,
        parse: Callable[[str], ParsedCitation | None],
        stop: tuple[str, ...] = (),
    ) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        self._anchor = anchor
        self._parse = parse
        self._stop = stop
        self.text = ""
        self._sent = 0
        self._citation_start: int | None = None
        self._certain_end: int | None = None  # in a citation: where it may already have ended
        self._prose_from = 0  # anchors are searched only after the last citation
        self._tentative_from: int | None = None  # where prose that may become a citation begins
        self.stopped = False

    def feed(self, piece: bytes, transition: Transition | None) -> list[Event]:
        """Add one token's bytes; `transition` is None for unconstrained decoding."""
        before = len(self.text)
        self.text += self._decoder.decode(piece)
        events: list[Event] = []
        if transition is not None:
            if transition.in_citation and not transition.was_in_citation:
                start = self._anchor_start(before)
                if start is None and self._citation_start is None:
                    # no anchor ends here (a glued one, `법 제`, began in the word before: `민법 제주지방법원 …`
                    # under an acts narrowing): the citation begins where the token's text does, past its spaces
                    added = self.text[before:]
                    start = before + len(added) - len(added.lstrip())
                if start is not None:
                    if self._citation_start is not None:  # the last one ended where this one's anchor begins
                        self._close(start, events)
                    # a stop string in the prose held before it (`민법 제750조, 민법 제751조` with stop `,`: the
                    # text between two citations, pending until the second began) or reaching into it (`, 민`)
                    if self._cut_at_stop(events):
                        return events
                    self._open(start, before, events)
                # else no new anchor: the open citation goes on past a point where it could end (`의2`, ` 제1항`)
            elif self._citation_start is not None and not transition.in_citation and not transition.pending:
                self._close(len(self.text), events)
            if self._citation_start is not None and transition.may_close:
                self._certain_end = len(self.text)
        if self._citation_start is not None and transition is not None:
            # all of it is citation while the text must go on as one; once it may have ended,
            # only up to the last point where it matched completely
            must_go_on = transition.in_citation and self._certain_end is None
            self._send(
                CitationDelta, len(self.text) if must_go_on else (self._certain_end or self._sent), events
            )
        else:
            if transition is None or not transition.pending:
                self._tentative_from = None
            elif self._tentative_from is None:  # the partial anchor begins in this token's text
                self._tentative_from = max(before, self._sent)
            self._send_prose(events)
        return events

    def finish(self, reason: FinishReason, *, complete: bool) -> tuple[list[Event], FinishReason]:
        """Close what is open: flush bytes, end a citation (parsed only if `complete`), and send the prose
        held after it up to a stop string there. The events, and the reason the answer ends for: `stop`
        where such a stop string cut an answer that ended for its length."""
        events: list[Event] = []
        if not self.stopped:
            # bytes of a character the generation never finished are dropped, not shown broken
            self.text += self._decoder.decode(b"", final=True)
        if self._citation_start is not None:
            if complete or self._certain_end is not None:
                self._close(len(self.text), events)
            else:
                self._send(CitationDelta, len(self.text), events)
                start = self._citation_start
                events.append(CitationEnd(self.text[start:], start, len(self.text), None))
                self._citation_start = None
                self._prose_from = len(self.text)  # a stop string inside it does not count
        if not self.stopped and not self._cut_at_stop(events):
            self._send(ProseDelta, len(self.text), events)
        return events, "stop" if self.stopped and reason == "length" else reason

    def _send(self, kind: type[ProseDelta | CitationDelta], end: int, events: list[Event]) -> None:
        if end > self._sent:
            events.append(kind(self.text[self._sent : end]))
            self._sent = end

    def _cut_at_stop(self, events: list[Event]) -> bool:
        """Cut the text at the earliest stop string in the prose not yet sent (from the last citation's
        end on), sending the prose before it; True if one was found."""
        if not self._stop:
            return False
        window_start = max(self._prose_from, self._sent - max(map(len, self._stop)))
        found = [at for stop in self._stop if (at := self.text.find(stop, window_start)) >= 0]
        if not found:
            return False
        self.text = self.text[: min(found)]
        self._send(ProseDelta, len(self.text), events)
        self.stopped = True
        return True

    def _send_prose(self, events: list[Event]) -> None:
        if self._cut_at_stop(events):
            return
        end = len(self.text) - self._stop_prefix_length()
        tentative_from = self._tentative_from
        if tentative_from is None:
            self._send(ProseDelta, end, events)
            return
        self._send(ProseDelta, min(end, tentative_from), events)
        if end > self._sent:
            events.append(ProseDelta(self.text[self._sent : end], tentative=True))
            self._sent = end

    def _stop_prefix_length(self) -> int:
        """Length of the longest end of the text that may still grow into a stop string."""
        longest = 0
        for stop in self._stop:
            for length in range(min(len(stop) - 1, len(self.text)), longest, -1):
                if self.text.endswith(stop[:length]):
                    longest = length
                    break
        return longest

    def _anchor_start(self, before: int) -> int | None:
        """Start of the anchor that ends inside the text added by the entering token (None: none does)."""
        if self._anchor is None:
            return None
        return self._anchor.start_ending_after(self.text, self._prose_from, before)

    def _open(self, start: int, before: int, events: list[Event]) -> None:
        """Open a citation at `start`, its anchor ending in the text after `before`."""
        self._send(ProseDelta, start, events)
        if self._sent < before:  # the head was held with the citation before it (`…제750조 및 형법 제`,
            # pending throughout): it goes out as tentative prose, as every citation's head does
            events.append(ProseDelta(self.text[self._sent : before], tentative=True))
            self._sent = before
        self._tentative_from = None
        events.append(CitationStart(start, self.text[start : self._sent] if start < self._sent else ""))
        self._citation_start = start
        self._certain_end = None

    def _close(self, limit: int, events: list[Event]) -> None:
        """End the open citation at the longest prefix of `text[start:limit]` that parses."""
        start = self._citation_start
        if start is None:
            return
        floor = max(self._sent, start + 1)
        end, citation = max(floor, self._certain_end or floor), None
        for candidate in range(limit, floor - 1, -1):
            citation = self._parse(self.text[start:candidate])
            if citation is not None:
                end = candidate
                break
        self._send(CitationDelta, end, events)
        events.append(CitationEnd(self.text[start:end], start, end, citation))
        self._citation_start = None
        self._certain_end = None
        self._prose_from = end
