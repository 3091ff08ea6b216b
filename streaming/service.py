"""What the routes share: the two protocols, settings, admission and counters (`Service`), and
how a problem or a citation is written for clients."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from streaming.admission import Admission, NarrowingLimit
from streaming.anchors import AnchorPrefixes
from streaming.answers import AnswerRun, RunOptions
from streaming.config import StreamingSettings
from streaming.errors import OverloadedError
from streaming.metrics import Metrics
from streaming.problems import PROBLEM_MEDIA_TYPE, problem_details, problem_type_of
from streaming.protocols import (
    GenerationRequest,
    GenerationSource,
    Message,
    Policy,
    PreparingSource,
    Verifier,
)
from streaming.screen import UNANCHORED, UNANCHORED_DETAIL, ClientEvent, Finder
from streaming.segments import AnswerFinished, CitationReleased, CitationWithheld

logger = logging.getLogger(__name__)


def problem_response(
    error: BaseException, instance: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = problem_details(error, instance)
    headers = dict(headers or {})
    if isinstance(error, OverloadedError):
        headers["retry-after"] = str(error.retry_after_s)
    return JSONResponse(body, status_code=body["status"], headers=headers, media_type=PROBLEM_MEDIA_TYPE)


@dataclass
class Service:
    """What every route shares: the two protocols, the settings section and the counters."""

    config: StreamingSettings
    source: GenerationSource
    verifier: Verifier
    anchors: AnchorPrefixes | None
    bypass: tuple[tuple[str, str], ...]
    admission: Admission
    metrics: Metrics
    screen: Finder | None
    narrowings: NarrowingLimit

    def generation_request(
        self,
        messages: Sequence[Message],
        max_tokens: int,
        temperature: float,
        top_p: float,
        seed: int | None,
        stop: Sequence[str] = (),
        *,
        courts: tuple[str, ...] | None = None,
        acts: tuple[str, ...] | None = None,
    ) -> GenerationRequest:
        return GenerationRequest(
            uuid.uuid4().hex, tuple(messages), max_tokens, temperature, top_p, seed, tuple(stop), courts, acts
        )

    async def start(
        self, request: GenerationRequest, policy: Policy, client: str
    ) -> tuple[AnswerRun, Callable[[], None]]:
        """Let the source prepare the request (holding no slot; a refusal raises before any
        stream), wait for a slot (or raise OverloadedError) and set up the run; the caller frees
        the slot."""
        self.admission.refuse_if_full()
        if isinstance(self.source, PreparingSource):
            narrowing: Hashable | None = (request.courts, request.acts)
            # the whole language (compiled at start-up) and a narrowing compiled already are never counted
            if narrowing == (None, None) or self.source.is_prepared(request):
                narrowing = None
            with self.narrowings.held(client, narrowing):
                request = await self.source.prepare(request)
        leave = await self.admission.enter()
        options = RunOptions(
            policy,
            self.config.verify_timeout_s,
            self.config.inbox_size,
            self.config.strict_marker,
            self.anchors,
            self.bypass,
            self.screen if policy in ("strict", "drop") else None,
        )
        logger.info("[%s] answer admitted (%s, %d active)", request.request_id, policy, self.admission.active)
        return AnswerRun(request, self.source, self.verifier, options), leave

    async def observed(self, run: AnswerRun) -> AsyncIterator[ClientEvent]:
        """The run's events, counted into the metrics as they pass; a failure is counted by the
        problem type its client sees, and raised on."""
        holds_seen = 0
        metrics = self.metrics
        try:
            async for event in run.events():
                if isinstance(event, CitationReleased | CitationWithheld):
                    metrics.citations.labels(event.status).inc()
                    if isinstance(event, CitationWithheld):
                        metrics.withheld.labels(event.status).inc()
                    for hold in run.timings.holds_s[holds_seen:]:  # unparsed citations add none
                        metrics.hold_s.observe(hold)
                    holds_seen = len(run.timings.holds_s)
                elif isinstance(event, AnswerFinished):
                    metrics.completion_tokens.inc(event.usage.completion_tokens)
                    metrics.answer_s.observe(run.timings.total_s or 0.0)
                yield event
        except Exception as error:
            metrics.failed.labels(problem_type_of(error).slug).inc()
            raise


# Why a citation was withheld, in words that do not restate it: the verifier's own detail names the
# act, article or case number (`… holds no 2024고단316252`) and stays in the audit log.
WITHHELD_DETAILS: dict[str, str] = {
    "mismatch": "the database holds a record by that number whose other details differ",
    "not_found": "the database holds no such provision or decision",
    "ambiguous": "it could name more than one record in the database",
    "not_covered": "the database does not cover it, so it could not be checked",
    "outdated": "it names a provision the law in force no longer has",
    "unavailable": "the verifier could not answer in time",
    "unparsed": "it is not a complete citation",
    UNANCHORED: UNANCHORED_DETAIL,
}


def citation_fields(event: CitationReleased | CitationWithheld) -> dict[str, Any]:
    """A citation as clients see it; a withheld one carries its marker and why, never its text."""
    if isinstance(event, CitationWithheld):
        return {
            "id": event.citation_id,
            "text": event.marker,
            "canonical": None,
            "status": event.status,
            "source": None,
            "detail": WITHHELD_DETAILS.get(event.status, "it could not be verified"),
            "withheld": True,
        }
    return {
        "id": event.citation_id,
        "text": event.text,
        "original": event.original,
        "canonical": event.canonical,
        "status": event.status,
        "source": event.source,
        "detail": event.detail,
        "provision": dataclasses.asdict(event.provision) if event.provision else None,
        "withheld": False,
    }


def client_of(http: Request) -> str:
    """Who asked, for per-client limits: the peer's address."""
    return http.client.host if http.client is not None else "unknown"


def usage_fields(event: AnswerFinished) -> dict[str, int]:
    usage = event.usage
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }
