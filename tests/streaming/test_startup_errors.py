"""Every console entry point, started wrong as a new user would start it: one line saying what was
expected and what came, one hint, exit code 2, no traceback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.database import Database
from verifier.importers import import_paths

CITEGEN = Path(sys.executable).parent / "citegen"
ADMIN = Path(sys.executable).parent / "citegen-admin"
UNREACHABLE = "postgresql://postgres@127.0.0.1:1/none"
ACT = {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률", "articles": [{"article": "750"}]}

CASES = [
    ("serve", ["serve"], {"CITEGEN_MODEL_PATH": "/nonexistent/model"}, "expected a model directory"),
    ("serve", ["serve"], {"CITEGEN_DATABASE_URL": UNREACHABLE}, "expected a reachable database"),
    ("serve", ["serve"], {"CITEGEN_DATABASE_URL": "EMPTY"}, "expected a database holding acts"),
    # a path with no database is refused as it is, not made a database there first
    ("serve", ["serve"], {"CITEGEN_DATABASE_URL": "MISSING"}, "got no such file"),
    ("serve", ["serve", "--backend", "vllm"], {}, "expected vLLM for the vllm backend"),
    ("serve", ["serve"], {"CITEGEN_BACKEND": "vllm"}, "expected vLLM for the vllm backend"),
    ("serve", ["serve"], {"CITEGEN_BACKEND": "tgi"}, "got backend: Input should be 'builtin' or 'vllm'"),
    ("serve", ["serve"], {"CITEGEN_STREAMING__ADMIN_API_KEY": ""}, "expected an admin API key"),
    ("serve", ["serve"], {"CITEGEN_STREAMING": '{"max_active": 2'}, 'parsing value for field "streaming"'),
    # the address is bound before the model loads: a port in use is told first
    ("serve", ["serve", "--port", "BUSY"], {"CITEGEN_MODEL_PATH": "/nonexistent/model"}, "expected to listen on"),
    ("ask", ["ask", "질문"], {"CITEGEN_MODEL_PATH": "/nonexistent/model"}, "expected a model directory"),
    ("ask", ["ask", "질문"], {"CITEGEN_DATABASE_URL": UNREACHABLE}, "expected a reachable database"),
    ("ask", ["ask", "  "], {"CITEGEN_MODEL_PATH": "/nonexistent/model"}, "expected a question"),
    ("recite", ["recite", "IN", "--out", "OUT"], {"CITEGEN_DATABASE_URL": UNREACHABLE}, "reachable database"),
    ("recite", ["recite", "IN", "--out", "OUT"], {"CITEGEN_STREAMING__ADMIN_API_KEY": ""}, "expected an admin"),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "command, arguments, environment, expected",
    CASES,
    ids=["serve-model", "serve-db", "serve-empty-db", "serve-missing-db", "serve-vllm", "serve-vllm-setting",
         "serve-unknown-backend", "serve-admin-key", "serve-settings-not-json", "serve-port-in-use", "ask-model",
         "ask-db", "ask-empty-question", "recite-db", "recite-settings"],
)  # fmt: skip
def test_a_bad_start_says_one_line_and_a_hint(tmp_path: Path, command, arguments, environment, expected) -> None:
    if "vllm" in (*arguments, *environment.values()) and _has_vllm():
        pytest.skip("vLLM is installed here: the vllm backend starts")
    (tmp_path / "IN").mkdir()
    (tmp_path / "IN" / "a.txt").write_text("민법 제750조", encoding="utf-8")
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(ACT, ensure_ascii=False), encoding="utf-8")
    filled = f"sqlite:///{tmp_path / 'filled.sqlite3'}"
    database = Database.open(filled)
    import_paths(database, [records])
    database.close()
    empty = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    Database.open(empty).close()  # a schema, no acts
    missing = tmp_path / "nowhere" / "missing.sqlite3"
    env = {name: value for name, value in os.environ.items() if not name.startswith("CITEGEN_")}
    env |= {"HF_HUB_OFFLINE": "1", "CITEGEN_DEVICE": "cpu", "CITEGEN_DATABASE_URL": filled}
    env |= {name: {"EMPTY": empty, "MISSING": f"sqlite:///{missing}"}.get(value, value)
            for name, value in environment.items()}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        arguments = [str(busy.getsockname()[1]) if argument == "BUSY" else argument for argument in arguments]
        result = subprocess.run([str(CITEGEN), *arguments], env=env, cwd=tmp_path, capture_output=True, text=True,
                                timeout=120)  # fmt: skip
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith(f"citegen {command}: ") and expected in lines[0], lines
    assert len(lines) <= 2 and (len(lines) == 1 or lines[1].lstrip().startswith("hint: ")), lines
    assert not missing.parent.exists()


@pytest.mark.slow
def test_citegen_admin_on_an_unreachable_database_says_one_line() -> None:
    result = subprocess.run([str(ADMIN), "stats", "--database-url", UNREACHABLE], capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2, result.stderr


def _has_vllm() -> bool:
    from importlib.util import find_spec  # noqa: PLC0415

    return find_spec("vllm") is not None
