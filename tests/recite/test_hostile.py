"""A folder of hostile drafts through the whole batch: each is refused or read as it should be,
the batch goes on, and the input folder is byte for byte what it was (links included).

The large versions of these inputs (a .docx of 40 × 19 MiB headers, a 1 GiB picture, 1–50 MB
drafts) are generated and measured by bench/recite_scale_bench.py."""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

from citegen.commands.recite_wiring import build_pipeline
from citegen.recite import BatchOptions, collect_inputs, run_batch

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
LIMIT = 8192


def _document(body: str, prolog: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>{prolog}<w:document xmlns:w="{W}"><w:body>{body}</w:body>'
            "</w:document>").encode()


def _docx(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


CITING = _document("<w:p><w:r><w:t>민소법 제1조</w:t></w:r></w:p>")
HOSTILE = {
    "headers.docx": (_docx({"word/document.xml": CITING} | {f"word/header{i}.xml": b"<w:hdr>" + b" " * 4000
                                                             for i in range(1, 41)}), "too_large"),
    "picture.docx": (_docx({"word/document.xml": CITING, "word/media/image1.png": bytes(40 * LIMIT)}), "too_large"),
    "laughs.docx": (_docx({"word/document.xml": _document(
        "<w:p><w:r><w:t>&c;</w:t></w:r></w:p>",
        '<!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;">]>')}),
        "corrupt"),
    "late-doctype.docx": (_docx({"word/document.xml": _document(
        "<w:p><w:r><w:t>&a;</w:t></w:r></w:p>", "<!--" + "x" * 5000 + '--><!DOCTYPE w:document [<!ENTITY a "a">]>')}),
        "corrupt"),
    "attributes.docx": (_docx({"word/document.xml": _document(
        '<w:p><w:r><w:rPr><w:rFonts w:ascii="a>b" w:hAnsi="&lt;c>"/></w:rPr><w:t>민소법 제1조</w:t></w:r></w:p>')}),
        "done"),
    "truncated.docx": (_docx({"word/document.xml": CITING * 20})[:-30], "corrupt"),
    "guess.txt": ("청화 카타".encode("cp949"), "no_citations"),
    "plain.txt": ("민소법 제1조".encode("cp949"), "done"),
}


def _folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
    return digest.hexdigest()


def test_hostile_drafts_are_refused_or_read_and_the_input_folder_is_unchanged(
        tmp_path: Path, sample_database_url: str) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("민법 제750조 (not an input)", encoding="utf-8")
    folder = tmp_path / "in"
    folder.mkdir()
    for name, (data, _) in HOSTILE.items():
        (folder / name).write_bytes(data)
    (folder / "link.txt").symlink_to(outside)
    before = _folder_digest(folder)
    out = tmp_path / "out"

    summary = run_batch(collect_inputs([folder], out), BatchOptions(out, max_bytes=LIMIT),
                        functools.partial(build_pipeline, sample_database_url, None))

    assert _folder_digest(folder) == before
    statuses = {}
    for line in (out / "report.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        statuses.setdefault(record["file"].removeprefix("in/"), record["verdict"] if record["record"] == "document"
                            else "done")
    assert statuses == {name: status for name, (_, status) in HOSTILE.items()} | {"link.txt": "outside_input"}
    assert summary.documents == len(HOSTILE) + 1
    written = out / "documents" / "in"
    assert sorted(p.name for p in written.iterdir()) == ["attributes.docx", "guess.txt", "plain.txt"]
    assert (written / "plain.txt").read_bytes() == "민사소송법 제1조".encode("cp949")
    with zipfile.ZipFile(written / "attributes.docx") as archive:
        xml = archive.read("word/document.xml").decode()
    assert 'w:ascii="a>b" w:hAnsi="&lt;c>"' in xml and "<w:t>민사소송법 제1조</w:t>" in xml
