"""The names `streaming` exports: each one exists, and the list is the one documented."""

from __future__ import annotations

import streaming

EXPECTED = {
    "AdminSource", "AnchorPrefixes", "BadEncodingError", "BodyTimeoutError", "BodyTooLargeError", "CitableNames",
    "CitationDelta", "CitationEnd", "CitationStart", "ConfigurationError", "Finished", "Gauges", "GenerationError",
    "GenerationRequest", "GenerationSource", "Message", "OverloadedError", "PreparingSource", "ProseDelta",
    "Provision", "ReadinessProbe", "RequestRejectedError", "SegmentMachine", "SegmentProtocolError", "SourceEvent",
    "StreamingError", "StreamingSettings", "UnauthorizedError", "Usage", "Verdict", "Verifier", "create_app",
}  # fmt: skip


def test_exports_are_pinned_and_importable() -> None:
    assert set(streaming.__all__) == EXPECTED
    assert all(getattr(streaming, name, None) is not None for name in streaming.__all__)
