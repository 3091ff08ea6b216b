"""Applying a packed token bitmask to logits, in place, on whatever device the logits live.

The bitmask layout is xgrammar's (../shared/STYLE.md): int32 words, bit j of word i is token
32·i+j, 1 = allowed. `apply_token_bitmask_inplace` must equal this naive loop::

    for row in (indices if indices is not None else range(logits.shape[0])):
        for token in range(logits.shape[1]):
            word = token // 32
            allowed = (token < vocab_size and word < bitmask.shape[1]
                       and (bitmask[row, word] >> (token % 32)) & 1)
            if not allowed:
                logits[row, token] = -inf

`vocab_size` defaults to the number of bits in a bitmask row, so logits wider than the
tokenizer's vocabulary (embedding tables padded to a multiple of 64 or 128) have their extra
columns masked. The Triton backend lives in `citegen.kernels.triton_bitmask` and is imported
only when CUDA logits arrive, so CPU-only users never import triton; the CPU backend
(`citegen.kernels.cpu_bitmask`) builds its C kernel when CPU logits first arrive.
"""

from __future__ import annotations

import numpy as np
import torch

from citegen.errors import MaskError
from citegen.kernels.cpu_bitmask import apply_token_bitmask_cpu_inplace, apply_token_bitmask_torch_inplace

__all__ = ["apply_token_bitmask_inplace", "check_bitmask_arguments"]


def apply_token_bitmask_inplace(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    indices: torch.Tensor | list[int] | None = None,
    vocab_size: int | None = None,
) -> None:
    """Set the logits of disallowed tokens to -inf, for the rows in `indices` (all rows if None).

    Row r of `bitmask` belongs to row r of `logits`; rows not in `indices` are left untouched.
    """
    logits_2d, bitmask_2d, rows, vocab = check_bitmask_arguments(logits, bitmask, indices, vocab_size)
    if rows is not None and not rows.size:
        return
    if logits_2d.requires_grad and torch.is_grad_enabled():  # the kernels' writes would be unseen by autograd
        apply_token_bitmask_torch_inplace(logits_2d, bitmask_2d, rows, vocab)
    elif logits_2d.is_cpu:
        apply_token_bitmask_cpu_inplace(logits_2d, bitmask_2d, rows, vocab)
    else:
        from citegen.kernels.triton_bitmask import apply_token_bitmask_triton_inplace

        device_rows = None if rows is None else torch.from_numpy(rows).to(logits_2d.device)
        apply_token_bitmask_triton_inplace(logits_2d, bitmask_2d, device_rows, vocab)


def check_bitmask_arguments(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    indices: torch.Tensor | list[int] | None,
    vocab_size: int | None,
) -> tuple[torch.Tensor, torch.Tensor, np.ndarray | None, int]:
    """Validate at the edge: 2-D logits and bitmask on the logits' device, the row indices as a contiguous
    int32 numpy array (None: every row), the vocabulary size.

    Every CPU step of a constrained row pays this before its ~10 µs kernel, so the common case (2-D
    contiguous CPU tensors) reads each property once and creates no tensor or device object."""
    shape = logits.shape  # read once: each torch property costs 0.1-0.25 µs
    if len(shape) not in (1, 2):
        raise MaskError(f"expected logits of shape (batch, vocab) or (vocab,), got {tuple(shape)}")
    if not logits.is_floating_point():
        raise MaskError(f"expected floating-point logits, got {logits.dtype}")
    if bitmask.dtype != torch.int32:
        raise MaskError(f"expected an int32 bitmask, got {bitmask.dtype}")
    logits_2d = logits if len(shape) == 2 else logits.unsqueeze(0)
    bitmask_2d = bitmask if bitmask.dim() != 1 else bitmask.unsqueeze(0)
    batch = shape[0] if len(shape) == 2 else 1
    bitmask_shape = bitmask_2d.shape
    if len(bitmask_shape) != 2 or bitmask_shape[0] != batch:
        raise MaskError(
            f"expected a bitmask of shape ({batch}, words), one row per logits row, got {tuple(bitmask.shape)}"
        )
    on_cpu = logits_2d.is_cpu
    if not (on_cpu or logits_2d.is_cuda):  # the kernels write through the logits' pointer
        raise MaskError(f"expected logits on the CPU or a CUDA device, got them on {logits_2d.device}")
    if logits_2d.stride()[1] != 1:
        raise MaskError("expected logits contiguous in the vocabulary dimension, got a strided view")
    bits = bitmask_shape[1] * 32
    vocab = bits if vocab_size is None else vocab_size
    if not 0 <= vocab <= bits:
        raise MaskError(f"expected 0 <= vocab_size <= {bits} (32 per bitmask word), got {vocab}")
    if not (on_cpu and bitmask_2d.is_cpu) and bitmask_2d.device != logits_2d.device:
        # asynchronous only onto a GPU, where the kernel runs after it on the same stream; a copy to the
        # CPU that did not wait could be read before it lands
        bitmask_2d = bitmask_2d.to(logits_2d.device, non_blocking=logits_2d.is_cuda)
    if not bitmask_2d.is_contiguous():
        bitmask_2d = bitmask_2d.contiguous()
    rows = None
    if indices is not None:
        # numpy, not a torch tensor: making one costs 3-8 µs a call, a third of masking a CPU row
        ids = np.asarray(indices.tolist() if isinstance(indices, torch.Tensor) else indices)
        if ids.ndim != 1:
            raise MaskError(f"expected a 1-D list of row indices, got shape {ids.shape}")
        if ids.size and ids.dtype.kind not in "iu":  # True would be row 1, 0.9 row 0: neither is a row number
            raise MaskError(f"expected integer row indices, got {ids.dtype} {ids.tolist()}")
        ids = ids.astype(np.int64)
        if ids.size and ids.view(np.uint64).max() >= logits_2d.shape[0]:  # a negative index views as > 2**63
            raise MaskError(f"expected row indices in [0, {batch}), got {ids.tolist()}")
        rows = ids.astype(np.int32)
    return logits_2d, bitmask_2d, rows, vocab
