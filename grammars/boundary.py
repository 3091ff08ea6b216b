"""Where a citation may begin: at a word boundary, defined once for the finder and the automaton.

A citation (and an anchor, the start that obliges one) counts only at the start of the text or right
after a character that is not a word character. Word characters are Hangul syllables and jamo, Latin
letters and ASCII digits, so `군형법 제100조` holds no `형법` citation and `서울대법원 2020. …` no
`대법원` one, while a space, punctuation, `「`, `(` or a line break before a citation lets it count.
Nothing is required after a citation: particles follow it directly (`민법 제750조에`).

The finder uses `NOT_AFTER_WORD`, a regex lookbehind. The byte automaton cannot look behind, so it
carries a `WordClass` through free text: the class of the last character read, or the bytes read of
a character still incomplete (a byte-level token may end inside one). Malformed UTF-8 counts as a
non-word character, as Python's `decode(errors="replace")` turns it into U+FFFD.
"""

from __future__ import annotations

import re

# Middle dots, inside names (`국가보훈ㆍ보훈처`, `한·중 조세조약`) and dates (`10ㆍ27`): the official ㆍ (U+318D)
# first, then what drafts write for it: ·, ‧, ・, and what text converted from HWP documents has: ᆞ (U+119E, the
# Hangul vowel arae-a: `남녀고용평등과 일ᆞ가정 양립 지원에 관한 법률`, a labour lawyer's blog) and U+2024 (the one
# dot leader, between `2001헌가9~15` and `2004헌가5` on a lawyers' association's page).
MIDDLE_DOTS = "ㆍ·‧・ᆞ\u2024"

# Inclusive code point ranges of word characters.
WORD_RANGES: tuple[tuple[int, int], ...] = (
    (0x30, 0x39),  # ASCII digits
    (0x41, 0x5A),  # A-Z
    (0x61, 0x7A),  # a-z
    (0xC0, 0xD6),  # Latin-1 letters (× U+00D7 and ÷ U+00F7 are not)
    (0xD8, 0xF6),
    (0xF8, 0x24F),  # Latin-1 letters, Latin Extended-A and -B
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x3130, 0x318F),  # Hangul Compatibility Jamo (ㄱ, ㅏ, and ㆍ of `국가보훈ㆍ보훈처`)
    (0xA960, 0xA97F),  # Hangul Jamo Extended-A
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0xD7B0, 0xD7FF),  # Hangul Jamo Extended-B
)

NOT_AFTER_WORD = "(?<![" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in WORD_RANGES) + "])"

_SHORTEST_OF_LENGTH = {1: 0, 2: 0x80, 3: 0x800, 4: 0x10000}  # below it an encoding is overlong
_LAST_CODE_POINT = 0x10FFFF


def is_word_char(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in WORD_RANGES)


def _encoded_length(lead: int) -> int:
    """The length of the UTF-8 sequence a lead byte opens; 0 for a byte that opens none."""
    if lead < 0x80:
        return 1
    if 0xC0 <= lead < 0xE0:
        return 2
    if 0xE0 <= lead < 0xF0:
        return 3
    if 0xF0 <= lead < 0xF8:
        return 4
    return 0


# A WordClass is one of
#   BOUNDARY                the last character read is not a word character (or nothing was read);
#   WORD                    it is a word character;
#   (remaining, is_word)    inside a character whose class is already known, `remaining` bytes to go;
#   (remaining, prefix)     inside a character whose class its remaining bytes decide.
# Characters whose class is settled by their first bytes share states, so free text has a few
# classes (about twenty), never one per partial Hangul syllable.
BOUNDARY = "boundary"
WORD = "word"
WordClass = str | tuple[int, bool] | tuple[int, bytes]


def _class_of_prefix(prefix: bytes, length: int) -> WordClass:
    remaining = length - len(prefix)
    if remaining == 0:
        try:
            char = prefix.decode()
        except UnicodeDecodeError:
            return BOUNDARY
        return WORD if is_word_char(char) else BOUNDARY
    payload_bits = 6 * remaining
    lead_mask = (0x7F, 0x1F, 0x0F, 0x07)[length - 1]
    value = prefix[0] & lead_mask
    for byte in prefix[1:]:
        value = (value << 6) | (byte & 0x3F)
    low, high = value << payload_bits, ((value + 1) << payload_bits) - 1
    if any(a <= low and high <= b for a, b in WORD_RANGES) and low >= _SHORTEST_OF_LENGTH[length]:
        return (remaining, True)
    # Only well-formed completions can be word characters: overlong and too large ones are not.
    low, high = max(low, _SHORTEST_OF_LENGTH[length]), min(high, _LAST_CODE_POINT)
    if all(high < a or b < low for a, b in WORD_RANGES):
        return (remaining, False)
    return (remaining, prefix)


def _class_from_start(byte: int) -> WordClass:
    length = _encoded_length(byte)
    if length == 0:  # a stray continuation byte or an invalid one
        return BOUNDARY
    return _class_of_prefix(bytes((byte,)), length)


def step_word_class(current: WordClass, byte: int) -> tuple[bool, WordClass]:
    """(whether a citation may begin right before `byte`, the class after it)."""
    if isinstance(current, tuple) and 0x80 <= byte < 0xC0:
        remaining, known = current
        if isinstance(known, bytes):
            return False, _class_of_prefix(known + bytes((byte,)), len(known) + remaining)
        if remaining == 1:
            return False, WORD if known else BOUNDARY
        return False, (remaining - 1, known)
    # An unfinished character cut off by this byte is malformed: a non-word character.
    return current != WORD, _class_from_start(byte)
