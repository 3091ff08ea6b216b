"""The service under attack, on a real server: a storm of clients leaving mid-stream, admission
overflow, slow bodies, a narrowing flood, the database locked (PostgreSQL) or its file moved away
and back (SQLite) mid-stream, and a poisoned request beside twelve answers. After each: nothing
unverified reached a reader in strict mode (an independent pattern, not grammars' finder, scans
what was shown), no audit row was lost, and the service kept answering `/healthz`.

`bench/adversarial_bench.py` runs the longer version and prints the table.
"""

from __future__ import annotations

import re
import shutil
import socket
import sqlite3
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import httpx
import psycopg
import pytest
from streaming_kit import (
    QUESTION,
    DictVerifier,
    Gate,
    ScriptedSource,
    answer,
    answer_concurrently,
    citation,
    engine_service_parts,
    filled_sqlite,
    metric,
    sse_events,
    wait_for_metric,
)

from citegen.commands.serve_wiring import DatabaseAdmin, DatabaseViews, anchors_for, database_verifier
from grammars import StatuteCitation
from streaming import create_app
from streaming.config import StreamingSettings
from streaming.protocols import Finished, ProseDelta, Usage
from tests.postgres_kit import postgres_database_with
from verifier.database import Database
from verifier.verify import Verifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))  # the engine tests' tiny model
from tiny_lm import CORPUS, build_tiny

ARTICLES = range(750, 760)
RECORDS = [
    {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률",
     "articles": [{"article": str(number)} for number in ARTICLES]},
    {"type": "coverage", "kind": "statute"},
]  # fmt: skip
# What a reader takes for a citation, written independently of grammars: an article (제N조) or a
# case number (2024도4202). Run over the shown text less the verified citations.
CITATION_SHAPED = re.compile(r"제\s?\d+\s?조|\d{2,4}\s?[가-힣]{1,3}\s?\d{2,7}")


def leaks(events: list[tuple[str, dict]]) -> list[str]:
    """Citation-shaped text shown to the reader that is not a verified citation."""
    shown = []
    for name, data in events:
        if name == "prose" or (name == "citation" and data["withheld"]):
            shown.append(data["text"])
        elif name == "citation":
            shown.append("\0")  # verified: shown as itself, and never part of another span
    return CITATION_SHAPED.findall("".join(shown))


def script_citing(numbers: list[int], gate: Gate | None = None) -> list:
    """Prose with a citation of each article (the last ones after `gate`), and a leak in prose."""
    events: list = [ProseDelta("근거는 ")]
    for i, number in enumerate(numbers):
        if gate is not None and i == len(numbers) // 2:
            events.append(gate)
        events += [*citation(f"민법 {number}조", StatuteCitation("민법", number)), ProseDelta(" 및 ")]
    return [*events, ProseDelta("민법 제9"), ProseDelta("99조이다."), Finished(Usage(1, 9))]


@pytest.fixture
def sqlite_database(tmp_path: Path):
    database = filled_sqlite(tmp_path, RECORDS)
    yield database
    database.close()


def serve_over(serve, database: Database, script, **settings) -> tuple[str, Verifier]:
    checker = Verifier(database, audit_batch=1)
    admin = DatabaseAdmin(DatabaseViews(database, checker))
    app = create_app(
        StreamingSettings(admin_api_key="k", verify_timeout_s=0.5, **settings),
        ScriptedSource(script),
        database_verifier(checker),
        admin=admin,
        probes=[admin],
        gauges=admin.audit_gauges(),
    )
    return serve(app), checker


def audit_rows(database: Database) -> int:
    from verifier.admin import row_counts  # noqa: PLC0415

    return row_counts(database)["audit_log"]


# ---- clients ----------------------------------------------------------------------------------


def test_a_storm_of_clients_leaving_mid_stream_frees_every_slot(serve) -> None:
    never = Gate()
    source = ScriptedSource(lambda request: [ProseDelta("시작 "), never, Finished(Usage(1, 1))])
    base = serve(create_app(StreamingSettings(max_active=64), source, DictVerifier()))
    started = threading.Barrier(65)

    def leave_mid_stream() -> None:
        with httpx.stream("POST", f"{base}/v1/answers", json=QUESTION, timeout=30) as response:
            next(sse_events(response))
            started.wait(30)

    clients = [threading.Thread(target=leave_mid_stream) for _ in range(64)]
    for client in clients:
        client.start()
    started.wait(30)  # all 64 streaming at once, then all gone
    for client in clients:
        client.join(30)
    wait_for_metric(base, "citegen_answers_active", 0)
    assert source.cancelled.is_set() and len(source.requests) == 64
    never.open()
    assert answer(base)[-1][0] == "done"


def test_past_admission_clients_get_429_with_retry_after_and_the_rest_finish(serve) -> None:
    gate = Gate()
    base = serve(
        create_app(
            StreamingSettings(max_active=2, max_queued=2, retry_after_s=3),
            ScriptedSource(lambda request: [ProseDelta("답 "), gate, Finished(Usage(1, 1))]),
            DictVerifier(),
        )
    )
    admitted = [threading.Thread(target=answer, args=(base,)) for _ in range(4)]
    for thread in admitted:
        thread.start()
    wait_for_metric(base, "citegen_answers_waiting", 2)
    refused = [httpx.post(f"{base}/v1/answers", json=QUESTION, timeout=10) for _ in range(6)]
    assert {(r.status_code, r.headers.get("retry-after")) for r in refused} == {(429, "3")}
    gate.open()
    for thread in admitted:
        thread.join(30)
    wait_for_metric(base, "citegen_answers_active", 0)


def test_slow_bodies_time_out_and_never_stop_the_service(serve) -> None:
    base = serve(create_app(StreamingSettings(body_timeout_s=0.5), ScriptedSource(), DictVerifier()))
    address = urlparse(base)
    slow = []
    for _ in range(60):
        client = socket.create_connection((address.hostname, address.port), timeout=30)
        client.sendall(b"POST /v1/answers HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                       b"content-length: 100\r\n\r\n{")  # fmt: skip
        slow.append(client)
    assert answer(base)[-1][0] == "done"  # served while 60 bodies trickle
    for client in slow:
        with client:
            reply = b"".join(iter(lambda client=client: client.recv(65536), b""))
        assert reply.startswith(b"HTTP/1.1 408"), reply[:200]


# ---- the database -----------------------------------------------------------------------------


@pytest.fixture
def postgres_database(tmp_path: Path):
    for _, name, database in postgres_database_with(tmp_path, RECORDS, "citegen_adv"):
        yield name, database


@pytest.mark.postgres
def test_an_exclusive_lock_mid_stream_freezes_nothing_and_loses_no_audit_row(serve, postgres_database) -> None:
    name, database = postgres_database
    locked = Gate()
    base, checker = serve_over(serve, database, lambda request: script_citing(list(ARTICLES), locked))
    with psycopg.connect(f"host=127.0.0.1 port=5432 user=postgres dbname={name}") as holder:
        with httpx.stream("POST", f"{base}/v1/answers", json=QUESTION, timeout=60) as response:
            events = sse_events(response)
            first = [next(events), next(events)]
            holder.execute("LOCK TABLE articles, acts, audit_log IN ACCESS EXCLUSIVE MODE")
            locked.open()
            assert httpx.get(f"{base}/healthz", timeout=2).status_code == 200  # the loop is free
            rest = list(events)
        assert httpx.get(f"{base}/healthz", timeout=2).status_code == 200
        holder.rollback()  # the lock goes
    events = first + rest
    assert events[-1][0] == "done" and leaks(events) == []
    statuses = [data["status"] for name, data in events if name == "citation"]
    assert "unavailable" in statuses  # the lookups that waited on the lock were given up on
    # lookups given up on while the lock was held finish once it goes, and record their rows then
    deadline = time.monotonic() + 30
    while not (checker.flush_audit() and checker.audit_rows_pending == 0):
        assert time.monotonic() < deadline, f"expected the audit buffer to drain, {checker.audit_rows_pending} left"
        threading.Event().wait(0.05)
    assert checker.audit_rows_lost == 0
    # every lookup that finished wrote its row, those finished after their citation was given up on too
    assert audit_rows(database) >= statuses.count("verified") > 0


def test_a_database_file_moved_away_and_back_is_served_again(serve, sqlite_database) -> None:
    path = Path(sqlite_database.engine.url.database)
    moved = Gate()
    base, checker = serve_over(serve, sqlite_database, lambda request: script_citing(list(ARTICLES), moved))
    with httpx.stream("POST", f"{base}/v1/answers", json=QUESTION, timeout=60) as response:
        events = sse_events(response)
        first = [next(events), next(events)]
        away = path.with_suffix(".away")
        shutil.move(path, away)
        moved.open()
        rest = list(events)
        assert httpx.get(f"{base}/readyz").status_code in (200, 503)  # answers either way
        assert not path.exists()  # nothing made an empty database in its place
        shutil.move(away, path)
    events = first + rest
    assert events[-1][0] == "done" and leaks(events) == []
    assert httpx.get(f"{base}/readyz").status_code == 200
    audit = httpx.get(f"{base}/admin/audit", headers={"x-api-key": "k"})
    assert audit.status_code == 200 and audit.json()["entries"]
    assert metric(base, "citegen_audit_rows_lost") == 0 == checker.audit_rows_lost


# ---- the engine -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine_parts(tmp_path_factory: pytest.TempPathFactory):
    database = filled_sqlite(tmp_path_factory.mktemp("adversarial-engine"), RECORDS)
    yield from engine_service_parts(database, build_tiny(), max_batch=13)
    database.close()


def test_a_poisoned_request_among_twelve_fails_alone(serve, engine_parts) -> None:
    source, verifier, lexicon = engine_parts
    base = serve(create_app(StreamingSettings(max_active=13), source, verifier, anchors=anchors_for(lexicon)))
    bodies = [{"question": CORPUS[i % len(CORPUS)][:10], "max_tokens": 16, "temperature": 0.8, "seed": i}
              for i in range(12)]  # fmt: skip
    alone = [answer(base, body, 120) for body in bodies]
    poisoned: dict[str, httpx.Response] = {}
    thread = threading.Thread(target=lambda: poisoned.setdefault("r", httpx.post(
        f"{base}/v1/answers", json={**bodies[0], "temperature": 1e-300}, timeout=120)))  # fmt: skip
    thread.start()
    together = answer_concurrently(base, bodies, timeout_s=120)
    thread.join(120)
    assert poisoned["r"].status_code == 422
    assert [_text(events) for events in together] == [_text(events) for events in alone]


def _text(events: list[tuple[str, dict]]) -> str:
    assert events[-1][0] == "done", events[-1]
    return "".join(data["text"] for name, data in events if name in ("prose", "citation"))


def test_audit_rows_the_database_refuses_are_kept_and_written_later(sqlite_database) -> None:
    path = sqlite_database.engine.url.database
    verifier = Verifier(sqlite_database, audit_batch=1000)
    with sqlite3.connect(path) as other:
        other.execute("ALTER TABLE audit_log RENAME TO audit_log_away")  # the table is gone for now
    for number in ARTICLES:
        verifier.verify(StatuteCitation("민법", number))
    assert verifier.flush_audit() is False and verifier.audit_rows_pending == len(ARTICLES)
    with sqlite3.connect(path) as other:
        other.execute("ALTER TABLE audit_log_away RENAME TO audit_log")
    verifier.verify(StatuteCitation("민법", 9999))
    verifier.close()  # the final flush writes the kept rows, in order, then the new one
    assert verifier.audit_rows_lost == 0 and audit_rows(sqlite_database) == len(ARTICLES) + 1
