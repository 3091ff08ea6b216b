"""Test inputs for the streaming service: a scripted generation source and a dictionary verifier.

`ScriptedSource` replays event scripts (a legitimate input, not a stand-in for something that runs
here); `Gate` items in a script make it wait until the test opens the gate, so tests control
timing by events, never by sleeping. `DictVerifier` answers from known canonical citations, and
can be switched off (database unreachable) or made to wait on a gate.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx

from grammars import ParsedCitation, StatuteCitation, find_citations
from streaming.protocols import (
    CitationDelta,
    CitationEnd,
    CitationStart,
    Finished,
    GenerationRequest,
    ProseDelta,
    Usage,
    Verdict,
)


class Gate:
    """A point in a script (or a verification) that waits until the test calls `open()`.
    Waiters are woken in their own event loop, so a cancelled wait leaves no thread behind."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self._lock = threading.Lock()
        self._opened = False
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    def open(self) -> None:
        with self._lock:
            self._opened = True
            for loop, event in self._waiters:
                loop.call_soon_threadsafe(event.set)

    async def wait(self) -> None:
        event = asyncio.Event()
        with self._lock:
            if self._opened:
                event.set()
            self._waiters.append((asyncio.get_running_loop(), event))
        self.reached.set()
        await event.wait()


@dataclass
class Fail:
    """A point in a script where the source raises."""

    error: Exception


def citation(text: str, parsed: ParsedCitation | None, *, chunks: int = 2) -> list:
    """The events of one citation whose text arrives in `chunks` deltas."""
    size = max(1, len(text) // chunks)
    return [
        CitationStart(),
        *(CitationDelta(text[i : i + size]) for i in range(0, len(text), size)),
        CitationEnd(text, parsed),
    ]


MINBEOP_750 = StatuteCitation("민법", 750)
MINBEOP_9999 = StatuteCitation("민법", 9999)


def standard_script() -> list:
    """Prose, a citation that verifies (written messily), a citation that does not, prose."""
    return [
        ProseDelta("불법행위의 근거는 "),
        *citation("민법 750조", MINBEOP_750),
        ProseDelta("이고, "),
        *citation("민법 제9999조", MINBEOP_9999),
        ProseDelta("이다."),
        Finished(Usage(7, 11)),
    ]


class ScriptedSource:
    """Replays `script(request)`; records what happened to each generation."""

    def __init__(
        self, script: Callable[[GenerationRequest], list] = lambda request: standard_script()
    ) -> None:
        self.script = script
        self.requests: list[GenerationRequest] = []
        self.cancelled = threading.Event()
        self.yielded = 0

    async def generate(self, request: GenerationRequest):
        self.requests.append(request)
        try:
            for item in self.script(request):
                if isinstance(item, Gate):
                    await item.wait()
                elif isinstance(item, Fail):
                    raise item.error
                else:
                    self.yielded += 1
                    yield item
        except (asyncio.CancelledError, GeneratorExit):
            self.cancelled.set()
            raise


class DictVerifier:
    def __init__(self, known: dict[str, Verdict] | None = None) -> None:
        self.known = (
            known
            if known is not None
            else {MINBEOP_750.canonical(): Verdict("verified", "민법 제750조", "법령ID 001706 제750조")}
        )
        self.down = False
        self.gate: Gate | None = None

    async def verify(self, parsed: ParsedCitation) -> Verdict:
        if self.gate is not None:
            await self.gate.wait()
        if self.down:
            raise ConnectionRefusedError("database at 127.0.0.1:1 refused the connection")
        return self.known.get(parsed.canonical(), Verdict("not_found", detail="no such article"))


class AuditLog:
    """A fixed audit log and statistics for the admin endpoints."""

    async def audit(self, limit, status):
        return [{"citation": "민법 제750조", "status": "verified"}][:limit]

    async def stats(self):
        return {"acts": 1, "articles": 1}

    async def reload(self):
        return {"caches_cleared": True, "language_recompiled": False, "restart_needed": False}


QUESTION = {"question": "불법행위 책임의 근거는?"}


def sse_events(response: httpx.Response) -> Iterator[tuple[str, dict]]:
    name, data = "message", []
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])
        elif not line and data:
            yield name, json.loads("\n".join(data))
            name, data = "message", []


def answer(base: str, body: dict | None = None, timeout_s: float = 10) -> list[tuple[str, dict]]:
    with httpx.stream("POST", f"{base}/v1/answers", json=body or QUESTION, timeout=timeout_s) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        return list(sse_events(response))


def metric(base: str, name: str) -> float:
    for line in httpx.get(f"{base}/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"expected metric {name}, got none")


def wait_for_metric(base: str, name: str, value: float) -> None:
    """Polls /metrics until `name` reads `value` (at most 5 s); no sleeping."""
    deadline = time.monotonic() + 5
    while metric(base, name) != value:
        assert time.monotonic() < deadline, f"expected {name} = {value}, got {metric(base, name)}"


def answer_concurrently(
    base: str, bodies: list[dict], timeout_s: float = 300
) -> list[list[tuple[str, dict]]]:
    """Every body asked at once, each on its own thread; the answers in the order of `bodies`."""
    answers: dict[int, list[tuple[str, dict]]] = {}
    threads = [
        threading.Thread(target=lambda i=i: answers.__setitem__(i, answer(base, bodies[i], timeout_s)))
        for i in range(len(bodies))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout_s)
    assert sorted(answers) == list(range(len(bodies))), f"expected {len(bodies)} answers, got {len(answers)}"
    return [answers[i] for i in range(len(bodies))]


def assert_only_verified_citations_visible(events: list[tuple[str, dict]], lexicon: dict) -> None:
    """A finished answer whose every canonical citation came through as a verified citation event."""
    assert events[-1][0] == "done", events[-1]
    assert events[-1][1]["usage"]["completion_tokens"] > 0
    citations = [data for name, data in events if name == "citation"]
    assert all(c["status"] == "verified" or c["withheld"] for c in citations)
    shown = {c["text"] for c in citations if not c["withheld"]}
    text = "".join(data["text"] for name, data in events if name in ("prose", "citation"))
    for found in find_citations(text, lenient=False, lexicon=lexicon):
        written = text[found.span[0] : found.span[1]]
        assert written in shown, f"expected only verified citations in the answer, got {written!r}"


def engine_service_parts(database, loaded_model, max_batch: int) -> Iterator[tuple]:
    """The serve command's parts over `database` (already filled): (engine source, verifier,
    lexicon), closed after the caller's tests; the database stays the caller's to close."""
    from citegen.commands.serve_wiring import EngineSource, build_engine, database_verifier  # noqa: PLC0415
    from verifier.lexicon import lexicon_data  # noqa: PLC0415
    from verifier.verify import Verifier  # noqa: PLC0415

    lexicon = lexicon_data(database)
    source = EngineSource(build_engine(loaded_model, lexicon, max_batch=max_batch))
    verifier = database_verifier(Verifier(database))
    try:
        yield source, verifier, lexicon
    finally:
        source.close()
        verifier.close()


def filled_sqlite(folder, records: list[dict]):
    """A fresh SQLite database file in `folder` holding `records` (JSONL record dicts)."""
    from verifier.database import Database  # noqa: PLC0415
    from verifier.importers import import_paths  # noqa: PLC0415

    path = folder / "records.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    database = Database.open(f"sqlite:///{folder / 'citegen.sqlite3'}")
    import_paths(database, [path])
    return database
