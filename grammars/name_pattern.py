"""How the lenient finder matches the statute book's act names: modulo spaces and middle dots, as one
trie-shaped regex (grammars.find builds its statute pattern from it); and any long list of words, such
as the courts that open the case pattern (grammars.find_cases), as a trie too."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from grammars.boundary import MIDDLE_DOTS
from grammars.languages.drafts import LOOSE_SPACE

# Drafts drop the spaces of long names (`개인정보보호법`) and write other middle dots (act_names.official_dots);
# names are matched modulo both, as they are looked up (act_names.fold_name).


_ANY_MIDDLE_DOT = f"[{MIDDLE_DOTS}]"


def _lenient_char(char: str) -> str:
    """How a name's character is matched: a space may be left out, ㆍ be any middle dot."""
    if char == " ":
        return LOOSE_SPACE + "?"
    return _ANY_MIDDLE_DOT if char == "ㆍ" else re.escape(char)


def _characters(piece: str) -> str | None:
    """The characters a `_lenient_char` piece matches, one of them exactly; None for a piece that may
    match none (an optional space)."""
    if piece == _ANY_MIDDLE_DOT:
        return MIDDLE_DOTS
    if piece.endswith("?"):
        return None
    return piece.removeprefix("\\")


_Trie = dict[str, "_Trie"]  # a name's next character, as `_lenient_char` matches it -> the rest
_END = ""  # a trie key no character maps to: a name ends at this node


def lenient_names(names: Iterable[str]) -> str:
    """One alternative per name, longest first, written as a trie: names sharing a prefix share
    its branch, so the regex engine tries a few branches per position instead of every name (a
    flat alternation of the statute book's 5,700 names cost 5.5 of the 6 s a 1 MB draft took to
    scan). At each node the branch holding the longest name is tried first and a name ending
    there last, the order of the flat longest-first alternation wherever two branches can match
    the same text."""
    return _trie_regex(_trie(names, _lenient_char))[0]


def literal_trie(words: Iterable[str]) -> str:
    """`grammars.expr.Literals(words).to_regex()` (every word, longest first) written as a trie, as
    `lenient_names` writes names: the same matches, at a fraction of the cost per position where a
    pattern opens with hundreds of words (the case pattern's courts and their abbreviations)."""
    return _trie_regex(_trie(words, re.escape))[0]


def _trie(words: Iterable[str], piece: Callable[[str], str]) -> _Trie:
    root: _Trie = {}
    for word in set(words):
        node = root
        for char in word:
            node = node.setdefault(piece(char), {})
        node[_END] = {}
    return root


def first_characters(names: Iterable[str]) -> str:
    """A lookahead for the characters a name begins with: most words begin with none, and the check spares
    them the trie's first branches, hundreds tried one by one (a quarter of the statute pattern's scan)."""
    firsts = {char for name in names for char in (MIDDLE_DOTS if name[0] == "ㆍ" else name[0])}
    return "(?=[" + "".join(re.escape(char) for char in sorted(firsts)) + "])"


def _trie_regex(node: _Trie) -> tuple[str, int]:
    """The regex of a trie node and the length of the longest name below it."""
    branches = []
    for piece, child in node.items():
        if piece != _END:
            below, longest = _trie_regex(child)
            branches.append((piece, below, longest + 1))
    branches.sort(key=lambda branch: -branch[2])
    longest = branches[0][2] if branches else 0
    alternatives = _bucketed(branches) or [piece + below for piece, below, _ in branches]
    alternatives += [""] if _END in node else []
    if len(alternatives) == 1:
        return alternatives[0], longest
    return "(?:" + "|".join(alternatives) + ")", longest


_BUCKET = 16  # a node with more branches than this tries them in buckets (`_bucketed`)


def _bucketed(branches: list[tuple[str, str, int]]) -> list[str] | None:
    """A node's many branches (the first characters of 5,700 names: about 280) as buckets of about
    `_BUCKET`, each `[its first characters](?:(?<=one)rest|…)`; None when there are few, or when two
    could match the same text (then their order matters: longest first). The regex engine tries the
    alternatives of a branch one after another, skipping one at a glance only where it begins with a
    character or a class: the flat node cost a check per branch at every word of a text (a third of the
    statute pattern's scan), the buckets one per bucket and one per branch of a single bucket. Since
    no two branches match the same character, the order of buckets and branches changes no match."""
    matched = [_characters(piece) for piece, _, _ in branches]
    characters = [chars for chars in matched if chars is not None]
    every = "".join(characters)
    if len(branches) <= _BUCKET or len(characters) < len(branches) or len(set(every)) < len(every):
        return None
    ordered = sorted(zip(characters, branches, strict=True))
    count = -(-len(ordered) // _BUCKET)
    size = -(-len(ordered) // count)
    buckets = []
    for start in range(0, len(ordered), size):
        bucket = ordered[start : start + size]
        first = "".join(re.escape(c) for chars, _ in bucket for c in chars)
        rests = "|".join(f"(?<={piece}){below}" for _, (piece, below, _) in bucket)
        buckets.append(f"[{first}](?:{rests})")
    return buckets
