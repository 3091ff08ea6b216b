"""One answer in flight: the source's events and the verifier's verdicts meet in the segment machine.

`AnswerRun.events()` is an async generator of what the client may see (`ProseReleased`,
`CitationReleased`, `CitationWithheld`, then `AnswerFinished`). Source events and verdicts go
through one bounded inbox, so a slow client stops the reading of the source (backpressure)
instead of piling text up in memory. Each citation is verified in its own task, under a timeout:
a verifier that fails or hangs leaves the citation unverified, so the answer still finishes.
Closing the generator (the client went away) cancels the source and every verification.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from grammars import ParsedCitation
from streaming.anchors import AnchorPrefixes
from streaming.errors import SegmentProtocolError
from streaming.protocols import (
    CitationEnd,
    Finished,
    GenerationRequest,
    GenerationSource,
    Policy,
    SourceEvent,
    Verdict,
    Verifier,
)
from streaming.segments import (
    AnswerFinished,
    CitationReleased,
    CitationWithheld,
    ProseReleased,
    SegmentMachine,
    VerificationNeeded,
)

logger = logging.getLogger(__name__)

ClientEvent = ProseReleased | CitationReleased | CitationWithheld | AnswerFinished


@dataclass(frozen=True, slots=True)
class RunOptions:
    policy: Policy
    verify_timeout_s: float
    inbox_size: int
    marker: str
    anchors: AnchorPrefixes | None = None


@dataclass(frozen=True, slots=True)
class _SourceFailed:
    error: BaseException


@dataclass(frozen=True, slots=True)
class _Verified:
    citation_id: int
    verdict: Verdict


@dataclass(frozen=True, slots=True)
class _Unverifiable:
    citation_id: int
    reason: str


_InboxItem = SourceEvent | _SourceFailed | _Verified | _Unverifiable


@dataclass(slots=True)
class RunTimings:
    """Seconds since the run started; `holds_s` is, per citation, closed → released."""

    started: float = field(default_factory=time.perf_counter)
    first_event_s: float | None = None
    total_s: float | None = None
    holds_s: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, float | None]:
        holds = sorted(self.holds_s)
        return {
            "first_event_s": self.first_event_s,
            "total_s": self.total_s,
            "citation_hold_max_ms": holds[-1] * 1000 if holds else None,
        }


class AnswerRun:
    def __init__(self, request: GenerationRequest, source: GenerationSource, verifier: Verifier,
                 options: RunOptions) -> None:
        self.request = request
        self.timings = RunTimings()
        self._source = source
        self._verifier = verifier
        self._options = options
        self._machine = SegmentMachine(options.policy, anchors=options.anchors, marker=options.marker)
        self._closed_at: dict[int, float] = {}

    async def events(self) -> AsyncIterator[ClientEvent]:
        inbox: asyncio.Queue[_InboxItem] = asyncio.Queue(maxsize=self._options.inbox_size)
        tasks: set[asyncio.Task[None]] = {asyncio.create_task(self._pump(inbox))}
        try:
            while not self._machine.finished:
                item = await inbox.get()
                for output in self._step(item):
                    if isinstance(output, VerificationNeeded):
                        task = asyncio.create_task(self._verify(output.citation_id, output.citation, inbox))
                        tasks.add(task)
                        task.add_done_callback(tasks.discard)
                        continue
                    self._note_release(output)
                    yield output
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if not self._machine.finished:
                logger.info("[%s] answer stopped before it finished", self.request.request_id)

    def _step(self, item: _InboxItem) -> list:
        match item:
            case _SourceFailed(error=error):
                raise error
            case _Verified(citation_id=citation_id, verdict=verdict):
                return self._machine.resolve(citation_id, verdict)
            case _Unverifiable(citation_id=citation_id, reason=reason):
                return self._machine.fail(citation_id, reason)
        outputs = self._machine.feed(item)
        if isinstance(item, CitationEnd):
            now = time.perf_counter()
            self._closed_at.update((o.citation_id, now) for o in outputs if isinstance(o, VerificationNeeded))
        return outputs

    def _note_release(self, output: ClientEvent) -> None:
        now = time.perf_counter()
        if self.timings.first_event_s is None:
            self.timings.first_event_s = now - self.timings.started
        if isinstance(output, CitationReleased | CitationWithheld):
            closed = self._closed_at.pop(output.citation_id, None)
            if closed is not None:  # unparsed citations are never sent for verification
                self.timings.holds_s.append(now - closed)
        if isinstance(output, AnswerFinished):
            self.timings.total_s = now - self.timings.started

    async def _pump(self, inbox: asyncio.Queue[_InboxItem]) -> None:
        generation = self._source.generate(self.request)
        try:
            async for event in generation:
                await inbox.put(event)
                if isinstance(event, Finished):
                    return
            await inbox.put(_SourceFailed(SegmentProtocolError(
                "expected Finished as the source's last event, got the end of its stream")))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the stream boundary: every failure becomes an error event
            await inbox.put(_SourceFailed(error))
        finally:
            close = getattr(generation, "aclose", None)
            if close is not None:
                await close()

    async def _verify(self, citation_id: int, citation: ParsedCitation, inbox: asyncio.Queue[_InboxItem]) -> None:
        try:
            verdict = await asyncio.wait_for(self._verifier.verify(citation), self._options.verify_timeout_s)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # database down, timeout, a bug: the citation stays unverified
            logger.warning("[%s] verification of citation #%d failed: %r", self.request.request_id, citation_id, error)
            await inbox.put(_Unverifiable(citation_id, f"the verifier could not answer ({type(error).__name__})"))
            return
        if not isinstance(verdict, Verdict):
            await inbox.put(_Unverifiable(citation_id, f"expected a Verdict, got {type(verdict).__name__}"))
            return
        await inbox.put(_Verified(citation_id, verdict))
