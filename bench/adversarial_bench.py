"""The service under attack, the long version of tests/streaming/test_adversarial.py:
`python bench/adversarial_bench.py [--clients 24] [--fault-s 6] [--database-url URL] [--postgres-url URL]`.

Serves `streaming.create_app` on 127.0.0.1 over the real verifier (an SQLite file built from
data/law and data/cases, and a PostgreSQL database of data/law at 127.0.0.1:5432 when the server
answers; --database-url / --postgres-url: such databases already imported, which this changes:
audit rows, a file moved away and back) and a scripted source
whose answers cite real articles (fresh ones, so lookups miss the cache), an article the database
lacks, and citation-shaped prose the automaton never saw. For each fault, `--clients` clients ask
answers in strict mode for `--fault-s` seconds while `/healthz` is polled every 50 ms; then:

- requests, and how they ended (done, an error event by problem type, an HTTP status);
- leaks: citation-shaped text shown that is not a verified citation (an independent pattern);
- audit rows lost (`citegen_audit_rows_lost`, must be 0), and rows still pending at the end;
- the longest `/healthz` during the fault.

Prints a markdown table and writes bench/results/adversarial_bench.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import platform
import re
import shutil
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psycopg
import uvicorn
from sqlalchemy import func, select

from bench.report import results_page
from citegen.commands.serve_wiring import DatabaseAdmin, DatabaseViews, database_verifier
from grammars import StatuteCitation
from streaming import create_app
from streaming.config import StreamingSettings
from streaming.protocols import CitationDelta, CitationEnd, CitationStart, Finished, ProseDelta, Usage
from verifier.database import Database
from verifier.importers import import_paths
from verifier.models import ACTS, SPANS, VERSIONS
from verifier.verify import Verifier

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "adversarial_bench.md"
CITATION_SHAPED = re.compile(r"제\s?\d+\s?조|\d{2,4}\s?[가-힣]{1,3}\s?\d{2,7}")
BODY = {"question": "불법행위의 요건은?", "policy": "strict", "max_tokens": 64}


class CitingSource:
    """Answers of prose, three citations of real articles (each answer its own, so lookups miss
    the verifier's cache), one of an article that does not exist, and `민법 제9999조` in prose."""

    def __init__(self, articles: list[tuple[str, int]], pause_s: float = 0.005) -> None:
        self.articles, self.pause_s, self._next = articles, pause_s, 0

    async def generate(self, request):
        for event in self._script():
            await asyncio.sleep(self.pause_s)
            yield event

    def _script(self) -> Iterator:
        yield ProseDelta("근거는 ")
        for _ in range(3):
            act, number = self.articles[self._next % len(self.articles)]
            self._next += 1
            text = f"{act} 제{number}조"
            yield from (CitationStart(), CitationDelta(text), CitationEnd(text, StatuteCitation(act, number)))
            yield ProseDelta(" 및 ")
        yield from (CitationStart(), CitationDelta("민법 제9998조"), CitationEnd("민법 제9998조",
                    StatuteCitation("민법", 9998)))  # fmt: skip
        yield from (ProseDelta(" 그리고 민법 제9"), ProseDelta("999조이다."), Finished(Usage(5, 40)))


def start_server(app) -> tuple[str, uvicorn.Server, threading.Thread]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server, thread


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = 0
        self.ended: Counter[str] = Counter()
        self.leaks = 0
        self.citations: Counter[str] = Counter()

    def ask(self, base: str) -> None:
        shown, statuses, ending = [], [], "no response"
        try:
            with httpx.stream("POST", f"{base}/v1/answers", json=BODY, timeout=60) as response:
                if response.status_code != 200:
                    ending = f"HTTP {response.status_code}"
                else:
                    name = None
                    for line in response.iter_lines():
                        if line.startswith("event: "):
                            name = line[7:]
                        elif line.startswith("data: ") and name in ("prose", "citation"):
                            data = json.loads(line[6:])
                            verified = name == "citation" and not data["withheld"]
                            shown.append("\0" if verified else data["text"])
                            if name == "citation":
                                statuses.append(data["status"])
                        elif line.startswith("data: ") and name in ("done", "error"):
                            data = json.loads(line[6:])
                            ending = "done" if name == "done" else "error " + data["type"].rsplit("/", 1)[-1]
        except httpx.HTTPError as error:
            ending = type(error).__name__
        with self.lock:
            self.requests += 1
            self.ended[ending] += 1
            self.leaks += len(CITATION_SHAPED.findall("".join(shown)))
            self.citations.update(statuses)


def run_clients(
    base: str, clients: int, seconds: float, tally: Tally, ask: Callable[[str], None] | None = None
) -> list[threading.Thread]:
    stop = time.monotonic() + seconds

    def client() -> None:
        while time.monotonic() < stop:
            (ask or tally.ask)(base)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    return threads


@contextlib.contextmanager
def healthz_watch(base: str) -> Iterator[list[float]]:
    longest = [0.0]
    done = threading.Event()

    def poll() -> None:
        with httpx.Client(timeout=60) as client:
            while not done.is_set():
                started = time.perf_counter()
                client.get(f"{base}/healthz")
                longest[0] = max(longest[0], time.perf_counter() - started)
                time.sleep(0.05)

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        yield longest
    finally:
        done.set()
        thread.join()


# ---- faults: each a context manager active while the clients run -----------------------------


@contextlib.contextmanager
def no_fault(context) -> Iterator[None]:
    yield


@contextlib.contextmanager
def disconnect_storm(context) -> Iterator[None]:
    tally: Tally = context["tally"]

    def leave(base: str) -> None:
        with contextlib.suppress(httpx.HTTPError), httpx.stream(
            "POST", f"{base}/v1/answers", json=BODY, timeout=30
        ) as response:
            next(response.iter_lines(), None)
        with tally.lock:
            tally.requests += 1
            tally.ended["left mid-stream"] += 1

    threads = run_clients(context["base"], 64, context["seconds"], tally, ask=leave)
    yield
    for thread in threads:
        thread.join()


@contextlib.contextmanager
def slow_bodies(context) -> Iterator[None]:
    host, port = context["base"].removeprefix("http://").split(":")
    sockets = []
    for _ in range(60):
        client = socket.create_connection((host, int(port)))
        client.sendall(b"POST /v1/answers HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                       b"content-length: 100\r\n\r\n{")  # fmt: skip
        sockets.append(client)
    yield
    for client in sockets:
        client.close()


@contextlib.contextmanager
def sqlite_write_lock(context) -> Iterator[None]:
    holder = sqlite3.connect(context["path"], timeout=30)
    holder.execute("BEGIN EXCLUSIVE")
    yield
    holder.rollback()
    holder.close()


@contextlib.contextmanager
def sqlite_file_moved(context) -> Iterator[None]:
    path: Path = context["path"]
    away = path.with_suffix(".away")
    shutil.move(path, away)
    time.sleep(context["seconds"] / 2)
    shutil.move(away, path)
    yield


@contextlib.contextmanager
def postgres_lock(context) -> Iterator[None]:
    with psycopg.connect(context["postgres_dsn"]) as holder:
        holder.execute("LOCK TABLE article_spans, act_versions, acts, audit_log IN ACCESS EXCLUSIVE MODE")
        yield
        holder.rollback()


FAULTS = {
    "none": no_fault, "64 clients leaving mid-stream": disconnect_storm, "60 slow bodies": slow_bodies,
    "SQLite write lock": sqlite_write_lock, "SQLite file moved away and back": sqlite_file_moved,
    "PostgreSQL exclusive lock": postgres_lock,
}  # fmt: skip


def current_articles(database: Database) -> list[tuple[str, int]]:
    """(act, article number) of every live article in each act's latest version of the statute book."""
    latest = (select(VERSIONS.c.act_id, func.max(VERSIONS.c.sequence).label("sequence"))
              .group_by(VERSIONS.c.act_id).subquery())  # fmt: skip
    with database.engine.connect() as connection:
        articles = [(act, number) for act, number in connection.execute(
            select(ACTS.c.name, SPANS.c.number).join(ACTS, ACTS.c.id == SPANS.c.act_id)
            .join(latest, (latest.c.act_id == SPANS.c.act_id) & (latest.c.sequence == SPANS.c.last))
            .where(SPANS.c.branch == 0, SPANS.c.deleted.is_(False)).order_by(SPANS.c.id))]  # fmt: skip
    if not articles:
        raise SystemExit(f"expected live articles in {database.url} to cite, got none: is data/law imported?")
    return articles


def measure(name: str, database: Database, context: dict, clients: int, seconds: float) -> dict:
    articles = current_articles(database)
    checker = Verifier(database, audit_batch=50)
    admin = DatabaseAdmin(DatabaseViews(database, checker))
    config = StreamingSettings(
        max_active=clients, max_queued=clients, verify_timeout_s=1.0, body_timeout_s=2.0
    )
    app = create_app(config, CitingSource(articles), database_verifier(checker), admin=admin, probes=[admin],
                     gauges=admin.audit_gauges())  # fmt: skip
    base, server, thread = start_server(app)
    tally = Tally()
    context = {**context, "base": base, "seconds": seconds, "tally": tally}
    with healthz_watch(base) as longest:
        threads = run_clients(base, clients, seconds, tally)
        with FAULTS[name](context):
            time.sleep(seconds)
        for client in threads:
            client.join()
    checker.flush_audit()
    row = {"fault": name, "requests": tally.requests, "ended": dict(tally.ended), "leaks": tally.leaks,
           "citations": dict(tally.citations),
           "lost": checker.audit_rows_lost, "pending": checker.audit_rows_pending,
           "healthz_ms": longest[0] * 1000}  # fmt: skip
    server.should_exit = True
    thread.join(10)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=24)
    parser.add_argument("--fault-s", type=float, default=6.0)
    parser.add_argument("--database-url", help="an SQLite file of data/law and data/cases (default: import them)")
    parser.add_argument("--postgres-url", help="a PostgreSQL database of data/law (default: a new one, imported)")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # a verification given up on is expected here, not news
    with tempfile.TemporaryDirectory(prefix="citegen-adversarial-") as scratch:
        given = arguments.database_url and arguments.database_url.removeprefix("sqlite:///")
        rows = measure_all(Path(given or Path(scratch) / "citegen.sqlite3"), arguments)
    table = render(rows, arguments)
    print(table)
    RESULTS.write_text(results_page([table], about=__doc__), encoding="utf-8")


def measure_all(path: Path, arguments: argparse.Namespace) -> list[dict]:
    """Every fault against an SQLite file at `path` of data/law and data/cases (imported unless given),
    then the PostgreSQL one when the server at 127.0.0.1:5432 answers."""
    database = Database.open(f"sqlite:///{path}")
    if not arguments.database_url:
        import_paths(database, [ROOT / "data" / "law", ROOT / "data" / "cases"])
    rows = []
    for name in FAULTS:
        if name.startswith("PostgreSQL"):
            continue
        rows.append(measure(name, database, {"path": path}, arguments.clients, arguments.fault_s))
        print(rows[-1], file=sys.stderr)
    with postgres_database(arguments.postgres_url) as postgres:
        if postgres is not None:
            dsn, url = postgres
            pg = Database.open(url)
            if not arguments.postgres_url:
                import_paths(pg, [ROOT / "data" / "law"])
            rows.append(measure("PostgreSQL exclusive lock", pg, {"postgres_dsn": dsn}, arguments.clients,
                                arguments.fault_s))  # fmt: skip
            pg.close()
    database.close()
    return rows


@contextlib.contextmanager
def postgres_database(given: str | None) -> Iterator[tuple[str, str] | None]:
    """(psycopg DSN, URL) of the `given` database, else of a fresh database on the server at
    127.0.0.1:5432, dropped afterwards; None when the server does not answer."""
    if given:
        yield given, given
        return
    name = f"citegen_bench_{int(time.time())}"
    try:
        admin = psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=3",
                                autocommit=True)  # fmt: skip
    except psycopg.OperationalError:
        yield None
        return
    with admin:
        admin.execute(f"CREATE DATABASE {name}")
        try:
            yield (f"host=127.0.0.1 port=5432 user=postgres dbname={name}",
                   f"postgresql://postgres@127.0.0.1:5432/{name}")  # fmt: skip
        finally:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def render(rows: list[dict], arguments: argparse.Namespace) -> str:
    lines = [
        "# adversarial_bench",
        "",
        f"`python bench/adversarial_bench.py --clients {arguments.clients} --fault-s {arguments.fault_s:g}` "
        f"on {platform.node()} ({platform.processor() or platform.machine()}), {time.strftime('%Y-%m-%d')}. "
        f"Each fault lasts {arguments.fault_s:g} s while {arguments.clients} clients ask strict-mode answers "
        "(scripted source, real verifier); each answer cites 3 real articles, 1 missing one and writes "
        "`민법 제9999조` in prose.",
        "",
        "| fault | requests | how they ended | citations by outcome | leaks | audit rows lost "
        "| pending at end | longest /healthz |",
        "|---|---:|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        ended = ", ".join(
            f"{count} {how}" for how, count in sorted(row["ended"].items(), key=lambda kv: -kv[1])
        )
        cited = ", ".join(f"{count} {status}" for status, count in sorted(row["citations"].items()))
        lines.append(f"| {row['fault']} | {row['requests']} | {ended} | {cited} | {row['leaks']} "
                     f"| {row['lost']} | {row['pending']} | {row['healthz_ms']:.0f} ms |")  # fmt: skip
    lines += [
        "",
        "Leaks are counted by a pattern independent of grammars (`제N조`, `2024도4202` shapes) over the text "
        "shown less verified citations. Requests that end `HTTP 429` were refused past admission with "
        "Retry-After; an `error` ending names the problem type its client saw.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
