"""Reading and writing drafts: encodings, .docx/.hwpx text editing that keeps formatting, bad input."""

from __future__ import annotations

import functools
import io
import zipfile
from pathlib import Path

import pytest

from citegen.commands.recite_wiring import build_pipeline
from citegen.recite import BatchOptions, collect_inputs, run_batch
from citegen.recite.documents import MAX_ENTRIES, read_document
from citegen.recite.encodings import decode_text, encode_text
from citegen.recite.errors import (
    CorruptError,
    EmptyError,
    EncodingError,
    TooLargeError,
    UnreadableError,
    UnsupportedError,
)
from citegen.recite.xmltext import HWPML, WORDPROCESSINGML, Edit, XmlTextPart

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
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

    streams = read_document(_write(tmp_path, "b.docx", rendered)).streams
    assert streams[0] == f"판례({canonical}) 참조\n둘째 문단 & <표시>"
    xml = _entries(rendered)["word/document.xml"].decode()
    plain = '<w:r><w:t xml:space="preserve">'
    bold = '<w:r><w:rPr><w:b/><w:rFonts w:ascii="Batang"/></w:rPr><w:t xml:space="preserve">'
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
    xml = (f'<w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>민법제750조</w:t></w:r></w:p></w:body>'
           "</w:document>").encode()
    part = XmlTextPart.scan(xml, WORDPROCESSINGML)
    assert '<w:t xml:space="preserve">민법 </w:t>'.encode() in part.apply([Edit(2, 7, " ")])


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


def _zip(entries: dict[str, str] | dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
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
    with pytest.raises(TooLargeError, match=r"word/document\.xml"):
        read_document(path, max_bytes=2048)


def test_a_folder_named_like_a_draft_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "x.txt").mkdir()
    with pytest.raises(UnreadableError, match=r"x\.txt"):
        read_document(tmp_path / "x.txt")


def _word_xml(body: str, prefix: str = "w") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?><{prefix}:document xmlns:{prefix}="{W}"><{prefix}:body>'
            f"{body}</{prefix}:body></{prefix}:document>").encode()


def test_a_greater_than_sign_in_an_attribute_value_is_part_of_the_tag_not_text() -> None:
    xml = _word_xml('<w:p><w:r><w:rPr><w:rFonts w:ascii="a>b" w:hAnsi=\'c>d\'/></w:rPr>'
                    '<w:t xml:space="preserve">민소법 제1조</w:t></w:r></w:p>')
    part = XmlTextPart.scan(xml, WORDPROCESSINGML)
    assert part.text == "민소법 제1조"
    edited = part.apply([Edit(0, 3, "민사소송법")])
    assert edited == xml.replace("민소법".encode(), "민사소송법".encode())


def test_elements_are_matched_by_namespace_not_by_prefix() -> None:
    ours = _word_xml("<x:p><x:r><x:t>민법 제750조</x:t></x:r></x:p>", prefix="x")
    other = ('<w:document xmlns:w="urn:not-word"><w:body><w:p><w:r><w:t>민법 제750조</w:t></w:r></w:p>'
             "</w:body></w:document>").encode()
    assert XmlTextPart.scan(ours, WORDPROCESSINGML).text == "민법 제750조"
    assert XmlTextPart.scan(other, WORDPROCESSINGML).text == ""


def test_character_data_holding_a_comment_or_cdata_is_read_but_not_edited() -> None:
    xml = _word_xml("<w:p><w:r><w:t>민법<!-- note --> 제750조</w:t></w:r>"
                    "<w:r><w:t><![CDATA[ & 형법]]> 제250조</w:t></w:r><w:r><w:t>끝 &amp; 처음</w:t></w:r></w:p>")
    part = XmlTextPart.scan(xml, WORDPROCESSINGML)
    assert part.text == "민법 제750조 & 형법 제250조끝 & 처음"
    assert not part.is_editable(0, 8) and not part.is_editable(11, 13)
    end = part.text.index("끝")
    tail = "<w:t>&lt;끝&gt; &amp; 처음</w:t></w:r></w:p></w:body></w:document>"
    assert part.apply([Edit(end, end + 1, "<끝>")]).endswith(tail.encode())


def test_hwpx_tabs_inside_a_text_element_split_it_into_editable_stretches() -> None:
    xml = ('<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" '
           'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"><hp:p><hp:run>'
           "<hp:t>근기법 제23조<hp:tab/>동법 제24조</hp:t></hp:run></hp:p></hs:sec>").encode()
    part = XmlTextPart.scan(xml, HWPML)
    assert part.text == "근기법 제23조\t동법 제24조"
    assert part.is_editable(0, 8) and part.is_editable(9, 16) and not part.is_editable(7, 10)
    assert "<hp:t>근기법 제23조<hp:tab/>같은 법 제24조</hp:t>".encode() in part.apply([Edit(9, 11, "같은 법")])


HOSTILE_XML = [
    ("doctype-after-4-kb", b'<?xml version="1.0"?><!--' + b"x" * 5000 + b'--><!DOCTYPE w:document [<!ENTITY a "aaaa">]>'
     + _word_xml("<w:p><w:r><w:t>&a;</w:t></w:r></w:p>").split(b"?>", 1)[1], "DTD"),
    ("billion-laughs", b'<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>',
     "DTD"),
    ("external-entity", b'<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>', "DTD"),
    ("undefined-entity", _word_xml("<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p>"), "undefined entity"),
    ("unbound-prefix", b"<w:document><w:p>", "unbound prefix"),
    ("truncated", _word_xml("<w:p><w:r><w:t>민법</w:t></w:r></w:p>")[:-20], "well-formed"),
]


@pytest.mark.parametrize(("xml", "said"), [(x, s) for _, x, s in HOSTILE_XML], ids=[i for i, *_ in HOSTILE_XML])
def test_hostile_xml_is_refused_wherever_the_trouble_is(xml: bytes, said: str) -> None:
    with pytest.raises(CorruptError, match=said) as raised:
        XmlTextPart.scan(xml, WORDPROCESSINGML, "a.docx:word/document.xml")
    assert "a.docx:word/document.xml" in str(raised.value)


def test_a_utf16_part_is_an_encoding_error() -> None:
    with pytest.raises(EncodingError, match="UTF-16"):
        XmlTextPart.scan(_word_xml("<w:p/>").decode().encode("utf-16"), WORDPROCESSINGML)


def test_many_parts_each_under_the_limit_are_too_large_together(tmp_path: Path) -> None:
    entries = {"word/document.xml": _word_xml("<w:p><w:r><w:t>민법 제750조</w:t></w:r></w:p>")}
    entries |= {f"word/header{i}.xml": b"<w:hdr>" + b" " * 1500 + b"</w:hdr>" for i in range(1, 41)}
    path = _write(tmp_path, "headers.docx", _zip(entries))
    assert path.stat().st_size < 20_000
    with pytest.raises(TooLargeError, match=r"at most 20000 bytes in all .* 41 parts \(the largest word/header"):
        read_document(path, max_bytes=20_000)


def test_pictures_that_unpack_past_the_archive_limit_are_too_large(tmp_path: Path) -> None:
    entries = {"word/document.xml": _word_xml("<w:p><w:r><w:t>민법 제750조</w:t></w:r></w:p>"),
               "word/media/image1.png": b"\0" * 9000}
    path = _write(tmp_path, "picture.docx", _zip(entries))
    with pytest.raises(TooLargeError, match=r"at most 8192 bytes in all .*4 × the limit"):
        read_document(path, max_bytes=2048)


def test_a_part_that_unpacks_to_more_than_its_stated_size_is_corrupt(tmp_path: Path) -> None:
    xml = _word_xml("<w:p><w:r><w:t>민법 제750조</w:t></w:r></w:p>" + " " * 4000)
    data = bytearray(_zip({"word/document.xml": xml}))
    size = len(xml).to_bytes(4, "little")
    stated = (200).to_bytes(4, "little")  # the local header and the central directory both say 200 bytes
    assert data.count(size) == 2
    data = bytearray(bytes(data).replace(size, stated))
    path = _write(tmp_path, "lying.docx", bytes(data))
    with pytest.raises(CorruptError, match=r"word/document\.xml"):
        read_document(path, max_bytes=2048)


def test_unchanged_entries_are_copied_whole(tmp_path: Path) -> None:
    picture = bytes(range(256)) * 8000  # larger than one copy chunk
    entries = {"word/document.xml": _word_xml("<w:p><w:r><w:t>민소법 제1조</w:t></w:r></w:p>"),
               "word/media/image1.png": picture}
    document = read_document(_write(tmp_path, "a.docx", _zip(entries)))
    after = _entries(document.render({0: [Edit(0, 3, "민사소송법")]}))
    assert after["word/media/image1.png"] == picture
    assert "민사소송법 제1조".encode() in after["word/document.xml"]


# Syllables whose CP949 bytes are also valid UTF-8 (as Latin letters and symbols): 청, 화, 회, 환, 호, ...
BOTH_VALID = "청화 회화 환호 천체 치킨 활황 청탁 창호 카타 키"
READINGS = [
    ("cp949-also-valid-utf8", BOTH_VALID.encode("cp949"), "cp949", None),
    ("short-cp949-also-valid-utf8", "청화".encode("cp949"), "cp949", "too few letters"),
    ("german-utf8", "Müller aus München schrieb über Größe und Straße für Gebühren".encode(), "utf-8",
     "not Korean"),
    ("korean-utf8", KOREAN.encode(), "utf-8", None),
    ("ascii", b"Civil Act art. 750", "utf-8", None),
]


@pytest.mark.parametrize(("data", "encoding", "doubt"), [r[1:] for r in READINGS], ids=[r[0] for r in READINGS])
def test_bytes_valid_in_both_encodings_are_read_as_the_more_korean_and_doubted_when_it_is_close(
        data: bytes, encoding: str, doubt: str | None) -> None:
    decoded = decode_text(data, "draft.txt")
    assert decoded.encoding == encoding
    assert (decoded.doubt is None) == (doubt is None), decoded.doubt
    if decoded.doubt:
        assert "valid in both UTF-8 and CP949" in decoded.doubt
    assert encode_text(decoded.text, decoded.encoding, "draft.txt") == data


def test_a_doubted_reading_is_carried_by_the_document(tmp_path: Path) -> None:
    document = read_document(_write(tmp_path, "a.txt", "청화".encode("cp949")))
    assert (document.streams, document.encoding) == (["청화"], "cp949")
    assert len(document.doubts) == 1 and "CP949" in document.doubts[0]


def test_an_archive_of_too_many_entries_is_refused_before_it_is_listed(tmp_path: Path) -> None:
    entries = {"word/document.xml": _word_xml("<w:p><w:r><w:t>민법 제750조</w:t></w:r></w:p>")}
    entries |= {f"word/media/{i}": b"" for i in range(MAX_ENTRIES)}
    path = _write(tmp_path, "many.docx", _zip(entries))
    with pytest.raises(TooLargeError, match=f"at most {MAX_ENTRIES} entries .* got {MAX_ENTRIES + 1}"):
        read_document(path)


def test_a_picture_that_fails_its_checksum_makes_the_document_corrupt_when_it_is_copied(tmp_path: Path) -> None:
    picture = b"not really a picture " * 50
    entries = {"word/document.xml": _word_xml("<w:p><w:r><w:t>민소법 제1조</w:t></w:r></w:p>"),
               "word/media/image1.png": picture}
    damaged = _zip(entries, zipfile.ZIP_STORED).replace(picture, picture.replace(b"really", b"REALLY"), 1)
    document = read_document(_write(tmp_path, "a.docx", damaged))
    with pytest.raises(CorruptError, match=r"word/media/image1\.png"):
        document.render({0: [Edit(0, 3, "민사소송법")]})


def _hwpx_section(text: str) -> str:
    return ('<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" '
            'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph">'
            f'<hp:p id="0"><hp:run charPrIDRef="0"><hp:t>{text}</hp:t></hp:run></hp:p></hs:sec>')


def _hwpx_manifest(spine: list[int]) -> str:
    items = "".join(f'<opf:item id="section{i}" href="Contents/section{i}.xml" media-type="application/xml"/>'
                    for i in sorted(spine))
    refs = "".join(f'<opf:itemref idref="section{i}" linear="yes"/>' for i in spine)
    return (f'<opf:package xmlns:opf="http://www.idpf.org/2007/opf/" version="" unique-identifier="" id="">'
            f'<opf:manifest><opf:item id="header" href="Contents/header.xml" media-type="application/xml"/>{items}'
            f'</opf:manifest><opf:spine><opf:itemref idref="header" linear="yes"/>{refs}</opf:spine></opf:package>')


# Eleven sections, stored in the zip in numeric order (as Hancom writes them): sorted as strings,
# section10 came before section2.
SECTION_ORDERS = [
    ("by-number-without-a-manifest", None, list(range(11))),
    ("by-the-manifests-spine", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], list(range(11))),
    ("a-spine-that-differs-from-the-numbers", [1, 0, 2, 3, 4, 5, 6, 7, 8, 10, 9], [1, 0, 2, 3, 4, 5, 6, 7, 8, 10, 9]),
    ("a-section-the-spine-misses-goes-last", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], list(range(11))),
    ("an-unreadable-manifest-falls-back-to-numbers", "<opf:package", list(range(11))),
]


@pytest.mark.parametrize(("spine", "order"), [o[1:] for o in SECTION_ORDERS], ids=[o[0] for o in SECTION_ORDERS])
def test_hwpx_sections_are_read_in_the_documents_order(tmp_path: Path, spine, order: list[int]) -> None:
    entries = {"mimetype": "application/hwp+zip"}
    if spine is not None:
        entries["Contents/content.hpf"] = spine if isinstance(spine, str) else _hwpx_manifest(spine)
    entries |= {f"Contents/section{i}.xml": _hwpx_section(f"{i}절") for i in range(11)}
    document = read_document(_write(tmp_path, "a.hwpx", _zip(entries)))
    assert document.streams == [f"{i}절" for i in order]


def test_같은_법_in_hwpx_section2_refers_to_section1_not_section10(tmp_path: Path, sample_database_url: str) -> None:
    texts = dict.fromkeys(range(11), "인용이 없다.")
    texts |= {1: "민법 제750조에 따른다.", 2: "같은 법 제751조 제1항도 같다.", 10: "형법 제250조 제1항이다."}
    entries = {"mimetype": "application/hwp+zip"} | {f"Contents/section{i}.xml": _hwpx_section(t)
                                                     for i, t in texts.items()}
    (tmp_path / "in").mkdir()
    draft = _write(tmp_path / "in", "memo.hwpx", _zip(entries))
    out = tmp_path / "out"
    factory = functools.partial(build_pipeline, sample_database_url, None)
    run_batch(collect_inputs([draft], out), BatchOptions(out), factory)
    assert read_document(out / "documents" / "memo.hwpx").streams[2] == "민법 제751조 제1항도 같다."


def test_docx_headers_and_footers_are_read_by_the_numbers_in_their_names(tmp_path: Path) -> None:
    def part(root: str, text: str) -> str:
        return f'<w:{root} xmlns:w="{W}"><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:{root}>'

    entries = {"word/document.xml": _word_xml("<w:p><w:r><w:t>본문</w:t></w:r></w:p>").decode()}
    entries |= {f"word/header{i}.xml": part("hdr", f"머리{i}") for i in (1, 2, 10)}
    entries |= {f"word/footer{i}.xml": part("ftr", f"꼬리{i}") for i in (10, 3)}
    document = read_document(_write(tmp_path, "a.docx", _zip(entries)))
    assert document.streams == ["본문", "머리1", "머리2", "머리10", "꼬리3", "꼬리10"]


MIXED_SCRIPT = [  # 國漢文 혼용, as older judgments and statutes write
    ("a-quoted-passage", "원고의 청구는 이유 없다. 대법원 1975. 4. 22. 선고 72다2161 판결은 다음과 같이 "
                         "판시하였다.\n「不法行爲로 因한 損害賠償請求權은 被害者가 그 損害 및 加害者를 안 날로부터 "
                         "3年間 이를 行使하지 아니하면 時效로 因하여 消滅한다」\n"
                         "따라서 민법 제766조 제1항에 따라 시효로 소멸하였다.\n"),
    ("old-style-statute", "被告는 民法 第750條에 依하여 損害를 賠償할 責任이 있다.\n"),
    ("a-gloss-in-brackets", "손해배상(損害賠償)의 범위는 통상손해(通常損害)를 한도로 한다.\n"),
]


@pytest.mark.parametrize("text", [t for _, t in MIXED_SCRIPT], ids=[i for i, _ in MIXED_SCRIPT])
@pytest.mark.parametrize("encoding", ["cp949", "utf-8"])
def test_korean_quoting_hanja_is_read_in_its_encoding_without_doubt(text: str, encoding: str) -> None:
    decoded = decode_text(text.encode(encoding), "draft.txt")
    assert (decoded.text, decoded.encoding, decoded.doubt) == (text, encoding, None)


# Chinese in GB2312 decodes as CP949 too, to syllables and Hanja in any order: still refused.
MISREAD_AS_HANJA = [
    ("gb2312-sentence", "根据中华人民共和国合同法第一百零七条的规定，当事人一方不履行合同义务或者"  # noqa: RUF001  Chinese commas
                        "履行合同义务不符合约定的，应当承担继续履行、采取补救措施或者赔偿损失等违约责任。"  # noqa: RUF001
                        .encode("gb2312")),
    ("gb2312-short", "法院认为被告应当承担责任".encode("gb2312")),
]


@pytest.mark.parametrize("data", [d for _, d in MISREAD_AS_HANJA], ids=[i for i, _ in MISREAD_AS_HANJA])
def test_chinese_that_cp949_misreads_as_syllables_and_hanja_is_refused(data: bytes) -> None:
    data.decode("cp949")  # valid CP949: only the reading's shape refuses it
    with pytest.raises(EncodingError, match="unlikely characters"):
        decode_text(data, "draft.txt")


def test_a_carriage_return_character_reference_survives_an_edit_in_its_run() -> None:
    xml = _word_xml('<w:p><w:r><w:t xml:space="preserve">원고는&#13;&#10;민소법 제1조에 따라</w:t></w:r></w:p>')
    part = XmlTextPart.scan(xml, WORDPROCESSINGML)
    assert part.text == "원고는\r\n민소법 제1조에 따라"
    start = part.text.index("민소법")
    edited = part.apply([Edit(start, start + 3, "민사소송법")])
    assert XmlTextPart.scan(edited, WORDPROCESSINGML).text == "원고는\r\n민사소송법 제1조에 따라"
    assert "원고는&#13;\n민사소송법".encode() in edited
