"""The Triton backend of `apply_token_bitmask_inplace`: one launch for the whole batch.

Grid: (rows to mask, vocabulary blocks). Each program loads BLOCK/32 packed words of its row,
expands them to BLOCK bits and stores -inf only where a bit is 0 (or the column lies past the
vocabulary), so an allowed logit is never written. Rows left out of `indices` get no program.
This is the only module that imports triton.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def _apply_token_bitmask_kernel(
    logits_ptr,
    bitmask_ptr,
    indices_ptr,
    logits_row_stride,
    bitmask_row_stride,
    width,
    vocab_size,
    bitmask_words,
    HAS_INDICES: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    program_row = tl.program_id(0)
    block = tl.program_id(1)
    if HAS_INDICES:
        row = tl.load(indices_ptr + program_row).to(tl.int64)
    else:
        row = program_row.to(tl.int64)
    words_per_block: tl.constexpr = BLOCK_SIZE // 32
    word_offsets = block * words_per_block + tl.arange(0, words_per_block)
    words = tl.load(
        bitmask_ptr + row * bitmask_row_stride + word_offsets,
        mask=word_offsets < bitmask_words,
        other=0,
    )
    bits = (words[:, None] >> tl.arange(0, 32)[None, :]) & 1
    disallowed = tl.reshape(bits == 0, (BLOCK_SIZE,))
    offsets = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    disallowed = disallowed | (offsets >= vocab_size)
    tl.store(
        logits_ptr + row * logits_row_stride + offsets,
        -float("inf"),
        mask=disallowed & (offsets < width),
    )


def apply_token_bitmask_triton_inplace(
    logits: torch.Tensor, bitmask: torch.Tensor, rows: torch.Tensor | None, vocab_size: int
) -> None:
    width = logits.shape[1]
    program_rows = logits.shape[0] if rows is None else rows.numel()
    grid = (program_rows, triton.cdiv(width, BLOCK))
    _apply_token_bitmask_kernel[grid](
        logits,
        bitmask,
        rows if rows is not None else bitmask,  # never read without HAS_INDICES
        logits.stride(0),
        bitmask.stride(0),
        width,
        vocab_size,
        bitmask.shape[1],
        HAS_INDICES=rows is not None,
        BLOCK_SIZE=BLOCK,
    )
