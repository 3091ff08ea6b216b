"""A transformers `LogitsProcessor` for users of `model.generate()`.

    language = compile_language(answer_grammar(forbid_shorthand=True), loaded.vocabulary)
    processor = CitationLogitsProcessor(Constraint.of(language, loaded.vocab_size), max_new_tokens=64)
    model.generate(..., max_new_tokens=64, logits_processor=LogitsProcessorList([processor]))

One processor serves one `generate()` call (it keeps a cursor per row, as xgrammar's does). Each
row is filled by the cursor's `fill_bitmask`, the same operation citegen's engine and the vLLM
processor use, and masked with `apply_token_bitmask_inplace`, so CUDA logits get the Triton
kernel. `generate()` does not tell a processor its budget, so `max_new_tokens` is asked for here:
give the same number as to `generate()`, and a citation in progress always closes within it
(None: no budget is kept, and `generate()` may stop inside a citation).
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessor

from citegen.constraint import Constraint, ConstraintCursor
from citegen.errors import CitegenError, RequestError
from citegen.kernels import apply_token_bitmask_inplace
from grammars import FINISHED


class CitationLogitsProcessor(LogitsProcessor):
    def __init__(self, constraint: Constraint, *, max_new_tokens: int | None) -> None:
        if max_new_tokens is not None and max_new_tokens < 1:
            raise RequestError(f"expected max_new_tokens >= 1 or None, got {max_new_tokens}")
        self._constraint = constraint
        self._max_new_tokens = max_new_tokens
        self._cursors: list[ConstraintCursor] = []
        self._prompt_length = 0
        self._bitmask: torch.Tensor | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if not self._cursors:
            self._cursors = [self._constraint.cursor() for _ in range(input_ids.shape[0])]
            self._prompt_length = input_ids.shape[1]
        elif len(self._cursors) != input_ids.shape[0]:
            raise CitegenError(
                f"expected {len(self._cursors)} rows as on the first call (one processor per generate()), "
                f"got {input_ids.shape[0]}"
            )
        else:
            for cursor, token in zip(self._cursors, input_ids[:, -1].tolist(), strict=True):
                if cursor.state != FINISHED:  # rows past EOS are padded by generate()
                    cursor.advance(token)
        vocab = self._constraint.compiled.vocab_size
        generated = input_ids.shape[1] - self._prompt_length
        tokens_left = None if self._max_new_tokens is None else self._max_new_tokens - generated
        if self._bitmask is None:  # one buffer per generate() call, not one per step
            self._bitmask = torch.zeros((scores.shape[0], (vocab + 31) // 32), dtype=torch.int32)
        for row, cursor in enumerate(self._cursors):
            out = self._bitmask[row].numpy()
            if not cursor.fill_bitmask(out, tokens_left):
                # free rows are applied too: generate() would otherwise sample control tokens
                cursor.compiled.index.fill_bitmask(cursor.state, out)
        apply_token_bitmask_inplace(scores, self._bitmask, vocab_size=vocab)
        return scores
