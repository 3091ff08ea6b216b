"""The lenient finder and re-citation on real legal text: `python bench/find_bench.py`.

- exact-span and overlap precision/recall of `grammars.find_citations` on the hand-labelled real
  passages of tests/realtext/passages.jsonl (sources in tests/realtext/SOURCES.md), recall by the
  labelled form and precision by the form the finder reports, and how many found readings equal the
  label's;
- recite's rewrites on the same passages, against a verifier database built from data/law and
  data/cases: a rewrite is right when it replaces exactly a labelled span with that label's reading;
- finder speed on one core, in MB of UTF-8 text per second, over the passages repeated to --megabytes.

Prints markdown tables and writes them to bench/results/find_bench.md.
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.report import results_page
from citegen.commands.recite_wiring import build_pipeline, finding_lexicon
from citegen.recite.documents import PlainTextDocument
from citegen.recite.evaluate import Passage, load_passages, reading
from grammars import CitationFinder, CitationParser, find_citations
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lexicon import build_lexicon

ROOT = Path(__file__).resolve().parent.parent
PASSAGES = ROOT / "tests" / "realtext" / "passages.jsonl"


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _ratio(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "—"


def finding_tables(passages: list[Passage], finder: CitationFinder | None = None
                   ) -> tuple[list[str], list[str], list[str]]:
    """The summary (recall and precision over all forms, readings), the tables by form, the misses; of
    `finder`, else of `find_citations` (grammars' built-in names)."""
    recall_exact, recall_overlap, labelled = Counter(), Counter(), Counter()
    precise_exact, precise_overlap, reported = Counter(), Counter(), Counter()
    readings_right = readings = 0
    misses: list[str] = []
    for passage in passages:
        found = finder.find(passage.text) if finder else find_citations(passage.text)
        for label in passage.labels:
            labelled[label.form] += 1
            exact = next((f for f in found if f.span == label.span), None)
            recall_exact[label.form] += exact is not None
            recall_overlap[label.form] += any(_overlaps(f.span, label.span) for f in found)
            if exact is not None:
                readings += 1
                readings_right += reading(exact.citation) == label.reading
                if reading(exact.citation) != label.reading:
                    misses.append(f"{passage.id}: read {reading(exact.citation)!r}, labelled {label.reading!r}")
            else:
                misses.append(f"{passage.id}: {label.form} {passage.text[slice(*label.span)]!r} not found exactly")
        for f in found:
            reported[f.form.value] += 1
            precise_exact[f.form.value] += any(f.span == label.span for label in passage.labels)
            overlapping = any(_overlaps(f.span, label.span) for label in passage.labels)
            precise_overlap[f.form.value] += overlapping
            if not overlapping:
                misses.append(f"{passage.id}: false citation {passage.text[slice(*f.span)]!r} ({f.form.value})")
    total = sum(labelled.values())
    lines = ["| labelled form | labels | exact-span recall | overlap recall |", "|---|---:|---:|---:|"]
    lines += [f"| {form} | {labelled[form]} | {_ratio(recall_exact[form], labelled[form])} | "
              f"{_ratio(recall_overlap[form], labelled[form])} |" for form in sorted(labelled)]
    lines.append(f"| **all** | {total} | **{_ratio(sum(recall_exact.values()), total)}** | "
                 f"**{_ratio(sum(recall_overlap.values()), total)}** |")
    found_total = sum(reported.values())
    lines += ["", "| found form | found | exact-span precision | overlap precision |", "|---|---:|---:|---:|"]
    lines += [f"| {form} | {reported[form]} | {_ratio(precise_exact[form], reported[form])} | "
              f"{_ratio(precise_overlap[form], reported[form])} |" for form in sorted(reported)]
    lines.append(f"| **all** | {found_total} | **{_ratio(sum(precise_exact.values()), found_total)}** | "
                 f"**{_ratio(sum(precise_overlap.values()), found_total)}** |")
    summary = [
        "| finder | citations | exact span | overlap |", "|---|---:|---:|---:|",
        f"| recall (of the labelled) | {total} | **{_ratio(sum(recall_exact.values()), total)}** | "
        f"**{_ratio(sum(recall_overlap.values()), total)}** |",
        f"| precision (of the found) | {found_total} | **{_ratio(sum(precise_exact.values()), found_total)}** | "
        f"**{_ratio(sum(precise_overlap.values()), found_total)}** |",
        "", (f"Readings of exactly found citations equal to the label's: {readings_right}/{readings} "
             f"({_ratio(readings_right, readings)})."),
    ]
    return summary, lines, misses


def served_finder(database_url: str) -> CitationFinder:
    """The finder recite and the service run: grammars' names joined with the database's."""
    database = Database.open(database_url, create=False)
    try:
        return CitationFinder(CitationParser.for_lexicon(finding_lexicon(build_lexicon(database))))
    finally:
        database.close()


def rewrite_table(passages: list[Passage], database_url: str) -> tuple[list[str], list[str]]:
    pipeline = build_pipeline(database_url, None)
    actions: Counter[str] = Counter()
    right = wrong = 0
    wrongs: list[str] = []
    for passage in passages:
        for outcome in pipeline.recite(PlainTextDocument((passage.text,), "utf-8", passage.id)).outcomes:
            actions[outcome.action] += 1
            if outcome.action != "rewritten":
                continue
            label = next((label for label in passage.labels if label.span == outcome.span), None)
            if label is not None and label.rewrite == outcome.canonical:
                right += 1
            else:
                wrong += 1
                expected = label.rewrite if label else "no citation labelled there"
                wrongs.append(f"{passage.id}: {outcome.original!r} -> {outcome.canonical!r}, labelled {expected!r}")
    lines = ["| action | citations |", "|---|---:|"]
    lines += [f"| {action} | {count} |" for action, count in sorted(actions.items())]
    lines += ["", f"Rewrites: {right + wrong}, right {right}, **wrong {wrong}**."]
    return lines, wrongs


def speed_line(passages: list[Passage], megabytes: float) -> str:
    text = "\n\n".join(passage.text for passage in passages)
    size = len(text.encode("utf-8"))
    copies = max(1, round(megabytes * 1_000_000 / size))
    corpus = "\n\n".join([text] * copies)
    find_citations(text)  # compiled patterns, outside the timing
    times = []
    for _ in range(3):  # the least of three: the machine is shared, and CPU time still varies with it
        started = time.process_time()
        found = find_citations(corpus)
        times.append(time.process_time() - started)
    mb, seconds = len(corpus.encode("utf-8")) / 1_000_000, min(times)
    return (f"Finder speed: {mb:.1f} MB of these passages (one citation per {len(corpus) // len(found)} "
            f"characters) in {seconds:.2f} s of CPU time on one core, the least of 3 runs = "
            f"**{mb / seconds:.2f} MB/s** ({len(found)} citations).")


def _sample_database(folder: Path) -> str:
    url = f"sqlite:///{folder / 'bench.sqlite'}"
    database = Database.open(url)
    import_paths(database, [ROOT / "data" / "law", ROOT / "data" / "cases"])
    database.close()
    return url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=4.0, help="text for the speed run (default 4)")
    parser.add_argument("--database-url", help="verifier database (default: data/law + data/cases)")
    parser.add_argument("--show-misses", action="store_true", help="list every miss and false citation")
    args = parser.parse_args()
    passages = load_passages(PASSAGES)
    sources = len({passage.source for passage in passages})
    labels = sum(len(passage.labels) for passage in passages)
    summary, finding, misses = finding_tables(passages)
    with tempfile.TemporaryDirectory() as folder:
        database_url = args.database_url or _sample_database(Path(folder))
        served, _, _ = finding_tables(passages, served_finder(database_url))
        rewriting, wrongs = rewrite_table(passages, database_url)
    speed = speed_line(passages, args.megabytes)
    short = [(f"{len(passages)} real passages from {sources} sources, {labels} labelled citations "
              f"(tests/realtext; {platform.python_version()}, {platform.machine()})."), "",
             "With grammars' built-in names (as tests/realtext checks them):", "", *summary, "",
             "With the names recite and the service find by (grammars' joined with data/law's):", "", *served, "",
             "Re-citation of the same passages against data/law + data/cases:", "", *rewriting, "", speed]
    out = ["## Finding by form", "", *finding]
    print("\n".join([*short, "", *out]))
    if args.show_misses:
        print("\n".join(["", "## Misses", *misses, *wrongs]))
    (ROOT / "bench" / "results" / "find_bench.md").write_text(results_page(short, out, __doc__), encoding="utf-8")


if __name__ == "__main__":
    main()
