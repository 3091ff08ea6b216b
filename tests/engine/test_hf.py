"""The `LogitsProcessor` adapter inside transformers' own `generate()`."""

from __future__ import annotations

import pytest
import torch
from tiny_lm import citation_language, malformed_anchors
from transformers import LogitsProcessorList

from citegen.constraint import Constraint
from citegen.hf import CitationLogitsProcessor
from grammars import find_citations


def generate(tiny, processor, seed: int, max_new_tokens: int) -> list[str]:
    prompt = tiny.tokenizer.apply_chat_template(
        [{"role": "user", "content": "판례?"}], tokenize=False, add_generation_prompt=True
    )
    inputs = tiny.tokenizer([prompt] * 8, return_tensors="pt", add_special_tokens=False)
    torch.manual_seed(seed)
    output = tiny.model.generate(
        **inputs,
        do_sample=True,
        temperature=1.5,
        max_new_tokens=max_new_tokens,
        logits_processor=LogitsProcessorList([processor]) if processor else None,
        pad_token_id=tiny.tokenizer.eos_token_id,
    )
    return tiny.tokenizer.batch_decode(output[:, inputs.input_ids.shape[1] :], skip_special_tokens=True)


@pytest.mark.parametrize("seed", range(2), ids=lambda s: f"seed{s}")
def test_generate_with_the_processor_writes_only_canonical_citations(tiny, seed) -> None:
    constraint = Constraint.of(citation_language(tiny), tiny.vocab_size)
    texts = generate(tiny, CitationLogitsProcessor(constraint, max_new_tokens=40), seed, 40)
    assert not [m for text in texts for m in malformed_anchors(text)]
    assert any(find_citations(text, lenient=False) for text in texts)


def test_a_citation_in_progress_always_closes_within_the_budget(tiny) -> None:
    """Every budget from 1 up, eight sampled rows each: no text ends inside a citation."""
    constraint = Constraint.of(citation_language(tiny), tiny.vocab_size)
    cited = 0
    for budget in range(1, 41):
        texts = generate(tiny, CitationLogitsProcessor(constraint, max_new_tokens=budget), budget, budget)
        assert not [m for text in texts for m in malformed_anchors(text)], budget
        cited += sum(bool(find_citations(text, lenient=False)) for text in texts)
    assert cited >= 8


def test_without_the_budget_small_budgets_end_inside_citations(tiny) -> None:
    """The check above can fail: the same generations, the processor told no budget."""
    constraint = Constraint.of(citation_language(tiny), tiny.vocab_size)
    cut = [
        text
        for budget in range(1, 41)
        for text in generate(tiny, CitationLogitsProcessor(constraint, max_new_tokens=None), budget, budget)
        if malformed_anchors(text)
    ]
    assert cut


def test_without_the_processor_the_same_sampling_writes_malformed_citations(tiny) -> None:
    texts = [text for seed in range(2) for text in generate(tiny, None, seed, 40)]
    assert any(malformed_anchors(text) for text in texts)
