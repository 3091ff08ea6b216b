"""`citegen ask` end to end on the tiny model saved as a model directory, with a fresh SQLite database."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citegen.cli import app
from citegen.commands.ask import _Shown
from verifier import Database, import_paths

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> str:
    """The sample statutes and cases of data/, imported into a fresh SQLite file."""
    url = f"sqlite:///{tmp_path_factory.mktemp('ask-db') / 'sample.sqlite3'}"
    opened = Database.open(url)
    try:
        import_paths(opened, [DATA / "synthetic_law", DATA / "cases"])
    finally:
        opened.close()
    return url


@pytest.fixture(autouse=True)
def index_cache(tmp_path, monkeypatch) -> Path:
    """ask stores the indexes it builds (Settings.index_cache_dir): here, not in the user's cache."""
    cache = tmp_path / "index"
    monkeypatch.setenv("CITEGEN_INDEX_CACHE_DIR", str(cache))
    return cache


@pytest.mark.parametrize("flags", [[], ["--no-constrain"]], ids=["constrained", "no-constrain"])
def test_ask_streams_an_answer_and_reports_its_length(tiny_dir, database, flags, index_cache) -> None:
    result = CliRunner().invoke(
        app,
        [
            "ask",
            "판례?",
            "--model",
            str(tiny_dir),
            "--database-url",
            database,
            "--max-new-tokens",
            "40",
            *flags,
        ],
    )
    assert result.exit_code == 0, result.output
    assert "tokens," in result.output and len(result.output.strip()) > 20
    assert bool(list(index_cache.glob("index-*.arrays"))) == (flags == [])  # built whole once, then loaded
    # the first constrained ask says on stderr that it builds the index, and what it stored; one handler
    # shows it, however many asks this process has run
    assert ("once, every state" in result.output and "built and stored" in result.output) == (flags == [])
    assert sum(isinstance(h, _Shown) for h in logging.getLogger("grammars").handlers) == 1


def test_ask_names_a_missing_model_directory(database, tmp_path) -> None:
    result = CliRunner().invoke(
        app, ["ask", "판례?", "--model", str(tmp_path / "nowhere"), "--database-url", database]
    )
    assert result.exit_code == 2  # a start-up error: one line, a hint, exit 2 (issue 13)
    assert "expected a model directory" in result.output


def test_ask_refuses_an_empty_database(tiny_dir, tmp_path) -> None:
    empty = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    result = CliRunner().invoke(app, ["ask", "판례?", "--model", str(tiny_dir), "--database-url", empty])
    assert result.exit_code == 2
    assert "citegen-admin import" in result.output


def test_ask_refuses_a_temperature_it_cannot_sample_before_loading_anything(tmp_path) -> None:
    """`--temperature 0.001` passed the option's bound and failed with a traceback once the model had loaded."""
    nowhere = tmp_path / "nowhere"  # neither is opened: the refusal comes first
    result = CliRunner().invoke(app, ["ask", "판례?", "--temperature", "0.001", "--model", str(nowhere),
                                      "--database-url", f"sqlite:///{nowhere / 'db.sqlite3'}"])
    assert result.exit_code == 2, result.output
    assert "citegen ask: expected temperature 0 (greedy) or a finite number >= 0.01, got 0.001" in result.output
    assert "Traceback" not in result.output


def test_help_loads_neither_the_pipeline_nor_the_model_stack() -> None:
    """`citegen --help` and each command's --help import only the command line (issue 13: --help fast)."""
    import subprocess
    import sys

    probe = ("import sys, citegen.cli; heavy = [m for m in ('numpy', 'torch', 'transformers', 'fastapi', "
             "'sqlalchemy', 'grammars') if m in sys.modules]; print(','.join(heavy))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "", loaded
