"""Reasoning spans (`<think>` … `</think>`) kept out of what a reader sees.

The citation automaton does not constrain text between a bypass pair, so a citation written there
was never checked; the segment machine removes those spans from the prose, whatever the policy.
Markers may arrive split across deltas (`<thi` + `nk>`), so the end of the text that may still
become a marker is held until the next delta says.
"""

from __future__ import annotations

from collections.abc import Sequence

from streaming.errors import ConfigurationError


def _held_marker_prefix(text: str, markers: Sequence[str]) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of one of `markers`."""
    longest = max((len(marker) for marker in markers), default=1)
    for start in range(max(0, len(text) - longest + 1), len(text)):
        if any(marker.startswith(text[start:]) for marker in markers):
            return len(text) - start
    return 0


class BypassFilter:
    """Prose in, prose without bypass spans out; one per answer."""

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        for pair in pairs:
            if len(pair) != 2 or not all(pair):
                raise ConfigurationError(f"expected bypass pairs of two non-empty markers, got {pair!r}")
        self._closers = dict(pairs)
        self._closing: str | None = None  # the marker that ends the span we are in
        self._pending = ""  # text that may still turn out to be (part of) a marker
        self.removed = 0  # characters of bypass spans taken out, markers included

    def feed(self, text: str) -> str:
        text, self._pending = self._pending + text, ""
        visible: list[str] = []
        while text:
            if self._closing is None:
                found = [(text.find(opener), opener) for opener in self._closers if opener in text]
                if not found:
                    held = _held_marker_prefix(text, list(self._closers))
                    visible.append(text[: len(text) - held])
                    self._pending = text[len(text) - held :]
                    break
                at, opener = min(found)
                visible.append(text[:at])
                self._closing = self._closers[opener]
                self.removed += len(opener)
                text = text[at + len(opener) :]
            else:
                at = text.find(self._closing)
                if at < 0:
                    held = _held_marker_prefix(text, [self._closing])
                    self.removed += len(text) - held
                    self._pending = text[len(text) - held :]
                    break
                self.removed += at + len(self._closing)
                text = text[at + len(self._closing) :]
                self._closing = None
        return "".join(visible)

    def flush(self) -> str:
        """At the end of the answer: a held partial marker outside a span was plain text."""
        rest, self._pending = self._pending, ""
        if self._closing is not None:
            self.removed += len(rest)
            return ""
        return rest
