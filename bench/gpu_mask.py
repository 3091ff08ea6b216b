"""The Triton mask kernel against xgrammar's on a CUDA GPU (written for an NVIDIA H200).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/gpu_mask.py [--out bench/results/gpu_mask.md]

Per vocabulary (128,256: Llama 3; 151,936: Qwen 2) × batch (1, 32, 128, 512) × mask density
(1 token allowed, half allowed, all but one allowed), float32 and bfloat16 logits: the time of one
`apply_token_bitmask_inplace` over the whole batch, ours and xgrammar's (its default Triton
backend), by `triton.testing.do_bench` (median, L2 flushed between runs); both results are
compared bit for bit first. Then every launch shape of our kernel side by side (per-logit or
16-byte-group stores × warps) at 128,256 × 128 and × 512, so one run on a lent GPU is enough to
choose `LAUNCH_SHAPES`. Then the constraint's share of a decode step end to end: the shipped model
on the GPU, batch 32, greedy, the same requests constrained and unconstrained.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from functools import partial
from importlib.metadata import version
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from engine_bench import write_report  # noqa: E402

from citegen.kernels import apply_token_bitmask_inplace, check_bitmask_arguments  # noqa: E402

VOCABS = (128_256, 151_936)
BATCHES = (1, 32, 128, 512)
DENSITIES = {"1 allowed": 1, "half allowed": None, "all but 1": -1}


def make_bitmask(batch: int, vocab: int, density: int | None, generator: torch.Generator) -> torch.Tensor:
    words = (vocab + 31) // 32
    if density is None:
        return torch.randint(-(2**31), 2**31 - 1, (batch, words), dtype=torch.int32, generator=generator)
    bitmask = torch.full((batch, words), -1 if density == -1 else 0, dtype=torch.int32)
    token = torch.randint(0, vocab, (batch,), generator=generator)
    for row, chosen in enumerate(token.tolist()):
        bit = chosen % 32
        value = -(1 << 31) if bit == 31 else 1 << bit
        if density == -1:
            bitmask[row, chosen // 32] = ~value
        else:
            bitmask[row, chosen // 32] = value
    return bitmask


def masked_pair(batch: int, vocab: int, density: int | None, dtype: torch.dtype, generator: torch.Generator):
    logits = torch.randn(batch, vocab, generator=generator).to(dtype).cuda()
    return logits, make_bitmask(batch, vocab, density, generator).cuda()


def timed_cell(kernel, reference, logits: torch.Tensor, bitmask: torch.Tensor) -> str:
    """`kernel`'s median µs on (logits, bitmask) and `reference`'s, after comparing their results."""
    import triton.testing

    ours, theirs = logits.clone(), logits.clone()
    kernel(ours, bitmask)
    reference(theirs, bitmask)
    # A difference is a finding to report, not a reason to lose the other cells.
    same = torch.equal(ours, theirs)
    ours_ms = triton.testing.do_bench(partial(kernel, logits, bitmask))
    theirs_ms = triton.testing.do_bench(partial(reference, logits, bitmask))
    return f"{ours_ms * 1e3:.1f} / {theirs_ms * 1e3:.1f}" + ("" if same else " (DIFFERENT RESULT)")


def bench_kernels(dtype: torch.dtype) -> list[str]:
    import xgrammar

    generator = torch.Generator().manual_seed(0)
    lines = [
        f"### Mask apply, {str(dtype).removeprefix('torch.')} logits: median µs (ours / xgrammar)",
        "",
        "| vocab | batch | " + " | ".join(DENSITIES) + " |",
        "|---|---|" + "---|" * len(DENSITIES),
    ]
    for vocab in VOCABS:
        for batch in BATCHES:
            cells = [
                timed_cell(
                    apply_token_bitmask_inplace,
                    xgrammar.apply_token_bitmask_inplace,
                    *masked_pair(batch, vocab, density, dtype, generator),
                )
                for density in DENSITIES.values()
            ]
            lines.append(f"| {vocab:,} | {batch} | " + " | ".join(cells) + " |")
    return lines


def bench_launch_shapes(dtype: torch.dtype, vocab: int = 128_256) -> list[str]:
    """Every launch shape of our kernel against xgrammar's, where the batch is large."""
    import xgrammar

    from citegen.kernels.triton_bitmask import LAUNCH_SHAPES, LaunchShape, apply_token_bitmask_triton_inplace

    def with_shape(shape: LaunchShape):
        def apply(logits: torch.Tensor, bitmask: torch.Tensor) -> None:
            logits_2d, bitmask_2d, rows, vocab_size = check_bitmask_arguments(logits, bitmask, None, None)
            apply_token_bitmask_triton_inplace(logits_2d, bitmask_2d, rows, vocab_size, shape)

        return apply

    generator = torch.Generator().manual_seed(1)
    group = 16 // dtype.itemsize
    shipped = LAUNCH_SHAPES.get(dtype.itemsize)
    shapes = [LaunchShape(vector, warps) for vector in (1, group) for warps in (4, 8, 16, 32)]
    lines = [
        f"### Launch shapes, {str(dtype).removeprefix('torch.')} logits, vocab {vocab:,}: median µs "
        "(this shape / xgrammar)",
        "",
        "| vector | warps | batch | " + " | ".join(DENSITIES) + " |",
        "|---|---|---|" + "---|" * len(DENSITIES),
    ]
    for batch in (128, 512):
        pairs = [masked_pair(batch, vocab, density, dtype, generator) for density in DENSITIES.values()]
        for shape in shapes:
            cells = [timed_cell(with_shape(shape), xgrammar.apply_token_bitmask_inplace, *pair) for pair in pairs]
            marker = " (shipped)" if shape == shipped else ""
            lines.append(f"| {shape.vector}{marker} | {shape.num_warps} | {batch} | " + " | ".join(cells) + " |")
    return lines


def bench_decode_share(model: Path, steps: int = 64) -> list[str]:
    from engine_bench import sample_database  # noqa: PLC0415

    from citegen.commands.serve_wiring import build_engine
    from citegen.engine import Request
    from citegen.models import load_model
    from citegen.sampling import SamplingParams
    from verifier import lexicon_data

    loaded = load_model(model, "cuda")
    with tempfile.TemporaryDirectory() as scratch:
        database = sample_database(Path(scratch))
        engine = build_engine(loaded, lexicon_data(database), max_batch=32)
        database.close()
    questions = [f"질문 {i}: 불법행위로 인한 손해배상책임의 요건은 무엇인가요?" for i in range(32)]
    timings = {}
    for constrain in (False, True, False, True):
        requests = [
            Request(
                messages=(("user", q),), sampling=SamplingParams(max_new_tokens=steps), constrain=constrain
            )
            for q in questions
        ]
        for request in requests:
            engine.submit(request)
        torch.cuda.synchronize()
        started, count = time.perf_counter(), 0
        while engine.has_work():
            engine.step()
            count += 1
        torch.cuda.synchronize()
        timings[constrain] = min(timings.get(constrain, 1e9), (time.perf_counter() - started) / count)
    share = 1 - timings[False] / timings[True]
    return [
        f"### Decode step, {model.name} on the GPU, batch 32, greedy",
        "",
        "| unconstrained ms/step | constrained ms/step | constraint's share |",
        "|---|---|---|",
        f"| {timings[False] * 1e3:.2f} | {timings[True] * 1e3:.2f} | {100 * share:.1f}% |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, default=REPO / "data" / "models" / "ko-legal-tiny")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("gpu_mask.py needs a CUDA GPU")
    lines = [
        f"## GPU mask bench, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {torch.cuda.get_device_name()}, "
        f"torch {torch.__version__}, triton {version('triton')}, xgrammar {version('xgrammar')}",
        "",
    ]
    for dtype in (torch.float32, torch.bfloat16):
        lines += bench_kernels(dtype) + [""]
    for dtype in (torch.float32, torch.bfloat16):
        lines += bench_launch_shapes(dtype) + [""]
    if args.model.is_dir():
        try:
            lines += bench_decode_share(args.model) + [""]
        except Exception as error:  # the kernel tables above are worth keeping either way
            lines += [f"Decode-step share not measured: {type(error).__name__}: {error}", ""]
    write_report(lines, args.out, __doc__)


if __name__ == "__main__":
    main()
