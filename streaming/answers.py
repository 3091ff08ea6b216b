"""One answer in flight: the source's events and the verifier's verdicts meet in the segment machine.

`AnswerRun.events()` is an async generator of what the client may see (`ProseReleased`,
`CitationReleased`, `CitationWithheld`, then `AnswerFinished`). A pump task reads the source
into a bounded queue, so a slow client stops the reading of the source (backpressure) instead of
piling text up in memory. Each closed citation is verified right away, awaited in place under a
timeout: a verifier that answers from its cache answers without a single turn of the event loop,
so a citation's hold is as short as the lookup; one that fails or hangs leaves the citation
unverified, so the answer still finishes. Meanwhile the pump keeps reading the source, and
everything after the citation is held behind it anyway. Closing the generator (the client went
away) cancels the source.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

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
from streaming.screen import ClientEvent, Finder, ProseScreen
from streaming.segments import (
    AnswerFinished,
    CitationReleased,
    CitationWithheld,
    SegmentMachine,
    SegmentOutput,
    VerificationNeeded,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RunOptions:
    policy: Policy
    verify_timeout_s: float
    inbox_size: int
    marker: str
    anchors: AnchorPrefixes | None = None
    bypass: tuple[tuple[str, str], ...] = ()
    screen: Finder | None = None  # the last check over released prose (strict and drop)


@dataclass(frozen=True, slots=True)
class _SourceFailed:
    error: BaseException


@dataclass(slots=True)
class RunTimings:
    """Seconds since the run started; `holds_s` is, per citation, closed → released."""

    started: float = field(default_factory=time.perf_counter)
    first_event_s: float | None = None
    total_s: float | None = None
    holds_s: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, float | list[float] | None]:
        return {
            "first_event_s": self.first_event_s,
            "total_s": self.total_s,
            "citation_holds_ms": [round(hold * 1000, 3) for hold in self.holds_s],
        }


class AnswerRun:
    def __init__(
        self, request: GenerationRequest, source: GenerationSource, verifier: Verifier, options: RunOptions
    ) -> None:
        self.request = request
        self.timings = RunTimings()
        self._source = source
        self._verifier = verifier
        self._options = options
        self._machine = SegmentMachine(
            options.policy, anchors=options.anchors, bypass=options.bypass, marker=options.marker
        )
        self._closed_at: dict[int, float] = {}
        marker = options.marker if options.policy == "strict" else ""
        self.screen = ProseScreen(options.screen, marker) if options.screen is not None else None

    async def events(self) -> AsyncIterator[ClientEvent]:
        inbox: asyncio.Queue[SourceEvent | _SourceFailed] = asyncio.Queue(maxsize=self._options.inbox_size)
        pump = asyncio.create_task(self._pump(inbox))
        try:
            while not self._machine.finished:
                item = await inbox.get()
                if isinstance(item, _SourceFailed):
                    raise item.error
                outputs = self._machine.feed(item)
                if isinstance(item, CitationEnd):
                    self._closed_at.update(
                        (o.citation_id, time.perf_counter())
                        for o in outputs
                        if isinstance(o, VerificationNeeded)
                    )
                while outputs:
                    output = outputs.pop(0)
                    if isinstance(output, VerificationNeeded):
                        outputs.extend(await self._verify(output))
                        continue
                    self._note_release(output)
                    for shown in self.screen.feed(output) if self.screen is not None else (output,):
                        yield shown
        finally:
            pump.cancel()
            await asyncio.gather(pump, return_exceptions=True)
            if not self._machine.finished:
                logger.info("[%s] answer stopped before it finished", self.request.request_id)

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

    async def _pump(self, inbox: asyncio.Queue[SourceEvent | _SourceFailed]) -> None:
        generation = self._source.generate(self.request)
        try:
            async for event in generation:
                await inbox.put(event)
                if isinstance(event, Finished):
                    return
            await inbox.put(
                _SourceFailed(
                    SegmentProtocolError(
                        "expected Finished as the source's last event, got the end of its stream"
                    )
                )
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the stream boundary: every failure becomes an error event
            await inbox.put(_SourceFailed(error))
        finally:
            close = getattr(generation, "aclose", None)
            if close is not None:
                await close()

    async def _verify(self, needed: VerificationNeeded) -> list[SegmentOutput]:
        """The machine's outputs once the verdict (or the failure to get one) is in."""
        try:
            async with asyncio.timeout(self._options.verify_timeout_s):
                verdict = await self._verifier.verify(needed.citation)
        except Exception as error:  # database down, timeout, a bug: the citation stays unverified
            logger.warning(
                "[%s] verification of citation #%d failed: %r",
                self.request.request_id,
                needed.citation_id,
                error,
            )
            return self._machine.fail(
                needed.citation_id, f"the verifier could not answer ({type(error).__name__})"
            )
        if not isinstance(verdict, Verdict):
            return self._machine.fail(needed.citation_id, f"expected a Verdict, got {type(verdict).__name__}")
        return self._machine.resolve(needed.citation_id, verdict)
