"""The batch over folders of drafts: outputs, reports, exit codes, resumption, determinism, bad input.

Everything real: grammars' finder, the verifier's resolver and verify() on a small SQLite
database (conftest.SAMPLE_RECORDS), worker processes.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import pytest

from citegen.commands.recite_wiring import build_pipeline
from citegen.recite import BatchOptions, collect_inputs, read_document, run_batch
from citegen.recite.errors import UsageError


@pytest.fixture
def factory(sample_database_url: str):
    return functools.partial(build_pipeline, sample_database_url, None)


DRAFTS = {
    "opinions/clean.txt": ("민법 제750조와 같은 법 제751조에 따라 판단한다.", "utf-8"),
    "opinions/legacy.txt": ("대판 2024.7.11, 2024도4202 판결을 참조하라. 민소법 제1조.", "cp949"),
    "opinions/notes.md": (
        "# 메모\n\n- 대법원 2023. 1. 12.자 2022마6489 결정\n- 대법원 2020. 1. 1. 선고 2019다1 판결\n", "utf-8"
    ),
    "opinions/none.txt": ("인용이 없는 문단입니다.", "utf-8"),
    "opinions/empty.txt": ("", "utf-8"),
    "opinions/broken.docx": ("이것은 zip이 아니다", "utf-8"),
}


@pytest.fixture
def drafts(tmp_path: Path, docx_bytes) -> Path:
    root = tmp_path / "in" / "opinions"
    root.mkdir(parents=True)
    for name, (text, encoding) in DRAFTS.items():
        (tmp_path / "in" / name).write_bytes(text.encode(encoding))
    runs = [("원고는 ", False), ("대판 2024.7.", True), ("11, 2024도4202", False), ("을 근거로 한다.", False)]
    (root / "brief.docx").write_bytes(docx_bytes([runs]))
    (root / ".hidden.txt").write_text("민법 제750조", encoding="utf-8")
    return root


def _hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "report.jsonl").read_text("utf-8").splitlines()]


def test_a_batch_rewrites_what_it_can_reports_the_rest_and_leaves_its_inputs_alone(
        drafts: Path, tmp_path: Path, factory) -> None:
    before = _hashes(drafts)
    out = tmp_path / "out"
    summary = run_batch(collect_inputs([drafts], out), BatchOptions(out), factory)

    assert _hashes(drafts) == before
    assert summary.exit_code == 1 and summary.documents == 7
    assert dict(summary.statuses) == {"done": 4, "no_citations": 1, "empty": 1, "corrupt": 1}
    documents = out / "documents" / "opinions"
    assert (documents / "legacy.txt").read_bytes() == (
        "대법원 2024. 7. 11. 선고 2024도4202 판결을 참조하라. 민사소송법 제1조.".encode("cp949"))
    assert (documents / "clean.txt").read_text("utf-8") == "민법 제750조와 민법 제751조에 따라 판단한다."
    assert read_document(documents / "brief.docx").streams == [
        "원고는 대법원 2024. 7. 11. 선고 2024도4202 판결을 근거로 한다."
    ]
    records = _records(out)
    assert {r["file"] for r in records} >= {"opinions/legacy.txt", "opinions/broken.docx", "opinions/empty.txt"}
    for record in records:
        assert {"file", "span", "original", "canonical", "verdict", "action", "reason"} <= set(record)
    unknown = next(r for r in records if r["original"] and "2019다1" in r["original"])
    assert (unknown["verdict"], unknown["action"], unknown["canonical"]) == ("not_found", "review", None)
    assert "opinions/.hidden.txt" not in {r["file"] for r in records}
    page = (out / "report.html").read_text("utf-8")
    assert "<del>대판 2024.7.11, 2024도4202 판결</del>을 참조하라" in page
    assert "<ins>대법원 2024. 7. 11. 선고 2024도4202 판결</ins>을 참조하라" in page
    assert "corrupt" in page and "opinions/none.txt" in page


def test_nothing_to_review_exits_zero(tmp_path: Path, factory) -> None:
    draft = tmp_path / "in" / "a.txt"
    draft.parent.mkdir()
    draft.write_text("같은 법 없이 민법 제750조만 인용한다.", encoding="utf-8")
    summary = run_batch(collect_inputs([draft], tmp_path / "out"), BatchOptions(tmp_path / "out"), factory)
    assert (summary.exit_code, dict(summary.actions)) == (0, {"kept": 1})


def test_a_rerun_skips_only_finished_documents(drafts: Path, tmp_path: Path, factory) -> None:
    out = tmp_path / "out"
    files = collect_inputs([drafts], out)
    run_batch(files, BatchOptions(out), factory)
    first = (out / "report.jsonl").read_bytes()
    (drafts / "none.txt").write_text("이제는 민법 제750조를 인용한다.", encoding="utf-8")

    second = run_batch(collect_inputs([drafts], out), BatchOptions(out), factory)

    assert (second.resumed, second.documents) == (6, 7)
    changed = [r for r in _records(out) if r["file"] == "opinions/none.txt"]
    assert [r["action"] for r in changed] == ["kept"]
    assert (out / "report.jsonl").read_bytes() != first


def test_workers_in_parallel_give_the_same_bytes_as_one(drafts: Path, tmp_path: Path, factory) -> None:
    outputs = {}
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}"
        run_batch(collect_inputs([drafts], out), BatchOptions(out, jobs=jobs), factory)
        outputs[jobs] = (_hashes(out / "documents"), (out / "report.jsonl").read_bytes(),
                         (out / "report.html").read_bytes())
    assert outputs[1] == outputs[2]


def test_a_dry_run_writes_reports_but_no_documents(drafts: Path, tmp_path: Path, factory) -> None:
    out = tmp_path / "out"
    summary = run_batch(collect_inputs([drafts], out), BatchOptions(out, dry_run=True), factory)
    assert summary.actions["rewritten"] > 0
    assert not (out / "documents").exists()
    assert (out / "report.jsonl").exists() and (out / "report.html").exists()


BAD_USAGE = [
    ("no-inputs", lambda tmp: ([], tmp / "out")),
    ("missing-input", lambda tmp: ([tmp / "nope"], tmp / "out")),
    ("out-inside-input", lambda tmp: ([tmp], tmp / "out")),
    ("input-inside-out", lambda tmp: ([tmp / "out" / "x"], tmp / "out")),
]


@pytest.mark.parametrize("arguments", [a for _, a in BAD_USAGE], ids=[i for i, _ in BAD_USAGE])
def test_bad_usage_is_refused_before_anything_runs(tmp_path: Path, arguments) -> None:
    (tmp_path / "out" / "x").mkdir(parents=True)
    inputs, out = arguments(tmp_path)
    with pytest.raises(UsageError, match="expected"):
        collect_inputs(inputs, out)


def test_two_inputs_with_the_same_name_are_both_kept_numbered_before_the_suffix(tmp_path: Path, factory,
                                                                                docx_bytes) -> None:
    for side in ("a", "b"):
        (tmp_path / side / "drafts").mkdir(parents=True)
        (tmp_path / side / "draft.txt").write_text("민법 제750조", encoding="utf-8")
        (tmp_path / side / "drafts" / "memo.docx").write_bytes(docx_bytes([[(f"{side}: 민소법 제1조", False)]]))
    files = collect_inputs([tmp_path / "a" / "draft.txt", tmp_path / "b" / "draft.txt"], tmp_path / "out")
    assert [f.name for f in files] == ["draft.txt", "draft~2.txt"]

    out = tmp_path / "out"
    run_batch(collect_inputs([tmp_path / "a" / "drafts", tmp_path / "b" / "drafts"], out), BatchOptions(out), factory)
    assert sorted(p.name for p in (out / "documents" / "drafts").iterdir()) == ["memo.docx", "memo~2.docx"]
    assert read_document(out / "documents" / "drafts" / "memo~2.docx").streams == ["b: 민사소송법 제1조"]


def test_a_file_over_the_limit_is_reported_and_the_batch_goes_on(tmp_path: Path, factory) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "big.txt").write_text("민법 제750조. " * 40, encoding="utf-8")
    (folder / "small.txt").write_text("민법 제750조.", encoding="utf-8")
    out = tmp_path / "out"
    summary = run_batch(collect_inputs([folder], out), BatchOptions(out, max_bytes=200), factory)
    assert dict(summary.statuses) == {"too_large": 1, "done": 1}
    (big,) = [r for r in _records(out) if r["file"] == "in/big.txt"]
    assert (big["record"], big["verdict"], big["action"]) == ("document", "too_large", "review")
    assert "200" in big["reason"]


CONTEXT_RECORDS = [
    {"type": "act", "law_id": "001872", "name": "근로기준법", "kind": "법률", "articles": [{"article": "23"}]},
    {"type": "act", "law_id": "001873", "name": "근로기준법 시행령", "kind": "대통령령",
     "articles": [{"article": "30"}, {"article": "31"}]},
    {"type": "case", "court": "특허법원", "date": "2006-05-12", "case_number": "2006허1803", "disposition": "판결"},
    {"type": "case", "court": "특허법원", "date": "2006-05-12", "case_number": "2006허1827", "disposition": "판결"},
    {"type": "coverage", "kind": "case", "court": "특허법원", "from": "1998-03-01", "to": "2025-12-31"},
    {"type": "coverage", "kind": "statute"},
]


def _recite_one(tmp_path: Path, database_url: str, text: str) -> Path:
    """Re-cite one draft, `in/a.txt` holding `text`, against the database at `database_url`; the output."""
    draft = tmp_path / "in" / "a.txt"
    draft.parent.mkdir()
    draft.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    factory = functools.partial(build_pipeline, database_url, None)
    run_batch(collect_inputs([draft], out), BatchOptions(out), factory)
    return out


def test_citations_resolved_from_context_are_rewritten_and_labelled_so(tmp_path: Path,
                                                                        database_url_of) -> None:
    out = _recite_one(tmp_path, database_url_of(CONTEXT_RECORDS),
                      "근로기준법 제23조, 같은 법 시행령(이하 '영'이라 한다) 제30조 및 영 제31조.\n"
                      "특허법원 2006. 5. 12. 선고 2006허1803, 1827 판결, 근로기준법 시행령 제３１조, 민법 제75O조.\n"
                      "사내 규칙 제3조는 법령이 아니다.")

    assert (out / "documents" / "a.txt").read_text("utf-8") == (
        "근로기준법 제23조, 같은 법 시행령(이하 '영'이라 한다) 제30조 및 근로기준법 시행령 제31조.\n"
        "특허법원 2006. 5. 12. 선고 2006허1803 판결, 특허법원 2006. 5. 12. 선고 2006허1827 판결, "
        "근로기준법 시행령 제31조, 민법 제75O조.\n사내 규칙 제3조는 법령이 아니다.")
    records = {r["original"]: r for r in _records(out)}
    assert set(records) == {"근로기준법 제23조", "같은 법 시행령(이하 '영'이라 한다) 제30조", "영 제31조",
                            "특허법원 2006. 5. 12. 선고 2006허1803", "1827 판결", "근로기준법 시행령 제３１조",
                            "민법 제75O조"}
    declaring = records["같은 법 시행령(이하 '영'이라 한다) 제30조"]
    assert (declaring["action"], declaring["canonical"]) == ("kept", "근로기준법 시행령 제30조")
    assert "declaration" in declaring["reason"]
    short = records["영 제31조"]
    assert (short["action"], short["form"]) == ("rewritten", "영/규칙 for a 시행령/시행규칙")
    assert short["context"] == ["act: 영 → 근로기준법 시행령 (영: declared for 근로기준법 시행령 (이하 '영'))"]
    later = records["1827 판결"]
    assert (later["action"], later["form"]) == ("rewritten", "later case number without its year and 사건부호")
    assert later["context"] and "사건부호" in later["context"][0]
    assert records["근로기준법 시행령 제３１조"]["form"] == "full-width digits or punctuation"
    scanned = records["민법 제75O조"]  # read as 민법 제750조, which this database lacks: not rewritten
    assert (scanned["form"], scanned["action"]) == ("OCR confusion", "review")
    assert records["근로기준법 제23조"]["context"] == []
    page = (out / "report.html").read_text("utf-8")
    assert "<b>rewritten from context</b> <code>영 제31조</code>" in page


def test_a_rewrite_from_context_in_scanned_text_keeps_its_context_note_and_says_it_was_scanned(
        tmp_path: Path, database_url_of) -> None:
    out = _recite_one(tmp_path, database_url_of(CONTEXT_RECORDS),
                      "근로기준법 제23조에 따라, 같은 법 제２３조.\n"
                      "특허법원 2006. 5. 12. 선고 2006허1803, １８２７ 판결.")

    assert (out / "documents" / "a.txt").read_text("utf-8") == (
        "근로기준법 제23조에 따라, 근로기준법 제23조.\n"
        "특허법원 2006. 5. 12. 선고 2006허1803 판결, 특허법원 2006. 5. 12. 선고 2006허1827 판결.")
    records = {r["original"]: r for r in _records(out)}
    same_act = records["같은 법 제２３조"]
    assert (same_act["action"], same_act["form"]) == ("rewritten", "back-reference")
    assert same_act["scanned"] == "full-width digits or punctuation"
    assert same_act["context"] and "같은 법" in same_act["context"][0]
    later = records["１８２７ 판결"]
    assert (later["action"], later["form"]) == ("rewritten", "later case number without its year and 사건부호")
    assert later["scanned"] == "full-width digits or punctuation"
    assert later["context"] and "사건부호" in later["context"][0]
    assert records["근로기준법 제23조"]["scanned"] is None
    page = (out / "report.html").read_text("utf-8")
    assert "<b>rewritten from context</b> <code>같은 법 제２３조</code>" in page
    assert "<b>rewritten from context</b> <code>１８２７ 판결</code>" in page


DECREE_RECORDS = [
    {"type": "act", "law_id": "001565", "name": "소득세법", "kind": "법률", "articles": [{"article": "41"}]},
    {"type": "act", "law_id": "001566", "name": "소득세법 시행령", "kind": "대통령령",
     "articles": [{"article": "98"}, {"article": "99"}]},
    {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률", "articles": [{"article": "750"}]},
    {"type": "coverage", "kind": "statute"},
]


def test_같은_법_after_a_decree_is_rewritten_as_its_법률_and_the_report_says_it_came_from_context(
        tmp_path: Path, database_url_of) -> None:
    out = _recite_one(tmp_path, database_url_of(DECREE_RECORDS),
                      "소득세법 시행령 제98조, 같은 법 제41조, 민법 제750조, 같은 영 제99조.\n"
                      "민법 제750조 및 같은 시행령 제98조.")

    assert (out / "documents" / "a.txt").read_text("utf-8") == (
        "소득세법 시행령 제98조, 소득세법 제41조, 민법 제750조, 소득세법 시행령 제99조.\n"
        "민법 제750조 및 소득세법 시행령 제98조.")
    records = {r["original"]: r for r in _records(out)}
    act = records["같은 법 제41조"]
    assert (act["action"], act["canonical"]) == ("rewritten", "소득세법 제41조")
    assert act["context"] == [("act: 같은 법 → 소득세법 (같은 법: 소득세법, the 법률 of 소득세법 시행령 cited before "
                               "(같은 법 names a 법률))")]
    decree = records["같은 영 제99조"]
    assert (decree["action"], decree["form"]) == (
        "rewritten", "같은 영/같은 시행령/동령/같은 규칙 for the 시행령/시행규칙 cited before"
    )
    assert decree["context"] == ["act: 같은 영 → 소득세법 시행령 (같은 영: 소득세법 시행령, the 시행령 cited last)"]
    page = (out / "report.html").read_text("utf-8")
    assert "<b>rewritten from context</b> <code>같은 법 제41조</code>" in page
    assert "<b>rewritten from context</b> <code>같은 영 제99조</code>" in page


def test_같은_법_after_a_rule_that_is_no_법률_goes_to_review_with_the_reason(tmp_path: Path, database_url_of) -> None:
    records = [*DECREE_RECORDS, {"type": "act", "law_id": "000100", "name": "민사소송규칙", "kind": "대법원규칙",
                                 "articles": [{"article": "3"}]}]
    text = "민사소송규칙 제3조, 같은 법 제2조 및 민법 제750조, 같은 영 제98조."
    out = _recite_one(tmp_path, database_url_of(records), text)

    assert (out / "documents" / "a.txt").read_text("utf-8") == text
    by_original = {r["original"]: r for r in _records(out)}
    act, decree = by_original["같은 법 제2조"], by_original["같은 영 제98조"]
    assert (act["action"], act["canonical"]) == ("review", None)
    assert "같은 법 names a 법률, and 민사소송규칙" in act["reason"]
    assert (decree["action"], decree["canonical"]) == ("review", None)
    assert "같은 영 refers to a 시행령 cited before it, and there is none" in decree["reason"]


def test_a_draft_whose_encoding_is_a_guess_goes_to_review_even_without_citations(tmp_path: Path, factory) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "guess.txt").write_bytes("청화 카타".encode("cp949"))  # valid UTF-8 too: Latin letters
    out = tmp_path / "out"
    summary = run_batch(collect_inputs([folder], out), BatchOptions(out), factory)
    assert (dict(summary.statuses), summary.documents_needing_review, summary.exit_code) == ({"no_citations": 1}, 1, 1)
    (record,) = _records(out)
    assert (record["record"], record["verdict"], record["action"]) == ("document", "no_citations", "review")
    assert "read as CP949" in record["reason"]
    assert (out / "documents" / "in" / "guess.txt").read_bytes() == "청화 카타".encode("cp949")
    assert "review: read as CP949" in (out / "report.html").read_text("utf-8")
