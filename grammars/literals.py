"""Literal sets as implicit tries over their sorted UTF-8 words, for the byte-level NFA (grammars.nfa).

A `Literals` leaf is never handed to interegular (a 5,000-name alternation would take minutes): its
words are sorted once as UTF-8 bytes and a trie node is the pair (first word with that prefix, prefix
length), found by bisection when a byte arrives, and represented by the first node met with the same
suffixes (`LiteralLeaf`). The nodes met are registered per automaton (`Registry`), across leaves.
"""

from __future__ import annotations

import bisect
import functools
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from grammars.errors import LexiconError
from grammars.expr import Literals

if TYPE_CHECKING:
    from grammars.literal_walk import PackedWords

Node = tuple[int, int, int]  # (leaf, first word, depth)
# What makes two literal nodes with several words below candidates for one: word count, first and last
# suffix and their keys (a node with one word below: its suffix and key alone say everything, `Registry.lone`).
Signature = tuple[int, bytes, bytes, tuple[int, ...], tuple[int, ...]]
# Nodes whose signature another node has already, told apart by a hash of the suffixes and keys between
# their first and last word.
Between = tuple[Signature, int]


class Met(NamedTuple):
    """A registered node with its leaf's words and their keys, which tell it from another with the same
    signature. Not the leaf: a leaf refers to its registry, and a registry that referred back to its
    leaves would leave the whole automaton for the garbage collector, a full collection of the process
    (160 ms beside a loaded tokenizer) after every build, however small."""

    words: Sequence[bytes]
    keys: Sequence[tuple[int, ...]]
    node: Node


class Registry:
    """The literal nodes met so far in one ByteNFA: a node with one word below by that word's rest and
    what follows it (`lone`); others by signature (`LiteralLeaf._same_suffixes`): the first met; where
    another node has its signature (the article sets of the statute book share first, last and count by
    the hundred), the first met and any others (rare) by the suffixes between; and the continuation
    classes of leaves."""

    __slots__ = ("_continuation_keys", "_continuations", "_ends", "_follow", "between", "first", "lone", "more",
                 "split")

    def __init__(self, follow: list[frozenset[int]], ends: list[frozenset[object]]) -> None:
        """`follow` and `ends`: per leaf number of the NFA, the leaves that may follow it and the roots it
        may finish (the NFA's own lists, which it grows as Deferreds are entered)."""
        # nodes with one word below (most nodes inside names): the node alone, by its suffix and what follows
        self.lone: dict[tuple[bytes, tuple[int, ...]], Node] = {}
        self.first: dict[Signature, Met] = {}
        self.split: dict[Signature, int] = {}  # signatures met twice → the first node's hash between
        self.between: dict[Between, Met] = {}
        self.more: dict[Between, list[Met]] = {}
        self._follow, self._ends = follow, ends
        self._continuations: dict[int, int] = {}
        self._continuation_keys: dict[tuple[frozenset[int], frozenset[object]], int] = {}

    def continuation(self, leaf: int) -> int:
        """A number equal for leaves followed by the same leaves and ending the same roots (asked once a
        leaf's words are first used, when its root is complete)."""
        found = self._continuations.get(leaf)
        if found is None:
            key = (self._follow[leaf], self._ends[leaf])
            found = self._continuations[leaf] = self._continuation_keys.setdefault(key, len(self._continuation_keys))
        return found


# Literal sets of at least this many words in all (a lexicon's names, not one act's articles) are sorted
# once per process: a narrowed answer's anchors hold the whole lexicon's names in three sets.
SHARED_SORT_FROM = 4096
Owners = tuple[int, ...]  # per word, the positions of the sets that hold it
# Literal nodes with more words below than this are never merged with an equal one (`_same_suffixes`).
MERGED_UP_TO = 256


class Union(NamedTuple):
    """Literal sets as one sorted list of UTF-8 words; shared by every leaf of the same sets: never changed."""

    words: Sequence[bytes]
    owners: Sequence[Owners]  # per word, the positions of the sets that hold it (one tuple per distinct)


def sorted_union(sets: tuple[Literals, ...]) -> Union:
    """The union of literal sets as sorted UTF-8 words, and per word the positions of the sets that hold
    it; each set's words must be distinct (LexiconError)."""
    if sum(len(literals.words) for literals in sets) >= SHARED_SORT_FROM:
        return _shared_union(sets)
    return _union(sets)


def _union(sets: tuple[Literals, ...]) -> Union:
    if len(sets) == 1:
        words = sets[0].utf8 or tuple(_sorted_utf8(sets[0].words))
        return Union(words, ((0,),) * len(words))
    # Every word of every set, sorted once by its bytes alone (the statute book's 5,151 groups of names: a
    # sort per set 15 ms, of (word, set) pairs 15, this 8): the sort is stable, so a word's owners follow
    # it in set order, and a word twice in one set is the same owner twice in a row.
    encoded = [word.encode() for literals in sets for word in literals.words]
    position_of = [position for position, literals in enumerate(sets) for _ in literals.words]
    order = sorted(range(len(encoded)), key=encoded.__getitem__)
    in_order = [encoded[at] for at in order]
    if not any(map(operator.eq, in_order, in_order[1:])):  # each word in one set (a lexicon's names): no merging
        alone = [(position,) for position in range(len(sets))]
        return Union(tuple(in_order), tuple([alone[position_of[at]] for at in order]))
    union: list[bytes] = []
    held_by: list[Owners] = []
    interned: dict[Owners, Owners] = {}
    held: list[int] = []
    for at in order:
        word, position = encoded[at], position_of[at]
        if union and word == union[-1]:
            if position == held[-1]:
                _sorted_utf8(sets[position].words)  # raises, naming the set's repeated word
            held.append(position)
            continue
        if held:
            held_by.append(interned.setdefault(owners := tuple(held), owners))
        union.append(word)
        held = [position]
    held_by.append(interned.setdefault(owners := tuple(held), owners))
    return Union(tuple(union), tuple(held_by))


_shared_union = functools.lru_cache(maxsize=16)(_union)


def _sorted_utf8(words: tuple[str, ...]) -> list[bytes]:
    """Words as sorted UTF-8, each once: repeats are found by a pass over the sorted words when a leaf is
    first used, not by a set of every word of every leaf at compile time (the book's 400,000 articles)."""
    encoded = sorted(word.encode() for word in words)
    if any(map(operator.eq, encoded, encoded[1:])):
        seen: set[str] = set()
        for position, word in enumerate(words):
            if word in seen:
                raise LexiconError(f"expected distinct words, got {word!r} again at position {position}")
            seen.add(word)
    return encoded


def _between(met: Met, count: int) -> tuple[tuple[bytes, ...], tuple[tuple[int, ...], ...]]:
    """The suffixes and keys of the words between the first and the last of a node's `count`."""
    _, first, depth = met.node
    below = slice(first + 1, first + count - 1)
    return tuple([word[depth:] for word in met.words[below]]), tuple(met.keys[below])


class LiteralLeaf:
    """A literal set as an implicit trie over its sorted UTF-8 words, minimised on the fly: a trie
    node is represented by the first node met with the same set of suffixes, so `1`…`9` before
    `0`…`9` in the numbers 1–99 are one state, as in a minimal acyclic automaton. The nodes met are
    registered per automaton (`Registry`), across leaves: the article numbers of two acts with
    different article sets meet in one node where what is left to read is the same (`제75` in an act
    with articles 750–759 and another), so the statute book's 5,000 article sets share most nodes.

    Words are sorted (and checked for repeats, `sorted_union`) on first use, not at compile time: a
    lexicon's thousands of article sets cost nothing until an act is reached."""

    __slots__ = ("_classes", "_members", "ends", "index", "keys", "nullable", "packed", "registry",
                 "words")
    # Made on first use by __getattr__:
    words: Sequence[bytes]
    ends: list[tuple[int, ...]]
    keys: list[tuple[int, ...]]
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
        self.index = members[0][0]
        self.packed: PackedWords | None = None  # the words as the C token walk reads them, made by the walker
        self.nullable = any(literals.nullable for _, literals in members)
        self.registry = registry
        self._members = members

    def __getattr__(self, name: str) -> object:
        """The sorted words and their ends, made on first use (slots are unset until then)."""
        if name not in ("words", "ends", "keys", "_classes"):
            raise AttributeError(name)
        self.words, owners = sorted_union(tuple(literals for _, literals in self._members))
        numbers = [leaf for leaf, _ in self._members]
        continuation = self.registry.continuation
        if len(numbers) == 1:
            self.ends = [(numbers[0],)] * len(self.words)
            self.keys = [(continuation(numbers[0]),)] * len(self.words)
        else:  # distinct owners (a name's groups: mostly one) translated once each, through per-set tables
            alone: list[tuple[int, ...]] = [(number,) for number in numbers]
            continued = [continuation(number) for number in numbers]
            ends: dict[Owners, tuple[int, ...]] = {}
            keys: dict[Owners, tuple[int, ...]] = {}
            for held in set(owners):
                if len(held) == 1:
                    ends[held], keys[held] = alone[held[0]], (continued[held[0]],)
                else:
                    ends[held] = tuple([numbers[k] for k in held])
                    keys[held] = tuple(sorted({continued[k] for k in held}))
            self.ends = list(map(ends.__getitem__, owners))
            self.keys = list(map(keys.__getitem__, owners))
        self._classes = {}
        # The words live on as UTF-8 alone: an act's article labels as str would be the full book's largest
        # holding while it is explored (291,694 strings, 25 MiB)
        self._members = []
        return getattr(self, name)

    def step(self, first: int, depth: int, byte: int) -> tuple[int, int, int] | None:
        """The node (leaf, first word, depth) for words[first][:depth] + byte, or None."""
        word = self.words[first]
        if len(word) > depth:  # the node's first word has the smallest next byte: no search when it
            if word[depth] == byte:  # goes on (walking along a name) or the byte is below it (a digit)
                return self.node_at(first, depth + 1)
            if word[depth] > byte:
                return None
        prefix = word[:depth] + bytes((byte,))
        found = bisect.bisect_left(self.words, prefix, first)
        if found < len(self.words) and self.words[found].startswith(prefix):
            return self.node_at(found, depth + 1)
        return None

    def node_at(self, first: int, depth: int) -> tuple[int, int, int]:
        """The node that stands for words[first][:depth] (`first` the first word with that prefix)."""
        words = self.words
        word = words[first]
        if first + 1 == len(words) or not words[first + 1].startswith(word[:depth]):
            # One word below (most nodes, deep inside a name): its suffix and what follows it say it all.
            # Not kept per node here: each is reached once per transition into it, which the DFA keeps.
            node: Node = (self.index, first, depth)
            return self.registry.lone.setdefault((word[depth:], self.keys[first]), node)
        key = depth * len(words) + first  # an int key: one object fewer per node to collect
        found = self._classes.get(key)
        if found is None:
            found = self._classes[key] = self._same_suffixes(first, depth)
        return found

    def _same_suffixes(self, first: int, depth: int) -> tuple[int, int, int]:
        """For a node with several words below: the first node met (in any leaf) whose words below it
        are the same suffixes, followed by the same (one word below: `node_at`). Nodes are
        grouped by (word count, first and last suffix and what follows them): a node whose group is new
        is its own at once; in a group met before (the article sets of the statute book share first, last
        and count by the hundred) by a hash of the suffixes between, and the suffix by suffix comparison
        that makes it exact is mostly made once, on a match. A node with more than MERGED_UP_TO words
        below is its own: hashing its suffixes cost a first visit near the root of the book's names up to
        a millisecond, for nothing (no such node of a whole build met an equal one)."""
        words, keys, registry = self.words, self.keys, self.registry
        word = words[first]
        prefix = word[:depth]
        node: Node = (self.index, first, depth)
        suffix = word[depth:]
        # the run ends before the prefix's successor (UTF-8 holds no 0xff byte to carry over)
        end = bisect.bisect_left(words, prefix[:-1] + bytes((prefix[-1] + 1,)), first) if depth else len(words)
        if end - first > MERGED_UP_TO:
            return node
        signature = (end - first, suffix, words[end - 1][depth:], keys[first], keys[end - 1])
        here = Met(words, keys, node)
        met = registry.first.setdefault(signature, here)
        if met is here or end - first <= 2:  # new, or its signature holds every suffix below it
            return met.node
        if signature not in registry.split:  # the first node of the group goes by its suffixes between too
            registry.split[signature] = hash(_between(met, end - first))
            registry.between[signature, registry.split[signature]] = met
        inner = _between(here, end - first)
        key = (signature, hash(inner))
        met = registry.between.setdefault(key, here)
        if met is here:
            return node
        for other in (met, *registry.more.get(key, [])):
            if _between(other, end - first) == inner:
                return other.node
        registry.more.setdefault(key, []).append(here)
        return node

    def next_bytes(self, first: int, depth: int) -> set[int]:
        return {byte for byte, _ in self._children(first, depth)}

    def moves(self, first: int, depth: int) -> list[tuple[int, Node]]:
        """Every byte the node (first word, depth) goes on with and the node it reaches, from one pass
        over its words (a `step` per byte searches them again)."""
        return [(byte, self.node_at(child, depth + 1)) for byte, child in self._children(first, depth)]

    def _children(self, first: int, depth: int) -> list[tuple[int, int]]:
        """Per next byte of the node, the first word below it."""
        words = self.words
        word = words[first]
        prefix = word[:depth]
        if first + 1 == len(words) or not words[first + 1].startswith(prefix):  # one word below: most nodes
            return [(word[depth], first)] if len(word) > depth else []
        out: list[tuple[int, int]] = []
        index = first
        while index < len(words) and words[index].startswith(prefix):
            word = words[index]
            if len(word) == depth:
                index += 1
                continue
            out.append((word[depth], index))
            if word[depth] == 255:
                break
            index = bisect.bisect_left(words, prefix + bytes((word[depth] + 1,)), index)
        return out
