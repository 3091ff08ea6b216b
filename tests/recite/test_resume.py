"""Re-runs into the same --out: what decides a redo (the size limit, the database's contents), what a
failed document leaves (no output of an earlier run), and what a failed write leaves (the previous file).

All real: drafts on disk, the pipeline on SQLite databases, `citegen recite` as a user runs it, a
full disk as the kernel reports one (a file size limit: EFBIG).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from citegen.cli import app
from citegen.commands.recite_wiring import build_pipeline, contents_sign
from citegen.recite import BatchOptions, collect_inputs, read_document, run_batch
from tests.postgres_kit import postgres_database_with
from verifier.database import Database
from verifier.importers import import_file

REPOSITORY = Path(__file__).resolve().parents[2]


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "report.jsonl").read_text("utf-8").splitlines()]


def test_a_rerun_with_a_larger_limit_reads_what_was_too_large(tmp_path: Path, sample_database_url: str,
                                                              docx_bytes) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.docx").write_bytes(docx_bytes([[("이 사건의 사실관계는 다음과 같다. " * 300, False)],
                                                [("민소법 제1조에 따른다.", False)]]))
    out = tmp_path / "out"
    factory = functools.partial(build_pipeline, sample_database_url, None)
    first = run_batch(collect_inputs([folder], out), BatchOptions(out, max_bytes=8000), factory)
    assert dict(first.statuses) == {"too_large": 1}

    second = run_batch(collect_inputs([folder], out), BatchOptions(out), factory)

    assert (second.resumed, dict(second.statuses)) == (0, {"done": 1})
    assert read_document(out / "documents" / "in" / "a.docx").streams[0].endswith("\n민사소송법 제1조에 따른다.")


def test_a_document_that_fails_on_a_rerun_leaves_no_output_of_the_earlier_run(tmp_path: Path,
                                                                              sample_database_url: str) -> None:
    draft = tmp_path / "in" / "a.txt"
    draft.parent.mkdir()
    draft.write_text("민소법 제1조에 따른다.", encoding="utf-8")
    out = tmp_path / "out"
    factory = functools.partial(build_pipeline, sample_database_url, None)
    run_batch(collect_inputs([draft.parent], out), BatchOptions(out), factory)
    output = out / "documents" / "in" / "a.txt"
    assert output.read_text("utf-8") == "민사소송법 제1조에 따른다."
    draft.write_bytes("Gläubiger: § 823 BGB".encode("latin-1"))  # a new version the batch refuses

    summary = run_batch(collect_inputs([draft.parent], out), BatchOptions(out), factory)

    assert dict(summary.statuses) == {"encoding": 1}
    assert not output.exists()
    assert [(r["verdict"], r["action"]) for r in _records(out)] == [("encoding", "review")]


# Runs the batch with files limited to `limit` bytes: a write past it fails with EFBIG (Python ignores
# SIGXFSZ), as on a full disk.
_BATCH_WITH_A_FILE_SIZE_LIMIT = """
import functools, resource, sys
from pathlib import Path
from citegen.commands.recite_wiring import build_pipeline
from citegen.recite import BatchOptions, collect_inputs, run_batch
folder, out, url, limit = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    run_batch(collect_inputs([folder], out), BatchOptions(out), functools.partial(build_pipeline, url, None))
except OSError as error:
    sys.exit(f"the batch failed: {error}")
"""


def test_a_report_write_that_fails_leaves_the_previous_reports_whole(tmp_path: Path, database_url_of) -> None:
    from tests.recite.conftest import SAMPLE_RECORDS  # noqa: PLC0415  a database of this test's own

    url = database_url_of(SAMPLE_RECORDS)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("대법원 2020. 1. 1. 선고 2019다1 판결과 민소법 제1조. " * 300, encoding="utf-8")
    out = tmp_path / "out"
    run_batch(collect_inputs([folder], out), BatchOptions(out), functools.partial(build_pipeline, url, None))
    before = {name: (out / name).read_bytes() for name in ("report.jsonl", "report.html")}
    output = (out / "documents" / "in" / "a.txt").read_bytes()
    limit = 64 * 1024  # above the output, the result files and the database's, below both reports
    assert len(output) < limit < min(map(len, before.values()))

    rerun = subprocess.run([sys.executable, "-c", _BATCH_WITH_A_FILE_SIZE_LIMIT, str(folder), str(out), url,
                            str(limit)], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(REPOSITORY)})

    assert rerun.returncode == 1 and "File too large" in rerun.stderr, rerun.stderr
    assert {name: (out / name).read_bytes() for name in before} == before
    assert (out / "documents" / "in" / "a.txt").read_bytes() == output
    assert not [p for p in out.rglob("*.tmp")]


def _verdicts(out: Path) -> list[tuple[str, str]]:
    return [(r["original"], r["verdict"]) for r in _records(out) if r["record"] == "citation"]


def _import(url: str, folder: Path, records: list[dict]) -> None:
    lines = folder / "more.jsonl"
    lines.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    database = Database.open(url)
    import_file(database, lines)
    database.close()


def test_a_rerun_after_the_database_changed_checks_the_documents_again(tmp_path: Path, database_url_of) -> None:
    url = database_url_of([{"type": "act", "law_id": "001706", "name": "민법", "kind": "법률",
                            "articles": [{"article": "750"}]}, {"type": "coverage", "kind": "statute"}])
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("민법 제750조 및 형법 제250조를 위반하였다.", encoding="utf-8")
    arguments = ["recite", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "-q", "-j", "1",
                 "--database-url", url]
    environment = {"CITEGEN_INDEX_CACHE_DIR": str(tmp_path / "cache")}
    first = CliRunner().invoke(app, arguments, env=environment)
    assert _verdicts(tmp_path / "out") == [("민법 제750조", "verified"), ("형법 제250조", "not_found")], first.output
    unchanged = CliRunner().invoke(app, arguments, env=environment)
    assert "(1 already done)" in " ".join(unchanged.output.split())

    _import(url, tmp_path, [{"type": "act", "law_id": "001692", "name": "형법", "kind": "법률",
                             "articles": [{"article": "250"}]}])
    changed = CliRunner().invoke(app, arguments, env=environment)

    assert "(0 already done)" in " ".join(changed.output.split()), changed.output
    assert _verdicts(tmp_path / "out") == [("민법 제750조", "verified"), ("형법 제250조", "verified")]


def test_the_sign_of_a_databases_rows_changes_with_an_import(tmp_path: Path, database_url_of) -> None:
    # What a database without a file's sign (PostgreSQL) is known by; read here on SQLite.
    url = database_url_of([{"type": "act", "law_id": "001706", "name": "민법", "kind": "법률",
                            "articles": [{"article": "750"}]}])
    database = Database.open(url)
    before = contents_sign(database)
    assert before == contents_sign(database)
    _import(url, tmp_path, [{"type": "case", "court": "대법원", "date": "2024-07-11", "case_number": "2024도4202",
                             "disposition": "판결"}])
    assert contents_sign(database) != before
    database.close()


def test_the_sign_of_a_postgresql_database_changes_with_an_update_in_place(tmp_path: Path) -> None:
    """A sync or re-import that changes a row in place (an article marked deleted) adds none: the sign of the
    highest ids missed it, and a resumed batch kept the verdicts read before it."""
    records = [{"type": "act", "law_id": "001706", "name": "민법", "kind": "법률", "articles": [{"article": "750"}]}]
    for _, _, database in postgres_database_with(tmp_path, records, "citegen_sign"):
        before = contents_sign(database)
        assert before == contents_sign(database)
        with database.engine.begin() as connection:
            connection.exec_driver_sql("UPDATE articles SET status = '삭제'")
        assert contents_sign(database) != before
