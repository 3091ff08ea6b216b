"""`citegen-admin sync` end to end: the command against a real HTTP server on 127.0.0.1 that
replays law.go.kr (lawgo_replay.py), then the database it leaves checked with `verify`."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from lawgo_replay import OC, Replay, ReplayFactory, body
from typer.testing import CliRunner

from verifier.cli import app

runner = CliRunner()


def _serve(replay: Replay) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answer = replay(httpx.Request("GET", f"http://127.0.0.1{self.path}"))
            self.send_response(answer.status_code)
            self.send_header("Content-Type", answer.headers.get("Content-Type", "text/xml;charset=UTF-8"))
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def log_message(self, *_: object) -> None:  # the test reads the replay's record instead
            pass
    return Handler


@pytest.fixture
def server(replay: ReplayFactory) -> Iterator[tuple[str, Replay]]:
    """The replay behind a real server; `faults` of the replay can be set before a call."""
    answers = replay()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _serve(answers))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/DRF", answers
    httpd.shutdown()
    httpd.server_close()


def _sync(base_url: str, database_url: str, *extra: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["sync", "--base-url", base_url, "--database-url", database_url, "--rate", "500",
                                 "--page-size", "2", *extra], env={"CITEGEN_LAWGO_OC": OC})
    return result.exit_code, result.stdout, result.stderr


def test_sync_then_verify_a_provision_of_the_version_it_brought(server: tuple[str, Replay], tmp_path: Path) -> None:
    base_url, answers = server
    database_url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    code, stdout, stderr = _sync(base_url, database_url, "--json", "--targets", "law,prec")
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert (summary["streams"]["law"]["added"], summary["streams"]["prec"]["added"]) == (1, 5)
    assert summary["requests"] == len(answers.seen) == 11
    verified = runner.invoke(app, ["verify", "건축법 제2조 제1항 제11호 가목", "--database-url", database_url])
    assert verified.exit_code == 0, verified.stdout
    assert verified.stdout.startswith("verified") and "2025-10-01" in verified.stdout
    case = runner.invoke(app, ["verify", "대법원 2024. 2. 8. 선고 2023다302036 판결", "--database-url", database_url])
    assert case.exit_code == 0 and case.stdout.startswith("verified")


@pytest.mark.parametrize(("answer", "says"), [
    pytest.param(body("built/key-refused.json"), "law.go.kr refused the OC key", id="wrong-key"),
    pytest.param(body("real/error-page-unregistered.html"), "HTML error page", id="html-error-page"),
    pytest.param(body("real/law-service-001823.xml")[:100_000], "expected well-formed UTF-8 XML", id="truncated-body"),
])
def test_bad_input_is_one_line_naming_the_request_exit_2(server: tuple[str, Replay], tmp_path: Path,
                                                         answer: bytes, says: str) -> None:
    base_url, answers = server
    answers.faults[("lawService.do", "law", "277031")] = [answer]
    code, stdout, stderr = _sync(base_url, f"sqlite:///{tmp_path / 'db.sqlite3'}", "--targets", "law")
    assert code == 2
    first = stderr.splitlines()[0]
    assert first.startswith("error: ") and says in first
    assert first.endswith(f"(request: {base_url}/lawService.do?OC=***&target=law&MST=277031&type=XML)")
    assert OC not in stdout + stderr


def test_without_a_key_it_says_where_one_comes_from(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sync", "--database-url", f"sqlite:///{tmp_path / 'db.sqlite3'}"], env={})
    assert result.exit_code == 2
    assert "expected an OC key (--oc or CITEGEN_LAWGO_OC), got none" in result.stderr


def test_a_sync_stopped_by_an_error_continues_when_run_again_and_says_so(server: tuple[str, Replay],
                                                                          tmp_path: Path) -> None:
    base_url, answers = server
    database_url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    answers.faults[("lawService.do", "prec", "241875")] = [body("built/key-refused.json")]
    assert _sync(base_url, database_url, "--targets", "prec")[0] == 2
    code, stdout, stderr = _sync(base_url, database_url, "--targets", "prec")
    assert code == 0, stderr
    row = next(line for line in stdout.splitlines() if line.lstrip("│ ").startswith("prec"))
    assert [cell.strip() for cell in row.strip("│ ").split("│")][2:5] == ["5", "0", "1"]  # added, updated, skipped
    assert "resumed prec" in stdout
    listed = [url.params["page"] for url in answers.seen if url.path.endswith("lawSearch.do")]
    assert listed == ["1", "2", "2", "3"]  # the second run starts at the page it stopped on


@pytest.mark.parametrize(("options", "says"), [
    pytest.param(["--targets", "law,laws"], "expected targets among law, prec, detc, abbreviations, got laws",
                 id="unknown-target"),
    pytest.param(["--since", "2024-13-45"], "expected a date such as 2024-07-11, got '2024-13-45'", id="bad-date"),
    pytest.param(["--since", "2999-01-01"], "expected --since on or before", id="future-since"),
])
def test_bad_options_are_refused_before_any_request(tmp_path: Path, options: list[str], says: str) -> None:
    result = runner.invoke(app, ["sync", "--database-url", f"sqlite:///{tmp_path / 'db.sqlite3'}", *options],
                           env={"CITEGEN_LAWGO_OC": OC})
    assert result.exit_code == 2 and says in result.stderr
