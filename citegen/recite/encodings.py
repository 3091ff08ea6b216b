"""Text encodings of Korean drafts: UTF-8 (with or without BOM) and CP949 (a superset of EUC-KR).

Detection is strict decoding in that order plus a plausibility check, because CP949 decodes
many non-Korean byte strings without an error: Latin-1 or Shift-JIS text read as CP949 comes out
as Hanja and rare symbols, which real Korean drafts hardly contain.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from citegen.recite.errors import EncodingError

_UTF8_BOM = b"\xef\xbb\xbf"
# A CP949 reading is rejected when more than this share of its non-ASCII characters are neither
# Hangul nor common punctuation: a mis-detected Latin-1 or Shift-JIS file reads as Hanja soup.
_MAX_UNLIKELY_SHARE = 0.2


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    encoding: str  # "utf-8", "utf-8-sig" or "cp949"


def decode_text(data: bytes, where: str) -> DecodedText:
    """Decode a draft's bytes; `where` names the file in the error."""
    if b"\x00" in data:
        raise EncodingError(f"expected text in UTF-8 or CP949 in {where}, got NUL bytes (a binary file or UTF-16)")
    if data.startswith(_UTF8_BOM):
        return DecodedText(_strict(data[len(_UTF8_BOM):], "utf-8", where), "utf-8-sig")
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp949")
    except UnicodeDecodeError as error:
        raise EncodingError(
            f"expected text in UTF-8 or CP949 in {where}, got bytes invalid in both "
            f"(first CP949 error at byte {error.start})"
        ) from None
    if _unlikely_share(text) > _MAX_UNLIKELY_SHARE:
        raise EncodingError(
            f"expected Korean text in UTF-8 or CP949 in {where}, got bytes that decode as CP949 "
            "only to unlikely characters (another legacy encoding?)"
        )
    return DecodedText(text, "cp949")


def encode_text(text: str, encoding: str, where: str) -> bytes:
    """Encode back into the document's own encoding; a character it cannot hold is an error."""
    try:
        encoded = text.encode("utf-8" if encoding == "utf-8-sig" else encoding)
    except UnicodeEncodeError as error:
        raise EncodingError(
            f"expected text encodable in {encoding} for {where}, got {text[error.start:error.end]!r}"
        ) from None
    return _UTF8_BOM + encoded if encoding == "utf-8-sig" else encoded


def _strict(data: bytes, encoding: str, where: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise EncodingError(f"expected {encoding} in {where} (it has a BOM), got an invalid byte at {error.start}") from None


def _unlikely_share(text: str) -> float:
    non_ascii = [ch for ch in text if ord(ch) > 0x7F]
    if not non_ascii:
        return 0.0
    unlikely = sum(1 for ch in non_ascii if not _is_likely_korean_text(ch))
    return unlikely / len(non_ascii)


def _is_likely_korean_text(ch: str) -> bool:
    if "\uac00" <= ch <= "\ud7a3" or "\u3131" <= ch <= "\u318e":  # Hangul syllables and jamo
        return True
    # punctuation, spaces, symbols and numbers (「」, ㆍ, ①, ‘’) are common in drafts; Hanja is not
    return unicodedata.category(ch)[0] in "PZSN"
