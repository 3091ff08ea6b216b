"""Links in an input folder, made real on disk: a link may name a document inside its folder, and
nothing outside the folder is ever read, copied or hashed."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citegen.commands.recite_wiring import build_pipeline
from citegen.recite import BatchOptions, collect_inputs, run_batch
from citegen.recite.errors import OutsideInputError, UsageError

SECRET = "비밀번호 목록: 민법 제750조"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """in/drafts holding a draft, links inside and outside it, and an outside folder with a secret draft."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET, encoding="utf-8")
    root = tmp_path / "in" / "drafts"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "real.txt").write_text("민소법 제1조에 따른다.", encoding="utf-8")
    os.symlink(root / "sub" / "real.txt", root / "alias.txt")  # inside: a document
    os.symlink("sub/real.txt", root / "relative.txt")  # inside, relative: a document
    os.symlink(outside / "secret.txt", root / "passwd.txt")  # outside: refused
    os.symlink("../../outside/secret.txt", root / "sneaky.md")  # outside, relative: refused
    os.symlink(outside, root / "elsewhere")  # a folder outside: refused, not walked
    os.symlink(root, root / "sub" / "loop")  # a folder inside: not walked (no loop, no duplicates)
    os.symlink(root / "missing.txt", root / "dangling.txt")  # inside but missing: unreadable
    return root


def test_links_inside_are_documents_and_links_outside_are_reported_never_read(
        tree: Path, tmp_path: Path, sample_database_url: str) -> None:
    out = tmp_path / "out"
    files = collect_inputs([tree], out)
    assert [f.name for f in files] == ["drafts/alias.txt", "drafts/dangling.txt", "drafts/elsewhere",
                                       "drafts/passwd.txt", "drafts/relative.txt", "drafts/sneaky.md",
                                       "drafts/sub/real.txt"]

    summary = run_batch(files, BatchOptions(out, jobs=1), functools.partial(build_pipeline, sample_database_url, None))

    records = {}
    for line in (out / "report.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        records.setdefault(record["file"], record)
    for name in ("drafts/passwd.txt", "drafts/sneaky.md", "drafts/elsewhere"):
        assert (records[name]["verdict"], records[name]["action"]) == ("outside_input", "review")
        assert "outside" in records[name]["reason"]
    assert records["drafts/dangling.txt"]["verdict"] == "unreadable"
    for name in ("drafts/alias.txt", "drafts/relative.txt", "drafts/sub/real.txt"):
        assert records[name]["canonical"] == "민사소송법 제1조"
    written = {p.relative_to(out / "documents").as_posix(): p.read_text("utf-8")
               for p in (out / "documents").rglob("*") if p.is_file()}
    assert sorted(written) == ["drafts/alias.txt", "drafts/relative.txt", "drafts/sub/real.txt"]
    assert all(SECRET not in text for text in written.values())
    assert SECRET not in (out / "report.html").read_text("utf-8") + (out / "report.jsonl").read_text("utf-8")
    assert summary.statuses["outside_input"] == 3


def test_a_file_replaced_by_an_outside_link_after_collection_is_still_refused(tree: Path, tmp_path: Path) -> None:
    (found,) = [f for f in collect_inputs([tree], tmp_path / "out") if f.name == "drafts/sub/real.txt"]
    found.path.unlink()
    os.symlink(tmp_path / "outside" / "secret.txt", found.path)
    with pytest.raises(OutsideInputError, match=r"secret\.txt"):
        found.open_path()


def test_a_file_named_on_the_command_line_is_read_where_its_link_leads(tree: Path, tmp_path: Path) -> None:
    (named,) = collect_inputs([tree / "passwd.txt"], tmp_path / "out")
    assert named.open_path() == tmp_path / "outside" / "secret.txt"


def _records_by_file(out: Path) -> dict[str, dict]:
    records: dict[str, dict] = {}
    for line in (out / "report.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        records.setdefault(record["file"], record)
    return records


def test_a_link_that_loops_is_an_unreadable_document_and_the_batch_goes_on(
        tmp_path: Path, sample_database_url: str) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (root / "a.txt").write_text("민소법 제1조에 따른다.", encoding="utf-8")
    os.symlink("loop.txt", root / "loop.txt")
    os.symlink("b2.txt", root / "b1.txt")
    os.symlink("b1.txt", root / "b2.txt")
    out = tmp_path / "out"

    summary = run_batch(collect_inputs([root], out), BatchOptions(out), functools.partial(build_pipeline,
                                                                                         sample_database_url, None))

    assert dict(summary.statuses) == {"done": 1, "unreadable": 3}
    records = _records_by_file(out)
    for name in ("in/loop.txt", "in/b1.txt", "in/b2.txt"):
        assert (records[name]["verdict"], records[name]["action"]) == ("unreadable", "review")
        assert "loops" in records[name]["reason"]
    assert records["in/a.txt"]["canonical"] == "민사소송법 제1조"


def test_a_link_that_loops_named_on_the_command_line_is_bad_usage(tmp_path: Path) -> None:
    os.symlink("loop.txt", tmp_path / "loop.txt")
    with pytest.raises(UsageError, match=r"loop\.txt"):
        collect_inputs([tmp_path / "loop.txt"], tmp_path / "out")


# As root, permissions are enforced only without the capabilities that override them (as setpriv drops them).
_WITHOUT_OVERRIDE = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
                     "--bounding-set=-dac_override,-dac_read_search"]
REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                    reason="as root, permissions are enforced only without its capabilities (setpriv)")
def test_a_folder_that_cannot_be_listed_is_reported_as_unreadable_not_skipped(
        tmp_path: Path, sample_database_url: str) -> None:
    root = tmp_path / "in"
    for client in ("client-A", "client-B"):
        (root / client).mkdir(parents=True)
        (root / client / "a.txt").write_text("민법 제750조", encoding="utf-8")
    out = tmp_path / "out"
    # A first run while it could be read: its outputs are a folder where the unreadable entry's would be.
    run_batch(collect_inputs([root], out), BatchOptions(out), functools.partial(build_pipeline, sample_database_url,
                                                                                None))
    (root / "client-B").chmod(0)
    command = [*(_WITHOUT_OVERRIDE if os.geteuid() == 0 else []), sys.executable, "-c",
               "from citegen.cli import main; main()", "recite", str(root), "--out", str(out), "-j", "1", "-q",
               "--database-url", sample_database_url]
    try:
        finished = subprocess.run(command, capture_output=True, text=True, env={**os.environ,
                                  "PYTHONPATH": str(REPOSITORY), "CITEGEN_INDEX_CACHE_DIR": str(tmp_path / "cache")})
    finally:
        (root / "client-B").chmod(0o755)

    assert finished.returncode == 1 and "2 documents" in finished.stderr, finished.stderr  # 1: a reviewer must look
    records = _records_by_file(out)
    assert sorted(records) == ["in/client-A/a.txt", "in/client-B"]
    assert (records["in/client-B"]["verdict"], records["in/client-B"]["action"]) == ("unreadable", "review")
    assert "expected a readable folder" in records["in/client-B"]["reason"]
