"""The answer page in headless Chromium (Debian's `chromium`), driven over the DevTools protocol, under
the content security policy it is served with: prose shows while a citation is still being verified, the
citation shows only once verified, with its badge and source; `drop` leaves no trace inline; an answer
can be stopped, which frees its place on the server. A screenshot is kept in test-artifacts/."""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from streaming_kit import DictVerifier, Gate, ScriptedSource, standard_script
from websockets.sync.client import ClientConnection, connect

from streaming import create_app
from streaming.config import StreamingSettings
from streaming.protocols import ProseDelta

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (see .ci/run)"),
]


class DevTools:
    """One page of a headless Chromium, spoken to over the DevTools protocol."""

    def __init__(self, socket: ClientConnection) -> None:
        self._socket = socket
        self._ids = itertools.count(1)

    def call(self, method: str, **params: object) -> dict:
        message_id = next(self._ids)
        self._socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self._socket.recv(timeout=30))
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"expected {method} to succeed, got {reply['error']}")
                return reply["result"]

    def wait_for(self, condition: str, value: str) -> object:
        """Evaluates `value` once the JS `condition` holds, watching DOM mutations (no polling). A
        condition that throws has not held yet: the page may still be parsing (no `document.body`)."""
        script = (
            "new Promise(resolve => { const holds = () => { try { return Boolean(" + condition + "); }"
            " catch (error) { return false; } }; const check = () => { if (holds()) {"
            " observer.disconnect(); resolve(" + value + "); } };"
            " const observer = new MutationObserver(check); observer.observe(document,"
            " {subtree: true, childList: true, characterData: true, attributes: true});"
            " check(); })"
        )
        result = self.call(
            "Runtime.evaluate", expression=script, awaitPromise=True, returnByValue=True, timeout=20000
        )
        if "exceptionDetails" in result:
            raise AssertionError(f"expected {value} to evaluate, got {result['exceptionDetails']}")
        return result["result"].get("value")


@contextmanager
def open_page(devtools_port: int, url: str) -> Iterator[DevTools]:
    target = httpx.put(f"http://127.0.0.1:{devtools_port}/json/new?about:blank").json()
    with connect(target["webSocketDebuggerUrl"], max_size=None, open_timeout=10) as socket:
        tools = DevTools(socket)
        tools.call("Page.navigate", url=url)  # answers once the new document is committed
        yield tools


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[int]:
    """Headless Chromium with a DevTools port; yields the port."""
    process = subprocess.Popen(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--remote-debugging-port=0",
            "--window-size=1000,800",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    reader: threading.Thread | None = None
    try:
        for line in process.stderr:  # Chromium announces its DevTools endpoint on stderr
            if line.startswith("DevTools listening on ws://"):
                # keep reading its chatter, or a full pipe would stall it
                reader = threading.Thread(target=process.stderr.read, daemon=True)
                reader.start()
                yield int(line.split(":")[2].split("/")[0])
                break
        else:
            pytest.fail("expected Chromium to announce its DevTools endpoint, got its exit")
    finally:
        process.terminate()
        process.wait(10)
        if reader is not None:
            reader.join(10)  # the pipe's end once Chromium is gone
        process.stderr.close()


def test_citations_appear_only_once_verified_with_badge_and_source(serve, browser: int) -> None:
    verifier = DictVerifier()
    verifier.gate = Gate()
    base = serve(create_app(StreamingSettings(), ScriptedSource(), verifier))
    with open_page(browser, f"{base}/?q={quote('불법행위 책임의 근거는?')}") as tools:
        answer = "document.getElementById('answer')"
        shown = tools.wait_for(f"{answer} && {answer}.textContent.includes('근거는')", f"{answer}.innerHTML")
        assert shown == "불법행위의 근거는 "  # the prose, and nothing of the citation being verified
        assert verifier.gate.reached.wait(10)
        verifier.gate.open()
        tools.wait_for("document.body.dataset.state === 'done'", "true")
        citations = tools.wait_for(
            "true",
            "[...document.querySelectorAll('.citation')].map(c => "
            "[c.className, c.firstChild.textContent, c.textContent])",
        )
        assert citations == [
            ["citation verified", "민법 제750조", "민법 제750조검증됨(법령ID 001706 제750조)"],
            ["citation withheld", "[확인되지 않은 인용 생략]",
             "[확인되지 않은 인용 생략]없음(the database holds no such provision or decision)"],  # why, never what
        ]
        assert "9999" not in tools.wait_for("true", "document.body.textContent")
        status = tools.wait_for("true", "document.getElementById('status').textContent")
        assert status.startswith("완료: ") and "검증됨 1" in status and "{" not in status, status
        assert tools.wait_for("true", "document.querySelector('#ask button').disabled") is False
        ARTIFACTS.mkdir(exist_ok=True)
        shot = tools.call("Page.captureScreenshot", format="png")
        (ARTIFACTS / "streaming-page.png").write_bytes(base64.b64decode(shot["data"]))


def test_a_dropped_citation_leaves_no_trace_in_the_prose(serve, browser: int) -> None:
    """Under `drop` an unverified citation is left out: no badge or reason inside the sentence (`…이고,
    없음(…)이다.` changed what it said); the done line counts it."""
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    with open_page(browser, f"{base}/?q={quote('불법행위 책임의 근거는?')}&policy=drop") as tools:
        shown = tools.wait_for(
            "document.body.dataset.state === 'done'",
            "[document.getElementById('answer').textContent, document.getElementById('status').textContent]",
        )
        assert shown[0] == "불법행위의 근거는 민법 제750조검증됨(법령ID 001706 제750조)이고, 이다.", shown
        assert "없음 1" in shown[1], shown


def test_a_stopped_answer_frees_its_place_and_the_page(serve, browser: int) -> None:
    """The page had no way out of an answer that stalled or waited for a place: the button stayed
    disabled. Stopping closes the stream, the server cancels the generation, the page can ask again."""
    stalled = Gate()
    source = ScriptedSource(lambda request: [ProseDelta("불법행위의 근거는 "), stalled, *standard_script()[1:]])
    base = serve(create_app(StreamingSettings(), source, DictVerifier()))
    with open_page(browser, f"{base}/?q={quote('불법행위 책임의 근거는?')}") as tools:
        answer = "document.getElementById('answer')"
        tools.wait_for(f"{answer} && {answer}.textContent.includes('근거는')", "true")
        assert tools.wait_for("true", "document.querySelector('#ask button').disabled") is True
        tools.call("Runtime.evaluate", expression="document.getElementById('stop').click()")
        tools.wait_for("document.body.dataset.state === 'stopped'", "true")
        assert tools.wait_for("true", "document.querySelector('#ask button').disabled") is False
        assert tools.wait_for("true", "document.getElementById('stop').hidden") is True
        assert source.cancelled.wait(10)  # the generation itself stopped, not only the page
        assert tools.wait_for("true", "document.getElementById('status').textContent").startswith("중지됨")


def test_the_page_is_served_with_a_policy_that_runs_only_its_own_script(serve) -> None:
    """The model's text is untrusted and `?q=` starts an answer: only the page's own script and style run
    (the browser tests above run under this policy), it calls only this service, no site may frame it."""
    base = serve(create_app(StreamingSettings(), ScriptedSource(), DictVerifier()))
    response = httpx.get(f"{base}/")
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "connect-src 'self'" in policy
    assert "script-src 'sha256-" in policy and "unsafe-inline" not in policy
    assert response.headers["x-content-type-options"] == "nosniff"
