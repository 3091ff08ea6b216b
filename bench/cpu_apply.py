"""Applying one bitmask row to one CPU float32 logits row: candidates side by side, exactness checked.

    PYTHONPATH=. .venv/bin/python bench/cpu_apply.py [--repeats 3000] [--out bench/results/cpu_apply.md]

Rows of 129,280 (DeepSeek V4) and 151,851 (Qwen) logits; masks shaped as real states shape them:
`citation` 12 allowed tokens, `number` 1,100 allowed tokens spread over the vocabulary (inside an
article number with DeepSeek's number tokens), `free` every token but 300 allowed (free text near an
anchor), `half` random bits (no real state looks like it: the worst case). Candidates:
- `citegen`: `apply_token_bitmask_inplace` as shipped (word by word, citegen/kernels/cpu_bitmask.py);
- `unpack all`: unpack every bit, `np.copyto(where=)` (the shipped path before issue 18);
- `torch bool`: expand the bits with shifts and `masked_fill_` (the bf16 path);
- `id list`: a precomputed sorted allowed-id list per state: gather, fill -inf, scatter (needs a list per
  state, not a bitmask; shown as the bound a list would give).
Each is timed on its own copy of the same logits (median and p90 of `--repeats` calls, wall clock) and
checked equal to the naive reference once.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from bench.report import results_page
from citegen.kernels import apply_token_bitmask_inplace

VOCABULARIES = {"129k": 129_280, "152k": 151_851}


def mask_ids(kind: str, vocab: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "citation":
        return np.sort(rng.choice(vocab, 12, replace=False))
    if kind == "number":
        return np.sort(rng.choice(vocab, 1_100, replace=False))
    if kind == "free":
        return np.setdiff1d(np.arange(vocab), rng.choice(vocab, 300, replace=False))
    return np.flatnonzero(rng.random(vocab) < 0.5)


def pack(ids: np.ndarray, vocab: int) -> torch.Tensor:
    allowed = np.zeros(((vocab + 31) // 32) * 32, dtype=bool)
    allowed[ids] = True
    return torch.from_numpy(np.packbits(allowed, bitorder="little").view(np.int32).copy()).unsqueeze(0)


def unpack_all(logits: torch.Tensor, bitmask: torch.Tensor, vocab: int) -> None:
    row = logits.numpy()[0]
    allowed = np.unpackbits(bitmask.numpy()[0].view(np.uint8), bitorder="little", count=vocab).view(np.bool_)
    np.copyto(row, -np.inf, where=~allowed)


SHIFTS = torch.arange(32, dtype=torch.int32)


def torch_bool(logits: torch.Tensor, bitmask: torch.Tensor, vocab: int) -> None:
    bits = ((bitmask[0].unsqueeze(-1) >> SHIFTS) & 1).view(-1)[:vocab]
    logits[0].masked_fill_(bits == 0, float("-inf"))


def id_list(ids: torch.Tensor):
    def apply(logits: torch.Tensor, bitmask: torch.Tensor, vocab: int) -> None:
        kept = logits[0].index_select(0, ids)
        logits[0].fill_(float("-inf"))
        logits[0].index_copy_(0, ids, kept)
    return apply


def time_calls(apply, logits: torch.Tensor, bitmask: torch.Tensor, vocab: int, repeats: int) -> tuple[float, float]:
    work = logits.clone()
    times = []
    for _ in range(repeats):
        started = time.perf_counter_ns()
        apply(work, bitmask, vocab)
        times.append((time.perf_counter_ns() - started) / 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * len(times))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    kinds = ("citation", "number", "free", "half")
    lines = [(f"CPU mask apply, one float32 row, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, "
              f"{platform.node()} ({os.cpu_count()} CPUs), torch {torch.__version__}, one thread; "
              f"median / p90 µs of {args.repeats} calls"), "",
             "| vocabulary | mask | allowed | citegen | unpack all | torch bool | id list | exact |",
             "|---|---|---|---|---|---|---|---|"]
    for label, vocab in VOCABULARIES.items():
        logits = torch.randn(1, vocab, generator=torch.Generator().manual_seed(1))
        for kind in kinds:
            ids = mask_ids(kind, vocab, rng)
            bitmask = pack(ids, vocab)
            candidates = {
                "citegen": lambda lg, bm, v: apply_token_bitmask_inplace(lg, bm, vocab_size=v),
                "unpack all": unpack_all, "torch bool": torch_bool,
                "id list": id_list(torch.from_numpy(ids.astype(np.int64))),
            }
            expected = torch.full_like(logits, float("-inf"))
            expected[0, ids] = logits[0, ids]
            exact = []
            for name, apply in candidates.items():
                work = logits.clone()
                apply(work, bitmask, vocab)
                exact.append(name if torch.equal(work, expected) else f"NOT {name}")
            cells = [time_calls(apply, logits, bitmask, vocab, args.repeats) for apply in candidates.values()]
            lines.append(f"| {label} | {kind} | {len(ids):,} | "
                         + " | ".join(f"{m:.1f} / {p:.1f}" for m, p in cells)
                         + f" | {'all' if not any(e.startswith('NOT') for e in exact) else ', '.join(exact)} |")
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    if args.out:
        args.out.write_text(results_page([table], about=__doc__))


if __name__ == "__main__":
    main()
