"""The CPU float32 path's three ways (sparse, dense, mixed rows) against the naive loop, on masks made of
whole words as real ones are, with special values in the logits."""

from __future__ import annotations

import pytest
import torch

from citegen.kernels import apply_token_bitmask_inplace
from tests.engine.test_kernels import naive_reference

WIDTH = 1000  # 31 whole words and 8 tokens of a 32nd


def words_of(kind: str, count: int, generator: torch.Generator) -> torch.Tensor:
    """A bitmask row: `sparse` mostly 0 words, `dense` mostly -1, `mixed` random words."""
    random = torch.randint(-(2**31), 2**31 - 1, (count,), dtype=torch.int32, generator=generator)
    if kind == "mixed":
        return random
    keep = torch.rand(count, generator=generator) < 0.2
    fill = torch.zeros(count, dtype=torch.int32) if kind == "sparse" else torch.full((count,), -1, dtype=torch.int32)
    return torch.where(keep, random, fill)


@pytest.mark.parametrize("vocab_size", [WIDTH, 992, 900], ids=["partial-last-word", "whole-words", "narrower"])
@pytest.mark.parametrize("kind", ["sparse", "dense", "mixed"])
def test_float32_rows_of_every_shape_equal_the_naive_loop(kind, vocab_size) -> None:
    generator = torch.Generator().manual_seed(7)
    logits = torch.randn(3, WIDTH, generator=generator)
    logits[:, ::97] = float("nan")
    logits[:, 5::89] = float("inf")
    logits[:, 7::83] = float("-inf")
    bitmask = torch.stack([words_of(kind, (vocab_size + 31) // 32, generator) for _ in range(3)])
    expected = naive_reference(logits, bitmask, [0, 2], vocab_size)
    apply_token_bitmask_inplace(logits, bitmask, [0, 2], vocab_size)
    assert torch.equal(logits.isnan(), expected.isnan())
    assert torch.equal(logits.nan_to_num(0.5), expected.nan_to_num(0.5))
