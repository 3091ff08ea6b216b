"""What the mask kernels compile to for an NVIDIA H200 (sm_90), without a GPU.

    .venv/bin/python bench/kernel_ptx.py [--out bench/results/kernel_ptx.md]

Triton compiles for a named target on any machine, so the instructions each kernel issues can be
counted here: per 4,096 logits of one row (one program of ours, one work item of xgrammar's),
the global store and load instructions a warp issues and the bytes each lane moves per
instruction. Fewer, wider stores write the same bytes with fewer memory transactions; this is a
static proxy for the H200 timings of bench/gpu_mask.py, not a substitute for them.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from importlib.metadata import version
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from engine_bench import write_report  # noqa: E402

from citegen.kernels.triton_bitmask import (  # noqa: E402
    BLOCK,
    LAUNCH_SHAPES,
    LaunchShape,
    _apply_token_bitmask_kernel,
)

H200 = GPUTarget("cuda", 90, 32)
# Neither kernel does float arithmetic, so fusing multiply-adds changes nothing; saying so keeps
# Triton >= 3.9 from warning about its changing default.
NO_FP_FUSION = {"enable_fp_fusion": False}
TRITON_TYPES = {"float32": "fp32", "bfloat16": "bf16"}
ELEMENT_BYTES = {"float32": 4, "bfloat16": 2}
# What Triton learns at launch for a served batch: the pointers and the logits row length (128,256
# and 151,936 are multiples of 16) are; bitmask rows (4,008 and 4,748 words) are not.
ALIGNED = [["tt.divisibility", 16]]
# The per-logit shapes shipped until 16-byte groups replaced them (2026-11-30).
PER_LOGIT_SHAPES = {"float32": LaunchShape(1, 4), "bfloat16": LaunchShape(1, 32)}
INSTRUCTION = re.compile(r"\b(st|ld)\.global(?:\.(?!v\d)[A-Za-z0-9_:]+)*\.(?:v(\d)\.)?b(\d+)")


def ours_ptx(dtype: str, shape: LaunchShape) -> str:
    signature = {
        "logits_ptr": "*" + TRITON_TYPES[dtype], "bitmask_ptr": "*i32", "indices_ptr": "*i32",
        "logits_row_stride": "i32", "bitmask_row_stride": "i32", "width": "i32", "vocab_size": "i32",
        "bitmask_words": "i32", "HAS_INDICES": "constexpr", "BLOCK_SIZE": "constexpr", "VECTOR": "constexpr",
    }
    source = ASTSource(
        fn=_apply_token_bitmask_kernel,
        signature=signature,
        constexprs={"HAS_INDICES": False, "BLOCK_SIZE": BLOCK, "VECTOR": shape.vector},
        attrs={(index,): ALIGNED for index in (0, 1, 3, 5, 6)},
    )
    return triton.compile(source, target=H200, options={"num_warps": shape.num_warps, **NO_FP_FUSION}).asm["ptx"]


def xgrammar_ptx(dtype: str) -> tuple[str, int]:
    """xgrammar's Triton kernel with the launch parameters its own wrapper uses."""
    from xgrammar.kernels.apply_token_bitmask_inplace_triton import apply_token_bitmask_inplace_kernel

    signature = {
        "logits_ptr": "*" + TRITON_TYPES[dtype], "bitmask_ptr": "*i32", "indices_ptr": "constexpr",
        "num_rows": "i32", "vocab_size": "i32", "logits_strides": "i32", "bitmask_strides": "i32",
        "NUM_SMS": "constexpr", "BLOCK_SIZE": "constexpr",
    }
    source = ASTSource(
        fn=apply_token_bitmask_inplace_kernel,
        signature=signature,
        constexprs={"indices_ptr": None, "NUM_SMS": 132, "BLOCK_SIZE": 4096},
        attrs={(index,): ALIGNED for index in (0, 1, 4, 5)},
    )
    num_warps = 4096 // 32 // (16 // ELEMENT_BYTES[dtype])
    options = {"num_warps": num_warps, "num_stages": 3, **NO_FP_FUSION}
    return triton.compile(source, target=H200, options=options).asm["ptx"], num_warps


def global_accesses(ptx: str) -> dict[str, Counter]:
    """{"st"/"ld": Counter(bytes per lane per instruction -> instructions per thread)}."""
    found: dict[str, Counter] = {"st": Counter(), "ld": Counter()}
    for kind, lanes, bits in INSTRUCTION.findall(ptx):
        found[kind][int(lanes or 1) * int(bits) // 8] += 1
    return found


def describe(counts: Counter, num_warps: int) -> str:
    """Warp instructions per 4,096 logits, by bytes per lane, e.g. "32 × 16 B"."""
    return ", ".join(f"{per_thread * num_warps} × {size} B" for size, per_thread in sorted(counts.items()))


def table() -> list[str]:
    lines = [
        f"## Mask kernels compiled for sm_90 (H200), triton {version('triton')}",
        "",
        "Global memory instructions per 4,096 logits of a row, counted in warp instructions × bytes per lane.",
        "",
        "| kernel | logits | warps | stores | loads |",
        "|---|---|---|---|---|",
    ]
    for dtype in TRITON_TYPES:
        shipped = LAUNCH_SHAPES[ELEMENT_BYTES[dtype]]
        for shape in (PER_LOGIT_SHAPES[dtype], shipped):
            accesses = global_accesses(ours_ptx(dtype, shape))
            name = f"citegen, vector {shape.vector}" + (" (shipped)" if shape == shipped else " (per logit)")
            lines.append(
                f"| {name} | {dtype} | {shape.num_warps} | {describe(accesses['st'], shape.num_warps)} "
                f"| {describe(accesses['ld'], shape.num_warps)} |"
            )
        try:
            ptx, num_warps = xgrammar_ptx(dtype)
        except ImportError:
            continue
        accesses = global_accesses(ptx)
        lines.append(
            f"| xgrammar {version('xgrammar')} | {dtype} | {num_warps} | {describe(accesses['st'], num_warps)} "
            f"| {describe(accesses['ld'], num_warps)} |"
        )
    return lines + [
        "",
        "Our logits loads are predicated: they read only groups that mix allowed and masked tokens, so",
        "never in the per-logit shape (a group of one; shipped until 2026-11-30).",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write the table to this markdown file")
    args = parser.parse_args()
    write_report(table() + [""], args.out, __doc__)


if __name__ == "__main__":
    main()
