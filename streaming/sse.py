"""Server-Sent Events on the wire, and noticing a client leaving.

Starlette's StreamingResponse only notices a disconnect on its next write under ASGI 2.4, so a
stream waiting on a slow verifier would keep its slot. `EventStreamResponse` listens for
`http.disconnect` while it streams, cancels the body at once, and always runs `on_close`
(which frees the admission slot), even when the body never started. Before a response exists
(waiting for a slot, building a whole completion), `unless_client_leaves` races the work against
the disconnect, so a client that gives up while queued frees its place in the queue at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

logger = logging.getLogger(__name__)
T = TypeVar("T")
CLIENT_CLOSED_REQUEST = 499  # nginx's status for a client that left first: nobody reads it, logs do


def sse_event(name: str | None, data: Any, event_id: int | None = None) -> bytes:
    """One event; `name` None writes an unnamed (`message`) event, as OpenAI streams do."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    head = (f"id: {event_id}\n" if event_id is not None else "") + (f"event: {name}\n" if name else "")
    return (head + "".join(f"data: {line}\n" for line in payload.split("\n")) + "\n").encode()


class EventStreamResponse(Response):
    media_type = "text/event-stream"

    def __init__(
        self, body: AsyncIterator[bytes], on_close: Callable[[], None], headers: dict[str, str] | None = None
    ) -> None:
        self._body = body
        self._on_close = on_close
        self.status_code = 200
        self.background = None
        self.init_headers({"cache-control": "no-cache", "x-accel-buffering": "no", **(headers or {})})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        streaming = asyncio.create_task(self._stream(send))
        watching = asyncio.create_task(self._watch_disconnect(receive))
        try:
            await asyncio.wait({streaming, watching}, return_when=asyncio.FIRST_COMPLETED)
            if streaming.done() and not streaming.cancelled() and streaming.exception() is not None:
                logger.error("event stream failed", exc_info=streaming.exception())
        finally:
            for task in (streaming, watching):
                task.cancel()
            await asyncio.gather(streaming, watching, return_exceptions=True)
            close = getattr(self._body, "aclose", None)
            if close is not None:
                await close()
            self._on_close()

    async def _stream(self, send: Send) -> None:
        try:
            await send(
                {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
            )
            async for chunk in self._body:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # uvicorn's ClientDisconnected: the client left mid-write
            logger.info("client disconnected during a write")

    @staticmethod
    async def _watch_disconnect(receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass


async def unless_client_leaves(work: Coroutine[Any, Any, T], http: Request) -> T | None:
    """`work`'s result, or None when the client leaves first (`work` is then cancelled)."""
    working = asyncio.ensure_future(work)
    watching = asyncio.ensure_future(_client_gone(http))
    try:
        await asyncio.wait({working, watching}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watching.cancel()
        if not working.done():
            working.cancel()
            logger.info("client left before its response was ready")
        await asyncio.gather(working, watching, return_exceptions=True)
    return None if working.cancelled() else working.result()


async def _client_gone(http: Request) -> None:
    # The body has been read, so the next message can only be the disconnect.
    while (await http.receive())["type"] != "http.disconnect":
        pass
