"""RFC 9457 problem details: one table from error type to status, type URI and title.

Each body also carries OpenAI's `error` object (`message`, `type`, `param`, `code`) as an extension member.

Before a stream starts a problem is the response (`application/problem+json`); after it has
started the same body goes out as the stream's final `error` event.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from streaming.errors import (
    BadEncodingError,
    BodyTimeoutError,
    BodyTooLargeError,
    GenerationError,
    OverloadedError,
    RequestRejectedError,
    SegmentProtocolError,
    StreamingError,
    UnauthorizedError,
)

logger = logging.getLogger(__name__)

PROBLEM_MEDIA_TYPE = "application/problem+json"
_BASE = "https://citegen.invalid/problems/"


@dataclass(frozen=True, slots=True)
class ProblemType:
    status: int
    slug: str
    title: str


# Most specific first: the first entry the error is an instance of wins.
PROBLEM_TYPES: tuple[tuple[type[BaseException], ProblemType], ...] = (
    (RequestValidationError, ProblemType(422, "invalid-request", "The request does not match the schema")),
    (BodyTooLargeError, ProblemType(413, "body-too-large", "The request body is too large")),
    (BadEncodingError, ProblemType(400, "bad-encoding", "The request body is not valid UTF-8")),
    (BodyTimeoutError, ProblemType(408, "body-timeout", "The request body arrived too slowly")),
    (OverloadedError, ProblemType(429, "overloaded", "Too many answers in progress")),
    (UnauthorizedError, ProblemType(401, "unauthorized", "A valid admin API key is required")),
    (RequestRejectedError, ProblemType(422, "request-rejected", "The request was refused")),
    (GenerationError, ProblemType(502, "generation-failed", "The answer could not be generated")),
    (SegmentProtocolError, ProblemType(500, "source-protocol", "The generator broke the event protocol")),
    (StreamingError, ProblemType(500, "streaming-error", "The streaming service failed")),
    (Exception, ProblemType(500, "internal", "Internal error")),
)
_MALFORMED_JSON = ProblemType(400, "malformed-json", "The request body is not valid JSON")


def problem_type_of(error: BaseException) -> ProblemType:
    if isinstance(error, HTTPException):
        return ProblemType(error.status_code, f"http-{error.status_code}", str(error.detail))
    if isinstance(error, RequestValidationError) and any(
        e.get("type") == "json_invalid" for e in error.errors()
    ):
        return _MALFORMED_JSON
    return next(problem for kind, problem in PROBLEM_TYPES if isinstance(error, kind))


def problem_details(error: BaseException, instance: str | None = None) -> dict[str, Any]:
    """The problem body for `error`; internal errors never leak their message."""
    problem = problem_type_of(error)
    body: dict[str, Any] = {"type": _BASE + problem.slug, "title": problem.title, "status": problem.status}
    if isinstance(error, RequestValidationError):
        body["detail"] = "; ".join(_describe(e) for e in error.errors())
        body["errors"] = [
            {"loc": _location(e), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in error.errors()
        ]
    elif isinstance(error, HTTPException):
        body["detail"] = str(error.detail)
    elif problem.status < 500 or isinstance(error, GenerationError | SegmentProtocolError):
        body["detail"] = str(error)
    else:
        logger.error("internal error", exc_info=error)
        body["detail"] = "see the server log"
    if isinstance(error, OverloadedError):
        body["retry_after_s"] = error.retry_after_s
    if instance is not None:
        body["instance"] = instance
    # An extension member in OpenAI's error shape, so OpenAI clients show the detail too: `code` a string,
    # `param` the first field a validation error names (null otherwise), as OpenAI's API gives them.
    fields = [".".join(map(str, _location(e)[1:])) for e in error.errors() if _location(e)[:1] == ["body"]] \
        if isinstance(error, RequestValidationError) else []
    body["error"] = {"message": body["detail"], "type": problem.slug, "param": next(filter(None, fields), None),
                     "code": problem.slug}
    return body


# pydantic names a union's members in an error's location (`str`, `list[…]`,
# `function-after[functools.partial(<function max_length_validator at 0x…>…)]`): not a place in the
# body, and an internal's repr besides.
_TYPE_TAGS = frozenset({"str", "int", "float", "bool", "list", "tuple", "dict", "none"})


def _location(error: Any) -> list[str | int]:
    return [
        part
        for part in error.get("loc", ())
        if isinstance(part, int) or (part.isidentifier() and part not in _TYPE_TAGS)
    ]


def _describe(error: Any) -> str:
    return f"{'.'.join(str(part) for part in _location(error))}: {error.get('msg', '')}"
