"""The running text of an office XML part (.docx `word/document.xml`, .hwpx `Contents/section0.xml`),
and edits to it that keep every byte outside the edited text.

The part is read in one pass of a real XML parser (expat through defusedxml, with DTDs, entity
declarations and external references forbidden wherever they appear) that reports the byte
position of every element, so an edit splices new character data into the original bytes. The
part is never parsed into a tree and re-serialised: a tree round trip renames namespace prefixes
and drops declarations that `mc:Ignorable` still names, which Word reports as a damaged file.
Only the character data directly inside text elements (`w:t`, `hp:t`) of runs is ever rewritten,
so run properties (`w:rPr`), bookmarks and proofing marks stay where they were; elements are
matched by namespace and local name, whatever prefix the part uses.

The text of a part is its paragraphs joined by "\n"; a tab or line break inside a run counts as
one fixed character that can be read but not edited, and so does character data that holds a
comment, CDATA section or processing instruction. An edit may span several runs of one paragraph
(a citation split by formatting): its replacement goes into the run that held most of the
citation, with that run's formatting, and the covered text of the other runs is removed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import NamedTuple
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from citegen.recite.errors import CorruptError, EncodingError


class Edit(NamedTuple):
    start: int
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class XmlTextFormat:
    """Which elements are paragraphs, runs and text, as expanded names (`{namespace}local`)."""

    paragraph: frozenset[str]
    run: frozenset[str]
    text: frozenset[str]
    fixed: Mapping[str, str]  # element inside a run -> the character it stands for
    preserve_space: bool  # whether edge spaces need xml:space="preserve" on the text element

    @classmethod
    def of(cls, namespaces: Iterable[str], paragraph: str, run: str, text: str, fixed: Mapping[str, str],
           preserve_space: bool) -> XmlTextFormat:
        spaces = tuple(namespaces)

        def names(local: str) -> frozenset[str]:
            return frozenset(f"{{{namespace}}}{local}" for namespace in spaces)

        return cls(names(paragraph), names(run), names(text),
                   {name: char for local, char in fixed.items() for name in names(local)}, preserve_space)


WORDPROCESSINGML = XmlTextFormat.of(
    ("http://schemas.openxmlformats.org/wordprocessingml/2006/main",  # transitional (what Word writes)
     "http://purl.oclc.org/ooxml/wordprocessingml/main"),  # strict
    "p", "r", "t", {"tab": "\t", "br": "\n", "cr": "\n"}, preserve_space=True)
HWPML = XmlTextFormat.of(("http://www.hancom.co.kr/hwpml/2011/paragraph",), "p", "run", "t",
                         {"tab": "\t", "lineBreak": "\n"}, preserve_space=False)

_XML_SPACE = "http://www.w3.org/XML/1998/namespace}space"  # as expat names it
# A start tag of well-formed XML, quoted attribute values included (a `>` inside one does not end it).
_START_TAG = re.compile(rb"""<[^\s/>]+(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>""")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(slots=True)
class _Piece:
    start: int  # byte offsets in the part of the raw character data (or of the fixed element)
    end: int
    text: str
    editable: bool
    paragraph: int
    open_tag: tuple[int, int] | None = None  # the enclosing text element's start tag, where it may get xml:space
    offset: int = 0  # where the piece starts in the part's text


@dataclass(slots=True)
class XmlTextPart:
    xml: bytes
    fmt: XmlTextFormat
    text: str = ""
    _pieces: list[_Piece] = field(default_factory=list)  # in text order
    _starts: list[int] = field(default_factory=list)

    @classmethod
    def scan(cls, xml: bytes, fmt: XmlTextFormat, where: str = "the part") -> XmlTextPart:
        """Read the part's text; a part that is not well-formed UTF-8 XML without a DTD is refused."""
        part = cls(xml, fmt)
        pieces = _Scanner(xml, fmt, where).pieces()
        part.text = _assign_offsets(pieces)
        part._pieces = sorted(pieces, key=lambda p: p.offset)
        part._starts = [p.offset for p in part._pieces]
        return part

    def is_editable(self, start: int, end: int) -> bool:
        """Whether [start, end) lies in editable text of one paragraph (no tab, break or paragraph end)."""
        if self._holder(start, end) is not None:
            return True
        covered = [self._pieces[i] for i in self._overlapping(start, end)]
        return (
            bool(covered)
            and all(p.editable for p in covered)
            and len({p.paragraph for p in covered}) == 1
            and sum(min(end, p.offset + len(p.text)) - max(start, p.offset) for p in covered) == end - start
        )

    def apply(self, edits: Sequence[Edit]) -> bytes:
        """The XML with `edits` made; each must satisfy `is_editable`, and they must not overlap."""
        ordered = sorted(edits, reverse=True)
        for right, left in pairwise(ordered):
            if left.end > right.start:
                raise ValueError(f"expected non-overlapping edits, got {left} and {right}")
        texts: dict[int, str] = {}
        for edit in ordered:
            holder = self._holder(edit.start, edit.end)
            if holder is not None:  # right to left: what lies before the edit in its piece is as it was read
                piece = self._pieces[holder]
                current, start, end = texts.get(holder, piece.text), edit.start - piece.offset, edit.end - piece.offset
                texts[holder] = current[:start] + edit.replacement + current[end:]
                continue
            if not self.is_editable(edit.start, edit.end):
                raise ValueError(f"expected an edit inside editable text, got {edit}")
            indexes = self._overlapping(edit.start, edit.end)
            host = max(indexes, key=lambda i: self._covered(i, edit))  # the run holding most of the span
            for position, i in enumerate(indexes):
                piece = self._pieces[i]
                current = texts.get(i, piece.text)
                head = current[: max(0, edit.start - piece.offset)] if position == 0 else ""
                tail = current[edit.end - piece.offset:] if position == len(indexes) - 1 else ""
                texts[i] = head + (edit.replacement if i == host else "") + tail
        return self._render(texts)

    def _holder(self, start: int, end: int) -> int | None:
        """The editable piece that alone covers [start, end), where one does: most citations lie inside
        one run's text."""
        if start < end and self._pieces:
            index = max(0, bisect_right(self._starts, start) - 1)
            piece = self._pieces[index]
            if piece.editable and piece.offset <= start and end <= piece.offset + len(piece.text):
                return index
        return None

    def _covered(self, index: int, edit: Edit) -> int:
        piece = self._pieces[index]
        return min(edit.end, piece.offset + len(piece.text)) - max(edit.start, piece.offset)

    def _overlapping(self, start: int, end: int) -> list[int]:
        first = max(0, bisect_right(self._starts, start) - 1)
        indexes = []
        for i in range(first, len(self._pieces)):
            piece = self._pieces[i]
            if piece.offset >= end:
                break
            if start < piece.offset + len(piece.text):
                indexes.append(i)
        return indexes

    def _render(self, texts: dict[int, str]) -> bytes:
        replacements: dict[tuple[int, int], bytes] = {}
        for i, text in texts.items():
            piece = self._pieces[i]
            replacements[(piece.start, piece.end)] = _escape(text)
            if piece.open_tag and text != text.strip():
                tag_start, tag_end = piece.open_tag
                replacements[piece.open_tag] = self.xml[tag_start:tag_end - 1] + b' xml:space="preserve">'
        out, position = [], 0
        for (start, end), new in sorted(replacements.items()):
            out.append(self.xml[position:start])
            out.append(new)
            position = end
        out.append(self.xml[position:])
        return b"".join(out)


@dataclass(slots=True)
class _Open:
    """An element the scanner is inside of."""

    tag_end: int  # byte offset just after its start tag
    empty: bool  # written as `<x/>`: expat reports its end just after that tag


# Elements whose start tag's end is never read (`_Scanner._start`): a paragraph, a run, any other.
_PARAGRAPH, _RUN, _UNREAD = _Open(-1, False), _Open(-1, False), _Open(-1, False)


class _Scanner:
    """The parser's target: collects text pieces with their byte positions as elements open and close."""

    def __init__(self, xml: bytes, fmt: XmlTextFormat, where: str) -> None:
        self._xml, self._fmt, self._where = xml, fmt, where
        self._pieces: list[_Piece] = []
        self._open: list[_Open] = []
        self._paragraphs: list[int] = []  # open paragraphs, innermost last
        self._paragraph_count = 0
        self._runs = 0
        self._text: _Open | None = None  # the text element whose own character data is being read
        self._text_tag: tuple[int, int] | None = None  # its start tag, when it may get xml:space
        self._segment_start = 0  # where the character data now being read began
        self._chunks: list[str] = []
        self._parser = DefusedXMLParser(target=self, encoding="utf-8", forbid_dtd=True, forbid_entities=True,
                                        forbid_external=True)
        # Elements straight from expat, past the pure-Python XMLParser's wrapper (a name lookup and a dict
        # of attributes per element: a third of reading a .docx); defusedxml's guards stay on the parser.
        self._expat = self._parser.parser
        self._expat.StartElementHandler, self._expat.EndElementHandler = self._start, self._end
        self._names: dict[str, str] = {}  # expat's `namespace}local` -> `{namespace}local`
        self._marked = fmt.text | fmt.fixed.keys()  # elements whose start tag's end is read

    def pieces(self) -> list[_Piece]:
        if self._xml.startswith(_UTF16_BOMS):
            raise EncodingError(f"expected UTF-8 XML in {self._where}, got UTF-16")
        try:
            self._parser.feed(self._xml)
            self._parser.close()
        except DefusedXmlException as error:
            raise CorruptError(f"expected office XML without a DTD or entity declarations in {self._where}, "
                               f"got {error} at byte {self._position()}") from None
        except ParseError as error:
            raise CorruptError(f"expected well-formed XML in {self._where}, got {error}") from None
        return self._pieces

    def _position(self) -> int:
        return self._expat.CurrentByteIndex

    def _name(self, written: str) -> str:
        name = self._names[written] = "{" + written if "}" in written else written
        return name

    # expat's handlers (ordered attributes: a list of names and values), and xml.etree's target interface.
    def _start(self, written: str, attributes: list[str]) -> None:
        name = self._names.get(written) or self._name(written)
        fmt, text = self._fmt, self._text
        if (text is None or self._open[-1] is not text) and name not in self._marked:
            # Most elements: outside text, neither text nor a fixed character, so where their start tag
            # ends is never read; at their end only a paragraph's or a run's kind is.
            if name in fmt.paragraph:
                self._open.append(_PARAGRAPH)
                self._paragraphs.append(self._paragraph_count)
                self._paragraph_count += 1
            elif name in fmt.run:
                self._open.append(_RUN)
                self._runs += 1
            else:
                self._open.append(_UNREAD)
            return
        position, in_text = self._expat.CurrentByteIndex, text is not None and self._open[-1] is text
        # Where an element's start tag ends matters only for text, a fixed character, or what is inside text.
        tag = _START_TAG.match(self._xml, position)
        if tag is None:  # expat has accepted this start tag, so the pattern must match it
            raise ValueError(f"expected a start tag at byte {position} of {self._where}")
        element = _Open(tag.end(), tag.group().endswith(b"/>"))
        if in_text:
            self._end_segment(position)
        self._open.append(element)
        in_run = self._runs > 0 and bool(self._paragraphs)
        if name in fmt.paragraph:
            self._paragraphs.append(self._paragraph_count)
            self._paragraph_count += 1
        elif name in fmt.run:
            self._runs += 1
        elif name in fmt.text and in_run and self._text is None:
            self._text, self._segment_start, self._chunks = element, element.tag_end, []
            preserve = fmt.preserve_space and _XML_SPACE not in attributes[::2]
            self._text_tag = (position, element.tag_end) if preserve else None
        elif name in fmt.fixed and in_run:
            self._pieces.append(_Piece(position, element.tag_end, fmt.fixed[name], False, self._paragraphs[-1]))

    def _end(self, written: str) -> None:
        element = self._open.pop()
        if element is _UNREAD:
            return
        if element is _PARAGRAPH:
            self._paragraphs.pop()
            return
        if element is _RUN:
            self._runs -= 1
            return
        position = self._expat.CurrentByteIndex
        if element is self._text:
            if not element.empty:
                self._end_segment(position)
            self._text = None
        elif self._open and self._open[-1] is self._text:  # a child of the text element closed
            self._segment_start = position if element.empty else self._xml.index(b">", position) + 1
            self._chunks = []
        name = self._names.get(written) or self._name(written)
        if name in self._fmt.paragraph:
            self._paragraphs.pop()
        elif name in self._fmt.run:
            self._runs -= 1

    def data(self, text: str) -> None:
        if self._open and self._open[-1] is self._text:
            self._chunks.append(text)

    def close(self) -> None:
        return None

    def _end_segment(self, end: int) -> None:
        text = "".join(self._chunks)
        if text:
            editable = b"<" not in self._xml[self._segment_start:end]  # no comment, CDATA or instruction inside
            self._pieces.append(_Piece(self._segment_start, end, text, editable, self._paragraphs[-1],
                                       self._text_tag))
        self._chunks = []


def _assign_offsets(pieces: list[_Piece]) -> str:
    """Lay the pieces out paragraph by paragraph (a nested text-box paragraph after its host)."""
    by_paragraph: dict[int, list[_Piece]] = {}
    for piece in pieces:
        by_paragraph.setdefault(piece.paragraph, []).append(piece)
    chunks: list[str] = []
    offset = 0
    for paragraph in sorted(by_paragraph):
        if chunks:
            chunks.append("\n")
            offset += 1
        for piece in by_paragraph[paragraph]:
            piece.offset = offset
            chunks.append(piece.text)
            offset += len(piece.text)
    return "".join(chunks)


def _escape(text: str) -> bytes:
    # A CR came from a `&#13;` (a raw one reads as LF): written raw, a reader would see a line feed.
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
            .encode("utf-8"))
