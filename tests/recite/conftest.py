"""Drafts built in code: .docx and .hwpx archives with the parts and namespaces real editors write."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape

import pytest

# A run is (text, bold); a paragraph a list of runs; "\t" inside a run's text becomes a <w:tab/>.
Paragraph = Sequence[tuple[str, bool]]

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="word/document.xml"/></Relationships>'
)


def _word_run(text: str, bold: bool) -> str:
    properties = '<w:rPr><w:b/><w:rFonts w:ascii="Batang"/></w:rPr>' if bold else ""
    pieces = []
    for i, chunk in enumerate(text.split("\t")):
        if i:
            pieces.append("<w:tab/>")
        if chunk:
            pieces.append(f'<w:t xml:space="preserve">{escape(chunk)}</w:t>')
    return f"<w:r>{properties}{''.join(pieces)}</w:r>"


def word_document_xml(paragraphs: Sequence[Paragraph]) -> str:
    body = "".join(
        '<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>'
        + '<w:proofErr w:type="spellStart"/>'.join(_word_run(t, b) for t, b in runs) + "</w:p>"
        for runs in paragraphs
    )
    # mc:Ignorable names a prefix that no element uses: a tree round trip would drop it.
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:document xmlns:w="{_W}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" mc:Ignorable="w14">'
        f'<w:body>{body}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>'
    )


def build_docx(paragraphs: Sequence[Paragraph]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/document.xml", word_document_xml(paragraphs))
        archive.writestr("word/media/image1.png", b"\x89PNG\r\n\x1a\nnot really")
    return out.getvalue()


def build_hwpx(paragraphs: Sequence[str]) -> bytes:
    body = "".join(f'<hp:p id="{i}"><hp:run charPrIDRef="0"><hp:t>{escape(text)}</hp:t></hp:run></hp:p>'
                   for i, text in enumerate(paragraphs))
    section = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
               '<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" '
               f'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph">{body}</hs:sec>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/hwp+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("Contents/section0.xml", section, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


@pytest.fixture
def docx_bytes() -> Callable[[Sequence[Paragraph]], bytes]:
    return build_docx


@pytest.fixture
def hwpx_bytes() -> Callable[[Sequence[str]], bytes]:
    return build_hwpx
