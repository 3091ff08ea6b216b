"""`ConstraintCursor.fill_bitmask` and the per-state caches of `CompiledConstraint` against the
index they are derived from and a brute-force search over the tiny vocabulary."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_lm import citation_language

from citegen.constraint import MAX_CITATION_TOKENS, CompiledConstraint, ConstraintCursor

WALKS = {
    "case": "판례는 대법원 2024. 7. 1. 선고 2024도4202 판결",
    "statute": "민법 제750조 제1항에 따라",
}


@pytest.fixture(scope="module")
def compiled(tiny) -> CompiledConstraint:
    return CompiledConstraint(citation_language(tiny).index, tiny.vocab_size)


def states_along(tiny, compiled, text: str) -> list[int]:
    states = [compiled.index.initial_state]
    for token in tiny.tokenizer(text, add_special_tokens=False).input_ids:
        states.append(compiled.index.advance(states[-1], token))
    return states


def allowed_by(row: np.ndarray, vocab_size: int) -> set[int]:
    bits = np.unpackbits(row.view(np.uint8), bitorder="little", count=vocab_size)
    return set(np.flatnonzero(bits).tolist())


def cursor_at(compiled: CompiledConstraint, state: int) -> ConstraintCursor:
    cursor = ConstraintCursor(compiled)
    cursor.state = state
    cursor._in_citation = compiled.index.in_citation(state)
    return cursor


@pytest.mark.parametrize("text", list(WALKS.values()), ids=list(WALKS))
def test_without_a_budget_the_row_is_the_index_mask(tiny, compiled, text) -> None:
    row = compiled.index.allocate_bitmask()[0]
    for state in states_along(tiny, compiled, text):
        for tokens_left in (None, MAX_CITATION_TOKENS + 1):
            row.fill(0x5A5A5A5A)  # what was there before: a free row is not written
            constrains = cursor_at(compiled, state).fill_bitmask(row, tokens_left)
            assert constrains == (not compiled.index.is_unconstrained(state)), state
            expected = compiled.index.bitmask(state) if constrains else np.full_like(row, 0x5A5A5A5A)
            assert np.array_equal(row, expected), state


def closes_within(index, state: int, tokens: int, memo: dict) -> bool:
    """Brute force: from `state` the text can leave every citation it is in within `tokens` tokens."""
    if index.is_accepting(state) or not index.in_citation(state):
        return True
    if tokens == 0:
        return False
    key = (state, tokens)
    if key not in memo:
        memo[key] = any(
            closes_within(index, index.advance(state, token), tokens - 1, memo)
            for token in index.allowed_tokens(state).tolist()
        )
    return memo[key]


@pytest.mark.parametrize("text", list(WALKS.values()), ids=list(WALKS))
def test_with_a_budget_the_row_allows_exactly_the_tokens_after_which_a_citation_still_closes(
    tiny, compiled, text
) -> None:
    """Every state of a walk, every budget from 1: the row allows a token exactly when, after it,
    the text can leave its citation in the tokens then left; when the open citation needs all of
    them, only the next token of its shortest close."""
    index, memo = compiled.index, {}
    row = index.allocate_bitmask()[0]
    banned_somewhere = forced_somewhere = False
    for state in states_along(tiny, compiled, text):
        allowed = index.allowed_tokens(state).tolist()
        for tokens_left in range(1, 24):
            if not cursor_at(compiled, state).fill_bitmask(row, tokens_left):
                index.fill_bitmask(state, row)  # free text, nothing banned: the index's own row
            got = allowed_by(row, compiled.vocab_size)
            fitting = {
                token
                for token in allowed
                if closes_within(index, index.advance(state, token), tokens_left - 1, memo)
            }
            needed, forced = compiled.shortest_completion(state) if index.in_citation(state) else (0, -1)
            if index.in_citation(state) and not index.is_accepting(state) and tokens_left <= needed:
                assert got == {forced} and (tokens_left < needed or forced in fitting), (state, tokens_left)
                forced_somewhere = True
            else:
                assert got == fitting, (state, tokens_left)
                banned_somewhere |= len(fitting) < len(allowed)
    assert banned_somewhere and forced_somewhere  # the walk reaches both rules


@pytest.mark.parametrize("text", list(WALKS.values()), ids=list(WALKS))
def test_following_the_shortest_completion_closes_the_citation_in_that_many_tokens(
    tiny, compiled, text
) -> None:
    index = compiled.index
    for state in states_along(tiny, compiled, text):
        if not index.in_citation(state):
            continue
        needed, _ = compiled.shortest_completion(state)
        for _ in range(needed):
            state = index.advance(state, compiled.shortest_completion(state)[1])
        assert index.is_accepting(state) or not index.in_citation(state)
