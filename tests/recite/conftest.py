"""Drafts built in code: .docx and .hwpx archives with the parts and namespaces real editors write."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from verifier.database import Database
from verifier.importers import import_paths

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


def build_docx(paragraphs: Sequence[Paragraph], footnotes: Sequence[str] = ()) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/document.xml", word_document_xml(paragraphs))
        if footnotes:
            notes = "".join(f'<w:footnote w:id="{i + 1}"><w:p><w:r><w:t>{escape(text)}</w:t></w:r></w:p></w:footnote>'
                            for i, text in enumerate(footnotes))
            archive.writestr("word/footnotes.xml", f'<w:footnotes xmlns:w="{_W}">{notes}</w:footnotes>')
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


# A small database in the verifier's JSONL import format: enough acts and decisions for every
# resolution path (completion from the database, back-references, 약칭, absence, coverage).
SAMPLE_RECORDS = [
    {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률",
     "articles": [{"article": "750"}, {"article": "751", "provisions": [{"paragraph": 1}, {"paragraph": 2}]}]},
    {"type": "act", "law_id": "001692", "name": "형법", "kind": "법률",
     "articles": [{"article": "250", "provisions": [{"paragraph": 1}, {"paragraph": 2}]}, {"article": "251"}]},
    {"type": "act", "law_id": "001700", "name": "민사소송법", "kind": "법률", "articles": [{"article": "1"}]},
    {"type": "act", "law_id": "001872", "name": "근로기준법", "kind": "법률",
     "articles": [{"article": "23", "provisions": [{"paragraph": 1}]}]},
    {"type": "alias", "alias": "민소법", "act": "민사소송법", "official": False},
    {"type": "case", "court": "대법원", "date": "2024-07-11", "case_number": "2024도4202", "disposition": "판결"},
    {"type": "case", "court": "대법원", "date": "2023-01-12", "case_number": "2022마6489", "disposition": "결정"},
    {"type": "case", "court": "대법원", "date": "1996-04-12", "case_number": "95다38677", "disposition": "판결"},
    {"type": "coverage", "kind": "case", "court": "대법원", "from": "1990-01-01", "to": "2025-12-31"},
    {"type": "coverage", "kind": "statute"},
]


def database_url_holding(records: list[dict], folder: Path) -> str:
    """An SQLite database in `folder` filled with `records` (the JSONL import format); its URL."""
    lines = folder / "records.jsonl"
    lines.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    url = f"sqlite:///{folder / 'records.sqlite3'}"
    database = Database.open(url)
    import_paths(database, [lines])
    database.close()
    return url


@pytest.fixture(scope="session")
def sample_database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return database_url_holding(SAMPLE_RECORDS, tmp_path_factory.mktemp("recite-db"))


@pytest.fixture
def database_url_of(tmp_path: Path) -> Callable[[list[dict]], str]:
    """For a test's own records: the URL of a database holding them."""
    return lambda records: database_url_holding(records, tmp_path)


REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def shipped_database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The sample statutes and decisions of data/synthetic_law and data/cases (synthetic sample acts the demo
    model was trained on)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('shipped-db') / 'citegen.sqlite3'}"
    database = Database.open(url)
    import_paths(database, [REPOSITORY / "data" / "synthetic_law", REPOSITORY / "data" / "cases"])
    database.close()
    return url
