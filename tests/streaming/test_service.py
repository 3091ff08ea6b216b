"""The answer service over a real socket (uvicorn on 127.0.0.1, httpx streaming): SSE events,
holding, policies, faults, admission, and the operational endpoints."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from streaming_kit import (
    MINBEOP_750,
    QUESTION,
    AuditLog,
    DictVerifier,
    Fail,
    Gate,
    ScriptedSource,
    answer,
    citation,
    metric,
    sse_events,
    standard_script,
    wait_for_metric,
)

from streaming import create_app
from streaming.config import StreamingSettings
from streaming.errors import GenerationError
from streaming.protocols import Finished, ProseDelta, Usage


def test_answer_streams_prose_and_verified_citations_in_order(serve) -> None:
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    events = answer(base)
    assert [name for name, _ in events] == ["prose", "citation", "prose", "citation", "prose", "done"]
    first, second = events[1][1], events[3][1]
    assert (first["text"], first["original"], first["status"], first["source"]) == (
        "민법 제750조",
        "민법 750조",
        "verified",
        "법령ID 001706 제750조",
    )
    assert second == {
        "id": 1,
        "text": "[확인되지 않은 인용 생략]",
        "canonical": None,
        "status": "not_found",
        "source": None,
        "detail": "the database holds no such provision or decision",
        "withheld": True,
    }
    done = events[-1][1]
    assert done["usage"] == {"prompt_tokens": 7, "completion_tokens": 11, "total_tokens": 18}
    assert done["citations"] == {"verified": 1, "not_found": 1}
    text = "".join(data["text"] for name, data in events if name in ("prose", "citation"))
    assert "9999" not in text


def test_reasoning_never_reaches_the_reader(serve) -> None:
    script = [ProseDelta("<thi"), ProseDelta("nk>민법 제9999조를 볼까</th"), ProseDelta("ink>답: "),
              *citation("민법 750조", MINBEOP_750), Finished(Usage(1, 5))]  # fmt: skip
    base = serve(create_app(StreamingSettings(), ScriptedSource(lambda request: script), DictVerifier()))
    events = answer(base, {**QUESTION, "policy": "annotate"})
    assert (
        "".join(data["text"] for name, data in events if name in ("prose", "citation")) == "답: 민법 제750조"
    )
    assert events[-1][1]["reasoning_chars"] == len("<think>민법 제9999조를 볼까</think>")


@pytest.mark.parametrize(
    "policy, shown",
    [("annotate", ("민법 제9999조", "not_found", False)), ("drop", ("", "not_found", True))],
    ids=["annotate", "drop"],
)
def test_policies_decide_what_an_unverified_citation_shows(serve, policy: str, shown: tuple) -> None:
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    unverified = answer(base, {**QUESTION, "policy": policy})[3][1]
    assert (unverified["text"], unverified["status"], unverified["withheld"]) == shown


def test_text_after_a_citation_waits_until_its_verdict(serve) -> None:
    verifier = DictVerifier()
    verifier.gate = Gate()
    source_done = Gate()
    script = [
        ProseDelta("앞. "),
        *citation("민법 750조", MINBEOP_750),
        ProseDelta("뒤."),
        source_done,
        Finished(Usage(1, 3)),
    ]
    base = serve(create_app(StreamingSettings(), ScriptedSource(lambda request: script), verifier))
    with httpx.stream("POST", f"{base}/v1/answers", json=QUESTION, timeout=10) as response:
        events = sse_events(response)
        assert next(events) == ("prose", {"text": "앞. "})
        assert source_done.reached.wait(5)  # the source has produced "뒤." already ...
        assert verifier.gate.reached.wait(5)
        verifier.gate.open()  # ... yet it may only come out after the citation
        assert next(events)[0] == "citation"
        source_done.open()
        assert next(events) == ("prose", {"text": "뒤."})
        assert next(events)[0] == "done"


@pytest.mark.parametrize("fault", ["database-down", "verifier-hangs"], ids=str)
def test_strict_mode_withholds_citations_the_verifier_cannot_check(serve, fault: str) -> None:
    verifier = DictVerifier()
    if fault == "database-down":
        verifier.down = True
    else:
        verifier.gate = Gate()  # never opened: only the timeout ends the wait
    config = StreamingSettings(verify_timeout_s=0.2)
    base = serve(create_app(config, ScriptedSource(), verifier))
    events = answer(base)
    citations = [data for name, data in events if name == "citation"]
    assert [(c["status"], c["withheld"], c["text"]) for c in citations] == [
        ("unavailable", True, config.strict_marker)
    ] * 2
    assert events[-1][0] == "done"


def test_a_failing_source_ends_the_stream_with_a_problem_event(serve) -> None:
    script = [
        ProseDelta("앞. "),
        *citation("민법 750조", MINBEOP_750),
        Fail(GenerationError("expected a model, got none")),
    ]
    base = serve(create_app(StreamingSettings(), ScriptedSource(lambda request: script), DictVerifier()))
    events = answer(base)
    assert [name for name, _ in events] == ["prose", "citation", "error"]
    assert events[1][1]["status"] == "verified"  # closed and verified before the failure came
    problem = events[-1][1]
    assert (problem["status"], problem["detail"]) == (502, "expected a model, got none")
    assert problem["type"].endswith("/generation-failed")
    # the response was a 200 by the time it failed: /metrics counts the failure by its cause
    assert metric(base, 'citegen_failed_answers_total{cause="generation-failed"}') == 1


def test_a_source_that_stops_without_finishing_is_a_protocol_error(serve) -> None:
    base = serve(
        create_app(StreamingSettings(), ScriptedSource(lambda request: [ProseDelta("x")]), DictVerifier())
    )
    assert answer(base)[-1][1]["status"] == 500


def test_a_client_that_leaves_cancels_its_generation_and_frees_its_slot(serve) -> None:
    never = Gate()
    source = ScriptedSource(lambda request: [ProseDelta("시작 "), never, Finished(Usage(1, 1))])
    base = serve(create_app(StreamingSettings(max_active=1, max_queued=0), source, DictVerifier()))
    with httpx.stream("POST", f"{base}/v1/answers", json=QUESTION, timeout=10) as response:
        assert next(sse_events(response))[0] == "prose"
        assert never.reached.wait(5)
    assert source.cancelled.wait(5)
    wait_for_metric(base, "citegen_answers_active", 0)
    source.script = lambda request: standard_script()
    assert answer(base)[-1][0] == "done"


def test_a_full_queue_answers_429_with_retry_after(serve) -> None:
    hold = Gate()
    source = ScriptedSource(lambda request: [hold, *standard_script()])
    base = serve(
        create_app(StreamingSettings(max_active=1, max_queued=1, retry_after_s=7), source, DictVerifier())
    )
    with (
        httpx.Client(timeout=10) as client,
        client.stream("POST", f"{base}/v1/answers", json=QUESTION) as running,
    ):
        assert hold.reached.wait(5)
        with httpx.Client(timeout=10) as other:
            queued: list[list] = []
            waiter = threading.Thread(target=lambda: queued.append(answer(base)))
            waiter.start()
            wait_for_metric(base, "citegen_answers_waiting", 1)
            refused = other.post(f"{base}/v1/answers", json=QUESTION)
            assert refused.status_code == 429
            assert refused.headers["retry-after"] == "7"
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.json()["retry_after_s"] == 7
            assert metric(base, 'citegen_responses_total{route="/v1/answers",status="429"}') == 1
            hold.open()
            assert list(sse_events(running))[-1][0] == "done"
            waiter.join(10)
            assert queued[0][-1][0] == "done"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/answers", QUESTION),
        ("/v1/chat/completions", {"model": "citegen", "messages": [{"role": "user", "content": "질문"}]}),
    ],
    ids=["answers", "chat-completion"],
)
def test_a_client_that_leaves_while_queued_frees_its_place_at_once(serve, path, body) -> None:
    hold = Gate()
    source = ScriptedSource(lambda request: [hold, *standard_script()])
    base = serve(create_app(StreamingSettings(max_active=1, max_queued=1), source, DictVerifier()))
    with (
        httpx.Client(timeout=10) as client,
        client.stream("POST", f"{base}/v1/answers", json=QUESTION) as running,
    ):
        assert hold.reached.wait(5)
        # Queued behind the held answer; gives up.
        with httpx.Client(timeout=10) as leaving, pytest.raises(httpx.ReadTimeout):
            leaving.post(f"{base}{path}", json=body, timeout=httpx.Timeout(10, read=0.5))
        wait_for_metric(base, "citegen_answers_waiting", 0)
        assert len(source.requests) == 1  # the departed request never reached the source
        queued: list[list] = []
        waiter = threading.Thread(target=lambda: queued.append(answer(base)))  # asserts a 200
        waiter.start()
        wait_for_metric(base, "citegen_answers_waiting", 1)  # the place is taken again, not refused
        hold.open()
        assert list(sse_events(running))[-1][0] == "done"
        waiter.join(10)
        assert queued and queued[0][-1][0] == "done"


def test_slow_client_applies_backpressure_to_the_source(serve) -> None:
    chunk, total = "가" * 20_000, 300  # 60 kB per event on the wire, 18 MB in all
    half_way = Gate()

    def script(request):
        events = [ProseDelta(chunk) for _ in range(total)]
        return [*events[: total // 2], half_way, *events[total // 2 :], Finished(Usage(1, total))]

    source = ScriptedSource(script)
    base = serve(create_app(StreamingSettings(inbox_size=4), source, DictVerifier()))
    with httpx.stream("POST", f"{base}/v1/answers", json=QUESTION, timeout=10) as response:
        events = sse_events(response)
        assert next(events)[0] == "prose"  # then stop reading: the source must stop too
        assert not half_way.reached.wait(2), f"expected the source held back, got {source.yielded} events out"
        half_way.open()
        rest = list(events)
    assert len(rest) == total  # the other prose events and done: nothing lost
    assert all(data == {"text": chunk} for _, data in rest[:-1]) and rest[-1][0] == "done"


@pytest.mark.parametrize(
    "content, headers, status, slug",
    [
        (b'{"question": ', {"content-type": "application/json"}, 400, "malformed-json"),
        (b'{"question": "\xff\xfe"}', {"content-type": "application/json"}, 400, "bad-encoding"),
        (
            json.dumps({"question": "x" * 70_000}).encode(),
            {"content-type": "application/json"},
            413,
            "body-too-large",
        ),
        (
            json.dumps({**QUESTION, "colour": "red"}).encode(),
            {"content-type": "application/json"},
            422,
            "invalid-request",
        ),
        (
            json.dumps({**QUESTION, "max_tokens": 10**9}).encode(),
            {"content-type": "application/json"},
            422,
            "invalid-request",
        ),
        (
            json.dumps({**QUESTION, "temperature": -1}).encode(),
            {"content-type": "application/json"},
            422,
            "invalid-request",
        ),
        (
            json.dumps({**QUESTION, "policy": "lenient"}).encode(),
            {"content-type": "application/json"},
            422,
            "invalid-request",
        ),
        (json.dumps({"question": ""}).encode(), {"content-type": "application/json"}, 422, "invalid-request"),
        (b'{"question": "\\ud800"}', {"content-type": "application/json"}, 422, "invalid-request"),
        (b"[]", {"content-type": "application/json"}, 422, "invalid-request"),
    ],
    ids=[
        "malformed-json",
        "invalid-utf8",
        "oversized",
        "unknown-field",
        "absurd-max-tokens",
        "negative-temperature",
        "unknown-policy",
        "empty-question",
        "lone-surrogate",
        "not-an-object",
    ],
)
def test_bad_requests_get_problem_details_before_any_stream(
    serve, content: bytes, headers: dict, status: int, slug: str
) -> None:
    source = ScriptedSource()
    base = serve(create_app(StreamingSettings(), source, DictVerifier()))
    response = httpx.post(f"{base}/v1/answers", content=content, headers=headers, timeout=10)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status and problem["type"].endswith("/" + slug)
    assert problem["detail"]
    assert source.requests == []


def test_oversized_chunked_body_is_refused_without_reading_it_all(serve) -> None:
    base = serve(create_app(StreamingSettings(max_body_bytes=1024), ScriptedSource(), DictVerifier()))
    response = httpx.post(
        f"{base}/v1/answers",
        content=iter([b"{" + b" " * 4096] * 4),
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert response.status_code == 413


def test_health_readiness_and_metrics(serve) -> None:
    class Probe:
        name = "database"
        healthy = True

        async def ready(self) -> bool:
            return self.healthy

    probe = Probe()
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier(), probes=[probe]))
    assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{base}/readyz").status_code == 200
    probe.healthy = False
    not_ready = httpx.get(f"{base}/readyz")
    assert not_ready.status_code == 503 and not_ready.json()["checks"]["database"] is False
    answer(base)
    text = httpx.get(f"{base}/metrics").text
    assert 'citegen_citations_total{outcome="verified"} 1' in text
    assert 'citegen_responses_total{route="/v1/answers",status="200"} 1' in text
    assert "citegen_citation_hold_seconds_count 2" in text
    assert metric(base, "citegen_completion_tokens_total") == 11


@pytest.mark.parametrize(
    "key, headers, status",
    [
        (None, {}, 404),
        ("s3cret", {}, 401),
        ("s3cret", {"x-api-key": "wrong"}, 401),
        ("s3cret", {"x-api-key": "s3cret"}, 200),
        ("s3cret", {"authorization": "Bearer s3cret"}, 200),
    ],
    ids=["not-configured", "no-key", "wrong-key", "api-key-header", "bearer"],
)
def test_admin_endpoints_need_the_api_key(serve, key: str | None, headers: dict, status: int) -> None:
    base = serve(
        create_app(StreamingSettings(admin_api_key=key), ScriptedSource(), DictVerifier(), admin=AuditLog())
    )
    for path in ("/admin/audit?limit=5", "/admin/stats"):
        response = httpx.get(base + path, headers=headers)
        assert response.status_code == status
    if status == 200:
        assert httpx.get(f"{base}/admin/audit", headers=headers).json()["entries"][0]["status"] == "verified"


def test_the_page_is_served(serve) -> None:
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    page = httpx.get(base + "/")
    assert page.status_code == 200 and "/v1/answers" in page.text
