"""`/v1/chat/completions` driven by the official `openai` client against a real server."""

from __future__ import annotations

import json
import socket

import openai
import pytest
from streaming_kit import (
    MINBEOP_750,
    DictVerifier,
    Fail,
    Gate,
    ScriptedSource,
    citation,
    standard_script,
    wait_for_metric,
)

from streaming import create_app
from streaming.config import StreamingSettings
from streaming.errors import GenerationError
from streaming.protocols import Finished, ProseDelta, Usage

MESSAGES = [
    {"role": "system", "content": "법률 도우미"},
    {"role": "user", "content": "불법행위 책임의 근거는?"},
]
EXPECTED_CONTENT = "불법행위의 근거는 민법 제750조이고, [확인되지 않은 인용 생략]이다."


@pytest.fixture
def client(serve):
    source = ScriptedSource()
    base = serve(create_app(StreamingSettings(model_name="ko-legal-tiny"), source, DictVerifier()))
    with openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0) as client:
        client.source = source  # type: ignore[attr-defined]
        yield client


def test_models_lists_the_served_model(client) -> None:
    assert [model.id for model in client.models.list()] == ["ko-legal-tiny"]


def test_completion_carries_verified_content_and_citation_metadata(client) -> None:
    completion = client.chat.completions.create(
        model="ko-legal-tiny", messages=MESSAGES, seed=3, max_tokens=64
    )
    assert completion.choices[0].message.content == EXPECTED_CONTENT
    assert completion.choices[0].finish_reason == "stop"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (7, 11)
    first, second = completion.model_extra["citations"]
    assert EXPECTED_CONTENT[first["start"] : first["end"]] == "민법 제750조" and first["status"] == "verified"
    assert second["withheld"] and second["status"] == "not_found"
    request = client.source.requests[0]
    assert (request.seed, request.max_tokens, [m.role for m in request.messages]) == (
        3,
        64,
        ["system", "user"],
    )


def test_stream_yields_the_same_content_in_chunks(client) -> None:
    stream = client.chat.completions.create(
        model="ko-legal-tiny", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == EXPECTED_CONTENT
    citations = [cited for c in chunks for cited in c.model_extra.get("citations", [])]
    assert not any("citation" in c.model_extra for c in chunks)  # one field name, as on a completion
    assert [c["status"] for c in citations] == ["verified", "not_found"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.total_tokens == 18


@pytest.mark.parametrize(
    "extra",
    [{"n": 2}, {"temperature": 9}, {"bogus_field": 1}, {"max_tokens": 0}],
    ids=["n-2", "temperature-9", "unknown-field", "zero-tokens"],
)
def test_invalid_requests_raise_the_clients_error(client, extra: dict) -> None:
    with pytest.raises(openai.UnprocessableEntityError):
        client.chat.completions.create(model="ko-legal-tiny", messages=MESSAGES, extra_body=extra)


def test_an_invalid_request_names_its_field_in_openais_error_shape(client) -> None:
    with pytest.raises(openai.UnprocessableEntityError) as raised:
        client.chat.completions.create(model="ko-legal-tiny", messages=MESSAGES, temperature=9)
    assert (raised.value.param, raised.value.code, raised.value.type) == (
        "temperature", "invalid-request", "invalid-request")


def test_citation_policy_extension_annotates(client) -> None:
    completion = client.chat.completions.create(
        model="ko-legal-tiny", messages=MESSAGES, extra_body={"citation_policy": "annotate"}
    )
    assert "민법 제9999조" in completion.choices[0].message.content


@pytest.mark.parametrize("stream", [False, True], ids=["completion", "stream"])
def test_a_failing_source_raises_in_the_client(serve, stream: bool) -> None:
    script = [
        ProseDelta("앞. "),
        *citation("민법 750조", MINBEOP_750),
        Fail(GenerationError("expected a model, got none")),
    ]
    base = serve(create_app(StreamingSettings(), ScriptedSource(lambda request: script), DictVerifier()))
    with (
        openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0) as client,
        pytest.raises(openai.APIError, match="expected a model, got none"),
    ):
        list(
            client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        ) if stream else client.chat.completions.create(model="m", messages=MESSAGES)


def test_a_client_that_leaves_a_completion_cancels_it_and_frees_its_slot(serve) -> None:
    never = Gate()
    source = ScriptedSource(lambda request: [ProseDelta("시작 "), never, Finished(Usage(1, 1))])
    base = serve(create_app(StreamingSettings(max_active=1, max_queued=0), source, DictVerifier()))
    body = json.dumps({"model": "m", "messages": MESSAGES}).encode()
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        assert never.reached.wait(10)
    assert source.cancelled.wait(5)
    wait_for_metric(base, "citegen_answers_active", 0)
    source.script = lambda request: standard_script()
    with openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0) as client:
        assert client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content


def test_content_as_text_parts_and_the_developer_role_are_taken_as_openai_takes_them(client) -> None:
    # the SDK's typed parts and the `developer` role of OpenAI's newer models were refused with 422
    completion = client.chat.completions.create(
        model="ko-legal-tiny",
        messages=[
            {"role": "developer", "content": [{"type": "text", "text": "법률 도우미"}]},
            {"role": "user", "content": [{"type": "text", "text": "불법행위"}, {"type": "text", "text": "책임은?"}]},
        ],
    )
    assert completion.choices[0].message.content == EXPECTED_CONTENT
    request = client.source.requests[0]
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", "법률 도우미"),
        ("user", "불법행위\n책임은?"),
    ]


@pytest.mark.parametrize(
    "content",
    [[{"type": "image_url", "image_url": {"url": "http://x/y.png"}}], [], [{"type": "text"}]],
    ids=["image-part", "no-parts", "part-without-text"],
)
def test_content_parts_other_than_text_are_refused(client, content: list) -> None:
    with pytest.raises(openai.UnprocessableEntityError):
        client.chat.completions.create(model="ko-legal-tiny", messages=[{"role": "user", "content": content}])
    assert not client.source.requests


def test_null_sampling_fields_take_their_defaults(client) -> None:
    # OpenAI's API reads null as "the default"; clients that send every field send it
    nulls = {"temperature": None, "top_p": None, "n": None, "stream": None, "presence_penalty": None,
             "frequency_penalty": None, "stop": None, "seed": None, "max_tokens": None}
    completion = client.chat.completions.create(model="ko-legal-tiny", messages=MESSAGES, extra_body=nulls)
    assert completion.choices[0].message.content == EXPECTED_CONTENT
    request = client.source.requests[0]
    assert (request.temperature, request.top_p, request.stop) == (0.0, 1.0, ())
