"""`citegen serve` as a user runs it: a subprocess on a model directory and an SQLite database,
configured through CITEGEN_* variables, answering over HTTP until interrupted."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select
from streaming_kit import answer

from verifier.database import Database
from verifier.importers import import_paths
from verifier.models import AUDIT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))  # the engine tests' tiny model
from tiny_lm import CORPUS, build_tiny

CITEGEN = Path(sys.executable).parent / "citegen"
RECORDS = [
    {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률", "articles": [{"article": "750"}]},
    {"type": "coverage", "kind": "statute"},
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path):
    """The command's process, its base URL and its database's, once uvicorn says it is listening."""
    tiny = build_tiny()
    tiny.model.save_pretrained(tmp_path / "model")
    tiny.tokenizer.save_pretrained(tmp_path / "model")
    records = tmp_path / "records.jsonl"
    records.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in RECORDS), encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'citegen.sqlite3'}"
    database = Database.open(url)
    import_paths(database, [records])
    database.close()
    port = free_port()
    environment = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "CITEGEN_MODEL_PATH": str(tmp_path / "model"),
        "CITEGEN_DATABASE_URL": url,
        "CITEGEN_DEVICE": "cpu",
        "CITEGEN_STREAMING__ADMIN_API_KEY": "k",
        "CITEGEN_STREAMING__MAX_ACTIVE": "2",
    }
    process = subprocess.Popen(
        [str(CITEGEN), "serve", "--port", str(port)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    log: list[str] = []
    for line in process.stderr:
        log.append(line)
        if "Uvicorn running on" in line:
            break
    else:
        pytest.fail("expected `citegen serve` to start listening, got:\n" + "".join(log))
    reader = threading.Thread(target=lambda: log.extend(process.stderr), daemon=True)
    reader.start()
    yield process, f"http://127.0.0.1:{port}", url
    if process.poll() is None:
        process.kill()
        process.wait(10)
    reader.join(10)  # the pipe is at its end once the process has gone
    process.stderr.close()


@pytest.mark.slow
def test_serve_answers_until_interrupted(served) -> None:
    process, base, _ = served
    assert httpx.get(f"{base}/readyz").json()["checks"]["database"] is True
    events = answer(base, {"question": CORPUS[1][:10], "max_tokens": 32})
    assert events[-1][0] == "done" and events[-1][1]["usage"]["completion_tokens"] > 0
    assert httpx.get(f"{base}/admin/stats", headers={"x-api-key": "k"}).json()["acts"] == 1
    assert 'citegen_responses_total{route="/v1/answers",status="200"} 1' in httpx.get(f"{base}/metrics").text
    refused = httpx.post(f"{base}/v1/answers", json={"question": CORPUS[1][:10], "acts": ["형법"]})
    assert refused.status_code == 422 and "['형법']" in refused.json()["detail"]  # not in this database
    narrowed = answer(base, {"question": CORPUS[1][:10], "max_tokens": 8, "courts": [], "acts": ["민법"]})
    assert narrowed[-1][0] == "done"
    process.send_signal(signal.SIGINT)
    assert process.wait(30) == 0


@pytest.mark.slow
def test_serve_stops_on_sigterm_as_on_ctrl_c_keeping_every_audit_row(served) -> None:
    """SIGTERM (what systemd, Docker and Kubernetes send) killed the process inside uvicorn: exit -15, the
    audit rows still buffered lost, the engine never closed."""
    process, base, url = served
    checked = 0
    for question in CORPUS[:4]:
        events = answer(base, {"question": question[:10], "max_tokens": 48})
        checked += sum(1 for name, _ in events if name == "citation")
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 0
    database = Database.open(url)
    try:
        with database.engine.connect() as connection:
            assert connection.execute(select(func.count()).select_from(AUDIT)).scalar_one() == checked
    finally:
        database.close()
