"""The statute grammar at the scale of the real statute book, citegen beside the peers, one table per
tokenizer, each made in a process of its own.

    PYTHONPATH=. .venv/bin/python bench/book_bench.py [--sizes 50,500,5000,full] [--tokenizers deepseek,qwen]
        [--peers-up-to full] [--outlines-up-to 500] [--outlines-timeout 60]
        [--engines citegen,xgrammar,llguidance,outlines-core] [--out bench/results/book_bench.md]

Each tokenizer's table is made in a process of its own (spawned), as a serving process holds one tokenizer,
so nothing one table leaves (its peers' objects, the heap its full-book builds went through) reaches the
next's rows: the tokenizer loaded once, with the peers' own tokenizer objects (xgrammar's TokenizerInfo,
llguidance's LLTokenizer), and its rows run. Peers (bench/book_peers.py), on sizes up to `--peers-up-to`:
xgrammar and outlines-core (on sizes up to `--outlines-up-to`) each in a child process with its memory
capped, stopped past its time limit (outlines-core's `--outlines-timeout`, then not run on larger sizes);
llguidance with its default limits, and where they stop it a second row with every limit raised.
llguidance's tokenizer is made from DeepSeek's HF tokenizer and from Qwen's tiktoken ranks
(`llguidance.tiktoken`).

Lexicons (bench/statute_book.py, from ../shared/lawdata/legalize-kr-current.tar.xz): N = the first N acts
in force by name with their real article sets; `full` = every act in force plus a `구 NAME` form of each
(with the articles deleted since), the lexicon generation serves. Grammar: `statute_grammar(lexicon)`.
Columns (wall clock, one thread, this shared machine; the tokenizer's objects frozen out of the collector's
passes once loaded, as `citegen serve` freezes its model's (`citegen.models.freeze_loaded`), and a full
garbage collection before each timed compile, so that what earlier rows left (an index build runs with the
collector paused) is not charged to it):
- lexicon: the plain `{name: [labels]}` export checked and frozen into a `Lexicon` (`as_lexicon`), which
  the service does once per database reading and holds;
- compile: that Lexicon → first mask (grammar built, automaton compiled, the initial state's mask);
- build: every state computed, the index stored and loaded back to be served (citegen
  `compile_index(cache_dir=…)` on a miss; xgrammar and outlines-core compile everything at once: their
  compile; llguidance computes masks as it goes and has none);
  states; RSS: peak resident set growth during the build (VmHWM reset before it, once the heap earlier rows
  freed is handed back, as a fresh process has none to reuse; the tokenizer, the peers'
  tokenizer objects and the process's own ~280 MiB are not counted; for the peers, growth during the whole
  row), and for citegen what the process still holds once the built index is served from its file (the
  build's objects freed and their heap handed back, `grammars.collector.release_freed_heap`);
- build vs fastest peer (citegen's rows): its build ÷ the fastest peer build of the row group: xgrammar's or
  outlines-core's compile, which build everything (llguidance's compile → first mask is not a build);
- size: the stored index (its array file) or xgrammar's `memory_size_bytes`; warm: load from the disk cache and
  the first mask;
- first visit: steps on a fresh index along real citations of the lexicon (advance + fill the bitmask;
  process CPU time less the clock's own ~0.8 µs, `clock_cost`; median / p99), as a new narrowing or a
  lazily grown index pays them;
- first visit vs xgrammar / llguidance (citegen's rows): its first-visit median ÷ each one's in the row group;
  both ratios are — where no peer ran (sizes past `--peers-up-to`);
- mask: the same steps warm (median of 5 repeats per step; median / p99);
- apply: `apply_token_bitmask_inplace` of the walked states' bitmasks to a float32 logits row (median);
- with the full book, two paragraphs under each table: narrowings as served, and the answer language as
  served (`answer_grammar_for` over the full book): its whole build at a first start, in a child process as
  `citegen serve` builds it (`grammars.child_build`), states, the child's peak RSS and the serving process's
  peak RSS growth meanwhile, stored size and load;
- exact: sampled states' masks equal to brute force (every text token walked through the automaton
  byte by byte, EOS iff accepting), and citations of the lexicon accepted, made-up articles rejected.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import multiprocessing
import os
import platform
import random
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch

from bench.book_peers import CHILD_PEERS, LIMITS_RAISED, MEMORY_CAP_GIB, PEERS, XGRAMMAR_TIMEOUT, peer_rows
from bench.grammar_bench import (
    RAISED_LIMIT,
    load_tokenizer,
    percentile,
    prepare_peer_tokenizers,
    timed_steps,
)
from bench.memory import peak_rss, reset_peak_rss, status_mib
from bench.report import results_page
from bench.statute_book import book_of, citations_of, full_book
from citegen.kernels import apply_token_bitmask_inplace
from citegen.models import freeze_loaded
from grammars import compile_index, parse_citation, statute_grammar
from grammars.cache import index_key, index_path
from grammars.child_build import build_in_child
from grammars.dfa import DEAD
from grammars.languages.articles import HEAD_SEPARATOR
from grammars.languages.lexicon import as_lexicon

WALKS = 24  # citations walked per size
EXACT_STATES = 24  # states checked against brute force per size


def brute_force(index, state: int) -> np.ndarray:
    automaton, tokens = index.automaton, index.vocabulary.tokens
    allowed = [i for i, t in enumerate(tokens) if t and automaton.walk(state, t) != DEAD]
    if automaton.is_accepting(state):
        allowed += sorted(index.vocabulary.eos_ids)
    return np.asarray(sorted(allowed))


def exactness(index, lexicon, walks: list[list[int]], rng: random.Random) -> str:
    states = {s for tokens in walks for s in _states_along(index, tokens)}
    sample = rng.sample(sorted(states), min(EXACT_STATES, len(states)))
    wrong = [s for s in sample if not np.array_equal(index.allowed_tokens(s), brute_force(index, s))]
    dfa = index.automaton
    good = citations_of(lexicon, 200, seed=1)
    bad = [f"{name}{HEAD_SEPARATOR}9999조의99" for name in list(lexicon)[:50] if lexicon[name]]
    language = sum(_matches(dfa, text) for text in good) == len(good) and not any(_matches(dfa, t) for t in bad)
    return f"{len(sample) - len(wrong)}/{len(sample)} states, language {'ok' if language else 'WRONG'}"


def _matches(dfa, text: str) -> bool:
    state = dfa.walk(dfa.initial, text.encode())
    return state != DEAD and dfa.is_accepting(state)


def _states_along(index, tokens: list[int]) -> list[int]:
    state, out = index.initial_state, [index.initial_state]
    for token in tokens:
        state = index.advance(state, token)
        if state < 0:
            break
        out.append(state)
    return out


def steps(index, walks: list[list[int]], repeats: int) -> list[float]:
    """µs per step (advance + fill the bitmask), as grammar_bench times them."""
    row, cursor = index.allocate_bitmask()[0], {}

    def reset() -> None:
        cursor["state"] = index.initial_state

    def step(token: int) -> None:
        cursor["state"] = index.advance(cursor["state"], token)
        index.fill_bitmask(cursor["state"], row)

    return timed_steps(walks, reset, step, repeats)


def apply_median(index, walks: list[list[int]]) -> float:
    masks = [index.bitmask(s) for tokens in walks for s in _states_along(index, tokens)]
    logits = torch.randn(1, index.vocab_size)
    times = []
    for mask in masks * 5:
        work, bitmask = logits.clone(), torch.from_numpy(mask).unsqueeze(0)
        started = time.perf_counter_ns()
        apply_token_bitmask_inplace(work, bitmask, vocab_size=index.vocab_size)
        times.append((time.perf_counter_ns() - started) / 1000)
    return statistics.median(times)


def bench_citegen(label: str, lexicon, vocabulary, walks) -> dict:
    row: dict = {"size": label, "engine": "citegen"}
    gc.collect()
    started = time.perf_counter()
    held = as_lexicon(lexicon)
    row["lexicon"] = (time.perf_counter() - started) * 1e3
    started = time.perf_counter()
    grammar = statute_grammar(held)
    index = compile_index(grammar, vocabulary)
    index.fill_bitmask(index.initial_state, index.allocate_bitmask()[0])
    row["compile"] = (time.perf_counter() - started) * 1e3
    first = steps(compile_index(grammar, vocabulary), walks, 1)
    row["first"] = (statistics.median(first), percentile(first, 0.99))
    with tempfile.TemporaryDirectory() as cache_dir:
        before = reset_peak_rss()
        started = time.perf_counter()
        built = compile_index(grammar, vocabulary, cache_dir=cache_dir)
        row["build"] = time.perf_counter() - started
        row["rss"] = peak_rss() - before
        row["kept"] = status_mib("VmRSS") - before  # with the built index served from its file
        row["states"] = built.state_count
        row["size_mib"] = index_path(Path(cache_dir), built.key).stat().st_size / 2**20
        del built  # the loads below read the stored index
        loads = []
        for _ in range(3):
            started = time.perf_counter()
            loaded = compile_index(grammar, vocabulary, cache_dir=cache_dir)
            loaded.fill_bitmask(loaded.initial_state, loaded.allocate_bitmask()[0])
            loads.append((time.perf_counter() - started) * 1e3)
        row["warm"] = min(loads)
        warm = steps(loaded, walks, 5)
        row["mask"] = (statistics.median(warm), percentile(warm, 0.99))
        row["apply"] = apply_median(loaded, walks)
    row["exact"] = exactness(index, lexicon, walks, random.Random(0))
    return row


NARROWED_ACTS = ("민법", "형법", "민사소송법")
LATER_ACTS = ("근로기준법", "상법")  # a second narrowing, once the process has compiled one
OTHER_NARROWINGS = 10  # narrowings to 대법원 and 1-3 acts drawn from the book, for a median


def narrowing(lexicon, vocabulary, encode) -> str:
    """Requests narrowed to one court and a few acts over the whole `lexicon` (held as a `Lexicon`, as the
    service holds it), as `citegen serve` compiles them (citegen.narrowings.Narrowings: lazily, over the
    anchors every narrowing shares): grammar + compile → first mask of the first narrowing in a process that
    prepared nothing; then what a started service pays, having prepared its narrowings before its first
    request (`Narrowings.prepare`, timed): the same narrowing, its first-visit steps along answers that cite
    its acts and the same answers' in another narrowing keeping those acts (whose free text stepped before:
    `AnswerAnchors.free_step`), a later one, and the median of more."""
    from citegen.narrowings import Narrowings

    held = as_lexicon(lexicon)
    unprepared_ms = _narrowed_first_mask(Narrowings(held, forbid_shorthand=True), vocabulary, NARROWED_ACTS)[1]
    served = Narrowings(held, forbid_shorthand=True)
    gc.collect()
    started = time.perf_counter()
    served.prepare(vocabulary)
    prepare_ms = (time.perf_counter() - started) * 1e3
    grammar_ms, first_ms, index = _narrowed_first_mask(served, vocabulary, NARROWED_ACTS)
    narrowed = {name: lexicon[name] for name in NARROWED_ACTS}
    walks = [encode(f"이 경우 {text}에 따른다.") for text in citations_of(narrowed, 12)]
    first = steps(index, walks, 1)
    # another request keeping those acts (and one more): its free text steps as the first narrowing's did
    again = steps(_narrowed_first_mask(served, vocabulary, (*NARROWED_ACTS, LATER_ACTS[0]))[2], walks, 1)
    later_grammar_ms, later_ms, _ = _narrowed_first_mask(served, vocabulary, LATER_ACTS)
    rng, names = random.Random(0), sorted(held.acts)
    others = [_narrowed_first_mask(served, vocabulary, tuple(rng.sample(names, rng.randint(1, 3))))[1]
              for _ in range(OTHER_NARROWINGS)]
    return (f"Narrowing (as served: shorthand forbidden, states computed on first visit) to 대법원 and "
            f"{', '.join(NARROWED_ACTS)} over {len(lexicon):,} names, grammar + compile → first mask: the first in a "
            f"process that prepared nothing {unprepared_ms:.1f} ms; in a started service, which prepared its "
            f"narrowings in {prepare_ms:.0f} ms, {first_ms:.1f} ms (grammar {grammar_ms:.1f} ms), first-visit steps "
            f"median / p99 {statistics.median(first):.1f} / {percentile(first, 0.99):.1f} µs ({len(first)} steps), "
            f"the same answers' in another narrowing that keeps those acts and {LATER_ACTS[0]} "
            f"{statistics.median(again):.1f} / {percentile(again, 0.99):.1f} µs; "
            f"a later one (대법원; {', '.join(LATER_ACTS)}) {later_ms:.1f} ms (grammar {later_grammar_ms:.1f} ms); "
            f"median of {OTHER_NARROWINGS} more (대법원 and 1–3 acts drawn from the book) "
            f"{statistics.median(others):.1f} ms, the slowest {max(others):.1f} ms.")


def answer_language(lexicon, vocabulary) -> str:
    """The answer language `citegen serve` and `citegen ask` build whole over the lexicon at their first start
    (`answer_grammar_for`: shorthand forbidden, `<think>` bypass), in a child process, and load from the disk
    cache afterwards: the whole build as they pay it (the child's, then the load), the child's peak RSS and the
    calling process's growth meanwhile, the stored file and the load."""
    from citegen.commands.languages import answer_grammar_for

    grammar = answer_grammar_for(as_lexicon(lexicon))
    key = index_key(grammar, vocabulary)
    with tempfile.TemporaryDirectory() as cache_dir:
        gc.collect()
        before = reset_peak_rss()
        started = time.perf_counter()
        report = build_in_child(grammar, vocabulary, Path(cache_dir), key)
        build_s, rss = time.perf_counter() - started, peak_rss() - before
        if report is None:
            raise SystemExit("no child process could be started for the answer language's build")
        size = index_path(Path(cache_dir), key).stat().st_size / 2**20
        started = time.perf_counter()
        loaded = compile_index(grammar, vocabulary, cache_dir=cache_dir)
        loaded.fill_bitmask(loaded.initial_state, loaded.allocate_bitmask()[0])
        load_ms = (time.perf_counter() - started) * 1e3
    child_peak = "—" if report.peak_rss_mib is None else f"{report.peak_rss_mib:.0f} MiB"
    return (f"Answer language as served (`answer_grammar_for` over the same {len(lexicon):,} names, built whole "
            f"at a first start in a child process and stored): build {build_s:.1f} s ({report.seconds:.1f} s in the "
            f"child), {report.states:,} states, the child's peak RSS {child_peak}, the serving process's peak RSS "
            f"+{rss:.0f} MiB; stored {size:.1f} MiB, loaded back to a first mask in {load_ms:.1f} ms.")


def _narrowed_first_mask(narrowings, vocabulary, acts: tuple[str, ...]):
    """(grammar ms, grammar + compile → first mask ms, the index) of an answer narrowed to 대법원 and `acts`,
    as `citegen serve` compiles it (the grammar timed alone first)."""
    from citegen.constraint import Narrowing

    chosen = Narrowing(courts=("대법원",), acts=acts)
    gc.collect()
    started = time.perf_counter()
    narrowings.grammar(chosen)
    grammar_ms = (time.perf_counter() - started) * 1e3
    gc.collect()
    started = time.perf_counter()
    index = narrowings.language(chosen, vocabulary, parse_citation).index
    index.fill_bitmask(index.initial_state, index.allocate_bitmask()[0])
    return grammar_ms, (time.perf_counter() - started) * 1e3, index


def ratios(row: dict, rows: list[dict]) -> dict:
    """A citegen row's ratios to the peers of its row group (same size, same tokenizer) in `rows`:
    `build_vs_peer`, its build over the fastest peer build (xgrammar's and outlines-core's compiles build
    everything; llguidance has no build), and `first_vs_peers`, its first-visit median over xgrammar's and
    over llguidance's (the row that ran: default limits, else raised); absent where no such peer ran."""
    if row["engine"] != "citegen":
        return {}
    peers = [r for r in rows if r["size"] == row["size"] and r["engine"] != "citegen" and "failed" not in r]
    builds = [r["build"] for r in peers if r.get("build") is not None]
    found = {}
    if builds:
        found["build_vs_peer"] = row["build"] / min(builds)
    firsts = {engine: [r["first"][0] for r in peers if r["engine"] in engines]
              for engine, engines in (("xgrammar", ("xgrammar",)), ("llguidance", ("llguidance", LIMITS_RAISED)))}
    if any(firsts.values()):
        found["first_vs_peers"] = " / ".join(
            f"{row['first'][0] / medians[0]:.2f}×" if medians else "—" for medians in firsts.values())
    return found


def render(rows: list[dict], header: str) -> str:
    def cell(row, key, fmt, missing="—"):
        value = row.get(key)
        return missing if value is None else fmt.format(*value) if isinstance(value, tuple) else fmt.format(value)

    lines = [
        header,
        "",
        (
            "| acts | engine | lexicon ms | compile → first mask ms | build s | build vs fastest peer "
            "| states | build RSS MiB peak / kept | size MiB | warm load ms | first visit median / p99 µs "
            "| first visit vs xgrammar / llguidance | mask median / p99 µs | apply µs | exact |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "failed" in r:
            lines.append(f"| {r['size']} | {r['engine']} | — | failed: {r['failed']} |" + " — |" * 11)
            continue
        versus = ratios(r, rows)
        unloaded = f"failed: {r['warm_failed']}" if "warm_failed" in r else "—"
        lines.append(
            f"| {r['size']} | {r['engine']} | {cell(r, 'lexicon', '{:.1f}')} | {cell(r, 'compile', '{:.1f}')} "
            f"| {cell(r, 'build', '{:.2f}')} | {cell(versus, 'build_vs_peer', '{:.2f}×')} "
            f"| {cell(r, 'states', '{:,}')} | {cell(r, 'rss', '{:.0f}')}{cell(r, 'kept', ' / {:.0f}', '')} "
            f"| {cell(r, 'size_mib', '{:.2f}')} "
            f"| {cell(r, 'warm', '{:.1f}', unloaded)} "
            f"| {cell(r, 'first', '{:.1f} / {:.1f}')} "
            f"| {cell(versus, 'first_vs_peers', '{}')} | {cell(r, 'mask', '{:.1f} / {:.1f}')} "
            f"| {cell(r, 'apply', '{:.1f}')} | {r.get('exact', '—')} |"
        )
    return "\n".join(lines)


TOKENIZERS = ("deepseek", "qwen")


def tokenizer_table(tokenizer: str, args: argparse.Namespace) -> str:
    """One tokenizer's table (header, rows) and, with the full book, its narrowing paragraph."""
    vocabulary, peer_tokenizer, encode, _ = load_tokenizer(tokenizer)
    if set(PEERS) & set(args.engines):
        prepare_peer_tokenizers(vocabulary, peer_tokenizer)
    freeze_loaded()  # as `citegen serve` does once its model and tokenizer are loaded
    header = (
        f"Statute book bench, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {platform.node()} "
        f"({os.cpu_count()} CPUs, shared), tokenizer {tokenizer} ({vocabulary.size:,} ids)"
    )
    rows: list[dict] = []
    stopped: set[str] = set()  # peers not run on larger sizes
    for size in args.sizes:
        lexicon = book_of(size)
        label = f"{size} ({len(lexicon):,} names, {sum(len(v or ()) for v in lexicon.values()):,} articles)"
        walks = [encode(text) for text in citations_of(lexicon, WALKS)]
        if "citegen" in args.engines:
            rows.append(bench_citegen(label, lexicon, vocabulary, walks))
            print(render(rows[-1:], ""), flush=True)
        for engine in peers_on(size, args, stopped):
            found = peer_rows(engine, label, lexicon, vocabulary, peer_tokenizer, walks,
                              child=(tokenizer, size, WALKS), outlines_timeout=args.outlines_timeout)
            if engine in CHILD_PEERS and "failed" in found[-1]:
                stopped.add(engine)  # stopped or out of memory: a larger grammar would be too
            rows.extend(found)
            print(render(found, ""), flush=True)
    table = render(rows, header)
    if "full" in args.sizes and "citegen" in args.engines:
        table += "\n\n" + narrowing(full_book(), vocabulary, encode)
        table += "\n\n" + answer_language(full_book(), vocabulary)
    print(f"\n{table}\n", flush=True)
    return table


def table_in_own_process(tokenizer: str, args: argparse.Namespace) -> str:
    """`tokenizer_table` in a spawned process of its own, which ends with it (its output on this one's)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_table_job, tokenizer, args).result()


def _table_job(tokenizer: str, args: argparse.Namespace) -> str:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(1)
    return tokenizer_table(tokenizer, args)


def _rank(size: str) -> float:
    return float("inf") if size == "full" else int(size)


def peers_on(size: str, args: argparse.Namespace, stopped: set[str]) -> list[str]:
    """The peers run at `size`: those asked for, up to `--peers-up-to`, outlines-core up to `--outlines-up-to`,
    and those run in a child process only while they finished at the sizes before."""
    if _rank(size) > _rank(args.peers_up_to):
        return []
    return [engine for engine in PEERS if engine in args.engines and engine not in stopped
            and (engine != "outlines-core" or _rank(size) <= _rank(args.outlines_up_to))]


def _size_words(size: str) -> str:
    return "the full book" if size == "full" else f"{int(size):,} acts"


def footnote(args: argparse.Namespace) -> str:
    return (
        "Rows: `statute_grammar` over the lexicon alone, the peers given its regex (up to "
        f"{_size_words(args.peers_up_to)}; outlines-core up to {_size_words(args.outlines_up_to)}). xgrammar and "
        f"outlines-core run in a child process each, its address space capped at {MEMORY_CAP_GIB} GiB above what "
        f"it held before the compile, stopped after {XGRAMMAR_TIMEOUT:.0f} s (xgrammar; as long again for its "
        f"warm load) or {args.outlines_timeout:.0f} s (outlines-core); neither runs on larger sizes once stopped. One "
        "thread on a shared machine: compare times "
        "within a row group (same size, same tokenizer). build vs fastest peer: citegen's full build ÷ the fastest "
        "peer compile that builds everything (xgrammar's, outlines-core's; llguidance computes masks lazily and has "
        "no build); first visit vs xgrammar / llguidance: citegen's first-visit median ÷ each one's; — where no "
        "peer ran. llguidance runs with its default limits; where they stop it, that is a row (failed: its error) "
        f"and a second row runs with every limit raised to {RAISED_LIMIT:,}. Its tokenizer is made from DeepSeek's "
        "HF tokenizer and from Qwen's tiktoken ranks. The narrowing paragraph under each table was measured with "
        "that table's tokenizer."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=lambda text: text.split(","), default=["50", "500", "5000", "full"])
    parser.add_argument(
        "--tokenizers",
        type=lambda text: text.split(","),
        default=list(TOKENIZERS),
        help="comma-separated, one table each, in this order",
    )
    parser.add_argument("--engines", type=lambda text: text.split(","), default=["citegen", *PEERS])
    parser.add_argument("--peers-up-to", default="full", help="run the peers on sizes up to this one (a count or full)")
    parser.add_argument("--outlines-up-to", default="500", help="run outlines-core on sizes up to this one")
    parser.add_argument("--outlines-timeout", type=float, default=60.0,
                        help="seconds outlines-core's row (compile and steps) may take before it is stopped")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    unknown = set(args.tokenizers) - set(TOKENIZERS)
    if unknown or not args.tokenizers:
        parser.error(f"expected tokenizers among {', '.join(TOKENIZERS)}; got {','.join(args.tokenizers)}")
    for size in (args.peers_up_to, args.outlines_up_to):
        if size != "full" and not size.isdigit():
            parser.error(f"expected a count of acts or full, got {size!r}")
    tables = [table_in_own_process(tokenizer, args) for tokenizer in args.tokenizers]
    note = footnote(args)
    print(note)
    if args.out:
        args.out.write_text(results_page([*(part for table in tables for part in (table, "")), note], about=__doc__))


if __name__ == "__main__":
    main()
