"""Strict answers of the shipped model, sampled hot, and what the last check had to withhold:
`python bench/unanchored_bench.py [--answers 60] [--temperatures 0.8 1.0 1.2] [--label NAME]`.

Serves `citegen serve`'s parts on 127.0.0.1 (the shipped model on CPU in the engine, the verifier on
an SQLite file of data/synthetic_law and data/cases, strict mode) and asks `--answers` answers per
temperature, concurrently, each with its own seed. A citation-shaped span the automaton never saw
is withheld by the last check as `unanchored` (the lenient finder over released prose): the
generation language is meant to leave none, so the count should be 0. Also counted: citations
released verified, withheld by every other reason, answers that did not finish. Prints a markdown
table and appends it, under `--label`, to bench/results/unanchored_bench.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adversarial_bench import start_server

from citegen.commands.serve_wiring import EngineSource, build_engine, citable_names, database_verifier
from citegen.models import load_model
from streaming import create_app
from streaming.config import StreamingSettings
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lexicon import build_lexicon, lexicon_data
from verifier.verify import Verifier

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "data" / "models" / "ko-legal-tiny"
RESULTS = ROOT / "bench" / "results" / "unanchored_bench.md"
QUESTIONS = [
    "불법행위로 인한 손해배상책임의 요건은 무엇인가요?",
    "근로자를 해고하려면 어떤 요건이 필요한가요?",
    "계약을 해제하면 어떤 효과가 있나요?",
    "사기죄는 언제 성립하나요?",
    "임금을 받지 못하면 어떻게 하나요?",
    "상가 임대차에서 임차인의 대항력은 언제 생기나요?",
]
BATCH = 8


def sse_events(response: httpx.Response) -> list[tuple[str, dict]]:
    events, name = [], ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[len("event: "):]
        elif line.startswith("data: "):
            events.append((name, json.loads(line[len("data: "):])))
    return events


def ask_all(base: str, bodies: list[dict]) -> list[list[tuple[str, dict]]]:
    answers: dict[int, list[tuple[str, dict]]] = {}

    def ask(i: int) -> None:
        with httpx.stream("POST", f"{base}/v1/answers", json=bodies[i], timeout=600) as response:
            answers[i] = sse_events(response) if response.status_code == 200 else [("http", {})]

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [answers.get(i, [("lost", {})]) for i in range(len(bodies))]


def tally(answers: list[list[tuple[str, dict]]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for events in answers:
        counts["answers"] += 1
        counts["finished"] += bool(events) and events[-1][0] == "done"
        for name, data in events:
            if name == "citation":
                counts["verified shown" if not data["withheld"] else f"withheld {data['status']}"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=60, help="answers per temperature")
    parser.add_argument("--temperatures", type=float, nargs="+", default=[0.8, 1.0, 1.2])
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--label", default="", help="what this run measured (a commit, a change)")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        database = Database.open(f"sqlite:///{Path(folder) / 'citegen.sqlite3'}")
        import_paths(database, [ROOT / "data" / "synthetic_law", ROOT / "data" / "cases"])
        source = EngineSource(build_engine(load_model(MODEL, "cpu"), lexicon_data(database), max_batch=BATCH))
        verifier = database_verifier(Verifier(database))
        app = create_app(StreamingSettings(max_active=BATCH), source, verifier,
                         citable=citable_names(build_lexicon(database)))
        base, server, thread = start_server(app)
        rows = []
        try:
            for temperature in arguments.temperatures:
                bodies = [
                    {"question": QUESTIONS[i % len(QUESTIONS)], "policy": "strict", "seed": i,
                     "temperature": temperature, "max_tokens": arguments.max_tokens}
                    for i in range(arguments.answers)
                ]
                started = time.perf_counter()
                rows.append((temperature, tally(ask_all(base, bodies)), time.perf_counter() - started))
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            source.close()
            verifier.close()
            database.close()
    table = render(rows, arguments)
    print(table)
    with RESULTS.open("a", encoding="utf-8") as out:
        out.write(table + "\n")


def render(rows: list[tuple[float, Counter[str], float]], arguments: argparse.Namespace) -> str:
    withheld = {key for _, counts, _ in rows for key in counts if key.startswith("withheld ")}
    reasons = sorted({"withheld unanchored", *withheld})
    head = ["temperature", "answers", "finished", "verified shown", *reasons, "s"]
    lines = [
        f"## {arguments.label or 'run'}",
        "",
        f"`python bench/unanchored_bench.py --answers {arguments.answers} --max-tokens {arguments.max_tokens}` "
        f"({platform.processor() or platform.machine()}, shipped model on CPU, synthetic_law + cases, strict)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for temperature, counts, seconds in rows:
        cells = [str(temperature), *(str(counts[key]) for key in head[1:-1]), f"{seconds:.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
