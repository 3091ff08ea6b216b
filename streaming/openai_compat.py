"""`POST /v1/chat/completions` and `GET /v1/models`, compatible with OpenAI's clients.

The answer is the same as `/v1/answers` gives: citations already verified (or replaced, or
annotated, by `citation_policy`), narrowed by the extension fields `citegen_courts` and
`citegen_acts` as `/v1/answers` is by `courts` and `acts`. Citation metadata rides in extension
fields that OpenAI clients keep (`model_extra`): `citations`, on a completion and on the stream chunk
that carries a citation alike, each with the character span `start`/`end` of the citation in the
message content.
"""

import logging
import time
from collections.abc import AsyncIterator
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from streaming.answers import AnswerRun
from streaming.problems import problem_details
from streaming.protocols import Message
from streaming.schemas import ChatFields
from streaming.segments import AnswerFinished, CitationReleased, CitationWithheld, ProseReleased
from streaming.service import Service, citation_fields, client_of, problem_response, usage_fields
from streaming.sse import CLIENT_CLOSED_REQUEST, EventStreamResponse, sse_event, unless_client_leaves

logger = logging.getLogger(__name__)


class _Transcript:
    """Turns released events into OpenAI content pieces, keeping track of character offsets."""

    def __init__(self) -> None:
        self.length = 0

    def piece(
        self, event: ProseReleased | CitationReleased | CitationWithheld
    ) -> tuple[str, dict[str, Any] | None]:
        text = event.text if isinstance(event, ProseReleased | CitationReleased) else event.marker
        start, self.length = self.length, self.length + len(text)
        if isinstance(event, ProseReleased):
            return text, None
        return text, {**citation_fields(event), "start": start, "end": self.length}


def add_chat_route(app: FastAPI, service: Service, request_model: type[BaseModel]) -> None:
    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        model = {"id": service.config.model_name, "object": "model", "created": 0, "owned_by": "citegen"}
        return {"object": "list", "data": [model]}

    @app.post(
        "/v1/chat/completions",
        responses={
            200: {
                "content": {"text/event-stream": {}},
                "description": "chat.completion, or chunks when stream=true",
            },
            422: {"description": "Invalid request"},
            429: {"description": "Overloaded"},
        },
    )
    async def chat_completions(body: request_model, http: Request) -> Any:  # type: ignore[valid-type]
        fields = cast(ChatFields, body)  # as /v1/answers reads its body
        max_tokens = fields.max_completion_tokens or fields.max_tokens or service.config.default_max_tokens
        stop = fields.stop or []
        messages = [Message(m.role, m.content) for m in fields.messages]
        request = service.generation_request(
            messages,
            max_tokens,
            fields.temperature,
            fields.top_p,
            fields.seed,
            stop,
            courts=fields.citegen_courts,
            acts=fields.citegen_acts,
        )
        started = await unless_client_leaves(service.start(request, fields.citation_policy, client_of(http)), http)
        if started is None:
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        run, leave = started
        header = {
            "id": f"chatcmpl-{request.request_id}",
            "created": int(time.time()),
            "model": service.config.model_name,
        }
        if fields.stream:
            include_usage = bool(fields.stream_options and fields.stream_options.include_usage)
            return EventStreamResponse(
                _chunks(service, run, header, include_usage), leave, {"x-request-id": request.request_id}
            )
        try:
            completion = await unless_client_leaves(_completion(service, run, header), http)
        finally:
            leave()
        return completion or Response(status_code=CLIENT_CLOSED_REQUEST)


async def _completion(service: Service, run: AnswerRun, header: dict[str, Any]) -> JSONResponse:
    transcript = _Transcript()
    content: list[str] = []
    citations: list[dict[str, Any]] = []
    try:
        async for event in service.observed(run):
            if isinstance(event, AnswerFinished):
                return JSONResponse(
                    {
                        **header,
                        "object": "chat.completion",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": "".join(content)},
                                "finish_reason": event.finish_reason,
                                "logprobs": None,
                            }
                        ],
                        "usage": usage_fields(event),
                        "citations": citations,
                    }
                )
            text, citation = transcript.piece(event)
            content.append(text)
            if citation is not None:
                citations.append(citation)
    except Exception as error:  # nothing sent yet: the problem is the response
        logger.warning("[%s] completion failed: %r", run.request.request_id, error)
        return problem_response(error, run.request.request_id)
    raise AssertionError("an answer run always ends with AnswerFinished or an error")


async def _chunks(
    service: Service, run: AnswerRun, header: dict[str, Any], include_usage: bool
) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, Any], finish_reason: str | None = None, extra: dict[str, Any] | None = None) -> bytes:
        choices = [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]
        return sse_event(None, {**header, "object": "chat.completion.chunk", "choices": choices, **(extra or {})})

    transcript = _Transcript()
    yield chunk({"role": "assistant", "content": ""})
    try:
        async for event in service.observed(run):
            if isinstance(event, AnswerFinished):
                yield chunk({}, event.finish_reason)
                if include_usage:
                    yield sse_event(
                        None,
                        {
                            **header,
                            "object": "chat.completion.chunk",
                            "choices": [],
                            "usage": usage_fields(event),
                        },
                    )
                yield sse_event(None, "[DONE]")
                return
            text, citation = transcript.piece(event)
            yield chunk({"content": text}, extra={"citations": [citation]} if citation else None)
    except Exception as error:  # the stream boundary: OpenAI clients raise on an `error` chunk
        logger.warning("[%s] completion stream failed: %r", run.request.request_id, error)
        yield sse_event(None, problem_details(error, run.request.request_id))
