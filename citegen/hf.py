"""A transformers `LogitsProcessor` for users of `model.generate()`.

    language = compile_language(answer_grammar(forbid_shorthand=True), loaded.vocabulary)
    processor = CitationLogitsProcessor(Constraint.of(language, loaded.vocab_size))
    model.generate(..., logits_processor=LogitsProcessorList([processor]))

One processor serves one `generate()` call (it keeps a cursor per row, as xgrammar's does). It
masks with `apply_token_bitmask_inplace`, so CUDA logits get the Triton kernel. What `generate()`
does not tell a processor, it cannot do: the budget reserve needs `max_new_tokens`, so pass it
here to keep a citation in progress closable.
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessor

from citegen.constraint import Constraint, ConstraintCursor
from citegen.errors import CitegenError
from citegen.kernels import apply_token_bitmask_inplace
from grammars import DEAD, FINISHED


class CitationLogitsProcessor(LogitsProcessor):
    def __init__(self, constraint: Constraint, max_new_tokens: int | None = None) -> None:
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
                if cursor.state not in (FINISHED, DEAD):  # rows past EOS are padded by generate()
                    cursor.advance(token)
        vocab = self._constraint.compiled.vocab_size
        if scores.shape[1] > vocab:
            scores[:, vocab:] = float("-inf")
        generated = input_ids.shape[1] - self._prompt_length
        tokens_left = None if self._max_new_tokens is None else self._max_new_tokens - generated
        index = self._constraint.compiled.index
        if self._bitmask is None:  # one buffer per generate() call, not one per step
            self._bitmask = torch.zeros((scores.shape[0], (vocab + 31) // 32), dtype=torch.int32)
        bitmask = self._bitmask
        rows = []
        for row, cursor in enumerate(self._cursors):
            if cursor.state == FINISHED:
                continue  # free rows are masked too: generate() would otherwise sample control tokens
            forced = None if tokens_left is None else cursor.forced_token(tokens_left)
            if forced is not None:
                bit = forced % 32  # exactly the next token of the shortest close; bit 31 is the sign bit
                bitmask[row].zero_()
                bitmask[row, forced // 32] = -(1 << 31) if bit == 31 else 1 << bit
            else:
                index.fill_bitmask(cursor.state, bitmask[row].numpy())
            rows.append(row)
        if rows:
            apply_token_bitmask_inplace(scores, bitmask, rows, vocab)
        return scores
