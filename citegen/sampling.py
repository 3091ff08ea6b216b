"""Sampling parameters and the per-row sampling of one decode step.

Order per row, as transformers applies it: repetition penalty, (constraint mask, applied by the
engine), temperature, top-k, top-p, then a draw from the request's own `torch.Generator`, so the
same inputs and seed give the same tokens whatever else shares the batch.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import torch

from citegen.errors import RequestError


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """temperature 0 means greedy; top_k 0 and top_p 1 mean no truncation; seed None means a
    fresh random seed per request."""

    max_new_tokens: int = 256
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        checks = (
            (self.max_new_tokens >= 1, "max_new_tokens >= 1", self.max_new_tokens),
            (math.isfinite(self.temperature) and self.temperature >= 0, "temperature >= 0", self.temperature),
            (self.top_k >= 0, "top_k >= 0", self.top_k),
            (0 < self.top_p <= 1, "0 < top_p <= 1", self.top_p),
            (
                math.isfinite(self.repetition_penalty) and self.repetition_penalty > 0,
                "repetition_penalty > 0",
                self.repetition_penalty,
            ),
            (all(self.stop), "non-empty stop strings", self.stop),
        )
        for ok, expected, got in checks:
            if not ok:
                raise RequestError(f"expected {expected}, got {got!r}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def make_generator(self, device: torch.device) -> torch.Generator:
        seed = self.seed if self.seed is not None else random.SystemRandom().randrange(2**63)
        return torch.Generator(device=device).manual_seed(seed)


def apply_repetition_penalty_inplace(row: torch.Tensor, seen: torch.Tensor, penalty: float) -> None:
    """transformers' rule: a seen token's positive logit is divided by the penalty, a negative one
    multiplied, so a penalty > 1 always makes it less likely."""
    if penalty == 1.0 or seen.numel() == 0:
        return
    scores = row.index_select(0, seen)
    row.index_copy_(0, seen, torch.where(scores > 0, scores / penalty, scores * penalty))


def sample_row(row: torch.Tensor, params: SamplingParams, generator: torch.Generator) -> int:
    """One token from one row of (already masked) logits."""
    if params.greedy:
        return int(torch.argmax(row))
    scores = row.float() / params.temperature
    if 0 < params.top_k < scores.numel():
        threshold = torch.topk(scores, params.top_k).values[-1]
        scores = scores.masked_fill(scores < threshold, float("-inf"))
    if params.top_p < 1.0:
        sorted_scores, order = torch.sort(scores, descending=True)
        cumulative = torch.softmax(sorted_scores, dim=-1).cumsum(dim=-1)
        # drop a token once the mass before it already reaches top_p; the first always stays
        drop_sorted = (cumulative - torch.softmax(sorted_scores, dim=-1)) >= params.top_p
        scores = scores.index_put((order[drop_sorted],), torch.tensor(float("-inf"), device=scores.device))
    probabilities = torch.softmax(scores, dim=-1)
    return int(torch.multinomial(probabilities, 1, generator=generator))
