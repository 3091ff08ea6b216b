"""schemathesis against the served OpenAPI schema: whatever it sends, no 5xx."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from streaming_kit import AuditLog, DictVerifier, ScriptedSource

from streaming import create_app
from streaming.config import StreamingSettings


@pytest.mark.slow
def test_schemathesis_finds_no_server_error(serve, tmp_path: Path) -> None:
    config = StreamingSettings(admin_api_key="k", max_tokens_limit=64)
    app = create_app(config, ScriptedSource(), DictVerifier(), admin=AuditLog())
    base = serve(app)
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "run",
        f"{base}/openapi.json",
        "--checks",
        "not_a_server_error",
        "--max-examples",
        "15",
        "--seed",
        "1",
        "--header",
        "X-API-Key: k",
        "--request-timeout",
        "10",
        "--generation-database",
        "none",
        "--phases",
        "coverage,fuzzing",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
