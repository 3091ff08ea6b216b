"""A `Regex` leaf of the byte-level NFA (grammars.nfa): interegular's character FSM with every character
class expanded into UTF-8 byte sequences, so Hangul (3 bytes) and tokens holding part of a character are
exact; and the regex subset the compiler accepts (`check_pattern`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import interegular
from interegular.fsm import anything_else

from grammars.errors import UnsupportedPatternError

MAX_CODE_POINT = 0x10FFFF

# Features the compiler rejects, with the reason shown to the grammar author. `\d`, `\w`, `\s` mean
# Unicode classes to Python's `re` but ASCII to interegular: rejected so parse and mask never disagree.
_UNSUPPORTED = (
    (re.compile(r"\\[1-9]"), "a backreference"),
    (re.compile(r"\(\?[=!]"), "a lookahead"),
    (re.compile(r"\(\?<[=!]"), "a lookbehind"),
    (re.compile(r"\(\?P?<[A-Za-z_]"), "a named group (use Capture)"),
    (re.compile(r"\(\?P="), "a named backreference"),
    (re.compile(r"\(\?>"), "an atomic group"),
    (re.compile(r"\(\?[aiLmsux-]"), "an inline flag"),
    (re.compile(r"\\[bBAZz]"), "an anchor"),
    (re.compile(r"\\[dDwWsS]"), "a Unicode shorthand class (write [0-9] or a bracket class)"),
    (re.compile(r"[*+?}]\+"), "a possessive quantifier"),
    (re.compile(r"[\^$]"), "an anchor (^ or $)"),
)


def check_pattern(pattern: str) -> None:
    """Raise UnsupportedPatternError naming the first feature outside the compiled subset."""
    position = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "[":  # inside a class `^` means negation and is fine; skip the class
            end = position + 1
            if end < len(pattern) and pattern[end] == "^":
                end += 1
            if end < len(pattern) and pattern[end] == "]":
                end += 1
            while end < len(pattern) and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            position = end + 1
            continue
        for rule, feature in _UNSUPPORTED:
            if rule.match(pattern, position):
                raise UnsupportedPatternError(
                    f"expected a regex without {feature}, got {pattern!r} with it at position {position}"
                )
        position += 2 if char == "\\" else 1


def utf8_byte_ranges(low: int, high: int) -> list[tuple[tuple[int, int], ...]]:
    """The UTF-8 encodings of code points low..high as sequences of byte ranges (surrogates skipped).

    Every sequence is a tuple of (first byte, last byte) per position; the union of their products is
    exactly the set of encodings (the construction of Rust's regex-syntax `Utf8Sequences`).
    """
    out: list[tuple[tuple[int, int], ...]] = []
    pending = [(low, high)]
    while pending:
        low, high = pending.pop()
        if low > high:
            continue
        if low <= 0xDFFF and high >= 0xD800:
            pending += [(low, 0xD7FF), (0xE000, high)]
            continue
        boundary = next((m for m in (0x7F, 0x7FF, 0xFFFF) if low <= m < high), None)
        if boundary is not None:
            pending += [(low, boundary), (boundary + 1, high)]
            continue
        if high <= 0x7F:
            out.append(((low, high),))
            continue
        split = None
        for i in range(1, len(chr(low).encode())):
            mask = (1 << (6 * i)) - 1
            if low & ~mask != high & ~mask:
                if low & mask:
                    split = (low | mask, (low | mask) + 1)
                elif high & mask != mask:
                    split = ((high & ~mask) - 1, high & ~mask)
                if split:
                    break
        if split:
            pending += [(low, split[0]), (split[1], high)]
            continue
        out.append(tuple(zip(chr(low).encode(), chr(high).encode(), strict=True)))
    return sorted(out)


def _code_point_ranges(chars: Iterable[str]) -> list[tuple[int, int]]:
    points = sorted({ord(c) for c in chars})
    ranges: list[tuple[int, int]] = []
    for p in points:
        if ranges and ranges[-1][1] == p - 1:
            ranges[-1] = (ranges[-1][0], p)
        else:
            ranges.append((p, p))
    return ranges


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out, start = [], 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return out


class RegexLeaf:
    """A regex as a small byte-level NFA: interegular's states plus intermediate UTF-8 states."""

    __slots__ = ("edges", "finals", "nullable", "start")

    def __init__(self, pattern: str) -> None:
        check_pattern(pattern)
        try:
            fsm = interegular.parse_pattern(pattern).to_fsm()
        except Exception as error:  # interegular raises its own assorted types
            raise UnsupportedPatternError(
                f"expected a regex interegular can compile, got {pattern!r}: {error}"
            ) from error
        explicit = [c for chars in fsm.alphabet.by_transition.values() for c in chars if c is not anything_else]
        ranges_of = {}
        for symbol, chars in fsm.alphabet.by_transition.items():
            if anything_else in chars:
                ranges_of[symbol] = _complement(_code_point_ranges(explicit))
            else:
                ranges_of[symbol] = _code_point_ranges(chars)
        number = {state: i for i, state in enumerate(sorted(fsm.states))}
        self.edges: list[dict[int, set[int]]] = [{} for _ in number]
        for state, moves in fsm.map.items():
            for symbol, target in moves.items():
                for low, high in ranges_of[symbol]:
                    for sequence in utf8_byte_ranges(low, high):
                        self._add_path(number[state], sequence, number[target])
        self.start = number[fsm.initial]
        self.finals = frozenset(number[s] for s in fsm.finals)
        self.nullable = self.start in self.finals

    def _add_path(self, source: int, sequence: tuple[tuple[int, int], ...], target: int) -> None:
        *heads, (last_low, last_high) = sequence
        for low, high in heads:
            middle = len(self.edges)
            self.edges.append({})
            for byte in range(low, high + 1):
                self.edges[source].setdefault(byte, set()).add(middle)
            source = middle
        for byte in range(last_low, last_high + 1):
            self.edges[source].setdefault(byte, set()).add(target)


@functools.lru_cache(maxsize=1024)
def regex_leaf(pattern: str) -> RegexLeaf:
    """One leaf per pattern in a process: a leaf is never changed once made, and interegular took 20 ms
    to compile a narrowed answer's 46 regex leaves again at each narrowing."""
    return RegexLeaf(pattern)
