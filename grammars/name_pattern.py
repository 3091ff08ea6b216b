"""How the lenient finder matches the statute book's act names: modulo spaces and middle dots, as one
trie-shaped regex (grammars.find builds its statute pattern from it)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from grammars.act_names import MIDDLE_DOTS
from grammars.languages.drafts import LOOSE_SPACE

# Drafts drop the spaces of long names (`개인정보보호법`) and write other middle dots (act_names.MIDDLE_DOTS);
# names are matched and looked up modulo both.


def fold_name(name: str) -> str:
    return "".join(name.split()).translate(MIDDLE_DOTS)


def _lenient_char(char: str) -> str:
    """How a name's character is matched: a space may be left out, ㆍ be any middle dot."""
    if char == " ":
        return LOOSE_SPACE + "?"
    return "[ㆍ·・‧]" if char == "ㆍ" else re.escape(char)


_Trie = dict[str, "_Trie"]  # a name's next character, as `_lenient_char` matches it -> the rest
_END = ""  # a trie key no character maps to: a name ends at this node


def lenient_names(names: Iterable[str]) -> str:
    """One alternative per name, longest first, written as a trie: names sharing a prefix share
    its branch, so the regex engine tries a few branches per position instead of every name (a
    flat alternation of the statute book's 5,700 names cost 5.5 of the 6 s a 1 MB draft took to
    scan). At each node the branch holding the longest name is tried first and a name ending
    there last, the order of the flat longest-first alternation wherever two branches can match
    the same text."""
    root: _Trie = {}
    for name in set(names):
        node = root
        for char in name:
            node = node.setdefault(_lenient_char(char), {})
        node[_END] = {}
    return _trie_regex(root)[0]


def first_characters(names: Iterable[str]) -> str:
    """A lookahead for the characters a name begins with: most words begin with none, and the check spares
    them the trie's first branches, hundreds tried one by one (a quarter of the statute pattern's scan)."""
    firsts = {char for name in names for char in ("ㆍ·・‧" if name[0] == "ㆍ" else name[0])}
    return "(?=[" + "".join(re.escape(char) for char in sorted(firsts)) + "])"


def _trie_regex(node: _Trie) -> tuple[str, int]:
    """The regex of a trie node and the length of the longest name below it."""
    branches = []
    for piece, child in node.items():
        if piece != _END:
            below, longest = _trie_regex(child)
            branches.append((piece + below, longest + 1))
    branches.sort(key=lambda branch: -branch[1])
    longest = branches[0][1] if branches else 0
    alternatives = [regex for regex, _ in branches] + ([""] if _END in node else [])
    if len(alternatives) == 1:
        return alternatives[0], longest
    return "(?:" + "|".join(alternatives) + ")", longest
