"""Literal sets as implicit tries over their sorted UTF-8 words, for the byte-level NFA (grammars.dfa).

A `Literals` leaf is never handed to interegular (a 5,000-name alternation would take minutes): its
words are sorted once as UTF-8 bytes and a trie node is the pair (first word with that prefix, prefix
length), found by bisection when a byte arrives, and represented by the first node met with the same
suffixes (`LiteralLeaf`). The nodes met are registered per automaton (`Registry`), across leaves.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from grammars.errors import LexiconError
from grammars.expr import Literals

Node = tuple[int, int, int]  # (leaf, first word, depth)
# What makes two literal nodes candidates for one: word count, first and last suffix, their keys, and a
# hash of the suffixes and keys between them (0 when there are none).
Signature = tuple[int, bytes, bytes, tuple[int, ...], tuple[int, ...], int]


class Registry:
    """The literal nodes met so far in one ByteNFA, by signature (`LiteralLeaf._same_suffixes`): the
    first met, then any others with the same signature (rare), and the continuation classes of leaves."""

    __slots__ = ("_sorted", "continuation", "first", "more")

    def __init__(self, continuation: Callable[[int], int]) -> None:
        self.first: dict[Signature, tuple[LiteralLeaf, Node]] = {}
        self.more: dict[Signature, list[tuple[LiteralLeaf, Node]]] = {}
        self.continuation = continuation  # leaf number → a key equal for leaves that go on alike
        self._sorted: dict[tuple[int, ...], tuple[tuple[Literals, ...], list[bytes], list[tuple[int, ...]]]] = {}

    def sorted_words(self, sets: tuple[Literals, ...]) -> tuple[list[bytes], list[tuple[int, ...]]]:
        """The union of literal sets as sorted UTF-8 words, and per word the positions of the sets that
        hold it; once per tuple of Literals objects (a statute lexicon's names recur in several anchors)."""
        key = tuple(map(id, sets))
        found = self._sorted.get(key)
        if found is None or any(a is not b for a, b in zip(found[0], sets, strict=True)):
            if len(sets) == 1:
                words = sorted(word.encode() for word in sets[0].words)
                found = (sets, words, [(0,)] * len(words))
            else:
                owners: dict[bytes, list[int]] = {}
                for position, literals in enumerate(sets):
                    for word in literals.words:
                        owners.setdefault(word.encode(), []).append(position)
                words = sorted(owners)
                found = (sets, words, [tuple(owners[word]) for word in words])
            self._sorted[key] = found
        return found[1], found[2]


class LiteralLeaf:
    """A literal set as an implicit trie over its sorted UTF-8 words, minimised on the fly: a trie
    node is represented by the first node met with the same set of suffixes, so `1`…`9` before
    `0`…`9` in the numbers 1–99 are one state, as in a minimal acyclic automaton. The nodes met are
    registered per automaton (`Registry`), across leaves: the article numbers of two acts with
    different article sets meet in one node where what is left to read is the same (`제75` in an act
    with articles 750–759 and another), so the statute book's 5,000 article sets share most nodes.

    Words are sorted on first use, not at compile time: a lexicon's thousands of article sets cost
    only a check until an act is reached."""

    __slots__ = ("_classes", "_longest", "_members", "ends", "index", "keys", "nullable", "registry", "words")
    # Made on first use by __getattr__:
    words: list[bytes]
    ends: list[tuple[int, ...]]
    keys: list[tuple[int, ...]]
    _longest: int
    _classes: dict[int, Node]  # node → the first node met with its suffixes

    def __init__(self, members: list[tuple[int, Literals]], registry: Registry) -> None:
        """One leaf for the `Literals` of one or more alternatives, each `(its leaf number, Literals)`:
        the alternatives `Seq(Literals(names of group g), …)` of a statute lexicon share one trie,
        so a state inside a name is one node rather than one per group. `ends[i]` are the leaf
        numbers whose word `words[i]` is (the alternatives that go on after it); `keys[i]` the same as
        what follows them (`registry.continuation`), which is what makes nodes of two leaves equal."""
        for _, literals in members:
            if not literals.words:
                raise LexiconError("expected a lexicon with at least one word, got an empty Literals")
            if len(set(literals.words)) != len(literals.words):
                seen: set[str] = set()
                for position, word in enumerate(literals.words):
                    if word in seen:
                        raise LexiconError(f"expected distinct words, got {word!r} again at position {position}")
                    seen.add(word)
        self.index = members[0][0]
        self.nullable = any("" in literals.words for _, literals in members)
        self.registry = registry
        self._members = members

    def __getattr__(self, name: str) -> object:
        """The sorted words and their ends, made on first use (slots are unset until then)."""
        if name not in ("words", "ends", "keys", "_longest", "_classes"):
            raise AttributeError(name)
        self.words, owners = self.registry.sorted_words(tuple(literals for _, literals in self._members))
        numbers = [leaf for leaf, _ in self._members]
        if len(numbers) == 1:
            self.ends = [(numbers[0],)] * len(self.words)
        else:
            self.ends = [tuple(numbers[k] for k in members) for members in owners]
        continuation = self.registry.continuation
        keys = {ends: tuple(sorted({continuation(leaf) for leaf in ends})) for ends in set(self.ends)}
        self.keys = [keys[ends] for ends in self.ends]
        self._longest = max(map(len, self.words))
        self._classes = {}
        return getattr(self, name)

    def step(self, first: int, depth: int, byte: int) -> tuple[int, int, int] | None:
        """The node (leaf, first word, depth) for words[first][:depth] + byte, or None."""
        word = self.words[first]
        if len(word) > depth:  # the node's first word has the smallest next byte: no search when it
            if word[depth] == byte:  # goes on (walking along a name) or the byte is below it (a digit)
                return self._representative(first, depth + 1)
            if word[depth] > byte:
                return None
        prefix = word[:depth] + bytes((byte,))
        found = bisect.bisect_left(self.words, prefix, first)
        if found < len(self.words) and self.words[found].startswith(prefix):
            return self._representative(found, depth + 1)
        return None

    def _representative(self, first: int, depth: int) -> tuple[int, int, int]:
        key = first * (self._longest + 1) + depth  # an int key: one object fewer per node to collect
        found = self._classes.get(key)
        if found is None:
            found = self._classes[key] = self._same_suffixes(first, depth)
        return found

    def _same_suffixes(self, first: int, depth: int) -> tuple[int, int, int]:
        """The first node met (in any leaf) whose words below it are the same suffixes, followed by the
        same. Nodes are grouped by (word count, first and last suffix and what follows them, a hash of
        the rest): nodes with equal suffixes meet at once and others almost never share a group (the
        article sets of the statute book share first, last and count by the hundred), so the suffix by
        suffix comparison that makes it exact is mostly made once, on a match."""
        words, keys = self.words, self.keys
        prefix = words[first][:depth]
        if first + 1 == len(words) or not words[first + 1].startswith(prefix):
            end = first + 1  # one word below: most nodes, deep inside a name
        else:
            end = bisect.bisect_right(words, prefix + b"\xff" * self._longest, first)
        node: Node = (self.index, first, depth)
        suffix = words[first][depth:]  # one object for both ends when one word is below (most nodes)
        between = 0
        if end - first > 2:
            between = hash((tuple(word[depth:] for word in words[first + 1 : end - 1]), *keys[first + 1 : end - 1]))
        signature = (end - first, suffix, suffix if end == first + 1 else words[end - 1][depth:], keys[first],
                     keys[end - 1], between)
        met = self.registry.first.setdefault(signature, (self, node))
        if met[1] is node or end - first <= 2:  # new, or its signature holds every suffix below it
            return met[1]
        for leaf, other in (met, *self.registry.more.get(signature, [])):
            _, start, at = other
            if all(words[first + i][depth:] == leaf.words[start + i][at:] and keys[first + i] == leaf.keys[start + i]
                   for i in range(1, end - first - 1)):
                return other
        self.registry.more.setdefault(signature, []).append((self, node))
        return node

    def next_bytes(self, first: int, depth: int) -> set[int]:
        prefix = self.words[first][:depth]
        out: set[int] = set()
        index = first
        while index < len(self.words) and self.words[index].startswith(prefix):
            word = self.words[index]
            if len(word) == depth:
                index += 1
                continue
            out.add(word[depth])
            if word[depth] == 255:
                break
            index = bisect.bisect_left(self.words, prefix + bytes((word[depth] + 1,)), index)
        return out
