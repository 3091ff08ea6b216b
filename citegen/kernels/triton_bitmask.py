"""The Triton backend of `apply_token_bitmask_inplace`: one launch for the whole batch.

Grid: (vocabulary blocks, rows to mask). Each program covers BLOCK logits of its row, reads the
packed word of each and stores -inf only where its bit is 0 (or the column lies past the
vocabulary), so an allowed logit is never written. Rows left out of `indices` get no program.
This is the only module that imports triton.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 4096
# Warps per program by logit width, measured on an H200 (bench/results/gpu_mask.md): 16-bit
# logits store fastest with a thread per 4 logits (32 warps), float32 with 4 warps.
NUM_WARPS = {2: 32, 4: 4}


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
    # Blocks vary fastest across the grid, so programs scheduled together write neighbouring
    # memory of one row rather than the same block of many rows.
    block = tl.program_id(0)
    program_row = tl.program_id(1)
    if HAS_INDICES:
        row = tl.load(indices_ptr + program_row).to(tl.int64)
    else:
        row = program_row.to(tl.int64)
    # One lane per logit: each lane reads its own word (the 32 lanes of a word hit the same cache
    # line) so the stores below stay contiguous per thread and vectorise; expanding a
    # (words, 32) tile and reshaping it scattered them and ran up to 1.6x slower on an H200.
    offsets = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    word_offsets = offsets // 32
    words = tl.load(
        bitmask_ptr + row * bitmask_row_stride + word_offsets,
        mask=word_offsets < bitmask_words,
        other=0,
    )
    disallowed = ((words >> (offsets % 32)) & 1) == 0
    disallowed = disallowed | (offsets >= vocab_size)
    tl.store(
        logits_ptr + row * logits_row_stride + offsets,
        -float("inf"),
        mask=disallowed & (offsets < width),
    )


def apply_token_bitmask_triton_inplace(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    rows: torch.Tensor | None,
    vocab_size: int,
    num_warps: int | None = None,
) -> None:
    width = logits.shape[1]
    program_rows = logits.shape[0] if rows is None else rows.numel()
    grid = (triton.cdiv(width, BLOCK), program_rows)
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
        num_warps=num_warps or NUM_WARPS.get(logits.element_size(), 4),
    )
