"""The running text of an office XML part (.docx `word/document.xml`, .hwpx `Contents/section0.xml`),
and edits to it that keep every byte outside the edited text elements.

The part is scanned, not parsed into a tree and re-serialised: a tree round trip renames
namespace prefixes and drops declarations that `mc:Ignorable` still names, which Word reports
as a damaged file. Only the character data of text elements (`w:t`, `hp:t`) inside runs is ever
rewritten, so run properties (`w:rPr`), bookmarks and proofing marks stay where they were.

The text of a part is its paragraphs joined by "\n"; a tab or line break inside a run counts as
one fixed character that can be read but not edited. An edit may span several runs of one
paragraph (a citation split by formatting): its replacement goes into the run that held most of
the citation, with that run's formatting, and the covered text of the other runs is removed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import NamedTuple


class Edit(NamedTuple):
    start: int
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class XmlTextFormat:
    paragraph: str
    run: str
    text: str
    fixed: Mapping[str, str]  # element inside a run -> the character it stands for
    preserve_space: bool  # whether edge spaces need xml:space="preserve" on the text element


WORDPROCESSINGML = XmlTextFormat("w:p", "w:r", "w:t", {"w:tab": "\t", "w:br": "\n", "w:cr": "\n"}, True)
HWPML = XmlTextFormat("hp:p", "hp:run", "hp:t", {"hp:tab": "\t", "hp:lineBreak": "\n"}, False)

# Comments, processing instructions and CDATA first, so a `<` inside them is not read as a tag.
_TOKEN = re.compile(r"<!--.*?-->|<!\[CDATA\[(?P<cdata>.*?)\]\]>|<\?.*?\?>|<(?P<close>/?)(?P<name>[^\s/>!?]+)[^>]*?(?P<empty>/?)>",
                    re.DOTALL)
_ENTITY = re.compile(r"&(?:#(\d+)|#x([0-9a-fA-F]+)|(lt|gt|amp|quot|apos));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


@dataclass(slots=True)
class _Piece:
    start: int  # offsets in the XML of the raw character data (or of the fixed element)
    end: int
    text: str
    editable: bool
    paragraph: int
    open_tag: tuple[int, int] | None = None  # the enclosing text element's start tag
    offset: int = 0  # where the piece starts in the part's text


@dataclass(slots=True)
class XmlTextPart:
    xml: str
    fmt: XmlTextFormat
    text: str = ""
    _pieces: list[_Piece] = field(default_factory=list)  # in text order
    _starts: list[int] = field(default_factory=list)

    @classmethod
    def scan(cls, xml: str, fmt: XmlTextFormat) -> XmlTextPart:
        part = cls(xml, fmt)
        pieces = _scan(xml, fmt)
        part.text = _assign_offsets(pieces)
        part._pieces = sorted(pieces, key=lambda p: p.offset)
        part._starts = [p.offset for p in part._pieces]
        return part

    def is_editable(self, start: int, end: int) -> bool:
        """Whether [start, end) lies in editable text of one paragraph (no tab, break or paragraph end)."""
        covered = [self._pieces[i] for i in self._overlapping(start, end)]
        return (
            bool(covered)
            and all(p.editable for p in covered)
            and len({p.paragraph for p in covered}) == 1
            and sum(min(end, p.offset + len(p.text)) - max(start, p.offset) for p in covered) == end - start
        )

    def apply(self, edits: Sequence[Edit]) -> str:
        """The XML with `edits` made; each must satisfy `is_editable`, and they must not overlap."""
        ordered = sorted(edits, reverse=True)
        for right, left in pairwise(ordered):
            if left.end > right.start:
                raise ValueError(f"expected non-overlapping edits, got {left} and {right}")
        texts: dict[int, str] = {}
        for edit in ordered:
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

    def _render(self, texts: dict[int, str]) -> str:
        replacements: dict[tuple[int, int], str] = {}
        for i, text in texts.items():
            piece = self._pieces[i]
            replacements[(piece.start, piece.end)] = _escape(text)
            if self.fmt.preserve_space and piece.open_tag and text != text.strip():
                tag_start, tag_end = piece.open_tag
                tag = self.xml[tag_start:tag_end]
                if "xml:space" not in tag:
                    replacements[piece.open_tag] = tag[:-1] + ' xml:space="preserve">'
        out, position = [], 0
        for (start, end), new in sorted(replacements.items()):
            out.append(self.xml[position:start])
            out.append(new)
            position = end
        out.append(self.xml[position:])
        return "".join(out)


def _scan(xml: str, fmt: XmlTextFormat) -> list[_Piece]:
    pieces: list[_Piece] = []
    open_paragraphs: list[int] = []
    paragraph_count = 0
    run_depth = 0
    text_tag: tuple[int, int] | None = None
    position = 0
    for token in _TOKEN.finditer(xml):
        in_text = text_tag is not None and run_depth > 0 and bool(open_paragraphs)
        if in_text and token.start() > position:
            raw = xml[position:token.start()]
            pieces.append(_Piece(position, token.start(), _unescape(raw), True, open_paragraphs[-1], text_tag))
        position = token.end()
        name = token["name"]
        if token["cdata"] is not None:
            if in_text and token["cdata"]:
                pieces.append(_Piece(token.start(), token.end(), token["cdata"], False, open_paragraphs[-1]))
        elif name is None:
            continue
        elif token["close"]:
            if name == fmt.paragraph and open_paragraphs:
                open_paragraphs.pop()
            elif name == fmt.run:
                run_depth = max(0, run_depth - 1)
            elif name == fmt.text:
                text_tag = None
        elif token["empty"]:
            if name in fmt.fixed and run_depth > 0 and open_paragraphs:
                pieces.append(_Piece(token.start(), token.end(), fmt.fixed[name], False, open_paragraphs[-1]))
        elif name == fmt.paragraph:
            open_paragraphs.append(paragraph_count)
            paragraph_count += 1
        elif name == fmt.run:
            run_depth += 1
        elif name == fmt.text:
            text_tag = (token.start(), token.end())
    return pieces


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


def _unescape(raw: str) -> str:
    if "&" not in raw:
        return raw

    def replace(match: re.Match[str]) -> str:
        decimal, hexadecimal, named = match.groups()
        if named:
            return _NAMED[named]
        return chr(int(decimal) if decimal else int(hexadecimal, 16))

    return _ENTITY.sub(replace, raw)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
