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

from citegen.errors import SamplingError, SamplingParamsError

# Bounds checked at the edge, as vLLM's SamplingParams checks them: past them a row's scores leave
# float32 (temperature 1e-38 turns logits into inf; top_p 1e-300 rounds to 0 and drops every token).
MIN_TEMPERATURE = 1e-2  # vLLM raises smaller positive temperatures to this; here they are refused
MIN_TOP_P = 1e-6
REPETITION_PENALTY_RANGE = (1e-2, 1e2)
MAX_SEED = 2**63 - 1


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """temperature 0 means greedy; top_k 0 and top_p 1 mean no truncation; seed None means a
    fresh random seed per request. Values that cannot be sampled are refused when built, with a
    `SamplingParamsError` naming the field (`temperature: 1e-300`, `top_p: 1e-300`,
    `max_new_tokens: True`), so a bad request fails alone before it reaches a batch."""

    max_new_tokens: int = 256
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        low, high = REPETITION_PENALTY_RANGE
        checks = (
            ("max_new_tokens", _is_int(self.max_new_tokens) and self.max_new_tokens >= 1, "an integer >= 1"),
            (
                "temperature",
                _is_real(self.temperature)
                and (self.temperature == 0 or MIN_TEMPERATURE <= self.temperature < math.inf),
                f"0 (greedy) or a finite number >= {MIN_TEMPERATURE}",
            ),
            ("top_k", _is_int(self.top_k) and self.top_k >= 0, "an integer >= 0 (0: no top-k)"),
            ("top_p", _is_real(self.top_p) and MIN_TOP_P <= self.top_p <= 1, f"a number in [{MIN_TOP_P}, 1]"),
            (
                "repetition_penalty",
                _is_real(self.repetition_penalty) and low <= self.repetition_penalty <= high,
                f"a number in [{low}, {high}]",
            ),
            (
                "seed",
                self.seed is None or (_is_int(self.seed) and 0 <= self.seed <= MAX_SEED),
                f"None or an integer in [0, {MAX_SEED}]",
            ),
            (
                "stop",
                isinstance(self.stop, tuple) and all(isinstance(s, str) and s for s in self.stop),
                "a tuple of non-empty strings",
            ),
        )
        for field, ok, expected in checks:
            if not ok:
                raise SamplingParamsError(field, expected, getattr(self, field))

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
    """One token from one row of (already masked) logits. Raises SamplingError when the row cannot
    be sampled (a NaN or infinite score, or nothing left to draw from): the caller fails that row's
    request alone."""
    if params.greedy:
        best, token = torch.max(row, dim=0)
        if not math.isfinite(float(best)):
            raise SamplingError(f"expected finite scores to take the best of, got a best of {float(best)}")
        return int(token)
    scores = row.float() / params.temperature
    if 0 < params.top_k < scores.numel():
        threshold = torch.topk(scores, params.top_k).values[-1]
        scores = scores.masked_fill(scores < threshold, float("-inf"))
    if params.top_p < 1.0:
        sorted_scores, order = torch.sort(scores, descending=True)
        probabilities = torch.softmax(sorted_scores, dim=-1)
        # drop a token once the mass before it already reaches top_p; the first always stays
        drop_sorted = (probabilities.cumsum(dim=-1) - probabilities) >= params.top_p
        drop_sorted[0] = False
        scores = scores.index_put((order[drop_sorted],), torch.tensor(float("-inf"), device=scores.device))
    probabilities = torch.softmax(scores, dim=-1)
    total = float(probabilities.sum())
    if not math.isfinite(total) or total <= 0:
        raise SamplingError(
            f"expected scores that softmax to a distribution at temperature {params.temperature}, "
            f"got probabilities summing to {total}"
        )
    return int(torch.multinomial(probabilities, 1, generator=generator))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
