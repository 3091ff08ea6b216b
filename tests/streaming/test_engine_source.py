"""`EngineSource` over the real continuous-batching engine, with the engine tests' tiny Llama
(tests/engine/tiny_lm.py, trained in code) and the verifier on an SQLite file: concurrent answers
finish with only verified citations visible, and a client that leaves cancels its sequence."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx
import pytest
from streaming_kit import (
    answer_concurrently,
    assert_only_verified_citations_visible,
    engine_service_parts,
    filled_sqlite,
    sse_events,
    wait_for_metric,
)

from streaming import create_app
from streaming.config import StreamingSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))  # the engine tests' tiny model
from tiny_lm import CORPUS, build_tiny

RECORDS = [
    {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률", "articles": [{"article": "750"}]},
    {
        "type": "case",
        "court": "대법원",
        "date": "2024-07-01",
        "case_number": "2024도4202",
        "disposition": "판결",
    },
    {"type": "coverage", "kind": "statute"},
    {"type": "coverage", "kind": "case", "court": "대법원", "from": "1990-01-01", "to": "2025-12-31"},
]


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory):
    database = filled_sqlite(tmp_path_factory.mktemp("engine-source"), RECORDS)
    yield from engine_service_parts(database, build_tiny(), max_batch=4)
    database.close()


def test_concurrent_answers_finish_with_only_verified_citations_visible(serve, parts) -> None:
    source, verifier, lexicon = parts
    # no anchors: the engine marks tentative prose
    base = serve(create_app(StreamingSettings(max_active=4), source, verifier))
    prompts = [CORPUS[0][:12], CORPUS[1][:10], CORPUS[2][:8], "판례는 "]  # greedy: the second cites a case
    bodies = [{"question": prompt, "max_tokens": 48, "seed": i} for i, prompt in enumerate(prompts)]
    answers = answer_concurrently(base, bodies, timeout_s=120)
    assert any(name == "citation" for events in answers for name, _ in events)
    for events in answers:
        assert_only_verified_citations_visible(events, lexicon)


def test_a_client_that_leaves_cancels_its_sequence_in_the_engine(serve, parts) -> None:
    source, verifier, _ = parts
    base = serve(create_app(StreamingSettings(), source, verifier))  # the engine marks tentative prose
    body = {"question": CORPUS[4][:10], "max_tokens": 2000, "temperature": 1.0, "seed": 1}
    with httpx.stream("POST", f"{base}/v1/answers", json=body, timeout=60) as response:
        next(sse_events(response))  # the answer has started; leave
    wait_for_metric(base, "citegen_answers_active", 0)
    deadline = time.monotonic() + 10
    while source.engine.has_work():  # the engine drops the sequence before its next step
        assert time.monotonic() < deadline, "expected the engine to drop the cancelled sequence"


def test_a_question_longer_than_the_context_is_refused_before_any_stream(serve, parts) -> None:
    source, verifier, _lexicon = parts
    base = serve(create_app(StreamingSettings(), source, verifier))  # the engine marks tentative prose
    context = source.engine.loaded.context_length
    response = httpx.post(f"{base}/v1/answers", json={"question": "민법 " * context}, timeout=60)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert f"at most {context - 1} tokens" in response.json()["detail"]
    assert httpx.get(f"{base}/metrics").text.count('citegen_failed_answers_total{') == 0
