"""Every number of the README's Numbers section from the current code, in one run:

    python -m bench [--only NAME[,NAME]] [--list]      (or `make bench`)

Runs the bench scripts of this folder one after another, each in its own process under its own
timeout, with the arguments below (sample sizes cut to fit about an hour on a shared 2-core
machine; each script's own CLI runs it at full size). Each writes bench/results/<name>.md with a
marked summary (bench/report.py); this driver puts those summaries into README.md between its
`<!-- bench:begin -->` and `<!-- bench:end -->` markers, under one line naming the date, commit and
machine. A bench that needs hardware this machine lacks (a CUDA GPU, the vLLM environment) or that
fails keeps its last summary with that summary's date and a line saying why it was not rerun; the
others still run, and the exit status is 1 when any failed. The statute book is imported once a run
(by statute_book_bench, whose import is what it measures) and a copy of it lent to each bench that
reads it (bench/shared_book.py). An `--only` run replaces the blocks it reran and keeps the line
above them, which names the last whole run; each block names its own.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bench.report import BenchReportError, Block, blocks_of, preamble_of, rewrite_numbers, summary_of
from bench.shared_book import SharedBook, shared_book

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
README = REPO / "README.md"
VLLM_PYTHON = REPO / ".venv-vllm" / "bin" / "python"


def _cuda() -> str | None:
    probe = [sys.executable, "-c", "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"]
    found = subprocess.run(probe, check=False, capture_output=True).returncode == 0
    return None if found else "no CUDA device on this machine"


def _triton() -> str | None:
    return None if importlib.util.find_spec("triton") else "triton is not installed in this environment"


def _vllm() -> str | None:
    return None if VLLM_PYTHON.exists() else f"no vLLM environment at {VLLM_PYTHON} (bench/setup_vllm_env.sh)"


def _anywhere() -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class Bench:
    """One script of this folder as the driver runs it: bench/<name>.py with `arguments`, its full
    result in bench/results/<name>.md; `unavailable` says why it cannot run here (None: it can)."""

    name: str
    title: str
    arguments: tuple[str, ...] = ()
    timeout_s: int = 600
    unavailable: Callable[[], str | None] = _anywhere
    # The run's statute book (bench/shared_book.py): "fills" imports it; "reads" is given a copy of the
    # SQLite file (data/law and data/cases) as --database-url, "reads+postgresql" also a copy of the
    # PostgreSQL database (data/law) as --postgres-url; "" does not use it.
    book: Literal["", "fills", "reads", "reads+postgresql"] = ""

    @property
    def results(self) -> Path:
        return RESULTS / f"{self.name}.md"

    @property
    def command(self) -> str:
        return " ".join([f"bench/{self.name}.py", *self.arguments])


def _out(name: str) -> tuple[str, str]:
    return ("--out", f"bench/results/{name}.md")


BENCHES = (
    Bench("grammar_bench", "Grammars", ("--answer-build", *_out("grammar_bench")), 900),
    Bench(
        "statute_book_bench",
        "Statute book with its history",
        ("--citations", "5000", "--warm-rounds", "2"),
        1500,
        book="fills",
    ),
    # 19-25 min in most runs, over 30 on a slow VM (its DeepSeek table alone took 30 min once): room for that
    Bench("book_bench", "The statute grammar at the scale of the real book", _out("book_bench"), 2700),
    Bench("engine_bench", "Engine", ("--answers", "100", "--repeats", "2", "--startup-runs", "3",
                                     *_out("engine_bench")), 1500, book="reads"),
    Bench("gpu_mask", "GPU mask kernel", _out("gpu_mask"), 600, _cuda),
    Bench("kernel_ptx", "Mask kernels' instructions for an H200", _out("kernel_ptx"), 300, _triton),
    Bench("cpu_apply", "CPU mask apply", ("--repeats", "500", *_out("cpu_apply")), 600),  # ~3 min on 2 busy cores
    Bench("verify_bench", "Verifier", ("--citations", "5000", "--warm-rounds", "2"), 600),
    Bench("sync_bench", "Sync", ("--decisions", "1000", "--versions", "20"), 600),
    Bench("stream_bench", "Streaming service", ("--source", "engine", "--streams", "32"), 900),
    Bench("adversarial_bench", "Under attack", ("--clients", "16", "--fault-s", "4"), 600, book="reads+postgresql"),
    Bench("find_bench", "Finding on real text", ("--megabytes", "2"), 900, book="reads"),
    Bench("recite_bench", "Re-citation", ("--copies", "20", "--regenerate-copies", "1"), 900),
    Bench("recite_scale_bench", "Re-citation at size", ("--sizes", "1", "10", "50", "--docx-sizes", "1"), 1200,
          book="reads"),
    Bench("import_hostile_bench", "Imports under attack", _out("import_hostile_bench"), 600),
    Bench("vllm_bench", "vLLM", ("--repeats", "1"), 900, _vllm),
)
BY_NAME = {bench.name: bench for bench in BENCHES}


def selected(only: str | None) -> list[Bench]:
    """The benches `--only` names (comma-separated), in the driver's order; all without it."""
    if only is None:
        return list(BENCHES)
    names = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in names if name not in BY_NAME]
    if unknown or not names:
        raise BenchReportError(f"expected bench names among {', '.join(BY_NAME)}; got {only!r}")
    return [bench for bench in BENCHES if bench.name in names]


@dataclass(frozen=True, slots=True)
class Outcome:
    bench: Bench
    status: str  # "ran", "skipped" (hardware absent), "failed"
    seconds: float
    note: str  # why it did not run, as the README says it
    detail: str = ""  # where to look: the log's last line and path, for the console only


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "PYTHONUNBUFFERED": "1"}  # fmt: skip


def run_one(bench: Bench, logs: Path, lent: tuple[str, ...] = ()) -> tuple[Outcome, str | None]:
    """Runs `bench` in its own process group (killed whole at its timeout), `lent` (the shared book's
    arguments) after its own; its outcome and, when it ran, the summary it wrote."""
    reason = bench.unavailable()
    if reason is not None:
        return Outcome(bench, "skipped", 0.0, reason), None
    log = logs / f"{bench.name}.log"
    before = bench.results.stat().st_mtime if bench.results.exists() else None
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as output:
        child = subprocess.Popen(
            [sys.executable, f"bench/{bench.name}.py", *bench.arguments, *lent],
            cwd=REPO, env=environment(), stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            code = child.wait(timeout=bench.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            code = None
    seconds = time.monotonic() - started
    where = f"{_last_line(log)} (log: {log})"
    if code is None:
        return Outcome(bench, "failed", seconds, f"timed out after {bench.timeout_s} s", where), None
    if code != 0:
        return Outcome(bench, "failed", seconds, f"failed with exit status {code}", where), None
    if before is not None and bench.results.stat().st_mtime == before:
        return Outcome(bench, "failed", seconds, f"exited 0 without rewriting {bench.results.name}"), None
    try:
        summary = summary_of(bench.results.read_text(encoding="utf-8"), str(bench.results.relative_to(REPO)))
    except (OSError, BenchReportError) as error:
        return Outcome(bench, "failed", seconds, str(error)), None
    return Outcome(bench, "ran", seconds, ""), summary


def run_with_book(bench: Bench, logs: Path, book: SharedBook) -> tuple[Outcome, str | None]:
    """`run_one`, with the shared statute book: filled by the bench that imports it, else a copy lent
    to a bench that reads it."""
    if bench.book == "fills":
        outcome, summary = run_one(bench, logs, book.filling_arguments())
        if outcome.status == "ran":
            why = book.add_cases(REPO / "data" / "cases", environment(), logs / f"{bench.name}.log")
        else:
            why = f"{bench.name} {outcome.status}"
        if why is not None:
            print(f"{bench.name}: {why}; the benches after it import the statute book themselves", flush=True)
        return outcome, summary
    if not bench.book:
        return run_one(bench, logs)
    with book.lent(bench.name, postgresql=bench.book == "reads+postgresql") as lent:
        return run_one(bench, logs, lent)


def _last_line(log: Path) -> str:
    lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def block_for(outcome: Outcome, summary: str | None, previous: Block | None, ran: str, day: str) -> Block:
    bench = outcome.bench
    where = f"[`{bench.results.name}`](bench/results/{bench.results.name})"
    if summary is not None:
        heading = f"**{bench.title}** (`{bench.command}`, {outcome.seconds:.0f} s, {ran} — {where})"
        return Block(bench.name, ran, heading, summary)
    kept_from = previous.ran if previous else "never"
    heading = f"**{bench.title}** (`bench/{bench.name}.py` — {where}): not rerun on {day}, {outcome.note}; "
    heading += f"the numbers below are from {kept_from}." if previous else "no earlier result."
    return Block(bench.name, kept_from, heading, previous.summary if previous else "No result yet.")


def updated_readme(
    readme: str, blocks: dict[str, Block], whole_run: str | None, ran: str, benches: Sequence[Bench] = BENCHES
) -> str:
    """`readme` with its Numbers section rewritten: `whole_run`'s line first, or for an `--only` run
    (None) the line already there, which names the last whole run; then every bench's block, one
    that has none yet (added since the last whole run, not selected now) saying so."""
    blocks = dict(blocks)
    for bench in benches:
        if bench.name not in blocks:
            blocks[bench.name] = block_for(Outcome(bench, "skipped", 0.0, "not selected"), None, None, ran, ran[:10])
    head = preamble_of(readme) if whole_run is None else whole_run
    return rewrite_numbers(readme, head, blocks, [bench.name for bench in benches])


def machine() -> str:
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        "unknown CPU",
    )  # fmt: skip
    memory_kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                          if line.startswith("MemTotal")))  # fmt: skip
    return (f"{os.cpu_count()} cores ({model}), {memory_kib / 2**20:.0f} GiB, "
            f"torch {importlib.metadata.version('torch')}")  # fmt: skip


def commit() -> str:
    def git(*arguments: str) -> str:
        return subprocess.run(["git", *arguments], check=True, cwd=REPO, capture_output=True, text=True).stdout

    head, changed = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain", "--untracked-files=no")
    return head.strip() + (" with uncommitted changes" if changed.strip() else "")


def preamble(command: str, when: str, revision: str, total_s: float) -> str:
    return (
        f"Last run: `{command}` on {when} at commit {revision}, {total_s / 60:.0f} min on {machine()}. "
        "Each block names its command (sample sizes cut to fit the run; each script's own CLI runs it at "
        "full size), the date and commit of the run that measured it, and its full result in `bench/results/`. "
        "The statute book is imported once (by statute_book_bench, which measures that) and each bench that "
        "reads it is lent a copy. The machine is shared with other jobs while benches run, so wall-clock "
        "figures are noisy; "
        "ratios are taken side by side in one run."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated bench names (see --list)")
    parser.add_argument("--list", action="store_true", help="list the benches and what each needs")
    args = parser.parse_args(argv)
    try:
        benches = selected(args.only)
    except BenchReportError as error:
        parser.error(str(error))
    if args.list:
        for bench in BENCHES:
            lends = f"  (statute book: {bench.book})" if bench.book else ""
            print(f"{bench.name:20} {bench.timeout_s:5} s  {bench.command}{lends}")
        return 0
    readme = README.read_text(encoding="utf-8")
    previous = blocks_of(readme)  # before any bench runs: a README without markers stops here
    revision, begun = commit(), time.monotonic()
    ran = f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {revision.split()[0]}"
    logs = Path(tempfile.mkdtemp(prefix="citegen-bench-"))
    print(f"logs in {logs}", flush=True)
    outcomes, blocks = [], dict(previous)
    with shared_book() as book:
        for bench in benches:
            print(f"{bench.name}: running `{bench.command}` (timeout {bench.timeout_s} s)", flush=True)
            outcome, summary = run_with_book(bench, logs, book)
            print(
                f"{bench.name}: {outcome.status} in {outcome.seconds:.0f} s {outcome.note} {outcome.detail}",
                flush=True,
            )
            outcomes.append(outcome)
            blocks[bench.name] = block_for(outcome, summary, previous.get(bench.name), ran, ran[:10])
    whole = None if args.only else preamble("python -m bench", ran.split(",")[0], revision, time.monotonic() - begun)
    README.write_text(updated_readme(README.read_text(encoding="utf-8"), blocks, whole, ran), encoding="utf-8")
    print("\n| bench | outcome | seconds | note |\n|---|---|---:|---|")
    for outcome in outcomes:
        print(f"| {outcome.bench.name} | {outcome.status} | {outcome.seconds:.0f} | {outcome.note} |")
    for outcome in outcomes:
        if outcome.detail:
            print(f"{outcome.bench.name}: {outcome.detail}")
    failed = [outcome.bench.name for outcome in outcomes if outcome.status == "failed"]
    print(f"\n{len(outcomes) - len(failed)} of {len(outcomes)} done in {(time.monotonic() - begun) / 60:.1f} min"
          + (f"; failed: {', '.join(failed)}" if failed else ""))  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
