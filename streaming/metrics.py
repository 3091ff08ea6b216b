"""The service's numbers, in `prometheus_client`'s registry (one per app, never the global one).

Besides responses, citations and timings: answers that failed after their stream started, by the
cause a client saw (the problem type), since their response status was already 200; withheld
citations by reason (`unanchored` must stay 0 where generation is constrained); and whatever the
composition root adds as `gauges` (the verifier's audit rows lost, which must stay 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST
HOLD_BUCKETS_S = (0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
DURATION_BUCKETS_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

Gauges = Mapping[str, tuple[str, Callable[[], float]]]  # name: (help, read at scrape time)


class Metrics:
    def __init__(self, gauges: Gauges) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.responses = Counter(
            "citegen_responses", "Responses by route and status.", ("route", "status"), registry=registry
        )
        self.citations = Counter("citegen_citations", "Citations by outcome.", ("outcome",), registry=registry)
        self.withheld = Counter(
            "citegen_withheld_citations", "Citations kept from the reader, by reason.", ("reason",),
            registry=registry,
        )
        self.failed = Counter(
            "citegen_failed_answers", "Answers that ended in an error event, by problem type.", ("cause",),
            registry=registry,
        )
        self.completion_tokens = Counter("citegen_completion_tokens", "Tokens generated.", registry=registry)
        self.hold_s = Histogram(
            "citegen_citation_hold_seconds", "Citation closed until released.", buckets=HOLD_BUCKETS_S,
            registry=registry,
        )
        self.answer_s = Histogram(
            "citegen_answer_seconds", "Whole answer duration.", buckets=DURATION_BUCKETS_S, registry=registry
        )
        for name, (help_text, read) in sorted(gauges.items()):
            Gauge(name, help_text, registry=registry).set_function(read)

    def render(self) -> bytes:
        return generate_latest(self.registry)
