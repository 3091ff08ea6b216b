"""Drafts as text streams to search, and the same drafts written back with edits.

A `Document` exposes its text as one or more streams in reading order (a .txt/.md file is one;
a .docx has its body, then footnotes, endnotes, headers and footers; a .hwpx its sections) and
renders itself, edited, in its own format and encoding. Reading checks everything a bad input
can get wrong, so that a later failure is a bug, not the input's fault.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from xml.parsers import expat

from citegen.recite.encodings import decode_text, encode_text
from citegen.recite.errors import (
    CorruptError,
    EmptyError,
    EncodingError,
    TooLargeError,
    UnreadableError,
    UnsupportedError,
)
from citegen.recite.xmltext import HWPML, WORDPROCESSINGML, Edit, XmlTextFormat, XmlTextPart

SUPPORTED_SUFFIXES = (".txt", ".md", ".docx", ".hwpx")
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

# Parts whose text is read, in reading order; the body first, so back-references in it resolve
# against the body's own earlier citations.
_WORD_PARTS = (r"word/document\.xml", r"word/footnotes\.xml", r"word/endnotes\.xml",
               r"word/header\d*\.xml", r"word/footer\d*\.xml")
_HWPX_PARTS = (r"Contents/section\d+\.xml",)


class Document(Protocol):
    streams: Sequence[str]

    def is_editable(self, stream: int, start: int, end: int) -> bool: ...

    def render(self, edits: Mapping[int, Sequence[Edit]]) -> bytes: ...


@dataclass(slots=True)
class PlainTextDocument:
    """A .txt or .md draft; written back in the encoding (and BOM) it came in."""

    streams: Sequence[str]
    encoding: str
    where: str

    def is_editable(self, stream: int, start: int, end: int) -> bool:
        return True

    def render(self, edits: Mapping[int, Sequence[Edit]]) -> bytes:
        text, pieces, position = self.streams[0], [], 0
        for edit in sorted(edits.get(0, ())):
            pieces += [text[position:edit.start], edit.replacement]
            position = edit.end
        pieces.append(text[position:])
        return encode_text("".join(pieces), self.encoding, self.where)


@dataclass(slots=True)
class ZippedXmlDocument:
    """A .docx or .hwpx draft: a zip whose text parts are edited in place, every other entry copied."""

    data: bytes
    part_names: Sequence[str]
    parts: Sequence[XmlTextPart]

    @property
    def streams(self) -> Sequence[str]:
        return [part.text for part in self.parts]

    def is_editable(self, stream: int, start: int, end: int) -> bool:
        return self.parts[stream].is_editable(start, end)

    def render(self, edits: Mapping[int, Sequence[Edit]]) -> bytes:
        replaced = {self.part_names[i]: self.parts[i].apply(part_edits).encode("utf-8")
                    for i, part_edits in edits.items() if part_edits}
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(self.data)) as source, zipfile.ZipFile(out, "w") as target:
            for info in source.infolist():  # same order, names, dates and compression: a stable zip
                payload = replaced.get(info.filename)
                target.writestr(info, payload if payload is not None else source.read(info.filename))
        return out.getvalue()


def read_document(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Document:
    """Read a draft, or raise the `DocumentError` that says what is wrong with it."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise UnsupportedError(f"expected one of {', '.join(SUPPORTED_SUFFIXES)}, got {path.name}")
    data = read_bytes(path, max_bytes)
    if not data.strip():
        raise EmptyError(f"expected text in {path}, got an empty file")
    if suffix in (".txt", ".md"):
        decoded = decode_text(data, str(path))
        if not decoded.text.strip():
            raise EmptyError(f"expected text in {path}, got only whitespace")
        return PlainTextDocument([decoded.text], decoded.encoding, str(path))
    patterns, fmt = (_WORD_PARTS, WORDPROCESSINGML) if suffix == ".docx" else (_HWPX_PARTS, HWPML)
    return _read_zipped(data, path, patterns, fmt, max_bytes)


def read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise TooLargeError(f"expected at most {max_bytes} bytes in {path}, got {size}")
        return path.read_bytes()
    except OSError as error:
        raise UnreadableError(f"expected a readable file at {path}, got {error.strerror or error}") from None


def _read_zipped(data: bytes, path: Path, patterns: Sequence[str], fmt: XmlTextFormat,
                 max_bytes: int) -> ZippedXmlDocument:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise CorruptError(f"expected a zip archive in {path} ({path.suffix}), got something else") from None
    with archive:
        names = [info.filename for info in archive.infolist()]
        chosen = [name for pattern in patterns for name in sorted(n for n in names if re.fullmatch(pattern, n))]
        if not chosen:
            raise CorruptError(f"expected a part matching {patterns[0]} in {path}, got {len(names)} other entries")
        parts = []
        for name in chosen:
            info = archive.getinfo(name)
            if info.file_size > max_bytes:
                raise TooLargeError(f"expected parts of at most {max_bytes} bytes in {path}, "
                                    f"got {name} of {info.file_size}")
            try:
                raw = archive.read(name)
            except (zipfile.BadZipFile, OSError, EOFError) as error:
                raise CorruptError(f"expected a readable {name} in {path}, got {error}") from None
            parts.append(XmlTextPart.scan(_checked_xml(raw, f"{path}:{name}"), fmt))
    if not any(part.text.strip() for part in parts):
        raise EmptyError(f"expected text in {path}, got none in {', '.join(chosen)}")
    return ZippedXmlDocument(data, chosen, parts)


def _checked_xml(raw: bytes, where: str) -> str:
    """The part as text, after checking it is well-formed XML without a DTD (no entity tricks)."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise EncodingError(f"expected UTF-8 XML in {where}, got an invalid byte at {error.start}") from None
    if "<!DOCTYPE" in text[:4096]:
        raise CorruptError(f"expected office XML without a DTD in {where}, got a <!DOCTYPE>")
    parser = expat.ParserCreate()
    try:
        parser.Parse(raw, True)
    except expat.ExpatError as error:
        raise CorruptError(f"expected well-formed XML in {where}, got {expat.errors.messages[error.code]} "
                           f"at line {error.lineno}, column {error.offset}") from None
    return text
