"""Text encodings of Korean drafts: UTF-8 (with or without BOM) and CP949 (a superset of EUC-KR).

A BOM decides. Otherwise both readings are tried, because each decodes text it was not written
in: CP949 decodes many Latin-1 and Shift-JIS byte strings (as Hanja and rare syllables), and a
CP949 draft made only of syllables such as 청, 화, 회, 카, 타 is also valid UTF-8 (as Latin
letters). A reading is weighed by the share of its non-ASCII letters that are Korean where Korean
puts them: Hangul, except directly before a Latin letter (as `M체ller` from UTF-8 `Müller`), and Hanja
(國漢文 혼용: `被告는 民法 第750條에 依하여`) where Korean writes them, a particle after a Hanja word but
hardly ever a Hanja word directly after Hangul; a misread GB2312 or Latin-1 text mixes syllables and
Hanja in any order, and then its Hanja count against it. Symbols and punctuation count for neither.
CP949 wins when its reading looks Korean and more Korean than the UTF-8 one; otherwise UTF-8 does.
When the winner does not look Korean, the loser looks Korean too, or there are too few letters to
tell, the text carries a `doubt` that sends the document to review.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citegen.recite.errors import EncodingError

_UTF8_BOM = b"\xef\xbb\xbf"
_KOREAN = 0.8  # a reading looks Korean when at least this share of its non-ASCII letters are Korean
_NOT_KOREAN = 0.5  # and the other reading is then trusted to be wrong below this share
_EVIDENCE = 8  # fewer non-ASCII letters than this decide nothing with confidence
# Non-ASCII letters: word characters that are neither digits, "_", ASCII, nor the numerals drafts
# number things with (Ⅳ, ①, ❶, ㈠, ㊀), which are not letters of either reading.
_LETTER = re.compile(r"[^\W\d_\x00-\x7f\u2150-\u218f\u2460-\u24ff\u2776-\u2793\u3220-\u3229\u3280-\u3289]")
# Hangul syllables and jamo, except directly before a Latin letter (Korean follows Latin letters
# with particles, `A는`, but a syllable inside a Latin word is a misreading, `M체ller`).
_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e\u1100-\u11ff](?![A-Za-z])")
# Runs of Hanja (CJK unified and compatibility ideographs), and those directly after Hangul.
_HANJA = re.compile(r"[\u4e00-\u9fff\uf900-\ufaff]+")
_HANJA_AFTER_HANGUL = re.compile(r"(?<=[\uac00-\ud7a3\u3131-\u318e\u1100-\u11ff])[\u4e00-\u9fff\uf900-\ufaff]")
# Hanja are Korean where at most this share of their runs follow Hangul directly (`및同法`, a typo); a
# misread GB2312 text has some 40 % of them there.
_HANJA_AFTER_HANGUL_MOST = 0.1


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    encoding: str  # "utf-8", "utf-8-sig" or "cp949"
    doubt: str | None = None  # why the encoding is a guess a reviewer should check


@dataclass(frozen=True, slots=True)
class _Reading:
    encoding: str
    text: str
    letters: int  # non-ASCII letters
    korean: int  # of them, Hangul and Hanja where Korean writes them

    @classmethod
    def of(cls, encoding: str, text: str) -> _Reading:
        return cls(encoding, text, _count(_LETTER, text), _count(_HANGUL, text) + _korean_hanja(text))

    @property
    def share(self) -> float:
        return self.korean / self.letters if self.letters else 1.0

    def describe(self) -> str:
        return f"{self.korean} of {self.letters} non-ASCII letters Korean (Hangul or Hanja) as {self.encoding}"


def decode_text(data: bytes, where: str) -> DecodedText:
    """Decode a draft's bytes; `where` names the file in the error."""
    if b"\x00" in data:
        raise EncodingError(f"expected text in UTF-8 or CP949 in {where}, got NUL bytes (a binary file or UTF-16)")
    if data.startswith(_UTF8_BOM):
        return DecodedText(_strict(data[len(_UTF8_BOM):], "utf-8", where), "utf-8-sig")
    utf8, cp949 = _decoded(data, "utf-8"), _decoded(data, "cp949")
    if cp949 is None:
        if utf8 is None:
            raise EncodingError(f"expected text in UTF-8 or CP949 in {where}, got bytes invalid in both "
                                f"(first CP949 error at byte {_first_error(data, 'cp949')})")
        return DecodedText(utf8, "utf-8")
    legacy = _Reading.of("cp949", cp949)
    if utf8 is None:
        if legacy.share < _KOREAN:
            raise EncodingError(f"expected Korean text in UTF-8 or CP949 in {where}, got bytes that decode as "
                                f"CP949 only to unlikely characters ({legacy.describe()}; another legacy encoding?)")
        return DecodedText(cp949, "cp949")
    if utf8 == cp949:  # ASCII
        return DecodedText(utf8, "utf-8")
    modern = _Reading.of("utf-8", utf8)
    cp949_wins = legacy.share > modern.share and legacy.share >= _KOREAN
    winner, loser = (legacy, modern) if cp949_wins else (modern, legacy)
    confident = winner.share >= _KOREAN and loser.share < _NOT_KOREAN and winner.letters >= _EVIDENCE
    doubt = None if confident else (f"read as {winner.encoding.upper()}, but its bytes are valid in both UTF-8 "
                                    f"and CP949 ({winner.describe()}, {loser.describe()}): check the encoding")
    return DecodedText(winner.text, winner.encoding, doubt)


def encode_text(text: str, encoding: str, where: str) -> bytes:
    """Encode back into the document's own encoding; a character it cannot hold is an error."""
    try:
        encoded = text.encode("utf-8" if encoding == "utf-8-sig" else encoding)
    except UnicodeEncodeError as error:
        raise EncodingError(
            f"expected text encodable in {encoding} for {where}, got {text[error.start:error.end]!r}"
        ) from None
    return _UTF8_BOM + encoded if encoding == "utf-8-sig" else encoded


def _korean_hanja(text: str) -> int:
    """How many Hanja `text` holds where mixed Korean script writes them (all of them), or 0 when too
    many of its Hanja words follow Hangul directly for Korean."""
    runs = len(_HANJA.findall(text))
    if not runs or len(_HANJA_AFTER_HANGUL.findall(text)) > _HANJA_AFTER_HANGUL_MOST * runs:
        return 0
    return _count(_HANJA, text)


def _count(pattern: re.Pattern[str], text: str) -> int:
    """How many characters `pattern` matches, counted in C (a draft can hold millions)."""
    return len(text) - len(pattern.sub("", text))


def _decoded(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def _first_error(data: bytes, encoding: str) -> int:
    try:
        data.decode(encoding)
    except UnicodeDecodeError as error:
        return error.start
    return len(data)


def _strict(data: bytes, encoding: str, where: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise EncodingError(
            f"expected {encoding} in {where} (it has a BOM), got an invalid byte at {error.start}"
        ) from None
