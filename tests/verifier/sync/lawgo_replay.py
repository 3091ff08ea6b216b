"""Replaying law.go.kr: recorded and built response bodies (fixtures/README.md) served through
`httpx.MockTransport`, and a fake clock whose `sleep` only moves time, so retries and the rate
limit run for real without waiting."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

FIXTURES = Path(__file__).parent / "fixtures"
OC = "citegen-test-oc-7Q3"  # a key that appears nowhere else, so a leak is found by searching for it

Answer = bytes | int | httpx.Response | Exception  # a body (200), a status, a response, or an error to raise


def body(name: str) -> bytes:
    """A fixture's bytes: `real/…` or `built/…`."""
    return (FIXTURES / name).read_bytes()


def law_go_kr() -> dict[tuple[str, str, str], Answer]:
    """The API as the fixtures answer it: (endpoint, target, page or ID/MST) -> answer."""
    routes: dict[tuple[str, str, str], Answer] = {
        ("lawSearch.do", "law", "1"): body("built/law-search-page1.xml"),
        ("lawService.do", "law", "277031"): body("real/law-service-001823.xml"),
        ("lawSearch.do", "detc", "1"): body("built/detc-search-page1.xml"),
        ("lawSearch.do", "lsAbrv", "1"): body("built/lsabrv-page1.xml"),
    }
    for page in (1, 2, 3):
        routes["lawSearch.do", "prec", str(page)] = body(f"built/prec-search-page{page}.xml")
    for case_id in ("217381", "237583", "245007", "241875", "900101", "900102"):
        routes["lawService.do", "prec", case_id] = body(f"built/prec-service-{case_id}.xml")
    for decision_id in ("53221", "190459"):
        routes["lawService.do", "detc", decision_id] = body(f"built/detc-service-{decision_id}.xml")
    return routes


@dataclass
class Replay:
    """A MockTransport handler. `faults[key]` answers are served (in order) before the route's own;
    `kill_after` bodies served, the next body request raises `Killed` (a process stopped mid-sync)."""

    routes: dict[tuple[str, str, str], Answer]
    faults: dict[tuple[str, str, str], list[Answer]] = field(default_factory=dict)
    kill_after: int | None = None
    seen: list[httpx.URL] = field(default_factory=list)
    bodies_served: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)  # bodies are fetched from several threads

    def __post_init__(self) -> None:
        self.faults = {key: list(answers) for key, answers in self.faults.items()}  # served by popping: our own copy

    def __call__(self, request: httpx.Request) -> httpx.Response:
        with self.lock:
            return self._answer(request)

    def _answer(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request.url)
        params = request.url.params
        endpoint = request.url.path.rsplit("/", 1)[-1]
        which = params.get("page") if endpoint == "lawSearch.do" else params.get("ID") or params.get("MST")
        key = (endpoint, params.get("target", ""), which or "")
        if endpoint == "lawService.do" and self.kill_after is not None and self.bodies_served >= self.kill_after:
            raise Killed(f"killed after {self.bodies_served} bodies")
        queued = self.faults.get(key)
        answer = queued.pop(0) if queued else self.routes.get(key, 404)
        if endpoint == "lawService.do" and isinstance(answer, bytes):
            self.bodies_served += 1
        return _response(answer)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


class Killed(Exception):
    """Raised from the transport: not an httpx error, so nothing retries it (like Ctrl-C)."""


def _response(answer: Answer) -> httpx.Response:
    if isinstance(answer, Exception):
        raise answer
    if isinstance(answer, httpx.Response):
        return answer
    if isinstance(answer, int):
        return httpx.Response(answer, content=b"")
    return httpx.Response(200, content=answer, headers={"Content-Type": "text/xml;charset=UTF-8"})


@dataclass
class FakeTime:
    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


ReplayFactory = Callable[..., Replay]
