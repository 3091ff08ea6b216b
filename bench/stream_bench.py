"""Streaming service benchmark: `python bench/stream_bench.py [--source scripted|engine] [--streams 32]`.

Starts the answer service on 127.0.0.1 (uvicorn in a thread) over the real verifier on an SQLite
file built from data/synthetic_law (synthetic sample acts) and data/cases, opens N concurrent SSE streams with
httpx, and checks:

- every stream completes (a `done` event, no `error`), event ids consecutive: nothing lost or
  reordered; "text intact" compares each stream's text with the same request's in the other run;
- hold time of each citation, closed → released, from the `done` events' timings (target p99 ≤ 10 ms);
- aggregate completion tokens/s with N concurrent streams vs the same requests one at a time
  (with the engine: continuous batching; target ≥ 3× at 32 streams).

`--source scripted` replays a fixed answer per stream (prose tokens and citations of the sample
database), measuring the service itself; `--source engine` runs the shipped model on CPU.
Prints a markdown table and writes it to bench/results/stream_bench.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import uvicorn

from bench.report import results_page
from grammars import StatuteCitation
from streaming import create_app
from streaming.config import StreamingSettings
from streaming.protocols import CitationDelta, CitationEnd, CitationStart, Finished, ProseDelta, Usage
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lexicon import lexicon_data
from verifier.verify import Verifier

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "stream_bench.md"
QUESTION = "불법행위로 인한 손해배상책임의 요건은 무엇인가요?"


class ScriptedAnswers:
    """A generation source replaying one answer: `prose_tokens` prose deltas with citations of the
    database (and one it lacks) among them, `token_rate` tokens/s per stream (0: as fast as the
    event loop goes, which leaves no time to other threads, the verifier's among them)."""

    def __init__(
        self, citations: list[StatuteCitation], prose_tokens: int = 200, token_rate: float = 0
    ) -> None:
        self.pause = 1 / token_rate if token_rate else 0
        self.events: list = []
        every = max(1, prose_tokens // (len(citations) + 1))
        for position in range(prose_tokens):
            self.events.append(ProseDelta(f"토큰{position} "))
            if position % every == every - 1 and position // every < len(citations):
                cited = citations[position // every]
                text = cited.canonical()
                self.events += [
                    CitationStart(),
                    CitationDelta(text[: len(text) // 2]),
                    CitationDelta(text[len(text) // 2 :]),
                    CitationEnd(text, cited),
                ]
        self.events.append(Finished(Usage(16, prose_tokens + 4 * len(citations))))

    async def generate(self, request):
        for event in self.events:
            await asyncio.sleep(self.pause)
            yield event


@dataclass
class StreamResult:
    events: list[tuple[int, str, dict]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        ids = [event_id for event_id, _, _ in self.events]
        names = [name for _, name, _ in self.events]
        return ids == list(range(len(ids))) and names[-1:] == ["done"] and "error" not in names

    @property
    def text(self) -> str:
        return "".join(data["text"] for _, name, data in self.events if name in ("prose", "citation"))

    @property
    def done(self) -> dict:
        return self.events[-1][2]


async def read_stream(client: httpx.AsyncClient, base: str, body: dict) -> StreamResult:
    result, started = StreamResult(), time.perf_counter()
    event_id, name, data = -1, "message", ""
    async with client.stream("POST", f"{base}/v1/answers", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                event_id = int(line[4:])
            elif line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
            elif not line and data:
                result.events.append((event_id, name, json.loads(data)))
                name, data = "message", ""
    result.seconds = time.perf_counter() - started
    return result


async def run(base: str, bodies: list[dict], concurrent: bool) -> tuple[list[StreamResult], float]:
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=len(bodies) + 4)
    async with httpx.AsyncClient(timeout=1800, limits=limits) as client:
        if concurrent:
            results = await asyncio.gather(*(read_stream(client, base, body) for body in bodies))
        else:
            results = [await read_stream(client, base, body) for body in bodies]
    return list(results), time.perf_counter() - started


def start_server(app) -> tuple[str, uvicorn.Server, threading.Thread]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server, thread


def sample_database(folder: Path) -> Database:
    database = Database.open(f"sqlite:///{folder / 'citegen.sqlite3'}")
    import_paths(database, [ROOT / "data" / "synthetic_law", ROOT / "data" / "cases"])
    return database


def known_citations(lexicon: dict, count: int) -> list[StatuteCitation]:
    found = [
        StatuteCitation(act, int(label))
        for act, labels in sorted(lexicon.items())
        if labels
        for label in labels[:1]
        if label.isdigit()
    ]
    return found[: count - 1] + [StatuteCitation("민법", 9999)]  # one the database lacks


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def summarise(label: str, results: list[StreamResult], seconds: float, expected: list[str]) -> dict:
    """`expected`: the text each of the first streams should read back (from the other run)."""
    intact = sum(r.text == text for r, text in zip(results, expected, strict=False))
    holds = [hold for r in results if r.complete for hold in r.done["timings"]["citation_holds_ms"]]
    tokens = sum(r.done["usage"]["completion_tokens"] for r in results if r.complete)
    return {
        "run": label,
        "streams": len(results),
        "complete": sum(r.complete for r in results),
        "text intact": f"{intact}/{len(expected)}",
        "citations": len(holds),
        "hold p50 ms": statistics.median(holds) if holds else float("nan"),
        "hold p99 ms": percentile(holds, 0.99),
        "hold max ms": max(holds, default=float("nan")),
        "tokens": tokens,
        "seconds": seconds,
        "tokens/s": tokens / seconds,
    }


def table(rows: list[dict]) -> str:
    headers = list(rows[0])
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        cells = [f"{v:.2f}" if isinstance(v, float) else str(v) for v in row.values()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", choices=("scripted", "engine"), default="scripted")
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--sequential", type=int, default=None, help="requests in the one-at-a-time run")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument(
        "--token-rate", type=float, default=0, help="scripted tokens/s per stream (0: unpaced)"
    )
    parser.add_argument("--prose-tokens", type=int, default=200, help="scripted prose tokens per answer")
    parser.add_argument("--model", type=Path, default=None, help="model directory (default: the shipped one)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = sample_database(Path(folder))
        lexicon = lexicon_data(database)
        checker = Verifier(database)
        from citegen.commands.serve_wiring import (
            EngineSource,
            anchors_for,
            build_engine,
            database_verifier,
            favour_latency,
        )

        verifier = database_verifier(checker)
        favour_latency()  # as `citegen serve` does
        config = StreamingSettings(
            max_active=arguments.streams,
            max_queued=arguments.streams,
            max_tokens_limit=max(2048, arguments.max_tokens),
            verify_timeout_s=30,
        )
        if arguments.source == "engine":
            from citegen.commands.settings import Settings
            from citegen.models import load_model

            model = arguments.model or Settings().model_path
            source = EngineSource(build_engine(load_model(model, "cpu"), lexicon, arguments.streams))
        else:
            source = ScriptedAnswers(
                known_citations(lexicon, 4), arguments.prose_tokens, arguments.token_rate
            )
        # as `citegen serve`: the engine marks tentative prose; the scripted source cannot
        anchors = None if arguments.source == "engine" else anchors_for(lexicon)
        app = create_app(config, source, verifier, anchors=anchors)
        base, server, thread = start_server(app)
        bodies = [
            {"question": QUESTION, "max_tokens": arguments.max_tokens, "seed": i, "temperature": 0.7}
            for i in range(arguments.streams)
        ]
        asyncio.run(run(base, bodies[:1], concurrent=False))  # warm up: caches, compiled constraints
        concurrent, concurrent_s = asyncio.run(run(base, bodies, concurrent=True))
        sequential_bodies = bodies[: arguments.sequential or arguments.streams]
        sequential, sequential_s = asyncio.run(run(base, sequential_bodies, concurrent=False))
        # Same question and seed, batched or alone: the same text, unless batching changed the
        # floating-point sums enough to flip a sampled token (a lost or reordered event would show).
        alone, together = [r.text for r in sequential], [r.text for r in concurrent[: len(sequential)]]
        rows = [
            summarise(f"{arguments.streams} concurrent", concurrent, concurrent_s, alone),
            summarise("one at a time", sequential, sequential_s, together),
        ]
        server.should_exit = True
        thread.join(10)
        if arguments.source == "engine":
            source.close()
        verifier.close()
        database.close()
    speedup = rows[0]["tokens/s"] / rows[1]["tokens/s"]
    paced = f", {arguments.token_rate:g} tokens/s per stream" if arguments.source == "scripted" else ""
    command = " ".join(["python bench/stream_bench.py", *sys.argv[1:]])
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    report = (
        f"## source: {arguments.source}, {arguments.streams} streams{paced}, "
        f"max_tokens {arguments.max_tokens}\n\n"
        f"{platform.processor() or platform.machine()}, {when}; "
        f"command: `{command}`\n\n"
        f"{table(rows)}\n\nconcurrent / one-at-a-time tokens/s: {speedup:.2f}×; text intact compared on "
        f"{len(sequential)} of {arguments.streams} streams\n"
    )
    print(report)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(results_page([report], about=__doc__), encoding="utf-8")


if __name__ == "__main__":
    main()
