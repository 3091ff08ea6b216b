"""Drafts as text streams to search, and the same drafts written back with edits.

A `Document` exposes its text as one or more streams in reading order (a .txt/.md file is one;
a .docx has its body, then footnotes, endnotes, headers and footers; a .hwpx its sections) and
renders itself, edited, in its own format and encoding. Reading checks everything a bad input
can get wrong, so that a later failure is a bug, not the input's fault.

One limit (`max_bytes`) bounds a document's memory: the file itself, and for a .docx/.hwpx the
sizes its text parts unpack to, together (checked on the archive's stated sizes, before anything
is unpacked; zipfile holds an entry to its stated size). The other entries are never held: the
output copies them one chunk at a time, and together they may unpack to `ARCHIVE_EXPANSION` times
the limit, so a zip bomb in a picture costs bounded time too. An archive may hold at most
`MAX_ENTRIES` entries, checked on its end record before zipfile lists them.

Parts are read in the document's order: a .hwpx's sections as its manifest's spine lists them
(`Contents/content.hpf`), else, like a .docx's headers and footers, by the numbers in their names
(section2 before section10): `같은 법` resolves against the citations before it.
"""

from __future__ import annotations

import io
import os
import posixpath
import re
import shutil
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as parse_xml

from citegen.recite.encodings import decode_text, encode_text
from citegen.recite.errors import (
    CorruptError,
    EmptyError,
    TooLargeError,
    UnreadableError,
    UnsupportedError,
)
from citegen.recite.limits import ARCHIVE_EXPANSION, DEFAULT_MAX_BYTES
from citegen.recite.xmltext import HWPML, WORDPROCESSINGML, Edit, XmlTextFormat, XmlTextPart

SUPPORTED_SUFFIXES = (".txt", ".md", ".docx", ".hwpx")
_COPY_CHUNK = 1 << 20
# An office document holds tens of entries, a few thousand with many pictures; listing an archive
# of hundreds of thousands of empty entries would cost hundreds of MB before any check.
MAX_ENTRIES = 10_000
_END_RECORD_SEARCH = 22 + 0xFFFF  # the end-of-central-directory record and its longest comment

# Parts whose text is read, in reading order; the body first, so back-references in it resolve
# against the body's own earlier citations.
_WORD_PARTS = (r"word/document\.xml", r"word/footnotes\.xml", r"word/endnotes\.xml",
               r"word/header\d*\.xml", r"word/footer\d*\.xml")
_HWPX_PARTS = (r"Contents/section\d+\.xml",)
_HWPX_MANIFEST = "Contents/content.hpf"  # an OPF package document: `manifest` items, `spine` itemrefs
_DIGITS = re.compile(r"(\d+)")


class Document(Protocol):
    @property
    def streams(self) -> Sequence[str]: ...

    @property
    def encoding(self) -> str | None: ...  # of a plain-text draft: written back in it; None for XML parts

    @property
    def doubts(self) -> Sequence[str]: ...  # what about reading it a reviewer should check (a guessed encoding)

    def is_editable(self, stream: int, start: int, end: int) -> bool: ...

    def render(self, edits: Mapping[int, Sequence[Edit]]) -> bytes: ...


@dataclass(slots=True)
class PlainTextDocument:
    """A .txt or .md draft; written back in the encoding (and BOM) it came in."""

    streams: Sequence[str]
    encoding: str
    where: str
    doubts: Sequence[str] = ()

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
    where: str
    part_names: Sequence[str]
    parts: Sequence[XmlTextPart]
    encoding: None = None  # each part is UTF-8 XML
    doubts: Sequence[str] = ()

    @property
    def streams(self) -> Sequence[str]:
        return [part.text for part in self.parts]

    def is_editable(self, stream: int, start: int, end: int) -> bool:
        return self.parts[stream].is_editable(start, end)

    def render(self, edits: Mapping[int, Sequence[Edit]]) -> bytes:
        replaced = {self.part_names[i]: self.parts[i].apply(part_edits)
                    for i, part_edits in edits.items() if part_edits}
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(self.data)) as source, zipfile.ZipFile(out, "w") as target:
            for info in source.infolist():  # same order, names, dates and compression: a stable zip
                payload = replaced.get(info.filename)
                if payload is not None:
                    target.writestr(info, payload)
                    continue
                try:
                    with source.open(info) as entry, target.open(info, "w") as copy:  # streamed, not held
                        shutil.copyfileobj(entry, copy, _COPY_CHUNK)
                except (zipfile.BadZipFile, OSError, EOFError) as error:
                    raise CorruptError(f"expected a readable {info.filename} in {self.where}, got {error}") from None
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
        return PlainTextDocument([decoded.text], decoded.encoding, str(path),
                                 (decoded.doubt,) if decoded.doubt else ())
    patterns, fmt = (_WORD_PARTS, WORDPROCESSINGML) if suffix == ".docx" else (_HWPX_PARTS, HWPML)
    return _read_zipped(data, path, patterns, fmt, max_bytes)


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes; a link in the last component is not followed (the caller resolved the path)."""
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > max_bytes:
                raise TooLargeError(f"expected at most {max_bytes} bytes in {path}, got {size}")
            data = stream.read(max_bytes + 1)
    except OSError as error:
        raise UnreadableError(f"expected a readable file at {path}, got {error.strerror or error}") from None
    if len(data) > max_bytes:  # it grew since fstat
        raise TooLargeError(f"expected at most {max_bytes} bytes in {path}, got more")
    return data


def _read_zipped(data: bytes, path: Path, patterns: Sequence[str], fmt: XmlTextFormat,
                 max_bytes: int) -> ZippedXmlDocument:
    stated = _stated_entry_count(data)
    if stated is not None and stated > MAX_ENTRIES:
        raise TooLargeError(f"expected at most {MAX_ENTRIES} entries in {path}, got {stated}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise CorruptError(f"expected a zip archive in {path} ({path.suffix}), got something else") from None
    with archive:
        entries = archive.infolist()
        names = [info.filename for info in entries]
        chosen = [name for pattern in patterns
                  for name in sorted((n for n in names if re.fullmatch(pattern, n)), key=_natural_key)]
        if not chosen:
            raise CorruptError(f"expected a part matching {patterns[0]} in {path}, got {len(names)} other entries")
        _check_expanded_sizes(path, entries, chosen, max_bytes)
        if _HWPX_MANIFEST in names:  # its size is bounded by the check above, with every entry's
            chosen = _in_spine_order(archive, chosen)
        parts = []
        for name in chosen:
            try:
                raw = archive.read(name)
            except (zipfile.BadZipFile, OSError, EOFError) as error:
                raise CorruptError(f"expected a readable {name} in {path}, got {error}") from None
            parts.append(XmlTextPart.scan(raw, fmt, f"{path}:{name}"))
    if not any(part.text.strip() for part in parts):
        raise EmptyError(f"expected text in {path}, got none in {', '.join(chosen)}")
    return ZippedXmlDocument(data, str(path), chosen, parts)


def _natural_key(name: str) -> list[str | int]:
    """`name` with its runs of digits as numbers: section2 sorts before section10."""
    return [int(piece) if piece.isdigit() else piece for piece in _DIGITS.split(name)]


def _in_spine_order(archive: zipfile.ZipFile, parts: Sequence[str]) -> list[str]:
    """`parts` (in natural order) as the .hwpx manifest's spine orders them, those it does not list last;
    as given when the manifest cannot be read (it is not text the batch edits)."""
    try:
        package = parse_xml(archive.read(_HWPX_MANIFEST), forbid_dtd=True)
    except (zipfile.BadZipFile, OSError, EOFError, ParseError, DefusedXmlException):
        return list(parts)
    hrefs: dict[str, str] = {}
    spine: list[str] = []
    for element in package.iter():
        local = element.tag.rpartition("}")[2]
        if local == "item" and element.get("id") and element.get("href"):
            hrefs[element.get("id", "")] = element.get("href", "")
        elif local == "itemref" and element.get("idref"):
            spine.append(element.get("idref", ""))
    position: dict[str, int] = {}
    for index, idref in enumerate(spine):
        href = hrefs.get(idref, "")
        # Hancom writes hrefs from the package's root; OPF reads them from the manifest's folder.
        for name in (href, posixpath.normpath(posixpath.join(posixpath.dirname(_HWPX_MANIFEST), href))):
            position.setdefault(name, index)
    return sorted(parts, key=lambda name: position.get(name, len(spine)))  # stable: the rest stay in order


def _stated_entry_count(data: bytes) -> int | None:
    """How many entries the archive's end record says it holds (read before zipfile lists them all,
    which costs some 600 bytes of memory per entry); None when there is no end record to read."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - _END_RECORD_SEARCH))
    if end < 0 or end + 12 > len(data):
        return None
    return int.from_bytes(data[end + 10:end + 12], "little")  # 0xFFFF: a zip64 count, more than allowed


def _check_expanded_sizes(path: Path, entries: Sequence[zipfile.ZipInfo], text_parts: Sequence[str],
                          max_bytes: int) -> None:
    """Refuse an archive before unpacking anything when its text parts together, or all its entries
    together, would unpack to more than the limits. The sizes are the archive's own claims, and they
    hold: zipfile stops reading an entry at its stated size (and fails its CRC if there is more)."""
    chosen = set(text_parts)
    text = sum(info.file_size for info in entries if info.filename in chosen)
    if text > max_bytes:
        largest = max((info for info in entries if info.filename in chosen), key=lambda info: info.file_size)
        raise TooLargeError(f"expected text parts of at most {max_bytes} bytes in all in {path}, got {text} in "
                            f"{len(chosen)} parts (the largest {largest.filename} of {largest.file_size})")
    total = sum(info.file_size for info in entries)
    if total > ARCHIVE_EXPANSION * max_bytes:
        raise TooLargeError(f"expected entries of at most {ARCHIVE_EXPANSION * max_bytes} bytes in all in {path} "
                            f"({ARCHIVE_EXPANSION} × the limit), got {total} in {len(entries)} entries")
