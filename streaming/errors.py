"""Errors of the streaming package.

    StreamingError               root: anything the streaming service refuses or cannot do
    ├── ConfigurationError       a service or anchor set configured with impossible values
    ├── SegmentProtocolError     a generation source broke the event protocol (a bug upstream)
    ├── GenerationError          the generation source failed while producing an answer
    ├── RequestRejectedError     a request refused before its stream starts
    │   ├── BodyTooLargeError    the request body exceeds the configured limit
    │   ├── BadEncodingError     the request body is not UTF-8
    │   ├── BodyTimeoutError     the request body did not arrive within the configured time
    │   ├── OverloadedError      the queue is full (429 with Retry-After)
    │   └── UnauthorizedError    an admin endpoint without the right API key
    └── (verdicts that are not `verified` are values, not errors: see `streaming.protocols.Verdict`)

`streaming.problems` maps each type to its RFC 9457 problem details.
"""

from __future__ import annotations


class StreamingError(Exception):
    """Root of the streaming package's errors; the message says what was expected and what came."""


class ConfigurationError(StreamingError):
    pass


class SegmentProtocolError(StreamingError):
    pass


class GenerationError(StreamingError):
    pass


class RequestRejectedError(StreamingError):
    pass


class BodyTooLargeError(RequestRejectedError):
    pass


class BadEncodingError(RequestRejectedError):
    pass


class BodyTimeoutError(RequestRejectedError):
    pass


class OverloadedError(RequestRejectedError):
    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class UnauthorizedError(RequestRejectedError):
    pass
