"""The CPU path of `apply_token_bitmask_inplace`.

float32, bfloat16 and float16 rows go through a small C kernel, cpu_bitmask.c (a CPython extension), that
the machine's C compiler (`cc`) builds the first time a process masks CPU logits (a fraction of a second;
`grammars.native`), with the machine's own instructions (AVX-512 or AVX2 on x86, NEON on ARM). The
kernel skips all-allowed words and writes -inf into every other word's disallowed lanes (AVX-512 masked
stores that never read the logits; elsewhere a vectorized blend, without a branch per token), so one row
costs about one write of its logits whatever the share of allowed tokens, and a batch is one call.
`bench/cpu_apply.py` measures it against the candidates issue 18 names (per-state allowed and banned id
lists, the word-by-word numpy path it replaced, the torch path) and against xgrammar's and llguidance's
CPU kernels (bench/results/cpu_apply.md).

Other dtypes, and every dtype where no C compiler works, take the torch path: each row's bits expanded
with shifts, then `masked_fill_`. It is exact and an order of magnitude slower; a warning says once why
the kernel could not be built.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

from grammars import NativeBuildError, build_extension

logger = logging.getLogger(__name__)

SOURCE = Path(__file__).with_suffix(".c")
# -inf as the kernel writes it: the bits of each dtype's -inf
_NEG_INF_BITS = {torch.float32: 0xFF800000, torch.bfloat16: 0xFF80, torch.float16: 0xFC00}
_SHIFTS = torch.arange(32, dtype=torch.int32)


class NativeKernel:
    """cpu_bitmask.c compiled and imported: one C call masks every listed row of a batch."""

    def __init__(self, module: ModuleType) -> None:
        self._apply: Callable[..., None] = module.apply
        # per dtype: its element width in bits, and its -inf as those bits
        self._widths = {dtype: (dtype.itemsize * 8, neg_inf) for dtype, neg_inf in _NEG_INF_BITS.items()}

    def apply_inplace(
        self, logits: torch.Tensor, bitmask: torch.Tensor, rows: np.ndarray | None, vocab_size: int
    ) -> None:
        """`logits` (batch, width) of a supported dtype with unit stride along the width, `bitmask`
        (batch, words) contiguous int32, `rows` a contiguous int32 array of row indices (None: all) — as
        `check_bitmask_arguments` leaves them."""
        bits, neg_inf = self._widths[logits.dtype]
        batch, width = logits.shape
        self._apply(
            bits, logits.data_ptr(), logits.stride(0), bitmask.data_ptr(), bitmask.shape[1],
            # the rows as bytes: `rows.ctypes.data` costs ~7 µs a call, `tobytes` a copy of a few ints
            None if rows is None else rows.tobytes(), batch if rows is None else len(rows),
            min(width, vocab_size), width, neg_inf,
        )  # fmt: skip


def build_native_kernel(compiler: str = "cc", source: Path = SOURCE) -> NativeKernel | None:
    """Compile and import `source` (cpu_bitmask.c) with `compiler`; None, with a warning, where that fails."""
    try:
        return NativeKernel(build_extension(source, compiler))
    except NativeBuildError as error:
        logger.warning("CPU logits take the slower torch mask path: %s", error)
        return None


_built: list[NativeKernel | None] = []  # the one build of this process, once made
_building = threading.Lock()


def native_kernel() -> NativeKernel | None:
    """The kernel this process masks CPU logits with, built on first use (None: the torch path); threads
    that first mask at once wait for one build."""
    if not _built:
        with _building:
            if not _built:
                _built.append(build_native_kernel())
    return _built[0]


def apply_token_bitmask_torch_inplace(
    logits: torch.Tensor, bitmask: torch.Tensor, rows: np.ndarray | None, vocab_size: int
) -> None:
    """The same masking in torch operations, one row at a time, for any floating dtype on any device,
    seen by autograd as any in-place operation is."""
    width = logits.shape[1]
    covered = min(width, vocab_size)
    shifts = _SHIFTS.to(bitmask.device)
    for row in range(logits.shape[0]) if rows is None else rows.tolist():
        bits = ((bitmask[row].unsqueeze(-1) >> shifts) & 1).view(-1)[:covered]
        logits[row, :covered].masked_fill_(bits == 0, float("-inf"))
    if covered < width:
        logits[slice(None) if rows is None else torch.from_numpy(rows).long(), covered:] = float("-inf")


def apply_token_bitmask_cpu_inplace(
    logits: torch.Tensor, bitmask: torch.Tensor, rows: np.ndarray | None, vocab_size: int
) -> None:
    """The C kernel where it applies; the torch path for other dtypes and for logits not aligned to their
    element (a view at an odd byte offset: the kernel reads whole elements)."""
    if (
        logits.dtype in _NEG_INF_BITS
        and not logits.data_ptr() % logits.element_size()
        and (kernel := native_kernel()) is not None
    ):
        kernel.apply_inplace(logits, bitmask, rows, vocab_size)
    else:
        apply_token_bitmask_torch_inplace(logits, bitmask, rows, vocab_size)
