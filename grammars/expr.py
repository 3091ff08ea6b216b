"""The grammar expression tree: the one source from which a citation language is both parsed
(rendered to a Python regex with named groups) and compiled (to a byte-level DFA).

Leaves are either a `Regex` in the subset the byte-level compiler supports, or `Literals`, a
set of literal strings compiled straight into a trie (large alternations such as act names
would take interegular minutes). `Capture` names a field for the parser and is transparent to
the compiler. `Deferred` is an expression made only when first needed (a lexicon's article sets).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class Expr:
    """A node of a grammar expression; immutable and hashable, so compiled forms can be cached."""

    def to_regex(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Regex(Expr):
    pattern: str  # no capture groups, no anchors, no lookaround, no backreferences

    def to_regex(self) -> str:
        return f"(?:{self.pattern})"


@dataclass(frozen=True, slots=True)
class Literals(Expr):
    words: tuple[str, ...]
    # The words as UTF-8, sorted and distinct, where whoever made the set had them at hand (an act's articles
    # as the C extension writes them, grammars.languages.articles): the compiler takes them as they are
    # instead of encoding and sorting the words again. Not part of the value: equal words, equal sets.
    utf8: tuple[bytes, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def nullable(self) -> bool:
        """The empty word is one of them (sorted, it would be the first)."""
        return self.utf8[0] == b"" if self.utf8 is not None else "" in self.words

    def to_regex(self) -> str:
        # Longest first, so that the regex engine prefers `서울고등법원` to `서울고등`.
        return "(?:" + "|".join(re.escape(w) for w in sorted(self.words, key=len, reverse=True)) + ")"


@dataclass(frozen=True, slots=True)
class Seq(Expr):
    parts: tuple[Expr, ...]

    def to_regex(self) -> str:
        return "".join(part.to_regex() for part in self.parts)


@dataclass(frozen=True, slots=True)
class Alt(Expr):
    options: tuple[Expr, ...]

    def to_regex(self) -> str:
        return "(?:" + "|".join(option.to_regex() for option in self.options) + ")"


@dataclass(frozen=True, slots=True)
class Opt(Expr):
    inner: Expr

    def to_regex(self) -> str:
        return f"(?:{self.inner.to_regex()})?"


@dataclass(frozen=True, slots=True)
class Capture(Expr):
    name: str
    inner: Expr

    def to_regex(self) -> str:
        return f"(?P<{self.name}>{self.inner.to_regex()})"


@dataclass(frozen=True, slots=True)
class Deferred(Expr):
    """The expression `make(key)`, made when first needed: by the compiler when a string first reaches
    it, by `to_regex` when rendered; so a statute book's 5,000 article sets cost nothing until their act
    is cited. Equality and hashing go by `key`, which with `make` determines the expression; it must not
    match the empty string: the compiler needs to know that beforehand.

    `opens_with`, where given, holds every first byte of its strings (more does no harm): the compiler then
    makes the expression only once a string reads one of them, not when a string merely reaches it (an
    act's articles after its name and ` 제`, not at the end of the name)."""

    key: Any
    make: Callable[[Any], Expr] = field(compare=False, repr=False)
    opens_with: frozenset[int] | None = field(default=None, compare=False, repr=False)

    def expr(self) -> Expr:
        return self.make(self.key)

    def to_regex(self) -> str:
        return self.expr().to_regex()


def seq(*parts: Expr | str) -> Seq:
    """Sequence helper: plain strings become single literals."""
    return Seq(tuple(Literals((p,)) if isinstance(p, str) else p for p in parts))


def spread_heads(options: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """An alternation's options, the same language, with the alternations they begin with spread into
    options of their own (`Seq(Alt(a, b), rest)` as `Seq(a, rest)`, `Seq(b, rest)`; an `Alt` option as its
    options) and each literal head a `Literals` object of its own, so that the compiler can give every
    literal head one shared leaf (grammars.nfa.ByteNFA): the statute anchors begin three options with the
    act names, and a state inside a name is then one anchor node rather than three. Only where what follows
    holds no `Deferred`, which would be made once per copy."""
    if not any(type(option) is Alt or (type(option) is Seq and option.parts and type(option.parts[0]) is Alt)
               for option in options):
        return options  # the common case (the statute book's 5,151 groups): nothing to spread
    spread: list[Expr] = []
    for option in options:
        if type(option) is Alt:
            spread.extend(spread_heads(option.options))
        elif type(option) is Seq and option.parts and type(option.parts[0]) is Alt \
                and not any(_holds_deferred(part) for part in option.parts[1:]):
            rest = option.parts[1:]
            spread.extend(Seq((head, *rest)) for head in spread_heads(option.parts[0].options))
        else:
            spread.append(option)
    return tuple(_own_head(option) for option in spread)


def _own_head(option: Expr) -> Expr:
    """`option` with its literal head a new object: the compiler shares a leaf among head objects, and
    one object begun twice would stand for one of its places only."""
    if type(option) is Literals:
        return Literals(option.words, option.utf8)
    if type(option) is Seq and option.parts and type(option.parts[0]) is Literals:
        return Seq((Literals(option.parts[0].words, option.parts[0].utf8), *option.parts[1:]))
    return option


def _holds_deferred(expr: Expr) -> bool:
    if type(expr) is Deferred:
        return True
    if type(expr) is Seq:
        return any(_holds_deferred(part) for part in expr.parts)
    if type(expr) is Alt:
        return any(_holds_deferred(option) for option in expr.options)
    if type(expr) in (Opt, Capture):
        return _holds_deferred(expr.inner)  # type: ignore[attr-defined]
    return False
