"""`citegen-admin`: each command on good and garbage input, with its exit code (0 ok, 1 not verified,
2 bad usage or input), against a real database file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.database import Database
from verifier.importers import snapshot

runner = CliRunner()


@pytest.fixture
def url(tmp_path: Path, sample_dir: Path) -> str:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    result = runner.invoke(app, ["import", str(sample_dir / "law"), str(sample_dir / "cases"), "--database-url", url])
    assert result.exit_code == 0, result.output
    return url


COMMANDS = [
    ("verify canonical statute", ["verify", "민법 제750조"], 0, "verified"),
    ("verify messy case", ["verify", "대판 2024.7.11, 2024도4202"], 0, "대법원 2024. 7. 11. 선고 2024도4202 판결"),
    ("verify a document with back-references",
     ["verify", "민법 제750조, 같은 법 제23조 제1항"], 0, "민법 제23조 제1항"),
    ("verify a deleted article", ["verify", "민법 제3조의2"], 1, "삭제"),
    ("verify a wrong date", ["verify", "대법원 2024. 7. 12. 선고 2024도4202 판결"], 1, "mismatch"),
    # completed with the database's date, it verifies only as completed: as written, its date is wrong
    ("verify a date not in the calendar", ["verify", "대법원 2024. 2. 30. 선고 2024도4202 판결"], 1,
     "date: cited 2024. 2. 30. (not in the calendar), database 2024. 7. 11."),
    ("verify text without a citation", ["verify", "오늘 날씨가 좋다"], 2, "expected a citation"),
    ("verify SQL-looking text", ["verify", "민법'; DROP TABLE acts; --"], 2, "expected a citation"),
    ("search an act", ["search", "민법"], 0, "001706"),
    ("search an article", ["search", "민법 750", "--kind", "articles"], 0, "불법행위의 내용"),
    ("search a case number", ["search", "2024도4202"], 0, "사기"),
    ("search SQL wildcards literally", ["search", "%_%"], 0, "nothing matches"),
    ("search nothing", ["search", "  "], 2, "empty query"),
    ("search an unknown kind", ["search", "민법", "--kind", "laws"], 2, "laws"),
    ("stats", ["stats"], 0, "coverage"),
    ("audit with a bad status", ["audit", "--status", "fine"], 2, "expected --status"),
    ("import a missing path", ["import", "/no/such/folder"], 2, "nothing at that path"),
    ("import a folder without data", ["import", "/proc/self/fdinfo"], 2, "got none"),
]


@pytest.mark.parametrize(("args", "code", "shown"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_command(url: str, args: list[str], code: int, shown: str) -> None:
    result = runner.invoke(app, [*args, "--database-url", url])
    assert result.exit_code == code, result.output
    assert shown in result.output


def test_audit_lists_what_verify_did(url: str) -> None:
    runner.invoke(app, ["verify", "민법 제751조", "--database-url", url])
    result = runner.invoke(app, ["audit", "--status", "not_found", "--database-url", url])
    assert result.exit_code == 0 and "민법 제751조" in result.output


def test_export_writes_the_lexicon(url: str, tmp_path: Path) -> None:
    target = tmp_path / "lexicon.json"
    assert runner.invoke(app, ["export", "-o", str(target), "--database-url", url]).exit_code == 0
    assert json.loads(target.read_text(encoding="utf-8"))["민법"] == ["23", "750"]


def test_import_summary_says_what_the_database_holds_not_how_many_records_were_upserted(
        url: str, sample_dir: Path) -> None:
    # `url` already holds the samples; each file given twice more is upserted twice more, and
    # changes nothing: the summary must count rows held, not records read.
    folders = [str(sample_dir / "law"), str(sample_dir / "cases")] * 2
    result = runner.invoke(app, ["import", *folders, "--database-url", url])
    assert result.exit_code == 0, result.output
    database = Database.open(url)
    with database.engine.connect() as connection:
        held = {table: connection.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar_one()
                for table in ("acts", "articles", "provisions", "cases")}
    database.close()
    assert all(held.values()), held
    summary = result.output.strip().splitlines()[-1]
    for table, rows in held.items():
        assert re.search(rf"\b{rows} {table}\b(?! \()", summary), summary
    assert "now holds" in summary and "(+" not in summary


def test_import_of_a_hostile_file_exits_2_and_names_it(url: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text('<!DOCTYPE x [<!ENTITY a "b">]><LawSearch>&a;</LawSearch>', encoding="utf-8")
    result = runner.invoke(app, ["import", str(bad), "--database-url", url])
    assert result.exit_code == 2 and "bad.xml" in result.output and "DTD" in result.output
    assert "0 of 1 files were imported before it" in " ".join(result.output.split())


def test_old_schema_and_unreachable_database_exit_2(url: str) -> None:
    database = Database.open(url)
    with database.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '0000_older'")
    database.close()
    result = runner.invoke(app, ["stats", "--database-url", url])
    assert result.exit_code == 2 and "citegen-admin init" in result.output
    result = runner.invoke(app, ["stats", "--database-url", "postgresql://postgres@127.0.0.1:1/none"])
    assert result.exit_code == 2 and "reachable" in result.output


def test_installed_entry_point_reads_the_database_url_from_the_environment(url: str) -> None:
    env = {**os.environ, "CITEGEN_DATABASE_URL": url}
    admin = Path(sys.executable).with_name("citegen-admin")
    done = subprocess.run([str(admin), "verify", "민법 제9999조"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "not_found" in done.stdout


READERS = [
    ("stats", ["stats"]),
    ("search", ["search", "민법"]),
    ("verify", ["verify", "민법 제750조"]),
    ("audit", ["audit"]),
    ("export", ["export"]),
    ("dump", ["dump", "{tmp}/snapshot.jsonl"]),
]


@pytest.mark.parametrize("args", [c[1] for c in READERS], ids=[c[0] for c in READERS])
def test_a_command_that_reads_refuses_a_missing_database_file_rather_than_making_one(
        tmp_path: Path, args: list[str]) -> None:
    # a typo in --database-url made an empty database (and its folders) and reported it: 0 rows, not_covered
    missing = tmp_path / "typo" / "citegen.sqlite3"
    args = [arg.format(tmp=tmp_path) for arg in args]
    result = runner.invoke(app, [*args, "--database-url", f"sqlite:///{missing}"])
    assert result.exit_code == 2, result.output
    assert "no such file" in result.output and "citegen-admin init" in result.output
    assert not missing.parent.exists()


def test_an_interrupted_dump_leaves_the_file_it_replaces_as_it_was(
        url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the snapshot is being written: exit 130, the old snapshot whole, no stray file. The
    interrupt comes right after the first row reached the file: a watcher polling the folder raced a dump of
    a few rows, which can be written and renamed before any poll sees it."""
    folder = tmp_path / "dumps"
    folder.mkdir()
    target = folder / "before.jsonl"
    target.write_bytes(b"an earlier snapshot\n")
    write_snapshot = snapshot.write_snapshot

    class CtrlCAfterTheFirstRow:
        def __init__(self, handle: IO[bytes]) -> None:
            self.handle = handle

        def write(self, data: bytes) -> int:
            self.handle.write(data)
            self.handle.flush()  # the row is in the file the dump writes when the interrupt comes
            raise KeyboardInterrupt

    monkeypatch.setattr(snapshot, "write_snapshot",
                        lambda database, out: write_snapshot(database, CtrlCAfterTheFirstRow(out)))
    result = runner.invoke(app, ["dump", str(target), "--database-url", url])
    assert result.exit_code == 130, result.output
    assert "interrupted" in result.output
    assert target.read_bytes() == b"an earlier snapshot\n"
    assert [path.name for path in folder.iterdir()] == ["before.jsonl"]


def test_piped_tables_show_every_cell_whole(url: str) -> None:
    # rich assumes 80 columns off a terminal, and cut the 사건명 short with …
    result = runner.invoke(app, ["search", "위헌", "--kind", "cases", "--database-url", url])
    assert result.exit_code == 0, result.output
    assert "공직선거법 제57조 위헌확인" in result.output and "…" not in result.output


def test_a_stdout_without_hangul_gets_escapes_not_a_traceback(url: str) -> None:
    """PYTHONIOENCODING=ascii (as a terminal or pipe without a UTF-8 locale): tables and verdicts
    print with \\uXXXX escapes and their exit codes, JSON stays valid JSON with the same data."""
    admin = str(Path(sys.executable).with_name("citegen-admin"))

    def run(*args: str, encoding: str) -> subprocess.CompletedProcess[bytes]:
        env = {**os.environ, "CITEGEN_DATABASE_URL": url, "PYTHONIOENCODING": encoding}
        return subprocess.run([admin, *args], env=env, capture_output=True, timeout=60)

    table = run("search", "민법", encoding="ascii")
    assert table.returncode == 0, table.stderr.decode()
    assert b"\\ubbfc\\ubc95" in table.stdout and b"Traceback" not in table.stderr
    verdict = run("verify", "민법 제9999조", encoding="ascii")
    assert verdict.returncode == 1 and b"not_found" in verdict.stdout, verdict.stderr.decode()
    escaped = run("search", "민법", "--json", encoding="ascii")
    plain = run("search", "민법", "--json", encoding="utf-8")
    assert escaped.returncode == plain.returncode == 0, escaped.stderr.decode()
    assert escaped.stdout.isascii() and json.loads(escaped.stdout) == json.loads(plain.stdout)
    assert json.loads(plain.stdout)["acts"][0]["name"] == "민법"
