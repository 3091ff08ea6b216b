"""Segment state machine and HTTP streaming service, built on protocols defined here."""

from streaming.app import create_app
from streaming.config import StreamingSettings
from streaming.errors import (
    BadEncodingError,
    BodyTooLargeError,
    ConfigurationError,
    GenerationError,
    OverloadedError,
    RequestRejectedError,
    SegmentProtocolError,
    StreamingError,
    UnauthorizedError,
)
from streaming.protocols import (
    AdminSource,
    CitationDelta,
    CitationEnd,
    CitationStart,
    Finished,
    GenerationRequest,
    GenerationSource,
    Message,
    ProseDelta,
    ReadinessProbe,
    SourceEvent,
    Usage,
    Verdict,
    Verifier,
)
from streaming.segments import SegmentMachine

__all__ = [
    "AdminSource",
    "BadEncodingError",
    "BodyTooLargeError",
    "CitationDelta",
    "CitationEnd",
    "CitationStart",
    "ConfigurationError",
    "Finished",
    "GenerationError",
    "GenerationRequest",
    "GenerationSource",
    "Message",
    "OverloadedError",
    "ProseDelta",
    "ReadinessProbe",
    "RequestRejectedError",
    "SegmentMachine",
    "SegmentProtocolError",
    "SourceEvent",
    "StreamingError",
    "StreamingSettings",
    "UnauthorizedError",
    "Usage",
    "Verdict",
    "Verifier",
    "create_app",
]
