"""Batch re-citation throughput and accuracy: `python bench/recite_bench.py`.

- documents/s and citations/s for `data/drafts` copied N times (default 100), on --jobs worker
  processes (default 2: the machines these numbers are for have 2 cores), without re-generation
  and with it (the shipped model, when it is in the checkout and --no-regeneration is not given);
- precision and recall of extraction + resolution on `data/drafts/labels.jsonl`.

The verifier database is built from `data/synthetic_law` (synthetic sample acts) and `data/cases` into a
temporary SQLite file unless --database-url names one. Prints markdown tables and writes them to
bench/results/recite_bench.md.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from bench.report import results_page
from citegen.commands.recite_wiring import build_pipeline
from citegen.commands.settings import Settings
from citegen.recite import BatchOptions, collect_inputs, run_batch
from citegen.recite.evaluate import evaluate, load_labels
from verifier.database import Database
from verifier.importers import import_paths

ROOT = Path(__file__).resolve().parent.parent
DRAFTS = ROOT / "data" / "drafts"


def _sample_database(path: Path) -> str:
    url = f"sqlite:///{path}"
    database = Database.open(url)
    import_paths(database, [ROOT / "data" / "synthetic_law", ROOT / "data" / "cases"])
    database.close()
    return url


def _corpus(folder: Path, copies: int) -> Path:
    corpus = folder / f"corpus{copies}"
    if corpus.exists():
        return corpus
    drafts = sorted(p for p in DRAFTS.iterdir() if p.is_file() and p.suffix != ".jsonl")
    for copy in range(copies):
        target = corpus / f"copy{copy:03d}"
        target.mkdir(parents=True)
        for draft in drafts:
            shutil.copyfile(draft, target / draft.name)
    return corpus


def _throughput(label: str, corpus: Path, out: Path, jobs: int, url: str, model: Path | None) -> list[str]:
    files = collect_inputs([corpus], out)
    started = time.perf_counter()
    summary = run_batch(files, BatchOptions(out, jobs=jobs), functools.partial(build_pipeline, url, model))
    seconds = time.perf_counter() - started
    return [label, str(summary.documents), str(summary.citations), f"{seconds:.2f}",
            f"{summary.documents / seconds:.1f}", f"{summary.citations / seconds:.0f}",
            str(summary.actions.get("suggested", 0))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--regenerate-copies", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-regeneration", action="store_true",
                        help="Measure without re-generation only (it takes minutes on 2 CPUs).")
    parser.add_argument("--database-url")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results" / "recite_bench.md")
    arguments = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    with tempfile.TemporaryDirectory(prefix="recite-bench-") as scratch:
        folder = Path(scratch)
        url = arguments.database_url or _sample_database(folder / "sample.sqlite3")
        model = Settings().model_path
        regenerate = model.exists() and not arguments.no_regeneration
        rows = [_throughput(f"data/drafts × {arguments.copies}, no re-generation", _corpus(folder, arguments.copies),
                            folder / "out-plain", arguments.jobs, url, None)]
        if regenerate:
            rows.append(_throughput(f"data/drafts × {arguments.regenerate_copies}, re-generation",
                                    _corpus(folder, arguments.regenerate_copies), folder / "out-regen",
                                    arguments.jobs, url, model))
        score = evaluate(build_pipeline(url, None), DRAFTS, load_labels(DRAFTS / "labels.jsonl"))

    header = ["run", "documents", "citations", "seconds", "documents/s", "citations/s", "suggested"]
    lines = ["# citegen recite benchmark\n",
             (f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs visible (load average "
              f"{os.getloadavg()[0]:.1f} at the end: the machine is shared), --jobs {arguments.jobs}; "
              f"`python bench/recite_bench.py --copies {arguments.copies} "
              + (f"--regenerate-copies {arguments.regenerate_copies}`\n" if regenerate else "--no-regeneration`\n")),
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    if regenerate and arguments.regenerate_copies > 1:
        lines.append(f"\nWith re-generation, each worker decodes a slot once: the {arguments.regenerate_copies - 1} "
                     "later copies of each draft hit its cache (greedy decoding gives the same answer to the same "
                     "prompt), so this rate is mostly cache hits, not what re-generating distinct drafts costs.")
    elif regenerate:
        lines.append("\nWith re-generation on the distinct drafts, each once: a slot repeated inside them is "
                     "decoded once per worker, a repeat hits the cache.")
    else:
        lines.append("\nRe-generation not measured: " + (f"no model at {model}." if not model.exists()
                                                           else "--no-regeneration."))
    lines += ["", "## Extraction + resolution on data/drafts/labels.jsonl", "",
              "| labels | resolvable | answers | correct | precision | recall | unlabelled rewrites |",
              "|---|---|---|---|---|---|---|",
              (f"| {score.labels} | {score.resolvable} | {score.answers} | {score.correct} | {score.precision:.2%} "
               f"| {score.recall:.2%} | {score.unlabelled_rewrites} |")]
    misses = []
    if score.misses:
        misses = ["### Misses", "", "| file | original | expected | answered | action |", "|---|---|---|---|---|"]
        misses += [f"| {m.file} | {m.original} | {m.expected} | {m.answered} | {m.action} |" for m in score.misses]
    print("\n".join([*lines, "", *misses]))
    arguments.results.parent.mkdir(parents=True, exist_ok=True)
    arguments.results.write_text(results_page(lines, misses, __doc__), encoding="utf-8")


if __name__ == "__main__":
    main()
