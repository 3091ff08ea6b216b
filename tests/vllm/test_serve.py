"""`citegen serve --backend vllm`: the real service in the vLLM interpreter on 127.0.0.1, the sample
database imported into a fresh SQLite file, answers streamed over HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.vllm

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / ".venv-vllm" / "bin"
START_TIMEOUT = 240.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("vllm-serve")
    url = f"sqlite:///{workdir / 'citations.db'}"
    environment = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "CITEGEN_MODEL_PATH": str(model_dir),
        "CITEGEN_INDEX_CACHE_DIR": str(workdir / "index-cache"),
    }
    subprocess.run(
        [
            str(BIN / "citegen-admin"),
            "import",
            str(REPO / "data" / "synthetic_law"),
            str(REPO / "data" / "cases"),
            "--database-url",
            url,
        ],
        check=True,
        capture_output=True,
        env=environment,
    )
    port = _free_port()
    engine = json.dumps({"dtype": "float32", "max_model_len": 512, "enforce_eager": True})
    log = (workdir / "serve.log").open("w")
    process = subprocess.Popen(
        [
            str(BIN / "citegen"),
            "serve",
            "--backend",
            "vllm",
            "--port",
            str(port),
            "--database-url",
            url,
            "--vllm-args",
            engine,
            "--vllm-lexicon",
            str(workdir / "lexicon.json"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=environment,
        cwd=workdir,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while not _ready(base):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"expected the vLLM service to start, got:\n{(workdir / 'serve.log').read_text()[-4000:]}"
                )
            time.sleep(1)  # start-up only: vLLM's engine takes tens of seconds to come up
        yield base, workdir / "index-cache"
    finally:
        process.terminate()
        process.wait(timeout=60)
        with contextlib.suppress(
            ProcessLookupError
        ):  # vLLM's engine-core process, should it outlive the server
            os.killpg(process.pid, signal.SIGKILL)
        log.close()


def _ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def test_chat_answers_carry_checked_citations(server: tuple[str, Path]) -> None:
    server, _ = server
    body = {
        "model": "ko-legal-tiny",
        "max_tokens": 96,
        "messages": [{"role": "user", "content": "불법행위로 인한 손해배상책임의 요건은 무엇인가요?"}],
    }
    reply = httpx.post(f"{server}/v1/chat/completions", json=body, timeout=120)
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    content, citations = answer["choices"][0]["message"]["content"], answer["citations"]
    assert citations, "expected the shipped model to cite"
    for citation in citations:
        if citation["status"] == "verified":
            assert citation["text"] == citation["canonical"] and citation["text"] in content
        else:  # the default policy is strict: an unverified citation never reaches the reader
            assert citation["withheld"] and citation["text"] != citation.get("original")


def test_the_answer_stream_ends_with_done_and_bad_requests_fail_alone(server: tuple[str, Path]) -> None:
    server, _ = server
    events = []
    with httpx.stream(
        "POST",
        f"{server}/v1/answers",
        timeout=120,
        json={"question": "살인죄의 법정형은 어떻게 되나요?", "max_tokens": 64},
    ) as reply:
        assert reply.status_code == 200
        events = [line.removeprefix("event: ") for line in reply.iter_lines() if line.startswith("event: ")]
    assert events[-1] == "done" and "error" not in events
    refused = httpx.post(f"{server}/v1/answers", json={"question": "", "max_tokens": 8}, timeout=30)
    assert refused.status_code == 422
    again = httpx.post(
        f"{server}/v1/chat/completions",
        timeout=120,
        json={
            "model": "ko-legal-tiny",
            "max_tokens": 16,
            "messages": [{"role": "user", "content": "계약 해제란?"}],
        },
    )
    assert again.status_code == 200


def test_the_vllm_backend_stores_indexes_in_the_settings_cache_dir(server: tuple[str, Path]) -> None:
    """Settings.index_cache_dir reaches the vLLM backend (its front end and, through vLLM's
    additional_config, its workers) as it reaches citegen's own engine: the front end stores the whole
    answer language there at its start, and the workers load that index (one key: both compile it from
    the lexicon file) rather than build and store one of their own inside a decode step."""
    base, cache = server
    body = {"question": "해고의 요건은?", "max_tokens": 8}
    reply = httpx.post(f"{base}/v1/answers", json=body, timeout=120)
    assert reply.status_code == 200
    assert len(list(cache.rglob("index-*.arrays"))) == 1


@pytest.mark.parametrize(
    "path, body, detail",
    [
        ("/v1/answers", {"question": "민법 " * 512, "max_tokens": 8}, "at most 511 tokens"),
        (
            "/v1/chat/completions",
            {"model": "ko-legal-tiny", "max_tokens": 8, "messages": [{"role": "user", "content": " \n "}]},
            "non-empty message",
        ),
        ("/v1/answers", {"question": "해고의 요건은?", "temperature": 1e-300}, "temperature"),
    ],
    ids=["longer-than-the-context", "blank-message", "temperature-1e-300"],
)
def test_what_the_builtin_engine_refuses_before_a_slot_is_refused_so_here(
    server: tuple[str, Path], path: str, body: dict[str, object], detail: str
) -> None:
    """The vLLM source prepares each request as citegen's own engine does (one `prepare_request`):
    a prompt the context (max_model_len 512) cannot hold or a blank message is a 422 problem
    before any stream, and nothing is counted as a failed answer."""
    base, _ = server
    failed_before = _failed_answers(base)
    reply = httpx.post(f"{base}{path}", json=body, timeout=60)
    assert reply.status_code == 422, reply.text
    assert reply.headers["content-type"].startswith("application/problem+json")
    assert detail in reply.json()["detail"]
    assert _failed_answers(base) == failed_before


def test_a_narrowed_request_is_compiled_over_what_narrowings_share_not_built_whole(
    server: tuple[str, Path],
) -> None:
    """A new narrowing is compiled as citegen's own engine compiles it, in the front end and in vLLM's
    worker: in milliseconds over what the lexicon's narrowings share, its states computed as generation
    reaches them. Nothing is built whole or stored for it: built whole, each new narrowing took as long as
    the whole answer language (half a minute over the shipped statute book) before its request began."""
    base, cache = server
    before = {path for path in cache.rglob("*") if path.is_file()}
    for narrowing in ({"acts": ["근로기준법"]}, {"courts": ["대법원"], "acts": ["민법", "형법"]}):
        reply = httpx.post(
            f"{base}/v1/answers", json={"question": "해고의 요건은?", "max_tokens": 24, **narrowing}, timeout=120
        )
        assert reply.status_code == 200, reply.text
    assert {path for path in cache.rglob("*") if path.is_file()} == before


def test_each_worker_readies_the_narrowings_of_the_served_lexicon_when_it_starts(
    server: tuple[str, Path],
) -> None:
    """vLLM's workers get the service's request options (its lexicon file) through additional_config and
    make what that lexicon's narrowings share when they start, as the front end does: a first narrowed
    request's decode step pays no more than a later one's (0.1–0.2 s more over the statute book)."""
    _, cache = server
    log = (cache.parent / "serve.log").read_text()
    assert f"prepared the narrowings of {cache.parent / 'lexicon.json'}" in log


def _failed_answers(base: str) -> float:
    lines = httpx.get(f"{base}/metrics", timeout=10).text.splitlines()
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("citegen_failed_answers_total{"))
