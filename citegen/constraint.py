"""The constraint as the engine uses it: a shared `CompiledConstraint` per token index (the
per-state caches every request reuses) and a per-request `ConstraintCursor`.

The token index (`grammars.compile_index` over the whole-output language) decides which
tokens are allowed. `ConstraintCursor.fill_bitmask` is the one place where that becomes a row of
the packed bitmask for the next token, budget included: every decoder (citegen's engine on CPU and
GPU, the transformers `LogitsProcessor`, the vLLM logits processor) fills its rows with it and
applies them with `citegen.kernels.apply_token_bitmask_inplace`. This module caches what that
needs fast, per state inside or at the edge of a citation: the shortest token path that closes
the citation, and the tokens that would enter a citation with the tokens each then needs to close
it, so a citation in progress always keeps the budget to finish (../shared/DESIGN.md invariants).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from citegen.errors import EmptyMaskError, VocabularyMismatchError
from grammars import (
    DEAD,
    AnswerGrammar,
    ExprDFA,
    ParsedCitation,
    Vocabulary,
    anchor_root,
    compile_index,
    parse_citation,
)

logger = logging.getLogger(__name__)

# A citation longer than this many tokens is never planned for: past it the reserve is not kept.
MAX_CITATION_TOKENS = 96
_NO_TOKENS = np.zeros(0, dtype=np.int64)


class Anchored(Protocol):
    """What the engine reads of the index's automaton: the bytes on which an anchor may complete."""

    @property
    def anchor_final_bytes(self) -> frozenset[int]: ...


class TokenIndex(Protocol):
    """What the engine reads of `grammars.TokenIndex`."""

    initial_state: int
    vocab_size: int

    def advance(self, state: int, token_id: int) -> int: ...

    @property
    def vocabulary(self) -> Vocabulary: ...

    @property
    def automaton(self) -> Anchored: ...

    def bitmask(self, state: int) -> np.ndarray: ...

    def fill_bitmask(self, state: int, out: np.ndarray) -> None: ...

    def is_accepting(self, state: int) -> bool: ...

    def is_unconstrained(self, state: int) -> bool: ...

    def in_citation(self, state: int) -> bool: ...

    def citation_may_close(self, state: int) -> bool: ...

    def is_pending(self, state: int) -> bool: ...


@dataclass(frozen=True, slots=True)
class Transition:
    """What the index says of the state one token led to: `in_citation` the text must go on as a
    citation (an anchor was completed); `may_close` a citation matched completely here (it may still
    go on, `제750조` -> ` 제1항`); `pending` the text since a citation or an anchor began may still be
    part of one."""

    was_in_citation: bool
    in_citation: bool
    may_close: bool
    pending: bool


def allow_only(out: np.ndarray, tokens: Iterable[int]) -> None:
    """Write a bitmask row (int32 words) that allows exactly `tokens`; bit 31 is a plain bit."""
    words = out.view(np.uint32)
    words.fill(0)
    for token in tokens:
        words[token >> 5] |= np.uint32(1 << (token & 31))


class CompiledConstraint:
    """A token index plus the per-state caches derived from it; shared by all requests using it."""

    def __init__(self, index: TokenIndex, tokenizer_vocab_size: int) -> None:
        if index.vocab_size != tokenizer_vocab_size:
            raise VocabularyMismatchError(
                f"expected a token index over the tokenizer's {tokenizer_vocab_size} tokens, "
                f"got one over {index.vocab_size}"
            )
        self.index = index
        self.vocab_size = index.vocab_size
        self._completions: dict[int, tuple[int, int]] = {}
        self._entries: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._anchor_tokens: np.ndarray | None = None
        self._transitions: dict[tuple[int, int], Transition] = {}
        self._needs_mask: dict[int, bool] = {}

    def transition(self, state: int, following: int) -> Transition:
        """The flags of a step, cached: the decode loop asks for them for every row at every step."""
        key = (state, following)
        found = self._transitions.get(key)
        if found is None:
            index = self.index
            found = Transition(
                index.in_citation(state),
                index.in_citation(following),
                index.citation_may_close(following),
                index.is_pending(following),
            )
            self._transitions[key] = found
        return found

    def needs_mask(self, state: int) -> bool:
        found = self._needs_mask.get(state)
        if found is None:
            found = self._needs_mask[state] = not self.index.is_unconstrained(state)
        return found

    def allowed_ids(self, state: int) -> np.ndarray:
        bits = np.unpackbits(
            self.index.bitmask(state).view(np.uint8), bitorder="little", count=self.vocab_size
        )
        return np.flatnonzero(bits)

    def shortest_completion(self, state: int) -> tuple[int, int]:
        """(tokens needed to reach a state where the output may end, first token of that path);
        (0, -1) when already there. Breadth-first over allowed tokens, cached along the path."""
        cached = self._completions.get(state)
        if cached is not None:
            return cached
        index = self.index
        parents: dict[int, tuple[int, int]] = {state: (-1, -1)}
        frontier = deque([(state, 0)])
        goal = None
        while frontier:
            current, depth = frontier.popleft()
            if index.is_accepting(current) or not index.in_citation(current):
                goal = current
                break
            if depth >= MAX_CITATION_TOKENS:
                continue
            for token in self.allowed_ids(current).tolist():
                following = index.advance(current, token)
                if following == DEAD or following in parents:
                    continue
                parents[following] = (current, token)
                frontier.append((following, depth + 1))
        if goal is None:
            raise EmptyMaskError(
                f"expected a way to close the citation from state {state} within "
                f"{MAX_CITATION_TOKENS} tokens, got none"
            )
        path: list[tuple[int, int]] = []  # (state, token taken from it), goal-most last
        node = goal
        while node != state:
            parent, token = parents[node]
            path.append((parent, token))
            node = parent
        path.reverse()
        self._completions[goal] = (0, -1)
        for steps_left, (from_state, token) in zip(range(len(path), 0, -1), path, strict=True):
            self._completions.setdefault(from_state, (steps_left, token))
        return self._completions[state]


    def citation_entries(self, state: int) -> tuple[np.ndarray, np.ndarray]:
        """(tokens allowed here that lead into a citation not yet complete, the tokens each then
        needs to close it), cached per state. From free text only a token holding a byte on which
        an anchor completes can enter a citation, so only those are walked there."""
        cached = self._entries.get(state)
        if cached is not None:
            return cached
        index = self.index
        candidates = self.allowed_ids(state)
        if not index.in_citation(state):
            candidates = np.intersect1d(candidates, self.anchor_tokens(), assume_unique=True)
        tokens, needed = [], []
        for token in candidates.tolist():
            following = index.advance(state, token)
            if following != DEAD and index.in_citation(following) and not index.is_accepting(following):
                tokens.append(token)
                needed.append(self.shortest_completion(following)[0])
        cached = (np.asarray(tokens, dtype=np.int64), np.asarray(needed, dtype=np.int64))
        self._entries[state] = cached
        return cached

    def anchor_tokens(self) -> np.ndarray:
        """The token ids whose bytes hold one on which an anchor may complete (sorted)."""
        if self._anchor_tokens is None:
            finals = self.index.automaton.anchor_final_bytes
            others = bytes(byte for byte in range(256) if byte not in finals)
            self._anchor_tokens = np.asarray(
                [
                    token
                    for token, piece in enumerate(self.index.vocabulary.tokens)
                    if piece and piece.translate(None, others)
                ],
                dtype=np.int64,
            )
        return self._anchor_tokens

class ConstraintCursor:
    """One request's position in the whole-output language."""

    def __init__(self, compiled: CompiledConstraint) -> None:
        self.compiled = compiled
        self.state = compiled.index.initial_state
        # free text, unless the whole output is one citation
        self._in_citation = compiled.index.in_citation(self.state)

    @property
    def in_citation(self) -> bool:
        return self._in_citation

    @property
    def accepting(self) -> bool:
        return self.compiled.index.is_accepting(self.state)

    def fill_bitmask(self, out: np.ndarray, tokens_left: int | None = None) -> bool:
        """Write the tokens allowed next into `out` (one int32 bitmask row of the index's words) and
        say whether the row constrains anything. False means free text with nothing banned: `out`
        is left as it was (no row is written on the hot path for nothing), and a decoder that needs
        the free-text row itself (every text token and EOS, no control token) asks the index for it.

        `tokens_left` counts the tokens that may still be generated, this one included (None: no
        budget is known). Within `MAX_CITATION_TOKENS` of the end a citation in progress must still
        close: when it needs every token left, only the next token of its shortest close is allowed;
        otherwise a token is removed if the citation it enters or continues could not close in the
        tokens left after it. Raises EmptyMaskError when nothing is allowed (a grammar bug)."""
        compiled, state = self.compiled, self.state
        banned = _NO_TOKENS
        if tokens_left is not None and tokens_left <= MAX_CITATION_TOKENS:
            if self._in_citation and not self.accepting:
                needed, token = compiled.shortest_completion(state)
                if tokens_left <= needed:
                    allow_only(out, (token,))
                    return True
            tokens, needed_after = compiled.citation_entries(state)
            banned = tokens[needed_after > tokens_left - 1]
        if not banned.size and not compiled.needs_mask(state):
            return False
        compiled.index.fill_bitmask(state, out)
        if banned.size:
            words = out.view(np.uint32)
            bits = np.left_shift(np.uint32(1), (banned & 31).astype(np.uint32))
            np.bitwise_and.at(words, banned >> 5, ~bits)
        if not out.any():
            raise EmptyMaskError(
                f"expected at least one allowed token in state {state} with {tokens_left} tokens left, "
                "got none"
            )
        return True

    def advance(self, token: int) -> Transition:
        compiled = self.compiled
        following = compiled.index.advance(self.state, token)
        if following == DEAD:
            # the mask allowed a token the automaton rejects: a grammar bug, never a garbage token
            raise EmptyMaskError(
                f"expected token {token} to be accepted in state {self.state}, got a dead state"
            )
        transition = compiled.transition(self.state, following)
        self.state = following
        self._in_citation = transition.in_citation
        return transition

    def rewind(self, state: int) -> None:
        """Go back to `state`, one this cursor was in before (the tokens read since were taken back)."""
        self.state = state
        self._in_citation = self.compiled.index.in_citation(state)


@dataclass(frozen=True, slots=True)
class Narrowing:
    """A request's narrowing of the answer language: only these courts / acts may be cited
    (None: all the base grammar knows)."""

    courts: tuple[str, ...] | None = None
    acts: tuple[str, ...] | None = None


class AnchorFinder:
    """Where in a text an anchor of a language begins, read on the byte automata of its anchor
    expressions (grammars' ExprDFA, states computed as reached; several, as one automaton of their
    alternation: a narrowing's own starts beside the heads every narrowing shares): built in
    milliseconds, where a Python regex over the statute book's names took seconds to compile at every
    start."""

    def __init__(self, *automata: ExprDFA) -> None:
        self._automata = automata

    @classmethod
    def of(cls, grammar: AnswerGrammar) -> AnchorFinder:
        return cls(*(ExprDFA(anchors) for anchors in (anchor_root(grammar), *grammar.starts)))

    def start_ending_after(self, text: str, start: int, before: int) -> int | None:
        """The first position from `start` at which an anchor begins that ends past character
        `before` (in the text a token has just added), None if there is none."""
        for begin in range(start, len(text)):
            for dfa in self._automata:
                state = dfa.initial
                for end in range(begin, len(text)):
                    state = dfa.walk(state, text[end].encode())
                    if state == DEAD:
                        break
                    if end >= before and dfa.is_accepting(state):
                        return begin
        return None


@dataclass(frozen=True, slots=True)
class CitationLanguage:
    """What a compile function hands the engine: the index over the whole-output language, the
    anchors that open a citation in it (for exact start offsets) and the parser of its citations."""

    index: TokenIndex
    anchor: AnchorFinder | None
    parse: Callable[[str], ParsedCitation | None]


def compile_language(
    grammar: AnswerGrammar,
    vocabulary: Vocabulary,
    parse: Callable[[str], ParsedCitation | None] = parse_citation,
    cache_dir: str | Path | None = None,
) -> CitationLanguage:
    """The whole-output language of `grammar` over a model's vocabulary, with its anchors. With
    `cache_dir` the index is built whole and stored on a miss and loaded on a hit; without it states
    are computed as generation first reaches them."""
    index = compile_index(grammar, vocabulary, cache_dir=cache_dir, build=True)
    return CitationLanguage(index, AnchorFinder.of(grammar), parse)


@dataclass(frozen=True, slots=True)
class Constraint:
    compiled: CompiledConstraint
    anchor: AnchorFinder | None
    parse: Callable[[str], ParsedCitation | None]

    @classmethod
    def of(cls, language: CitationLanguage, tokenizer_vocab_size: int) -> Constraint:
        return cls(CompiledConstraint(language.index, tokenizer_vocab_size), language.anchor, language.parse)

    def cursor(self) -> ConstraintCursor:
        return ConstraintCursor(self.compiled)


class ConstraintLibrary:
    """Compiled constraints by narrowing, least recently used dropped past `capacity`.

    One compile runs at a time (it is CPU-bound: parallel ones only share the cores), and callers
    asking for a narrowing that is being compiled wait for that compile instead of starting their
    own, so a burst of requests with one new narrowing costs one compile. Async callers use
    `get_async`, which compiles on the library's own thread: waiting compiles hold no thread of the
    event loop's default pool, which health checks and database reads need."""

    def __init__(
        self,
        build: Callable[[Narrowing], CitationLanguage],
        tokenizer_vocab_size: int,
        capacity: int = 16,
        prepare: Callable[[], None] | None = None,
    ) -> None:
        self._build = build
        self._prepare = prepare
        self._vocab_size = tokenizer_vocab_size
        self._capacity = capacity
        self._cache: OrderedDict[Narrowing, Constraint] = OrderedDict()
        self._compiling: dict[Narrowing, Future[Constraint]] = {}
        self._lock = threading.Lock()
        self._compile_lock = threading.Lock()
        self._compile_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegen-compile")

    def prepare(self) -> Constraint:
        """The whole language compiled, and what new narrowings share (`prepare`, given at construction):
        what a service does before its first request, so that no request pays for it."""
        constraint = self.get()
        if self._prepare is not None:
            with self._compile_lock:
                self._prepare()
        return constraint

    async def prepare_async(self) -> Constraint:
        """`prepare` on the library's own compile thread, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._compile_thread, self.prepare)

    async def get_async(self, narrowing: Narrowing = Narrowing()) -> Constraint:
        """`get` for the event loop: a cached constraint at once, a new one compiled off the loop."""
        with self._lock:
            cached = self._cached(narrowing)
        if cached is not None:
            return cached
        return await asyncio.get_running_loop().run_in_executor(self._compile_thread, self.get, narrowing)

    def is_cached(self, narrowing: Narrowing) -> bool:
        """Whether `get` would return at once: the narrowing's constraint is compiled and cached."""
        with self._lock:
            return narrowing in self._cache

    def get(self, narrowing: Narrowing = Narrowing()) -> Constraint:
        with self._lock:
            cached = self._cached(narrowing)
            if cached is not None:
                return cached
            pending = self._compiling.get(narrowing)
            compiles_here = pending is None
            if pending is None:
                pending = self._compiling[narrowing] = Future()
        if not compiles_here:
            return pending.result()  # the compiling caller's constraint, or its error raised again
        try:
            with self._compile_lock:  # compiling may take seconds: not under the cache's lock
                constraint = Constraint.of(self._build(narrowing), self._vocab_size)
        except BaseException as error:
            with self._lock:
                del self._compiling[narrowing]
            pending.set_exception(error)
            raise
        with self._lock:
            del self._compiling[narrowing]
            self._cache[narrowing] = constraint
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
        pending.set_result(constraint)
        logger.info("compiled a constraint for %s (%d cached)", narrowing, len(self._cache))
        return constraint

    def _cached(self, narrowing: Narrowing) -> Constraint | None:
        """The cached constraint, marked most recently used; the caller holds the lock."""
        constraint = self._cache.get(narrowing)
        if constraint is not None:
            self._cache.move_to_end(narrowing)
        return constraint
