"""The last check before prose reaches a reader in `strict` and `drop` mode.

The segment machine holds and verifies what the citation automaton produced. Text the automaton
never saw (an act the lexicon lacks, a name glued to the word before it, `의3` written after a
closed `민법 제81조`) would go out as prose, and a reader would take it for a citation. The screen
runs the lenient citation finder (grammars' one definition of a citation, as `find`) over the
prose about to be released, in the context of what was released just before it and of the
citation about to follow, and withholds the prose part of every citation-shaped span that is not
exactly a verified citation. A withheld span goes out as a `CitationWithheld` with status
`unanchored` (counted in `/metrics`; a well-constrained generation never produces one). The prose on both
sides of it then meets the marker (nothing under `drop`), and is screened again as it reads so.

Holding: a citation is a citation by its number (`제766조`, `2024고단316252`, a date), so the last
word of the prose is held while it holds a digit, until the next word, citation or the end of the
answer (the whitespace after it releases nothing: `999 ` may yet be followed by `조`); a span the
finder sees reaching into the held word holds back from its start. Released prose is never taken
back: a name released before its number arrived (`…형법` then `제257조`) stays, and the number, still
pending, is what is withheld. Prose with neither a digit nor a 조 or 항 skips the finder: the
back-references without a number (`같은 조`, `동항`) end in one of those.

The finder reads what the reader sees: the prose in NFC without the characters that render as nothing
(format characters such as zero-width spaces, joiners and bidi controls, and Unicode's other
default-ignorable ones: the combining grapheme joiner, variation selectors, Hangul fillers), so
`형법 제\u200b999조`, `형법 제\u034f999조` or the same citation in decomposed Hangul, which a reader reads as
`형법 제999조`, is screened as that; a word ending the prose in a jamo or a syllable a jamo may still
complete is held, as the next delta may compose with it. What goes out is the prose as written (emoji
sequences, variation selectors, bidi marks and compatibility ideographs intact): each character the finder
reads maps back to the characters it was read from (`_Readable`), and a withheld span takes them all.

A word longer than MAX_HELD_CHARS goes out unheld: the prose after it is then screened even without a
digit of its own, as the word's number may be the start of a citation (`…형법제999` then `조가`).

Citation ids are renumbered in the order the reader sees them, since withheld spans join them.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from streaming.segments import AnswerFinished, CitationReleased, CitationWithheld, ProseReleased

logger = logging.getLogger(__name__)

ClientEvent = ProseReleased | CitationReleased | CitationWithheld | AnswerFinished
UNANCHORED: Literal["unanchored"] = "unanchored"
UNANCHORED_DETAIL = "citation-shaped text written outside the citation automaton, so never checked"
CONTEXT_CHARS = 160  # released text the finder sees before the prose it screens
MAX_HELD_CHARS = 256  # a word longer than any citation goes out (still screened)
_WHITESPACE = re.compile(r"\s")
_DIGIT = re.compile(r"\d")
# What a citation holds: a digit, or the 조/항 of a back-reference that has none (`같은 조`, `동항`)
_CITATION_MARK = re.compile(r"[\d조항]")
_LAST_WORD = re.compile(r"\S*\Z")
# Unicode's Default_Ignorable_Code_Point characters that are not format characters (category Cf, left out
# too): combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian variation selectors,
# variation selectors and their supplement; a reader sees nothing where they stand.
# What a reader reads as written, character for character (most answers): ASCII, the middle dot, Hangul
# syllables and compatibility jamo, CJK ideographs, general and CJK punctuation, circled numbers, full-width
# forms; none renders as nothing, changes under NFC or composes with a neighbour (left out: U+302A-302F,
# combining tone marks; U+3164, the Hangul filler)
_AS_WRITTEN = re.compile("[\x00-\x7f\u00b7\uac00-\ud7a3\u3131-\u3163\u3165-\u318e\u4e00-\u9fff"
                         "\u2010-\u2027\u2460-\u24ff\u3000-\u3029\u3030-\u303f\uff01-\uff5e]*")
_IGNORABLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
                        "\U000e0100-\U000e01ef]")


class Found(Protocol):
    """What the finder reports for each citation: its character span in the text searched."""

    @property
    def span(self) -> tuple[int, int]: ...


Finder = Callable[[str], Sequence[Found]]


@dataclass(frozen=True, slots=True)
class _Piece:
    """Text in the finder's window: prose (screenable) or a citation as shown (kept as it is)."""

    text: str
    protected: bool


class ProseScreen:
    """One answer's screen: `feed` the segment machine's client events in order, get what may be
    shown. `marker` stands in for a withheld span (`""` under `drop`)."""

    def __init__(self, find: Finder, marker: str) -> None:
        self._find = find
        self._marker = marker
        self._shown: list[_Piece] = []  # the end of what went out, at most CONTEXT_CHARS long
        self._shown_chars = 0  # their length
        self._pending = ""  # prose not yet released
        self._next_id = 0
        self.withheld = 0
        self._number_open = False  # what went out ends in a word holding a digit: a citation may go on

    def feed(self, event: ClientEvent) -> list[ClientEvent]:
        match event:
            case ProseReleased(text=text):
                self._pending += text
                return self._release(final=False)
            case CitationReleased() | CitationWithheld():
                shown = event.text if isinstance(event, CitationReleased) else event.marker
                verified = isinstance(event, CitationReleased) and event.status == "verified"
                citation = _Piece(shown, protected=verified)
                outputs = self._release(final=True, following=citation)
                outputs.append(replace(event, citation_id=self._take_id()))
                self._remember(citation)
                return outputs
            case AnswerFinished():
                outputs = self._release(final=True)
                outcomes = Counter(event.outcomes)
                if self.withheld:
                    outcomes[UNANCHORED] += self.withheld
                outputs.append(replace(event, outcomes=dict(outcomes)))
                return outputs
        raise TypeError(f"expected a client event, got {event!r}")

    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def _remember(self, piece: _Piece) -> None:
        if piece.text:
            self._shown.append(piece)
            last_word = _LAST_WORD.search(piece.text).group()  # type: ignore[union-attr]  # always matches
            has_digit = _DIGIT.search(last_word) is not None
            self._number_open = has_digit or (self._number_open and len(last_word) == len(piece.text))
            self._shown_chars += len(piece.text)
        while self._shown and self._shown_chars - len(self._shown[0].text) >= CONTEXT_CHARS:  # the rest is enough
            self._shown_chars -= len(self._shown.pop(0).text)

    def _release(self, *, final: bool, following: _Piece | None = None) -> list[ClientEvent]:
        pending = _Readable.of(self._pending)  # its `text` is what the finder reads of it
        cut = len(pending.text) if final else _held_from(pending.text)
        if cut == 0 and not final:
            return []
        if not _CITATION_MARK.search(pending.text) and not self._number_open:  # nothing a citation holds: none
            return self._emit(pending.written_up_to(cut), ())
        before = "".join(piece.text for piece in self._shown)
        start = len(before)  # where the pending prose begins in the window
        window = before + pending.text + (following.text if following else "")
        protected = list(_protected_spans(self._shown, following, start + len(pending.text)))
        withheld: list[tuple[int, int]] = []
        # what the finder reads, and each of its characters' place in `window`
        read, origin = window, list(range(len(window)))
        while True:
            found_before = len(withheld)
            for found in self._find(read):
                low, high = origin[found.span[0]], origin[found.span[1] - 1] + 1
                if high <= start or low >= start + len(pending.text) or any(
                    a <= low and high <= b for a, b in protected
                ):
                    continue  # outside the pending prose, or a verified citation as released
                if not final and high > start + cut:  # reaches into the held word: hold it whole
                    cut = min(cut, max(0, low - start))
                    continue
                span = (max(low, start) - start, min(high, start + len(pending.text)) - start)
                if not any(a <= span[0] and span[1] <= b for a, b in withheld):
                    withheld.append(span)
            if len(withheld) == found_before:
                break
            # Where a span is withheld the reader reads the marker, or nothing under `drop`: the prose on both
            # sides meets it (`형법 「가나법」 제1조 제750조` shows as `형법  제750조` under drop; `…2024도4202 판결민법
            # 제750조`, whose glued `판결민법` hid the citation, as `[생략]민법 제750조`), and is screened as read.
            read, origin = self._as_shown(window, [(start + low, start + high) for low, high in _merged(withheld)])
        spans = [pending.written_span(low, min(high, cut)) for low, high in _merged(withheld) if low < cut]
        return self._emit(pending.written_up_to(cut), spans)

    def _as_shown(self, window: str, withheld: Sequence[tuple[int, int]]) -> tuple[str, list[int]]:
        """`window` with the marker for each `withheld` span (sorted, apart), and each character's place in
        `window` (a marker's: its span's start)."""
        read: list[str] = []
        origin: list[int] = []
        at = 0
        for low, high in withheld:
            read += (window[at:low], self._marker)
            origin += [*range(at, low), *[low] * len(self._marker)]
            at = high
        read.append(window[at:])
        origin += range(at, len(window))
        return "".join(read), origin

    def _emit(self, prose: str, withheld: Sequence[tuple[int, int]]) -> list[ClientEvent]:
        """Releases `prose` (the start of the pending prose, as written) but its `withheld` spans."""
        self._pending = self._pending[len(prose) :]
        outputs: list[ClientEvent] = []
        at = 0
        for low, high in withheld:
            if prose[at:low]:
                outputs.append(ProseReleased(prose[at:low]))
                self._remember(_Piece(_Readable.of(prose[at:low]).text, protected=False))
            logger.info("withheld %d characters of citation-shaped prose outside the automaton", high - low)
            logger.debug("withheld unanchored text %r", prose[low:high])
            self.withheld += 1
            outputs.append(
                CitationWithheld(self._take_id(), UNANCHORED, self._marker, UNANCHORED_DETAIL)
            )
            self._remember(_Piece(self._marker, protected=False))
            at = high
        if prose[at:]:
            outputs.append(ProseReleased(prose[at:]))
            self._remember(_Piece(_Readable.of(prose[at:]).text, protected=False))
        return outputs


def _held_from(text: str) -> int:
    """Where the held end of `text` begins: its last word, with any whitespace after it, when that word
    holds a digit, or ends `text` with a character the next delta may compose with; its length otherwise,
    or past MAX_HELD_CHARS of it."""
    end = len(text)
    while end > 0 and _WHITESPACE.match(text[end - 1]):
        end -= 1
    at = end
    while at > 0 and not _WHITESPACE.match(text[at - 1]):
        at -= 1
    if len(text) - at > MAX_HELD_CHARS:
        return len(text)
    if _DIGIT.search(text, at, end) or (end == len(text) and at < end and _composes(text[end - 1])):
        return at
    return len(text)


@dataclass(frozen=True, slots=True)
class _Readable:
    """`written` as a reader reads it (`text`): without format characters (category Cf) and the other
    default-ignorable ones, then NFC, in that order (a zero-width space between two jamo keeps them apart
    until it goes, and a reader sees the syllable they make). `sources[i]` is the span of `written` that
    `text[i]` was read from: the whole run NFC read as one (`ᄒ`, `ᅧ`, `ᆼ` read as `형`, with a zero-width
    space between them if there was one)."""

    written: str
    text: str
    sources: tuple[tuple[int, int], ...] | None  # None: `text` is `written`, character for character

    @classmethod
    def of(cls, written: str) -> _Readable:
        if _AS_WRITTEN.fullmatch(written):
            return cls(written, written, None)
        runs: list[list[int]] = []  # places in `written` of the visible characters NFC reads together
        for at, char in enumerate(written):
            if _IGNORABLE.match(char) or unicodedata.category(char) == "Cf":
                continue
            if runs and _joins(written, runs[-1], char):
                runs[-1].append(at)
            else:
                runs.append([at])
        text: list[str] = []
        sources: list[tuple[int, int]] = []
        for run in runs:
            read = unicodedata.normalize("NFC", "".join(written[at] for at in run))
            text.append(read)
            sources.extend([(run[0], run[-1] + 1)] * len(read))
        return cls(written, "".join(text), tuple(sources))

    def written_up_to(self, end: int) -> str:
        """What was written before `text[end]` (all of it at the end of `text`): the characters that render
        as nothing just before a held word go out with the prose before it."""
        if end >= len(self.text):
            return self.written
        return self.written[: end if self.sources is None else self.sources[end][0]]

    def written_span(self, low: int, high: int) -> tuple[int, int]:
        """The span of `written` that `text[low:high]` (not empty) was read from."""
        return (low, high) if self.sources is None else (self.sources[low][0], self.sources[high - 1][1])


def _joins(written: str, run: list[int], char: str) -> bool:
    """Whether NFC reads `char` together with the visible characters at `run` in `written`: a combining
    mark (which it may reorder), or a character that composes with them (a jamo after a syllable or jamo)."""
    if _AS_WRITTEN.fullmatch(char):
        return False  # none composes with what is before it (tests/streaming/test_screen.py checks them all)
    if unicodedata.combining(char):
        return True
    before = "".join(written[at] for at in run)
    return unicodedata.normalize("NFC", before + char) != unicodedata.normalize(
        "NFC", before
    ) + unicodedata.normalize("NFC", char)


def _composes(char: str) -> bool:
    """A character NFC joins with a jamo after it (decomposed Hangul cut between deltas: `혀` then `ᆼ` is
    `형`): a conjoining Hangul jamo, or a syllable without a final consonant."""
    code = ord(char)
    if 0xAC00 <= code <= 0xD7A3:
        return (code - 0xAC00) % 28 == 0
    return 0x1100 <= code <= 0x11FF or 0xA960 <= code <= 0xA97F or 0xD7B0 <= code <= 0xD7FF


def _protected_spans(
    shown: Sequence[_Piece], following: _Piece | None, following_at: int
) -> Iterable[tuple[int, int]]:
    at = 0
    for piece in shown:
        if piece.protected:
            yield at, at + len(piece.text)
        at += len(piece.text)
    if following is not None and following.protected:
        yield following_at, following_at + len(following.text)


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged
