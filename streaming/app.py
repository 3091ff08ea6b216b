"""The HTTP service: `create_app(config, source, verifier)`.

Routes: `POST /v1/answers` (SSE: prose, citation, done, error), `POST /v1/chat/completions`
(OpenAI-compatible, see `streaming.openai_compat`), `GET /healthz`, `/readyz`, `/metrics`,
`/admin/audit`, `/admin/stats` and `POST /admin/reload` (API key), and `/` (the answer page).
"""

import asyncio
import base64
import hashlib
import hmac
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from typing import Annotated, cast

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grammars import DEFAULT_BYPASS, find_citations
from streaming import metrics as metrics_format
from streaming.admission import Admission, NarrowingLimit
from streaming.anchors import AnchorPrefixes
from streaming.answers import AnswerRun
from streaming.config import StreamingSettings
from streaming.errors import (
    BadEncodingError,
    BodyTimeoutError,
    BodyTooLargeError,
    StreamingError,
    UnauthorizedError,
)
from streaming.metrics import Gauges, Metrics
from streaming.openai_compat import add_chat_route
from streaming.problems import problem_details
from streaming.protocols import (
    AdminSource,
    CitableNames,
    GenerationSource,
    ReadinessProbe,
    VerdictStatus,
    Verifier,
)
from streaming.protocols import Message as ChatTurn
from streaming.schemas import AnswerFields, request_models
from streaming.screen import Finder
from streaming.segments import AnswerFinished, CitationReleased, CitationWithheld, ProseReleased
from streaming.service import Service, citation_fields, client_of, problem_response, usage_fields
from streaming.sse import CLIENT_CLOSED_REQUEST, EventStreamResponse, sse_event, unless_client_leaves

logger = logging.getLogger(__name__)


async def _answer_events(service: Service, run: AnswerRun) -> AsyncIterator[bytes]:
    event_id = 0
    try:
        async for event in service.observed(run):
            match event:
                case ProseReleased(text=text):
                    yield sse_event("prose", {"text": text}, event_id)
                case CitationReleased() | CitationWithheld():
                    yield sse_event("citation", citation_fields(event), event_id)
                case AnswerFinished():
                    yield sse_event(
                        "done",
                        {
                            "request_id": run.request.request_id,
                            "usage": usage_fields(event),
                            "finish_reason": event.finish_reason,
                            "citations": dict(event.outcomes),
                            "reasoning_chars": event.reasoning_chars,
                            "timings": run.timings.as_dict(),
                        },
                        event_id,
                    )
            event_id += 1
    except Exception as error:  # the stream boundary: the same problem body, as the last event
        logger.warning("[%s] answer failed: %r", run.request.request_id, error)
        yield sse_event("error", problem_details(error, run.request.request_id), event_id)


class _BodyGuard:
    """Reads a request body up to the limit before the app sees it: 413 past the limit, 408 when it
    does not arrive within `timeout_s` (a slow client holds no connection for long), 400 for a
    JSON body that is not UTF-8; then replays it."""

    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float) -> None:
        self.app, self.max_bytes, self.timeout_s = app, max_bytes, timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length", b"0")
        try:
            async with asyncio.timeout(self.timeout_s):
                body = await self._read(receive, int(declared) if declared.isdigit() else 0)
            if b"json" in headers.get(b"content-type", b""):
                body.decode("utf-8")
        except TimeoutError:
            rejected: StreamingError = BodyTimeoutError(
                f"expected the whole request body within {self.timeout_s:g} s, got part"
            )
            await problem_response(rejected, headers={"connection": "close"})(scope, receive, send)
            return
        except BodyTooLargeError as error:
            await problem_response(error)(scope, receive, send)
            return
        except UnicodeDecodeError as error:
            rejected = BadEncodingError(
                f"expected a UTF-8 body, got byte {body[error.start]:#04x} at {error.start}"
            )
            await problem_response(rejected)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive, declared: int) -> bytes:
        if declared > self.max_bytes:
            raise BodyTooLargeError(
                f"expected a body of at most {self.max_bytes} bytes, got {declared} declared"
            )
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_bytes:
                raise BodyTooLargeError(
                    f"expected a body of at most {self.max_bytes} bytes, got more than that"
                )
        return b"".join(chunks)


class _ResponseCounter:
    """Counts every response by route and status (what /metrics reports)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                route = scope.get("route")
                self.metrics.responses.labels(getattr(route, "path", "unmatched"), message["status"]).inc()
            await send(message)

        await self.app(scope, receive, counting_send)


def create_app(
    config: StreamingSettings,
    source: GenerationSource,
    verifier: Verifier,
    *,
    admin: AdminSource | None = None,
    probes: Sequence[ReadinessProbe] = (),
    anchors: AnchorPrefixes | None = None,
    bypass: Sequence[tuple[str, str]] = DEFAULT_BYPASS,
    citable: CitableNames | Callable[[], CitableNames] = CitableNames(),
    screen: Finder = find_citations,
    gauges: Gauges | None = None,
) -> FastAPI:
    """The service over `source` and `verifier`. `anchors` lets the segment machine hold prose that
    may begin a citation (needed when the source sends anchors as prose before `CitationStart`);
    text between a `bypass` pair (the grammar's, `<think>` … `</think>`) is kept from readers;
    `citable` names the courts and acts a request may narrow its citations to (the source honours
    `GenerationRequest.courts` and `.acts`), or is a function asked for them on each request; `screen`
    finds what a reader would take for a citation in prose about to be released under `strict` or
    `drop` (grammars' lenient finder; the serving command passes one that knows the database's act
    names), called on each answer screened. Both are read as requests come, so a composition root
    whose data change (`POST /admin/reload`) may pass functions that follow them. `gauges` adds
    numbers read at each scrape of `/metrics` (the verifier's audit rows pending and lost)."""
    admission = Admission(config.max_active, config.max_queued, config.retry_after_s)
    metrics = Metrics(
        {
            "citegen_answers_active": ("Answers being generated.", lambda: admission.active),
            "citegen_answers_waiting": ("Answers waiting for a slot.", lambda: admission.waiting),
            **(gauges or {}),
        }
    )
    narrowings = NarrowingLimit(config.max_narrowings_per_client, config.retry_after_s)
    service = Service(config, source, verifier, anchors, tuple(bypass), admission, metrics, screen, narrowings)
    names = citable if callable(citable) else lambda: citable
    AnswerRequest, ChatCompletionRequest = request_models(config, names)
    app = FastAPI(
        title="citegen",
        version="0.1.0",
        description="Answers with Korean legal citations, each verified before it is shown.",
    )
    app.state.service = service

    # StreamingError has its own entry: only `Exception` goes through Starlette's outermost
    # middleware, which logs the error and re-raises it after the response (right for bugs only).
    @app.exception_handler(RequestValidationError)
    @app.exception_handler(HTTPException)
    @app.exception_handler(StreamingError)
    @app.exception_handler(Exception)
    async def _problem(request: Request, error: Exception) -> JSONResponse:
        return problem_response(error, str(request.url.path))

    @app.post(
        "/v1/answers",
        response_model=None,
        responses={
            200: {
                "content": {"text/event-stream": {}},
                "description": "prose, citation, done and error events",
            },
            422: {"description": "Invalid request"},
            429: {"description": "Overloaded"},
        },
    )
    async def answers(body: AnswerRequest, http: Request) -> Response:  # type: ignore[valid-type]
        fields = cast(AnswerFields, body)  # the model is built per app: mypy sees its fields through this view
        request = service.generation_request(
            [ChatTurn("user", fields.question)],
            fields.max_tokens,
            fields.temperature,
            fields.top_p,
            fields.seed,
            courts=fields.courts,
            acts=fields.acts,
        )
        started = await unless_client_leaves(service.start(request, fields.policy, client_of(http)), http)
        if started is None:  # left while waiting for a slot: its place in the queue is free again
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        run, leave = started
        return EventStreamResponse(_answer_events(service, run), leave, {"x-request-id": request.request_id})

    add_chat_route(app, service, ChatCompletionRequest)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", responses={503: {"description": "Not ready"}})
    async def readyz() -> JSONResponse:
        checks = {probe.name: await _probe(probe) for probe in probes}
        checks["capacity"] = not admission.full
        ready = all(checks.values())
        return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)

    @app.get("/metrics", response_class=PlainTextResponse)
    async def prometheus() -> Response:
        return Response(metrics.render(), media_type=metrics_format.CONTENT_TYPE)

    def require_admin(
        authorization: Annotated[str | None, Header()] = None,
        x_api_key: Annotated[str | None, Header()] = None,
    ) -> AdminSource:
        if admin is None or config.admin_api_key is None:
            raise HTTPException(404, "the admin endpoints are not configured")
        offered = x_api_key or (authorization or "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(offered.encode(), config.admin_api_key.get_secret_value().encode()):
            raise UnauthorizedError(
                "expected a valid API key in X-API-Key or Authorization: Bearer, got none or a wrong one"
            )
        return admin

    @app.get("/admin/audit", responses={401: {"description": "No or wrong API key"}})
    async def audit(
        source: Annotated[AdminSource, Depends(require_admin)],
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        status: VerdictStatus | None = None,
    ) -> JSONResponse:
        return JSONResponse({"entries": list(await source.audit(limit, status))})

    @app.get("/admin/stats", responses={401: {"description": "No or wrong API key"}})
    async def stats(source: Annotated[AdminSource, Depends(require_admin)]) -> JSONResponse:
        return JSONResponse(dict(await source.stats()))

    @app.post("/admin/reload", responses={401: {"description": "No or wrong API key"}})
    async def reload(source: Annotated[AdminSource, Depends(require_admin)]) -> JSONResponse:
        return JSONResponse(dict(await source.reload()))

    page = resources.files("streaming").joinpath("static/index.html").read_text(encoding="utf-8")
    page_headers = _page_headers(page)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page, headers=page_headers)

    app.add_middleware(_BodyGuard, max_bytes=config.max_body_bytes, timeout_s=config.body_timeout_s)
    app.add_middleware(_ResponseCounter, metrics=metrics)
    return app


def _page_headers(page: str) -> dict[str, str]:
    """The answer page's own script and style and its calls to this service, nothing else: the model's
    text is untrusted, and a page that starts answering from `?q=` must not be framed by another site."""
    def digest(tag: str) -> str:
        body = re.search(rf"<{tag}>(.*?)</{tag}>", page, re.DOTALL)
        if body is None:
            raise ValueError(f"expected the answer page to hold a <{tag}> element, got none")
        return "'sha256-" + base64.b64encode(hashlib.sha256(body.group(1).encode()).digest()).decode() + "'"

    policy = (f"default-src 'none'; script-src {digest('script')}; style-src {digest('style')}; connect-src 'self'; "
              "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
    return {"Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-cache"}


async def _probe(probe: ReadinessProbe) -> bool:
    try:
        return bool(await probe.ready())
    except Exception:  # a probe that fails is a probe that says "not ready"
        logger.warning("readiness probe %s failed", probe.name, exc_info=True)
        return False
