"""Segment state machine and HTTP streaming service, built on protocols defined here.

- `SegmentMachine` (segments.py): source events and verdicts in, what a reader may see out; holds
  each citation from its first character until its verdict, and everything after it behind it.
- `ProseScreen` (screen.py): the last check under `strict` and `drop`, withholding citation-shaped
  prose the automaton never saw (grammars' lenient finder), counted as `unanchored`.
- `GenerationSource` and `Verifier` (protocols.py): what the service needs from an engine and a
  verifier; `citegen serve` adapts the real ones (citegen/commands/serve_wiring.py). `CitableNames`:
  the courts and acts a request may narrow its citations to.
- `create_app(config, source, verifier)` (app.py): `POST /v1/answers` (SSE), `POST
  /v1/chat/completions` (OpenAI-compatible), health, readiness, metrics, admin, and the answer page.
- Errors (errors.py) map to RFC 9457 problem details in one table (problems.py).
"""

from typing import TYPE_CHECKING

from grammars import lazy_exports

# Loaded on first use (grammars.exports): `citegen recite` reads only `StreamingSettings` (its settings
# section) and starts without the segment machine, the anchors' automata or the web stack (FastAPI),
# which load with `create_app`.
if TYPE_CHECKING:
    from streaming.anchors import AnchorPrefixes
    from streaming.app import create_app
    from streaming.config import StreamingSettings
    from streaming.errors import (
        BadEncodingError,
        BodyTimeoutError,
        BodyTooLargeError,
        ConfigurationError,
        GenerationError,
        OverloadedError,
        RequestRejectedError,
        SegmentProtocolError,
        StreamingError,
        UnauthorizedError,
    )
    from streaming.metrics import Gauges
    from streaming.protocols import (
        AdminSource,
        CitableNames,
        CitationDelta,
        CitationEnd,
        CitationStart,
        Finished,
        GenerationRequest,
        GenerationSource,
        Message,
        PreparingSource,
        ProseDelta,
        Provision,
        ReadinessProbe,
        SourceEvent,
        Usage,
        Verdict,
        Verifier,
    )
    from streaming.segments import SegmentMachine

_HOMES = {  # module: the names it gives the package (as imported above)
    "streaming.anchors": ("AnchorPrefixes",),
    "streaming.app": ("create_app",),
    "streaming.config": ("StreamingSettings",),
    "streaming.errors": ("BadEncodingError", "BodyTimeoutError", "BodyTooLargeError", "ConfigurationError",
                         "GenerationError", "OverloadedError", "RequestRejectedError", "SegmentProtocolError",
                         "StreamingError", "UnauthorizedError"),
    "streaming.metrics": ("Gauges",),
    "streaming.protocols": ("AdminSource", "CitableNames", "CitationDelta", "CitationEnd", "CitationStart", "Finished",
                            "GenerationRequest", "GenerationSource", "Message", "PreparingSource", "ProseDelta",
                            "Provision", "ReadinessProbe", "SourceEvent", "Usage", "Verdict", "Verifier"),
    "streaming.segments": ("SegmentMachine",),
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

__all__ = [
    "AdminSource",
    "AnchorPrefixes",
    "BadEncodingError",
    "BodyTimeoutError",
    "BodyTooLargeError",
    "CitableNames",
    "CitationDelta",
    "CitationEnd",
    "CitationStart",
    "ConfigurationError",
    "Finished",
    "Gauges",
    "GenerationError",
    "GenerationRequest",
    "GenerationSource",
    "Message",
    "OverloadedError",
    "PreparingSource",
    "ProseDelta",
    "Provision",
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
