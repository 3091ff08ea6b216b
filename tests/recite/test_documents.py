"""Reading and writing drafts: encodings, .docx/.hwpx text editing that keeps formatting, bad input."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from citegen.recite.documents import read_document
from citegen.recite.encodings import decode_text, encode_text
from citegen.recite.errors import (
    CorruptError,
    EmptyError,
    EncodingError,
    TooLargeError,
    UnreadableError,
    UnsupportedError,
)
from citegen.recite.xmltext import WORDPROCESSINGML, Edit, XmlTextPart

KOREAN = "대판 2024.7.11, 2024도4202 참조; 같은 법 제3조「민법」 ①항 ㆍ"

ENCODINGS = [
    ("utf-8", KOREAN.encode("utf-8"), "utf-8"),
    ("utf-8-bom", b"\xef\xbb\xbf" + KOREAN.encode("utf-8"), "utf-8-sig"),
    ("cp949", KOREAN.encode("cp949"), "cp949"),
    ("euc-kr", KOREAN.replace("ㆍ", "").encode("euc-kr"), "cp949"),
]


@pytest.mark.parametrize(("data", "encoding"), [(d, e) for _, d, e in ENCODINGS], ids=[i for i, _, _ in ENCODINGS])
def test_korean_text_is_detected_and_written_back_byte_for_byte(data: bytes, encoding: str) -> None:
    decoded = decode_text(data, "draft.txt")
    assert decoded.encoding == encoding
    assert "2024도4202" in decoded.text
    assert encode_text(decoded.text, decoded.encoding, "draft.txt") == data


BAD_TEXT = [
    ("latin-1", "Müller, Société Générale, § 823 BGB - Schadensersatz für Schäden".encode("latin-1")),
    ("shift-jis", "東京地方裁判所平成二十年判決について検討する".encode("shift_jis")),
    ("utf-16", KOREAN.encode("utf-16")),
    ("invalid-in-both", b"\xff\xfe\xfd\xfc abc \x80\x80"),
]


@pytest.mark.parametrize("data", [d for _, d in BAD_TEXT], ids=[i for i, _ in BAD_TEXT])
def test_text_in_another_encoding_is_refused(data: bytes) -> None:
    with pytest.raises(EncodingError, match="expected"):
        decode_text(data, "draft.txt")


def test_a_character_cp949_cannot_hold_is_an_error_not_a_question_mark() -> None:
    with pytest.raises(EncodingError, match="cp949"):
        encode_text("민법 제750조 😀", "cp949", "draft.txt")


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _entries(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info.filename) for info in archive.infolist()}


def test_a_citation_split_across_runs_goes_into_the_run_holding_most_of_it_keeping_its_properties(
        tmp_path: Path, docx_bytes) -> None:
    source = docx_bytes([[("판례(대판 ", False), ("2024.7.11, 2024도", True), ("4202) 참조", False)],
                         [("둘째 문단 & <표시>", False)]])
    document = read_document(_write(tmp_path, "a.docx", source))
    text = document.streams[0]
    assert text == "판례(대판 2024.7.11, 2024도4202) 참조\n둘째 문단 & <표시>"
    start, end = text.index("대판"), text.index("4202") + 4
    canonical = "대법원 2024. 7. 11. 선고 2024도4202 판결"
    assert document.is_editable(0, start, end)

    rendered = document.render({0: [Edit(start, end, canonical)]})

    assert read_document(_write(tmp_path, "b.docx", rendered)).streams[0] == f"판례({canonical}) 참조\n둘째 문단 & <표시>"
    xml = _entries(rendered)["word/document.xml"].decode()
    plain, bold = "<w:r><w:t xml:space=\"preserve\">", '<w:r><w:rPr><w:b/><w:rFonts w:ascii="Batang"/></w:rPr><w:t xml:space="preserve">'
    assert f"{plain}판례(</w:t></w:r>" in xml  # each run lost only the text the citation covered
    assert f"{bold}{canonical}</w:t></w:r>" in xml  # the replacement keeps the bold run's formatting
    assert f"{plain}) 참조</w:t></w:r>" in xml
    assert 'mc:Ignorable="w14"' in xml and "xmlns:w14=" in xml  # namespaces untouched
    assert "둘째 문단 &amp; &lt;표시&gt;" in xml


def test_only_the_edited_part_changes_and_every_other_entry_is_copied(tmp_path: Path, docx_bytes) -> None:
    source = docx_bytes([[("민법 제750조", False)]])
    document = read_document(_write(tmp_path, "a.docx", source))
    before, after = _entries(source), _entries(document.render({0: [Edit(0, 2, "형법")]}))
    assert list(after) == list(before)
    assert {name for name in before if before[name] != after[name]} == {"word/document.xml"}
    assert _entries(document.render({})) == before


def test_footnotes_are_a_second_stream_edited_in_their_own_part(tmp_path: Path, docx_bytes) -> None:
    source = docx_bytes([[("본문은 민법 제750조.", False)]], footnotes=["대판 2024.7.11, 2024도4202", "동조 참조"])
    document = read_document(_write(tmp_path, "a.docx", source))
    assert document.streams == ["본문은 민법 제750조.", "대판 2024.7.11, 2024도4202\n동조 참조"]
    after = _entries(document.render({1: [Edit(0, 2, "대법원")]}))
    assert after["word/document.xml"] == _entries(source)["word/document.xml"]
    assert "<w:t>대법원 2024.7.11, 2024도4202</w:t>" in after["word/footnotes.xml"].decode()


def test_tabs_and_paragraph_ends_are_read_but_never_edited(tmp_path: Path, docx_bytes) -> None:
    document = read_document(_write(tmp_path, "a.docx", docx_bytes([[("민법\t제750조", False)], [("끝", False)]])))
    text = document.streams[0]
    assert text == "민법\t제750조\n끝"
    assert document.is_editable(0, 3, 8)
    assert not document.is_editable(0, 0, 8)  # crosses the tab
    assert not document.is_editable(0, 5, 10)  # crosses the paragraph end


def test_an_edge_space_gets_xml_space_preserve(tmp_path: Path) -> None:
    xml = '<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>민법제750조</w:t></w:r></w:p></w:body></w:document>'
    part = XmlTextPart.scan(xml, WORDPROCESSINGML)
    assert '<w:t xml:space="preserve">민법 </w:t>' in part.apply([Edit(2, 7, " ")])


def test_hwpx_sections_are_read_and_written(tmp_path: Path, hwpx_bytes) -> None:
    source = hwpx_bytes(["근기법 제23조 위반", "동법 제24조"])
    document = read_document(_write(tmp_path, "a.hwpx", source))
    assert document.streams == ["근기법 제23조 위반\n동법 제24조"]
    rendered = _entries(document.render({0: [Edit(0, 3, "근로기준법")]}))
    assert "<hp:t>근로기준법 제23조 위반</hp:t>" in rendered["Contents/section0.xml"].decode()
    assert rendered["mimetype"] == b"application/hwp+zip"


def test_plain_text_keeps_its_encoding_and_line_endings(tmp_path: Path) -> None:
    source = "첫 줄\r\n민소법 제1조\r\n".encode("cp949")
    document = read_document(_write(tmp_path, "a.txt", source))
    assert document.render({0: [Edit(5, 8, "민사소송법")]}) == "첫 줄\r\n민사소송법 제1조\r\n".encode("cp949")


def _zip(entries: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return out.getvalue()


BAD_INPUT = [
    ("empty", "a.txt", b"", EmptyError),
    ("whitespace", "a.md", b" \n\t\n", EmptyError),
    ("binary-as-text", "a.txt", b"PK\x03\x04\x00\x00binary", EncodingError),
    ("not-a-zip", "a.docx", "민법 제750조".encode(), CorruptError),
    ("zip-without-body", "a.docx", _zip({"word/styles.xml": "<a/>"}), CorruptError),
    ("malformed-xml", "a.docx", _zip({"word/document.xml": "<w:document><w:p>"}), CorruptError),
    ("doctype", "a.docx", _zip({"word/document.xml": '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'}),
     CorruptError),
    ("body-without-text", "a.docx", _zip({"word/document.xml": '<w:document xmlns:w="w"/>'}), EmptyError),
    ("huge", "a.txt", b"x" * 2049, TooLargeError),
    ("unsupported", "a.pdf", b"%PDF-1.7", UnsupportedError),
]


@pytest.mark.parametrize(("name", "data", "error"), [(n, d, e) for _, n, d, e in BAD_INPUT],
                         ids=[i for i, *_ in BAD_INPUT])
def test_bad_input_raises_a_document_error_naming_the_file(tmp_path: Path, name: str, data: bytes, error) -> None:
    path = _write(tmp_path, name, data)
    with pytest.raises(error, match="expected") as raised:
        read_document(path, max_bytes=2048)
    assert name in str(raised.value)


def test_a_huge_part_inside_a_small_zip_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "bomb.docx", _zip({"word/document.xml": "<w:document>" + " " * 5000 + "</w:document>"}))
    with pytest.raises(TooLargeError, match="word/document.xml"):
        read_document(path, max_bytes=2048)


def test_a_folder_named_like_a_draft_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "x.txt").mkdir()
    with pytest.raises(UnreadableError, match="x.txt"):
        read_document(tmp_path / "x.txt")
