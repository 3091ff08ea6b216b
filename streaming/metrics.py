"""Counters and histograms in the Prometheus text exposition format (version 0.0.4)."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
HOLD_BUCKETS_S = (0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
DURATION_BUCKETS_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Histogram:
    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)
        self.total = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.total += value

    def lines(self, name: str) -> list[str]:
        out, cumulative = [], 0
        for bound, count in zip((*self.buckets, float("inf")), self.counts, strict=True):
            cumulative += count
            label = "+Inf" if bound == float("inf") else repr(bound)
            out.append(f'{name}_bucket{{le="{label}"}} {cumulative}')
        out += [f"{name}_sum {self.total}", f"{name}_count {cumulative}"]
        return out


class Metrics:
    """The service's numbers; gauges are read from callables at scrape time."""

    def __init__(self, gauges: dict[str, tuple[str, Callable[[], float]]]) -> None:
        self.responses: Counter[tuple[str, int]] = Counter()  # (route, status)
        self.citations: Counter[str] = Counter()  # outcome status
        self.completion_tokens = 0
        self.hold_s = Histogram(HOLD_BUCKETS_S)
        self.answer_s = Histogram(DURATION_BUCKETS_S)
        self._gauges = gauges

    def render(self) -> str:
        lines = [
            "# HELP citegen_responses_total Responses by route and status.",
            "# TYPE citegen_responses_total counter",
        ]
        lines += [
            f'citegen_responses_total{{route="{route}",status="{status}"}} {count}'
            for (route, status), count in sorted(self.responses.items())
        ]
        lines += [
            "# HELP citegen_citations_total Citations by outcome.",
            "# TYPE citegen_citations_total counter",
        ]
        lines += [
            f'citegen_citations_total{{outcome="{outcome}"}} {count}'
            for outcome, count in sorted(self.citations.items())
        ]
        lines += [
            "# HELP citegen_completion_tokens_total Tokens generated.",
            "# TYPE citegen_completion_tokens_total counter",
            f"citegen_completion_tokens_total {self.completion_tokens}",
        ]
        lines += [
            "# HELP citegen_citation_hold_seconds Citation closed until released.",
            "# TYPE citegen_citation_hold_seconds histogram",
            *self.hold_s.lines("citegen_citation_hold_seconds"),
        ]
        lines += [
            "# HELP citegen_answer_seconds Whole answer duration.",
            "# TYPE citegen_answer_seconds histogram",
            *self.answer_s.lines("citegen_answer_seconds"),
        ]
        for name, (help_text, read) in sorted(self._gauges.items()):
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name} {read()}"]
        return "\n".join(lines) + "\n"
