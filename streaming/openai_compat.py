"""`POST /v1/chat/completions` and `GET /v1/models`, compatible with OpenAI's clients.

The answer is the same as `/v1/answers` gives: citations already verified (or replaced, or
annotated, by `citation_policy`), narrowed by the extension fields `citegen_courts` and
`citegen_acts` as `/v1/answers` is by `courts` and `acts`. Citation metadata rides in extension
fields that OpenAI clients keep (`model_extra`): `citations` on a completion, `citation` on a stream
chunk, each with the character span `start`/`end` of the citation in the message content.
"""

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from streaming.answers import AnswerRun
from streaming.problems import problem_details
from streaming.protocols import Message
from streaming.segments import AnswerFinished, CitationReleased, CitationWithheld, ProseReleased
from streaming.service import Service, citation_fields, problem_response, usage_fields
from streaming.sse import EventStreamResponse, sse_event

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
        max_tokens = body.max_completion_tokens or body.max_tokens or service.config.default_max_tokens
        stop = [body.stop] if isinstance(body.stop, str) else body.stop or []
        messages = [Message(m.role, m.content) for m in body.messages]
        request = service.generation_request(
            messages,
            max_tokens,
            body.temperature,
            body.top_p,
            body.seed,
            stop,
            courts=body.citegen_courts,
            acts=body.citegen_acts,
        )
        run, leave = await service.start(request, body.citation_policy)
        header = {
            "id": f"chatcmpl-{request.request_id}",
            "created": int(time.time()),
            "model": service.config.model_name,
        }
        if body.stream:
            include_usage = bool(body.stream_options and body.stream_options.include_usage)
            return EventStreamResponse(
                _chunks(service, run, header, include_usage), leave, {"x-request-id": request.request_id}
            )
        try:
            return await _unless_disconnected(_completion(service, run, header), http)
        finally:
            leave()


async def _unless_disconnected(completion: Coroutine[Any, Any, Response], http: Request) -> Response:
    """The completion, or, if the client leaves first, its cancellation (which cancels the source)."""
    answering = asyncio.ensure_future(completion)
    watching = asyncio.ensure_future(_client_gone(http))
    try:
        await asyncio.wait({answering, watching}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watching.cancel()
        if not answering.done():
            answering.cancel()
            logger.info("client left before its completion was ready")
        await asyncio.gather(answering, watching, return_exceptions=True)
    return answering.result() if not answering.cancelled() else Response(status_code=499)


async def _client_gone(http: Request) -> None:
    # The body has been read, so the next message can only be the disconnect.
    while (await http.receive())["type"] != "http.disconnect":
        pass


async def _completion(service: Service, run: AnswerRun, header: dict[str, Any]) -> JSONResponse:
    transcript, content, citations = _Transcript(), [], []
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
    def chunk(delta: dict[str, Any], finish_reason: str | None = None, **extra: Any) -> bytes:
        choices = [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]
        return sse_event(None, {**header, "object": "chat.completion.chunk", "choices": choices, **extra})

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
            yield chunk({"content": text}, **({"citation": citation} if citation else {}))
    except Exception as error:  # the stream boundary: OpenAI clients raise on an `error` chunk
        logger.warning("[%s] completion stream failed: %r", run.request.request_id, error)
        yield sse_event(None, problem_details(error, run.request.request_id))
