"""The Triton backend of `apply_token_bitmask_inplace`: one launch for the whole batch.

Grid: (vocabulary blocks, rows to mask). Each program covers BLOCK logits of its row as a tile of
groups of VECTOR neighbouring logits (16 bytes: 4 float32, 8 bfloat16), one group per thread, and
reads the packed bitmask word of each group once (VECTOR divides 32, so a group's bits share a
word). A group with any disallowed logit is written whole in one vector store, reading the logits
first only when the group mixes allowed and disallowed ones (allowed logits are written back
unchanged, bit for bit); a group with none is not touched. Rows left out of `indices` get no
program. This is the only module that imports triton.

Per-logit predicated stores, as in xgrammar's kernel, compile to 2- or 4-byte lane stores, four
to eight times as many (bench/kernel_ptx.py); on an H200 the 16-byte groups run 1.1-5x faster than
xgrammar's kernel at batch 128 and 512 and equal it at batch 1 (bench/results/gpu_mask.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import triton
import triton.language as tl

BLOCK = 4096


@dataclass(frozen=True, slots=True)
class LaunchShape:
    vector: int  # logits per group
    num_warps: int


# By logit width in bytes: 16-byte groups, warps as measured fastest on an H200 at batch 128 and
# 512 (bench/gpu_mask.py times every shape side by side with xgrammar's kernel).
LAUNCH_SHAPES = {2: LaunchShape(vector=8, num_warps=8), 4: LaunchShape(vector=4, num_warps=16)}


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
    VECTOR: tl.constexpr,
):
    # Blocks vary fastest across the grid, so programs scheduled together write neighbouring
    # memory of one row rather than the same block of many rows.
    block = tl.program_id(0)
    program_row = tl.program_id(1)
    if HAS_INDICES:
        row = tl.load(indices_ptr + program_row).to(tl.int64)
    else:
        row = program_row.to(tl.int64)
    group_starts = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE // VECTOR) * VECTOR
    offsets = group_starts[:, None] + tl.arange(0, VECTOR)[None, :]  # (groups, VECTOR)
    word_offsets = group_starts // 32
    words = tl.load(
        bitmask_ptr + row * bitmask_row_stride + word_offsets,
        mask=word_offsets < bitmask_words,
        other=0,
    )
    in_row = offsets < width
    disallowed = ((words[:, None] >> (offsets % 32)) & 1) == 0
    disallowed = (disallowed | (offsets >= vocab_size)) & in_row
    pointers = logits_ptr + row * logits_row_stride + offsets
    # A per-group count broadcast over the group gives one predicate per vector, which is what
    # lets the compiler emit 16-byte loads and stores.
    disallowed_count = tl.sum(disallowed.to(tl.int32), axis=1)[:, None]
    touched = (disallowed_count > 0) & in_row
    mixed = touched & (disallowed_count < VECTOR)
    kept = tl.load(pointers, mask=mixed, other=0.0)
    tl.store(pointers, tl.where(disallowed, -float("inf"), kept), mask=touched)


def launch_shape(logits: torch.Tensor) -> LaunchShape:
    size = logits.element_size()
    return LAUNCH_SHAPES.get(size, LaunchShape(vector=max(1, 16 // size), num_warps=8))


def apply_token_bitmask_triton_inplace(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    rows: torch.Tensor | None,
    vocab_size: int,
    shape: LaunchShape | None = None,
) -> None:
    """`shape` overrides `LAUNCH_SHAPES` (bench/gpu_mask.py times every shape side by side)."""
    shape = shape or launch_shape(logits)
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
        VECTOR=shape.vector,
        num_warps=shape.num_warps,
    )
