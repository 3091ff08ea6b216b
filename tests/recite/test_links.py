"""Links in an input folder, made real on disk: a link may name a document inside its folder, and
nothing outside the folder is ever read, copied or hashed."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest

from citegen.commands.recite_wiring import build_pipeline
from citegen.recite import BatchOptions, collect_inputs, run_batch
from citegen.recite.errors import OutsideInputError

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
