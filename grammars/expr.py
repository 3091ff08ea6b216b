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
    match the empty string: the compiler needs to know that beforehand."""

    key: Any
    make: Callable[[Any], Expr] = field(compare=False, repr=False)

    def expr(self) -> Expr:
        return self.make(self.key)

    def to_regex(self) -> str:
        return self.expr().to_regex()


def seq(*parts: Expr | str) -> Seq:
    """Sequence helper: plain strings become single literals."""
    return Seq(tuple(Literals((p,)) if isinstance(p, str) else p for p in parts))
