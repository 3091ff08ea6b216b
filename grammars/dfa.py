"""The byte-level automaton of an Expr (grammars.nfa), determinised on demand.

`LazyDFA` is the subset construction over `ByteNFA` node sets, computed one transition at a time and
cached, so compiling costs nothing until a state is reached; `ExprDFA` is one Expr's, grammars.answer
the whole answer's. `Automaton` is what a TokenIndex walks (a LazyDFA, or a FrozenDFA read back from
the disk cache).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol

from grammars.expr import Expr
from grammars.nfa import EMPTY, FINAL, ByteNFA, LiteralPart, Node, NodeSet, StateNodes, union

DEAD = -1
ALL_BYTES: frozenset[int] = frozenset(range(256))  # the live bytes of free text, which never dies

# State flags shared by every automaton the TokenIndex walks.
FREE = 1  # some free-text (or bypass) thread is alive: tokens are only rejected if they complete an anchor
BYPASS = 2  # inside a bypass span such as <think> … </think>
CITATION_MAY_CLOSE = 4  # a citation matched completely at this point (it may also continue)
PENDING = 8  # a partial anchor or citation is in progress (text here may become part of a citation)


class ByteWalk(NamedTuple):
    """How a token walk goes through an automaton byte by byte: `start(state)` is where a walk from a
    state begins, `step(position, byte)` the next position (`dead` once nothing can follow),
    `live(position)` a superset of the bytes that do not die, `settle(position)` the state a token
    ending there reaches. A lazy automaton walks its node sets and makes a state only where a token
    ends, not at every byte inside a token (two of a Hangul character's three)."""

    start: Callable[[int], Any]
    step: Callable[[Any, int], Any]
    live: Callable[[Any], frozenset[int]]
    settle: Callable[[Any], int]
    dead: Any


class Automaton(Protocol):
    """What a TokenIndex walks: a `LazyDFA` explored as states are reached, or a `FrozenDFA`
    (grammars.cache) read back complete from the disk cache."""

    initial: int
    free_text: bool
    anchor_final_chars: frozenset[bytes]

    @property
    def anchor_final_bytes(self) -> frozenset[int]: ...
    @property
    def state_count(self) -> int: ...
    def step(self, state: int, byte: int) -> int: ...
    def walk(self, state: int, data: bytes) -> int: ...
    def moves(self, state: int, candidates: Iterable[int] | None = None) -> list[tuple[int, int]]: ...
    def is_accepting(self, state: int) -> bool: ...
    def flags(self, state: int) -> int: ...
    def live_bytes(self, state: int) -> frozenset[int]: ...
    def base_of(self, state: int) -> int | None: ...
    def divergence(self, state: int) -> frozenset[int] | None: ...
    def divergence_between(self, state: int, other: int) -> frozenset[int] | None: ...
    def between_characters(self) -> tuple[int, ...]: ...
    def byte_walk(self) -> ByteWalk: ...
    def literal_parts(self, state: int) -> list[LiteralPart] | None: ...
    def literal_nodes(self, nodes: tuple[Node, ...]) -> StateNodes: ...
    def literal_state(self, nodes: tuple[Node, ...]) -> int: ...


class ByteWalker:
    """Walking bytes through an automaton that has `step(state, byte)`."""

    anchor_final_chars: frozenset[bytes] = frozenset()  # characters (UTF-8) that may complete an anchor

    @property
    def anchor_final_bytes(self) -> frozenset[int]:
        """The bytes on which an anchor may complete."""
        return frozenset(final[-1] for final in self.anchor_final_chars)

    def step(self, state: int, byte: int) -> int:
        raise NotImplementedError

    def walk(self, state: int, data: bytes) -> int:
        for byte in data:
            state = self.step(state, byte)
            if state == DEAD:
                break
        return state

    def live_bytes(self, state: int) -> frozenset[int]:
        raise NotImplementedError

    def moves(self, state: int, candidates: Iterable[int] | None = None) -> list[tuple[int, int]]:
        """The state's transitions that do not die, (byte, target), on `candidates` or every live byte."""
        step = self.step
        return [(byte, target) for byte in (self.live_bytes(state) if candidates is None else candidates)
                if (target := step(state, byte)) != DEAD]

    def byte_walk(self) -> ByteWalk:
        """Token walks over states (an automaton whose states are all made already)."""
        return ByteWalk(int, self.step, self.live_bytes, int, DEAD)

    def literal_parts(self, state: int) -> list[LiteralPart] | None:
        """Where a state is literal nodes alone (and maybe a finished root): the nodes the C token walk
        starts from (grammars.literal_walk, `ByteNFA.literal_parts`); None for any other state, and in an
        automaton made already."""
        return None

    def literal_nodes(self, nodes: tuple[Node, ...]) -> StateNodes:
        """The node set (a position of `byte_walk`) of literal nodes strictly inside words."""
        raise NotImplementedError

    def literal_state(self, nodes: tuple[Node, ...]) -> int:
        """The state of literal nodes strictly inside words."""
        raise NotImplementedError


class LazyDFA(ByteWalker):
    """Subset construction on demand: a state is an interned set of nodes (`StateNodes`)."""

    def __init__(self) -> None:
        self.sets: list[StateNodes] = []
        self._ids: dict[StateNodes, int] = {}
        # Every transition computed so far, keyed by `state << 8 | byte`: one table rather than one per
        # state (most states inside a name have one transition, and a dict per state weighs more than it).
        self._next: dict[int, int] = {}
        self._flags: list[int] = []
        self._accepting: list[bool] = []
        self._live: list[frozenset[int] | None] = []

    def intern(self, nodes: StateNodes) -> int:
        kept = nodes if type(nodes) is tuple or len(nodes) != 1 else (next(iter(nodes)),)
        found = self._ids.get(kept)
        if found is None:
            found = self._add_state(kept, self._nodes_accept(kept), self._nodes_flags(kept))
        return found

    def literal_state(self, nodes: tuple[Node, ...]) -> int:
        """`intern(literal_nodes(nodes))` for literal nodes strictly inside words, whose state never accepts
        and has the flags `_inside_word_flags` (a first visit's advance makes these)."""
        kept = self.literal_nodes(nodes)
        found = self._ids.get(kept)
        return self._add_state(kept, False, self._inside_word_flags) if found is None else found

    _inside_word_flags = 0  # the flags of a state inside a literal word (`literal_state`)

    def _add_state(self, nodes: StateNodes, accepting: bool, flags: int) -> int:
        found = len(self.sets)
        self._ids[nodes] = found
        self.sets.append(nodes)
        self._accepting.append(accepting)
        self._flags.append(flags)
        self._live.append(None)
        return found

    def step(self, state: int, byte: int) -> int:
        key = state << 8 | byte
        found = self._next.get(key)
        if found is None:
            nodes = self._successors(self.sets[state], byte)
            found = self._next[key] = self.intern(nodes) if nodes else DEAD
        return found

    def is_accepting(self, state: int) -> bool:
        return self._accepting[state]

    def transitions(self) -> dict[int, int]:
        """The byte transitions computed so far (DEAD included), keyed by `state << 8 | byte`."""
        return self._next

    def flags(self, state: int) -> int:
        return self._flags[state]

    def live_bytes(self, state: int) -> frozenset[int]:
        """A superset of the bytes that do not lead to DEAD."""
        found = self._live[state]
        if found is None:
            found = self._nodes_live(self.sets[state])
            self._live[state] = found
        return found

    def base_of(self, state: int) -> int | None:
        """For a free state: the plain free-text state it steps like outside `divergence` (itself when
        it is one); None for a state without a free-text thread."""
        return None

    def divergence(self, state: int) -> frozenset[int] | None:
        """For a free state: bytes on which it may step differently from `base_of(state)`; None = any."""
        return None

    def divergence_between(self, state: int, other: int) -> frozenset[int] | None:
        """Bytes on which two states may step to different states (a superset); None = any."""
        return None

    def byte_walk(self) -> ByteWalk:
        """Token walks over node sets, a state interned only where a token ends."""
        return ByteWalk(self.sets.__getitem__, self._successors, self._nodes_live, self.intern, EMPTY)

    initial: int  # the start state, interned by each subclass's constructor
    free_text = False  # whether the language has free text (plain free-text states exist)

    def between_characters(self) -> tuple[int, ...]:
        """The plain free-text states between two characters, where nearly every token starts: their
        per-token next states are worth computing in full (other bases fill theirs as tokens come)."""
        return ()


    @property
    def state_count(self) -> int:
        return len(self.sets)

    # Subclasses define the node semantics.
    def _successors(self, nodes: StateNodes, byte: int) -> NodeSet:
        raise NotImplementedError

    def _nodes_accept(self, nodes: StateNodes) -> bool:
        raise NotImplementedError

    def _nodes_flags(self, nodes: StateNodes) -> int:
        raise NotImplementedError

    def _nodes_live(self, nodes: StateNodes) -> frozenset[int]:
        raise NotImplementedError


class ExprDFA(LazyDFA):
    """The language of one Expr: whole strings only."""

    def __init__(self, expr: Expr) -> None:
        super().__init__()
        self.nfa = ByteNFA({0: expr})
        self.initial = self.intern(self.nfa.start(0))

    def _successors(self, nodes: StateNodes, byte: int) -> NodeSet:
        return self.nfa.step(nodes, byte)

    def moves(self, state: int, candidates: Iterable[int] | None = None) -> list[tuple[int, int]]:
        """As `ByteWalker.moves`; every byte at once, from each node's moves (`ByteNFA.node_moves`: one
        pass over a literal node's words) rather than a step per live byte."""
        if candidates is not None:
            return super().moves(state, candidates)
        nodes, node_moves = self.sets[state], self.nfa.node_moves
        if len(nodes) == 1:  # most states: one node inside a name or a number
            found = node_moves(next(iter(nodes)))
        else:
            by_byte: dict[int, list[StateNodes]] = {}
            for node in nodes:
                for byte, reached in node_moves(node):
                    by_byte.setdefault(byte, []).append(reached)
            found = [(byte, parts[0] if len(parts) == 1 else union([frozenset(part) for part in parts]))
                     for byte, parts in by_byte.items()]
        # recorded as `step` would record them: the nodes reached are the state it interns
        transitions, intern = self._next, self.intern
        return [(byte, transitions.setdefault(state << 8 | byte, intern(reached))) for byte, reached in found]

    def literal_parts(self, state: int) -> list[LiteralPart] | None:
        return self.nfa.literal_parts(self.sets[state])

    def literal_nodes(self, nodes: tuple[Node, ...]) -> StateNodes:
        return nodes if len(nodes) == 1 else frozenset(nodes)  # as `intern` keeps them

    def _nodes_accept(self, nodes: StateNodes) -> bool:
        return (FINAL, 0) in nodes

    def _nodes_flags(self, nodes: StateNodes) -> int:
        return CITATION_MAY_CLOSE if (FINAL, 0) in nodes else 0

    def _nodes_live(self, nodes: StateNodes) -> frozenset[int]:
        if len(nodes) == 1:  # most states: one node inside a name or a number, its own (shared) set
            for node in nodes:
                return self.nfa.live_bytes(node)
        return union([self.nfa.live_bytes(n) for n in nodes])

    def matches(self, data: bytes) -> bool:
        state = self.walk(self.initial, data)
        return state != DEAD and self.is_accepting(state)


def compile_dfa(expr: Expr) -> ExprDFA:
    """The byte-level automaton of an Expr's language (states are computed as they are reached)."""
    return ExprDFA(expr)
