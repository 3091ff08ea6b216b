"""The per-state caches of `CompiledConstraint` against the index they are derived from."""

from __future__ import annotations

import pytest
import torch
from tiny_lm import citation_language

from citegen.constraint import CompiledConstraint
from citegen.kernels import apply_token_bitmask_inplace

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


@pytest.mark.parametrize("text", list(WALKS.values()), ids=list(WALKS))
def test_the_cpu_row_mask_equals_the_bitmask_kernel(tiny, compiled, text) -> None:
    generator = torch.Generator().manual_seed(0)
    for state in states_along(tiny, compiled, text):
        logits = torch.randn(1, compiled.vocab_size, generator=generator)
        expected = logits.clone()
        apply_token_bitmask_inplace(
            expected,
            torch.from_numpy(compiled.index.bitmask(state)).unsqueeze(0),
            vocab_size=compiled.vocab_size,
        )
        compiled.mask_row_cpu_inplace(logits[0], state)
        assert torch.equal(logits, expected), state


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
