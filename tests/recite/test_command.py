"""`citegen recite` as a user runs it: exit codes 0 / 1 / 2, reports, --dry-run, the progress line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from citegen.cli import app
from verifier.database import Database
from verifier.importers import import_file


def _run(*arguments: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["recite", *arguments])
    return result.exit_code, result.output


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    drafts = tmp_path / "drafts"
    drafts.mkdir()
    return drafts


CASES = [
    ("nothing-to-review", "민법 제750조와 대법원 2024. 7. 11. 선고 2024도4202 판결.", 0, "0 documents need review"),
    ("rewritten-only", "대판 2024.7.11, 2024도4202 판결과 민소법 제1조.", 0, "2 rewritten"),
    ("needs-review", "대법원 2020. 1. 1. 선고 2019다1 판결.", 1, "1 documents need review"),
    ("no-citations", "인용이 없는 문단.", 0, "0 citations"),
]


@pytest.mark.parametrize(("text", "code", "said"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_exit_code_says_whether_a_reviewer_is_needed(folder: Path, tmp_path: Path, sample_database_url: str,
                                                        text: str, code: int, said: str) -> None:
    (folder / "a.txt").write_text(text, encoding="utf-8")
    exit_code, output = _run(str(folder), "--out", str(tmp_path / "out"), "--database-url", sample_database_url,
                             "--jobs", "1", "--quiet")
    assert exit_code == code, output
    assert said in " ".join(output.split())
    assert (tmp_path / "out" / "report.html").exists()


def test_dry_run_reports_without_documents(folder: Path, tmp_path: Path, sample_database_url: str) -> None:
    (folder / "a.txt").write_text("대판 2024.7.11, 2024도4202", encoding="utf-8")
    exit_code, _ = _run(str(folder), "--out", str(tmp_path / "out"), "--database-url", sample_database_url,
                        "--dry-run", "-j", "1", "-q")
    assert exit_code == 0
    assert '"action": "rewritten"' in (tmp_path / "out" / "report.jsonl").read_text("utf-8")
    assert not (tmp_path / "out" / "documents").exists()


BAD_USAGE = [
    ("missing-input", lambda tmp: [str(tmp / "nope"), "--out", str(tmp / "out")]),
    ("no-out", lambda tmp: [str(tmp / "drafts")]),
    ("out-inside-input", lambda tmp: [str(tmp / "drafts"), "--out", str(tmp / "drafts" / "out")]),
    ("zero-jobs", lambda tmp: [str(tmp / "drafts"), "--out", str(tmp / "out"), "--jobs", "0"]),
    ("unreachable-database", lambda tmp: [str(tmp / "drafts"), "--out", str(tmp / "out"),
                                          "--database-url", "postgresql://nobody@127.0.0.1:1/none"]),
    ("not-a-database-url", lambda tmp: [str(tmp / "drafts"), "--out", str(tmp / "out"), "--database-url", "[x]"]),
    ("unknown-backend", lambda tmp: [str(tmp / "drafts"), "--out", str(tmp / "out"), "--backend", "tgi"]),
]


@pytest.mark.parametrize("arguments", [a for _, a in BAD_USAGE], ids=[i for i, _ in BAD_USAGE])
def test_bad_usage_exits_2(folder: Path, tmp_path: Path, arguments) -> None:
    exit_code, output = _run(*arguments(tmp_path))
    assert exit_code == 2, output


def test_regenerate_without_a_model_exits_2_before_any_work(
    folder: Path, tmp_path: Path, sample_database_url: str
) -> None:
    (folder / "a.txt").write_text("민법 제750조", encoding="utf-8")
    result = CliRunner().invoke(app, ["recite", str(folder), "--out", str(tmp_path / "out"), "--regenerate",
                                      "--database-url", sample_database_url],
                                env={"CITEGEN_MODEL_PATH": str(tmp_path / "no-model")})
    assert result.exit_code == 2 and "no-model" in result.output
    assert not (tmp_path / "out" / "report.jsonl").exists()


def test_an_empty_database_exits_2_and_says_how_to_fill_it(folder: Path, tmp_path: Path) -> None:
    (folder / "a.txt").write_text("민법 제750조", encoding="utf-8")
    exit_code, output = _run(str(folder), "--out", str(tmp_path / "out"), "-q", "-j", "1",
                             "--database-url", f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    assert exit_code == 2 and "citegen-admin import" in " ".join(output.split()), output
    assert not (tmp_path / "out" / "report.jsonl").exists()


def test_a_database_of_decisions_only_recites_with_grammars_act_names(folder: Path, tmp_path: Path) -> None:
    # A lexicon needs one act: a cases-only database used to crash the workers with LexiconError.
    url = f"sqlite:///{tmp_path / 'cases.sqlite3'}"
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"type": "case", "court": "대법원", "date": "2024-07-11", "case_number": "2024도4202", '
                     '"disposition": "판결"}\n', encoding="utf-8")
    database = Database.open(url)
    import_file(database, cases)
    database.close()
    (folder / "a.txt").write_text("대판 2024.7.11, 2024도4202 판결과 민법 제750조.", encoding="utf-8")
    exit_code, output = _run(str(folder), "--out", str(tmp_path / "out"), "-q", "-j", "1", "--database-url", url)
    assert exit_code == 1, output  # the statute is not covered: a reviewer must look
    flat = " ".join(output.split())
    assert "2 citations" in flat and "1 rewritten" in flat, output
