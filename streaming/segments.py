"""The segment state machine: source events and verdicts in, what a reader may see out.

Pure and synchronous (no clock, no I/O): the driver in `streaming.answers` feeds it the source's
events and the verifier's verdicts in whatever order they arrive, sends `VerificationNeeded`
to the verifier and everything else to the client. The machine guarantees:

- prose goes out as soon as nothing before it is held, except a suffix that the source marked
  tentative (it may still become a citation's head), or, for a source that cannot mark it, one
  that may still become an anchor (`anchors`: `AnchorPrefixes`);
- reasoning spans (`<think>` … `</think>`, the grammar's bypass pairs) never go out: the
  automaton does not constrain them, so nothing in them was checked;
- a citation is held from its first character until its verdict, and everything after it waits
  behind it, so the output keeps the source's order;
- a verified citation goes out in its canonical form with its source; any other is handled by the
  request's policy: `strict` replaces it by a marker (its text never goes out), `annotate` shows it
  with its verdict, `drop` removes it; every citation is reported, whatever the policy.
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from grammars import ParsedCitation
from streaming.anchors import AnchorPrefixes
from streaming.bypass import BypassFilter
from streaming.errors import SegmentProtocolError
from streaming.protocols import (
    CitationDelta,
    CitationEnd,
    CitationStart,
    Finished,
    Policy,
    ProseDelta,
    Provision,
    SourceEvent,
    Usage,
    Verdict,
    VerdictStatus,
)

logger = logging.getLogger(__name__)

# Beyond the verifier's statuses: a citation that did not parse, one the verifier could not check,
# citation-shaped prose the automaton never saw (found by `streaming.screen`).
OutcomeStatus = VerdictStatus | Literal["unparsed", "unavailable", "unanchored"]


# ---- outputs --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProseReleased:
    text: str


@dataclass(frozen=True, slots=True)
class CitationReleased:
    """A citation shown to the reader: `text` is what is shown (the canonical form when verified,
    the exact text under `annotate`), `original` what the model wrote."""

    citation_id: int
    text: str
    original: str
    status: OutcomeStatus
    canonical: str | None
    source: str | None
    detail: str | None
    provision: Provision | None = None


@dataclass(frozen=True, slots=True)
class CitationWithheld:
    """A citation the reader does not see (`strict`: `marker` stands in its place; `drop`: nothing)."""

    citation_id: int
    status: OutcomeStatus
    marker: str
    detail: str | None


@dataclass(frozen=True, slots=True)
class VerificationNeeded:
    citation_id: int
    citation: ParsedCitation


@dataclass(frozen=True, slots=True)
class AnswerFinished:
    usage: Usage
    finish_reason: str
    outcomes: Mapping[str, int]  # citations per outcome status
    reasoning_chars: int = 0  # characters of bypass spans kept from the reader


SegmentOutput = ProseReleased | CitationReleased | CitationWithheld | VerificationNeeded | AnswerFinished


# ---- internal segments ----------------------------------------------------------------------


@dataclass(slots=True)
class _Prose:
    text: str


@dataclass(slots=True)
class _Citation:
    citation_id: int
    text: str
    closed: bool = False
    status: OutcomeStatus | None = None  # None while waiting for the verdict
    verdict: Verdict | None = None
    detail: str | None = None


class SegmentMachine:
    """One answer's segments. `feed` the source's events in order; `resolve`/`fail` each
    `VerificationNeeded` once, in any order; `finished` turns True after `AnswerFinished`."""

    def __init__(
        self,
        policy: Policy,
        *,
        anchors: AnchorPrefixes | None = None,
        bypass: Sequence[tuple[str, str]] = (),
        marker: str = "[인용 확인 불가]",
    ) -> None:
        if policy not in ("strict", "annotate", "drop"):
            raise SegmentProtocolError(f"expected policy strict, annotate or drop, got {policy!r}")
        self.policy: Policy = policy
        self._anchors = anchors
        self._bypass = BypassFilter(bypass)
        self._marker = marker
        self._queue: deque[_Prose | _Citation] = deque()
        self._awaiting: dict[int, _Citation] = {}
        self._tail = ""  # prose held because it may begin a citation
        self._tentative = 0  # how much of the tail the source marked tentative
        self._open: _Citation | None = None
        self._finish: Finished | None = None
        self._outcomes: Counter[str] = Counter()
        self._next_id = 0
        self.finished = False

    # ---- source events ----------------------------------------------------------------------

    def feed(self, event: SourceEvent) -> list[SegmentOutput]:
        if self._finish is not None:
            raise SegmentProtocolError(f"expected no event after Finished, got {event!r}")
        if self._open is not None and not isinstance(event, CitationDelta | CitationEnd | Finished):
            raise SegmentProtocolError(
                f"expected CitationDelta or CitationEnd inside citation #{self._open.citation_id}, "
                f"got {event!r}"
            )
        outputs: list[SegmentOutput] = []
        match event:
            case ProseDelta(text=text, tentative=tentative):
                text = self._bypass.feed(text)
                self._tail += text
                self._tentative = self._tentative + len(text) if tentative else 0
                self._settle_tail()
            case CitationStart(prefix=prefix):
                self._tail += self._bypass.flush()  # a held `<` before a citation was plain text
                self._start_citation(prefix)
            case CitationDelta(text=text):
                if self._open is None:
                    raise SegmentProtocolError(f"expected CitationStart before citation text, got {text!r}")
                self._open.text += text
            case CitationEnd(text=text, citation=citation):
                outputs.extend(self._end_citation(text, citation))
            case Finished():
                self._finish = event
                if self._open is not None:  # the source broke its promise to close every citation
                    self._open.closed, self._open.status = True, "unparsed"
                    self._open.detail = "the answer ended inside the citation"
                    self._open = None
                self._queue_prose(self._tail + self._bypass.flush())  # nothing more can complete an anchor
                self._tail, self._tentative = "", 0
            case _:
                raise SegmentProtocolError(f"expected a source event, got {event!r}")
        outputs.extend(self._drain())
        return outputs

    def _settle_tail(self) -> None:
        held = self._tentative
        if self._anchors is not None:
            held = max(held, self._anchors.held_suffix_length(self._tail))
        cut = len(self._tail) - held
        self._queue_prose(self._tail[:cut])
        self._tail = self._tail[cut:]

    def _start_citation(self, prefix: str) -> None:
        if not self._tail.endswith(prefix):
            raise SegmentProtocolError(
                f"expected the held prose to end with the citation's prefix {prefix!r}, "
                f"got held {self._tail!r}"
            )
        self._queue_prose(self._tail[: len(self._tail) - len(prefix)])
        self._tail, self._tentative = "", 0
        self._open = _Citation(self._next_id, prefix)
        self._next_id += 1
        self._queue.append(self._open)

    def _end_citation(self, text: str, citation: ParsedCitation | None) -> list[SegmentOutput]:
        segment = self._open
        if segment is None:
            raise SegmentProtocolError(f"expected CitationStart before CitationEnd, got end of {text!r}")
        if not text.startswith(segment.text):
            raise SegmentProtocolError(
                f"expected citation #{segment.citation_id}'s text to continue {segment.text!r}, got {text!r}"
            )
        segment.text, segment.closed = text, True
        self._open = None
        if citation is None:
            segment.status, segment.detail = "unparsed", "the citation did not parse"
            return []
        self._awaiting[segment.citation_id] = segment
        return [VerificationNeeded(segment.citation_id, citation)]

    # ---- verdicts ---------------------------------------------------------------------------

    def resolve(self, citation_id: int, verdict: Verdict) -> list[SegmentOutput]:
        segment = self._take_awaiting(citation_id)
        segment.status, segment.verdict, segment.detail = verdict.status, verdict, verdict.detail
        return self._drain()

    def fail(self, citation_id: int, reason: str) -> list[SegmentOutput]:
        """The verifier could not answer (database down, timeout): the citation stays unverified."""
        segment = self._take_awaiting(citation_id)
        segment.status, segment.detail = "unavailable", reason
        return self._drain()

    def _take_awaiting(self, citation_id: int) -> _Citation:
        segment = self._awaiting.pop(citation_id, None)
        if segment is None:
            raise SegmentProtocolError(
                f"expected a verdict for one of {sorted(self._awaiting)}, got one for #{citation_id}"
            )
        return segment

    # ---- release ----------------------------------------------------------------------------

    def _queue_prose(self, text: str) -> None:
        if text:
            self._queue.append(_Prose(text))

    def _drain(self) -> list[SegmentOutput]:
        outputs: list[SegmentOutput] = []
        queue = self._queue
        while queue:
            head = queue[0]
            if isinstance(head, _Citation):
                if head.status is None or not head.closed:
                    break
                outputs.append(self._decide(head))
            elif outputs and isinstance(outputs[-1], ProseReleased):
                outputs[-1] = ProseReleased(outputs[-1].text + head.text)
            else:
                outputs.append(ProseReleased(head.text))
            queue.popleft()
        if self._finish is not None and not queue and not self.finished:
            self.finished = True
            outputs.append(
                AnswerFinished(
                    self._finish.usage, self._finish.finish_reason, dict(self._outcomes), self._bypass.removed
                )
            )
        return outputs

    def _decide(self, segment: _Citation) -> CitationReleased | CitationWithheld:
        assert segment.status is not None  # _drain only decides resolved citations
        self._outcomes[segment.status] += 1
        verdict = segment.verdict
        if segment.status == "verified" and verdict is not None:
            shown = verdict.canonical or segment.text
            return CitationReleased(
                segment.citation_id, shown, segment.text, "verified", verdict.canonical, verdict.source, None,
                verdict.provision,
            )
        logger.debug("citation #%d %s: %r", segment.citation_id, segment.status, segment.text)
        if self.policy == "annotate":
            return CitationReleased(
                segment.citation_id,
                segment.text,
                segment.text,
                segment.status,
                verdict.canonical if verdict else None,
                verdict.source if verdict else None,
                segment.detail,
                verdict.provision if verdict else None,
            )
        marker = self._marker if self.policy == "strict" else ""
        return CitationWithheld(segment.citation_id, segment.status, marker, segment.detail)
