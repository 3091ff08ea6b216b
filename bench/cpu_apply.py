"""Applying a bitmask to CPU float32 logits: citegen's kernel, the candidates of issue 18 and the peers' CPU
kernels side by side in one run, each checked exact.

    PYTHONPATH=. .venv/bin/python bench/cpu_apply.py [--repeats 1000] [--out bench/results/cpu_apply.md]

Vocabularies: DeepSeek V4 (129,280 ids, logits as wide) and Qwen (151,851 ids in its 151,936-wide
embedding: the 85 padding columns are masked too). Masks, by the share of allowed tokens: `one` a single
token (a citation that must close now), `citation` 12 tokens, `number` 1,100 tokens spread over the
vocabulary (inside an article number), `10 %` / `50 %` / `90 %` random bits (no real state looks like
them: the worst cases for anything that branches per token), `free` every token but 300 (free text near
an anchor). Candidates, one float32 row at a time:
- `citegen`: `apply_token_bitmask_inplace` as shipped (argument checks, then citegen/kernels/cpu_bitmask.c);
- `numpy words`: the path shipped before (numpy, word by word: gather the words that are not all-allowed,
  or clear the row and write the allowed words back, or unpack every bit when most words are mixed);
- `id list`: a list precomputed per state instead of a bitmask: the allowed ids where they are fewer
  (gather, fill -inf, scatter back), the banned ids otherwise (`index_fill_`);
- `numpy unpack`: `np.unpackbits` of the row, `np.copyto(where=)`;
- `torch unpack`: bits expanded with shifts, `masked_fill_` (citegen's path where no C compiler works);
- `xgrammar`: `xgrammar.apply_token_bitmask_inplace_cpu` (its C++ kernel);
- `llguidance`: `llguidance.torch.apply_token_bitmask_inplace` (its CPU kernel, under `torch.compile`);
- `fill`: `fill_(-inf)` of the whole row: what writing every logit once costs, near what any kernel must
  pay when most tokens are masked.
`vs peer` is citegen's median over the faster peer's (xgrammar or llguidance) in the same row, `vs fill`
over the fill's: the ratios hold on a busy machine where the microseconds do not.
Batches: 32 rows of 129,280 logits, 10 of them masked (5 citation rows, 5 free rows: the engine bench's
steps mask 10.3 rows on average) or all 32 (a mix of every mask kind), one call for the batch, for the
candidates that take row indices.
Within a repeat the candidates run in turn, so a busy machine slows them alike, each timed on its second
call in a row (the logits in cache, as the model's output is when the engine masks it); median and p99 of
`--repeats` calls, one torch thread, timed by default as the CPU time of the calling thread (every
candidate runs on it; on a shared 2-core VM wall time mostly measures the neighbours: `--clock wall`
for it). Each candidate's output is compared once with a brute-force reference; a cell says NOT EXACT
where it differs (xgrammar is compared on the vocabulary's columns: it leaves the padding as it is).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from bench.report import results_page
from citegen.kernels import apply_token_bitmask_inplace
from citegen.kernels.cpu_bitmask import apply_token_bitmask_torch_inplace

# (logits width, vocab_size)
VOCABULARIES = {"129k": (129_280, 129_280), "152k": (151_936, 151_851)}
KINDS = ("one", "citation", "number", "10 %", "50 %", "90 %", "free")
NEG_INF = np.float32(-np.inf)

Apply = Callable[[torch.Tensor, torch.Tensor, list[int] | None, int], None]
Results = dict[str, tuple[float, float, bool | None]]  # per candidate: median µs, p99 µs, exact (None: not checked)


def mask_ids(kind: str, vocab: int, rng: np.random.Generator) -> np.ndarray:
    counts = {"one": 1, "citation": 12, "number": 1_100}
    if kind in counts:
        return np.sort(rng.choice(vocab, counts[kind], replace=False))
    if kind == "free":
        return np.setdiff1d(np.arange(vocab), rng.choice(vocab, 300, replace=False))
    return np.flatnonzero(rng.random(vocab) < int(kind.split()[0]) / 100)


def pack(ids: np.ndarray, vocab: int) -> np.ndarray:
    allowed = np.zeros(((vocab + 31) // 32) * 32, dtype=bool)
    allowed[ids] = True
    return np.packbits(allowed, bitorder="little").view(np.int32)


def brute_force(logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int] | None, vocab: int) -> torch.Tensor:
    expected = logits.clone()
    bits = np.unpackbits(bitmask.numpy().view(np.uint8), axis=1, bitorder="little").astype(bool)
    for row in range(logits.shape[0]) if rows is None else rows:
        allowed = np.zeros(logits.shape[1], dtype=bool)
        allowed[:vocab] = bits[row, :vocab]
        expected[row, ~torch.from_numpy(allowed)] = float("-inf")
    return expected


# ---- candidates: (logits, bitmask, rows or None, vocab_size) -> None, in place ------------------------


def citegen(logits, bitmask, rows, vocab) -> None:
    apply_token_bitmask_inplace(logits, bitmask, rows, vocab)


def torch_unpack(logits, bitmask, rows, vocab) -> None:
    apply_token_bitmask_torch_inplace(logits, bitmask, None if rows is None else np.array(rows, dtype=np.int32), vocab)


def _bits(words: np.ndarray) -> np.ndarray:
    return np.unpackbits(words.view(np.uint8), bitorder="little").view(np.bool_).reshape(len(words), 32)


def numpy_words(logits, bitmask, rows, vocab) -> None:
    """The CPU path shipped until issue 18's kernel: whole words as above, a last partial word bit by bit."""
    for row in range(logits.shape[0]) if rows is None else rows:
        line, words = logits[row].numpy(), bitmask[row].numpy()
        whole = vocab // 32
        grid, head = line[: whole * 32].reshape(whole, 32), words[:whole]
        if 2 * np.count_nonzero(head) <= whole:
            allowed = np.flatnonzero(head)
            kept = grid[allowed]
            grid.fill(NEG_INF)
            grid[allowed] = np.where(_bits(head[allowed]), kept, NEG_INF)
        elif 2 * len(partial := np.flatnonzero(head != -1)) <= whole:
            touched = grid[partial]
            np.copyto(touched, NEG_INF, where=~_bits(head[partial]))
            grid[partial] = touched
        else:
            np.copyto(grid, NEG_INF, where=~_bits(head))
        if vocab > whole * 32:
            last = _bits(words[whole : whole + 1])[0, : vocab - whole * 32]
            np.copyto(line[whole * 32 : vocab], NEG_INF, where=~last)
        line[vocab:] = NEG_INF


def numpy_unpack(logits, bitmask, rows, vocab) -> None:
    line = logits.numpy()[0]
    allowed = np.zeros(line.shape, dtype=bool)
    allowed[:vocab] = np.unpackbits(bitmask.numpy()[0].view(np.uint8), bitorder="little", count=vocab).view(np.bool_)
    np.copyto(line, NEG_INF, where=~allowed)


def id_list(ids: np.ndarray, width: int) -> Apply:
    """The state's list, made once: the allowed ids, or the banned ones (padding columns included)."""
    banned = np.setdiff1d(np.arange(width), ids)
    if len(ids) <= len(banned):
        allowed = torch.from_numpy(ids.astype(np.int64))

        def keep_allowed(logits, bitmask, rows, vocab) -> None:
            kept = logits[0].index_select(0, allowed)
            logits[0].fill_(float("-inf"))
            logits[0].index_copy_(0, allowed, kept)

        return keep_allowed
    removed = torch.from_numpy(banned.astype(np.int64))

    def clear_banned(logits, bitmask, rows, vocab) -> None:
        logits[0].index_fill_(0, removed, float("-inf"))

    return clear_banned


def xgrammar_cpu(logits, bitmask, rows, vocab) -> None:
    from xgrammar.kernels.apply_token_bitmask_inplace_cpu import apply_token_bitmask_inplace_cpu

    apply_token_bitmask_inplace_cpu(logits, bitmask, vocab, rows)


def llguidance_cpu(logits, bitmask, rows, vocab) -> None:
    from llguidance.torch import apply_token_bitmask_inplace

    apply_token_bitmask_inplace(logits, bitmask)


def fill(logits, bitmask, rows, vocab) -> None:
    logits[0].fill_(float("-inf"))


PEERS = ("xgrammar", "llguidance")
PADDING_LEFT = {"xgrammar"}  # leaves logits past vocab_size as they are: checked on the vocabulary's columns
CLOCKS = {"cpu": time.thread_time_ns, "wall": time.perf_counter_ns}


# ---- timing ----------------------------------------------------------------------------------------------


def measure(
    candidates: dict[str, Apply], logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int] | None, vocab: int,
    repeats: int, clock: Callable[[], int],
) -> Results:
    """(median µs, p99 µs, exact or None for `fill`) per candidate; the candidates run in turn per repeat."""
    expected = brute_force(logits, bitmask, rows, vocab)
    works, exact = {}, {}
    for name, apply in candidates.items():
        works[name] = logits.clone()
        apply(works[name], bitmask, rows, vocab)  # warm (compiles llguidance's kernel) and check
        columns = vocab if name in PADDING_LEFT else logits.shape[1]
        exact[name] = None if name == "fill" else torch.equal(works[name][:, :columns], expected[:, :columns])
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(repeats):
        for name, apply in candidates.items():
            work = works[name]
            apply(work, bitmask, rows, vocab)  # untimed: the row in cache, as the model's output is when masked
            started = clock()
            apply(work, bitmask, rows, vocab)
            times[name].append((clock() - started) / 1000)
    return {
        name: (float(np.median(samples)), float(np.percentile(samples, 99)), exact[name])
        for name, samples in times.items()
    }


def cell(result: tuple[float, float, bool | None]) -> str:
    median, p99, exact = result
    return f"{median:.1f} / {p99:.1f}" + ("" if exact in (True, None) else " NOT EXACT")


def versus(results: Results) -> list[str]:
    """citegen's median over the faster peer's, and over the row fill's."""
    peer = min(results[name][0] for name in PEERS if name in results)
    return [f"{results['citegen'][0] / peer:.2f}×", f"{results['citegen'][0] / results['fill'][0]:.2f}×"]


def table_row(first: list[str], results: Results, tail: list[str]) -> str:
    line = "| " + " | ".join([*first, *(cell(result) for result in results.values()), *tail]) + " |"
    print(line, flush=True)
    return line


def header(columns: list[str]) -> list[str]:
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def single_rows(repeats: int, rng: np.random.Generator, clock: Callable[[], int]) -> list[str]:
    names = ["citegen", "numpy words", "id list", "numpy unpack", "torch unpack", "xgrammar", "llguidance", "fill"]
    lines = header(["vocabulary", "mask", "allowed", *names, "vs peer", "vs fill"])
    for label, (width, vocab) in VOCABULARIES.items():
        logits = torch.randn(1, width, generator=torch.Generator().manual_seed(1))
        for kind in KINDS:
            ids = mask_ids(kind, vocab, rng)
            bitmask = torch.from_numpy(pack(ids, vocab).copy()).unsqueeze(0)
            functions = [citegen, numpy_words, id_list(ids, width), numpy_unpack, torch_unpack, xgrammar_cpu,
                         llguidance_cpu, fill]  # fmt: skip
            results = measure(dict(zip(names, functions, strict=True)), logits, bitmask, None, vocab, repeats, clock)
            lines.append(table_row([label, kind, f"{len(ids):,}"], results, versus(results)))
    return lines


def batches(repeats: int, rng: np.random.Generator, clock: Callable[[], int]) -> list[str]:
    width, vocab = VOCABULARIES["129k"]
    names = ["citegen", "numpy words", "torch unpack", "xgrammar"]
    functions = [citegen, numpy_words, torch_unpack, xgrammar_cpu]
    logits = torch.randn(32, width, generator=torch.Generator().manual_seed(2))
    lines = header(["batch", "rows masked", *(f"{name} per batch" for name in names), "citegen per masked row",
                    "vs xgrammar"])  # fmt: skip
    for masked, kinds in ((10, ["citation"] * 5 + ["free"] * 5), (32, [KINDS[row % len(KINDS)] for row in range(32)])):
        bitmask = torch.from_numpy(np.stack([pack(mask_ids(kinds[row % len(kinds)], vocab, rng), vocab)
                                             for row in range(32)]))  # fmt: skip
        rows = list(range(0, 32, 3))[:masked] if masked < 32 else None
        results = measure(dict(zip(names, functions, strict=True)), logits, bitmask, rows, vocab, repeats, clock)
        citegen_median = results["citegen"][0]
        tail = [f"{citegen_median / masked:.1f}", f"{citegen_median / results['xgrammar'][0]:.2f}×"]
        lines.append(table_row([f"32 × {width:,}", str(masked)], results, tail))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1000)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: the calling thread's CPU time (default: on a shared VM wall time mostly measures "
                             "the neighbours); wall: perf_counter")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    clock = CLOCKS[args.clock]
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    lines = [
        f"CPU mask apply to float32 logits, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.node() or 'vm'} ({os.cpu_count()} CPUs), torch {torch.__version__}, one thread; "
        f"median / p99 µs ({'CPU time of the calling thread' if args.clock == 'cpu' else 'wall clock'}) "
        f"of {args.repeats} calls",
        "",
        *single_rows(args.repeats, rng, clock),
        "",
        *batches(args.repeats // 4, rng, clock),
    ]
    table = "\n".join(lines)
    print(table)
    if args.out:
        args.out.write_text(results_page([table], about=__doc__))


if __name__ == "__main__":
    main()
