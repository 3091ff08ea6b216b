"""What the HTTP edge refuses before any stream starts: values of the wrong type, sampling
parameters that cannot sample, slow bodies, a narrowing flood from one client; and settings that
would open the admin endpoints to anyone."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlparse

import httpx
import pytest
from pydantic import ValidationError
from streaming_kit import QUESTION, DictVerifier, Gate, ScriptedSource, answer, sse_events, standard_script

from streaming import create_app
from streaming.config import StreamingSettings
from streaming.protocols import CitableNames, GenerationRequest

CHAT = {"model": "ko-legal-tiny", "messages": [{"role": "user", "content": "근거는?"}]}


@pytest.mark.parametrize(
    "path, body",
    [
        ("/v1/answers", {**QUESTION, "max_tokens": True}),
        ("/v1/answers", {**QUESTION, "max_tokens": "10"}),
        ("/v1/answers", {**QUESTION, "max_tokens": 10.0}),
        ("/v1/answers", {**QUESTION, "seed": "1"}),
        ("/v1/answers", {**QUESTION, "temperature": "0.5"}),
        ("/v1/answers", {**QUESTION, "temperature": 1e-300}),
        ("/v1/answers", {**QUESTION, "temperature": 1e-38}),
        ("/v1/answers", {**QUESTION, "top_p": 1e-300}),
        ("/v1/chat/completions", {**CHAT, "stream": 1}),
        ("/v1/chat/completions", {**CHAT, "max_tokens": True}),
        ("/v1/chat/completions", {**CHAT, "temperature": 1e-45}),
        ("/v1/chat/completions", {**CHAT, "stop": ["a"] * 9}),
    ],
    ids=[
        "bool-tokens", "string-tokens", "float-tokens", "string-seed", "string-temperature",
        "temperature-1e-300", "temperature-1e-38", "top-p-1e-300", "int-stream", "bool-chat-tokens",
        "temperature-1e-45", "too-many-stops",
    ],
)  # fmt: skip
def test_unsamplable_or_mistyped_values_are_refused_with_a_readable_problem(serve, path, body) -> None:
    source = ScriptedSource()
    base = serve(create_app(StreamingSettings(), source, DictVerifier()))
    response = httpx.post(f"{base}{path}", json=body, timeout=10)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert "<function" not in detail and " at 0x" not in detail, detail
    assert source.requests == []  # never reached the source


@pytest.mark.parametrize("stop, says", [
    ("", "at least 1 character"),
    ("x" * 65, "at most 64 characters"),
    (["a", ""], "body.stop.1: String should have at least 1 character"),
    (["a"] * 5, "at most 4 items"),
    ([1], "body.stop.0: Input should be a valid string"),
], ids=["empty", "too-long", "empty-in-list", "too-many", "not-a-string"])  # fmt: skip
def test_a_bad_stop_string_is_refused_with_one_problem_that_says_what(serve, stop, says: str) -> None:
    """A review: `""` was refused with `at least 1 item` and `Input should be a valid list` (both halves of
    the string-or-list union), a 65-character one with `at most 64 items`."""
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    response = httpx.post(f"{base}/v1/chat/completions", json={**CHAT, "stop": stop}, timeout=10)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert says in detail and "valid list" not in detail and detail.count("body.stop") == 1, detail


def test_stop_strings_one_or_listed_are_taken(serve) -> None:
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    for stop in ("다", ["다", "니"], None, []):
        response = httpx.post(f"{base}/v1/chat/completions", json={**CHAT, "stop": stop}, timeout=10)
        assert response.status_code == 200, response.text


@pytest.mark.parametrize("value", [0.0, 0.01, 0.8, 2.0], ids=str)
def test_samplable_temperatures_pass(serve, value: float) -> None:
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    assert answer(base, {**QUESTION, "temperature": value})[-1][0] == "done"


def test_a_body_that_arrives_too_slowly_is_refused(serve) -> None:
    base = serve(create_app(StreamingSettings(body_timeout_s=0.3), ScriptedSource(), DictVerifier()))
    address = urlparse(base)
    with socket.create_connection((address.hostname, address.port), timeout=10) as client:
        client.sendall(
            b"POST /v1/answers HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: 100\r\n\r\n{\"question\": "
        )  # and nothing more
        reply = b"".join(iter(lambda: client.recv(65536), b"")).decode()  # until the server closes
    assert reply.startswith("HTTP/1.1 408"), reply
    assert "body-timeout" in reply


@pytest.mark.parametrize("key", ["", "   "], ids=["empty", "blank"])
def test_an_empty_admin_key_is_a_configuration_error(key: str) -> None:
    with pytest.raises(ValidationError, match="expected an admin API key"):
        StreamingSettings(admin_api_key=key)


class _CompilingSource(ScriptedSource):
    """A source whose every new narrowing compiles until `compiled` opens (as the engine's
    library does on its own thread); the whole language is compiled already."""

    def __init__(self, cached: tuple[str, ...] = ()) -> None:
        super().__init__(lambda request: standard_script())
        self.compiled = Gate()
        self.preparing = 0
        self.two_preparing = threading.Event()
        self.cached = set(cached)  # acts whose narrowing is compiled already

    def is_prepared(self, request: GenerationRequest) -> bool:
        return request.courts is None and (request.acts is None or set(request.acts) <= self.cached)

    async def prepare(self, request: GenerationRequest) -> GenerationRequest:
        if not self.is_prepared(request):
            self.preparing += 1
            if self.preparing == 2:
                self.two_preparing.set()
            await self.compiled.wait()
        return request


@contextlib.contextmanager
def _two_new_narrowings_compiling(serve, source: _CompilingSource, third: str) -> Iterator[tuple[httpx.Client, str]]:
    """A service of one slot whose client has two new narrowings (민법, 형법) compiling, as long as the block
    runs; the client and the base URL, for a request narrowed to `third` meanwhile."""
    config = StreamingSettings(max_active=1, max_queued=0, max_narrowings_per_client=2)
    known = {act: act for act in ("민법", "형법", third)}
    base = serve(create_app(config, source, DictVerifier(), citable=CitableNames({}, known)))
    with httpx.Client(base_url=base, timeout=30) as client:
        waiting = [
            threading.Thread(target=client.post, args=("/v1/answers",), kwargs={"json": {**QUESTION, "acts": [act]}})
            for act in ("민법", "형법")
        ]
        for thread in waiting:
            thread.start()
        assert source.two_preparing.wait(10)
        yield client, base
        source.compiled.open()
        for thread in waiting:
            thread.join(30)


def test_a_narrowing_that_compiles_holds_no_slot_and_one_client_gets_few(serve) -> None:
    source = _CompilingSource()
    with _two_new_narrowings_compiling(serve, source, "상법") as (client, base):
        third = client.post("/v1/answers", json={**QUESTION, "acts": ["상법"]})
        assert third.status_code == 429 and "narrowings" in third.json()["detail"]
        plain = answer(base)  # the one slot is free: both narrowings wait without it
        assert plain[-1][0] == "done"


def test_a_narrowing_compiled_already_is_served_while_two_new_ones_compile(serve) -> None:
    """The limit is on new narrowings compiling: one that is cached returns at once and holds nothing."""
    source = _CompilingSource(cached=("헌법",))
    with _two_new_narrowings_compiling(serve, source, "헌법") as (client, _), \
            client.stream("POST", "/v1/answers", json={**QUESTION, "acts": ["헌법"]}) as cached:
        assert cached.status_code == 200
        assert list(sse_events(cached))[-1][0] == "done"
