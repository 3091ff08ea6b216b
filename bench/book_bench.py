"""The statute grammar at the scale of the real statute book, citegen beside the peers, one process,
one table per tokenizer.

    PYTHONPATH=. .venv/bin/python bench/book_bench.py [--sizes 50,500,5000,full] [--tokenizers deepseek,qwen]
        [--peers-up-to 500] [--engines citegen,xgrammar,llguidance] [--out bench/results/book_bench.md]

Each tokenizer is loaded once, with the peers' own tokenizer objects (xgrammar's TokenizerInfo,
llguidance's LLTokenizer), its rows run, and all of it freed (collector unfrozen, a full collection)
before the next is loaded. Peers: xgrammar, and llguidance with its default limits
(none raised), on sizes up to `--peers-up-to` acts; llguidance's tokenizer is made from DeepSeek's HF
tokenizer and from Qwen's tiktoken ranks (`llguidance.tiktoken`). outlines-core is not run: at 500 acts
it does not finish in 10 minutes (bench/grammar_bench.py runs it on the CASE grammar).

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
  `compile_index(cache_dir=…)` on a miss; xgrammar compiles everything at once: its compile; llguidance
  computes masks as it goes and has none);
  states; RSS: peak resident set growth during the build (VmHWM reset before it, once the heap earlier rows
  freed is handed back, as a fresh process has none to reuse; the tokenizer, the peers'
  tokenizer objects and the process's own ~280 MiB are not counted; for the peers, growth during the whole
  row), and for citegen what the process still holds once the built index is served from its file (the
  build's objects freed and their heap handed back, `grammars.collector.release_freed_heap`);
- build vs fastest peer (citegen's rows): its build ÷ the fastest peer build of the row group, which is
  xgrammar's compile, the only peer build there is (llguidance's compile → first mask is not a build);
- size: the stored index (its array file) or xgrammar's `memory_size_bytes`; warm: load from the disk cache and
  the first mask;
- first visit: steps on a fresh index along real citations of the lexicon (advance + fill the bitmask;
  process CPU time, median / p99), as a new narrowing or a lazily grown index pays them;
- first visit vs xgrammar (citegen's rows): its first-visit median ÷ xgrammar's in the row group;
  both ratios are — where no peer ran (sizes past `--peers-up-to`);
- mask: the same steps warm (median of 5 repeats per step; median / p99);
- apply: `apply_token_bitmask_inplace` of the walked states' bitmasks to a float32 logits row (median);
- with the full book, two paragraphs under each table: narrowings as served, and the answer language as
  served (`answer_grammar_for` over the full book): its whole build at a first start, states, peak RSS growth,
  stored size and load;
- exact: sampled states' masks equal to brute force (every text token walked through the automaton
  byte by byte, EOS iff accepting), and citations of the lexicon accepted, made-up articles rejected.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from bench.grammar_bench import (
    bench_llguidance,
    bench_xgrammar,
    forget_tokenizers,
    load_tokenizer,
    parsing_regex,
    percentile,
    prepare_peer_tokenizers,
    timed_steps,
)
from bench.report import results_page
from bench.statute_book import book_slice, full_book
from citegen.kernels import apply_token_bitmask_inplace
from citegen.models import freeze_loaded
from grammars import compile_index, parse_citation, statute_grammar
from grammars.cache import index_path
from grammars.collector import release_freed_heap
from grammars.dfa import DEAD
from grammars.languages.lexicon import as_lexicon
from grammars.languages.statute import HEAD_SEPARATOR

WALKS = 24  # citations walked per size
EXACT_STATES = 24  # states checked against brute force per size


def citations_of(lexicon: dict[str, list[str] | None], count: int, seed: int = 0) -> list[str]:
    """Real citations of the lexicon: an act, one of its articles, sometimes a paragraph."""
    rng = random.Random(seed)
    names = sorted(lexicon)
    out = []
    for _ in range(count):
        name = rng.choice(names)
        labels = lexicon[name] or ["1"]
        label = rng.choice(labels)
        article = label.replace("의", "조의") if "의" in label else label + "조"
        out.append(f"{name}{HEAD_SEPARATOR}{article}" + (" 제1항" if rng.random() < 0.5 else ""))
    return out


def _status_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"expected {field} in /proc/self/status, got none")


def reset_peak_rss() -> float:
    """Reset the process's peak RSS to its current RSS (Linux clear_refs 5); returns the current RSS. The
    heap earlier rows freed is handed back first (`release_freed_heap`), so a row's growth is what a fresh
    process would see, not reuse of pages an earlier row left resident (xgrammar's 500 acts: 3 GiB)."""
    release_freed_heap()
    Path("/proc/self/clear_refs").write_text("5")
    return _status_mib("VmRSS")


def peak_rss() -> float:
    return _status_mib("VmHWM")


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
        row["kept"] = _status_mib("VmRSS") - before  # with the built index served from its file
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
    its acts, a later one, and the median of more."""
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
    later_grammar_ms, later_ms, _ = _narrowed_first_mask(served, vocabulary, LATER_ACTS)
    rng, names = random.Random(0), sorted(held.acts)
    others = [_narrowed_first_mask(served, vocabulary, tuple(rng.sample(names, rng.randint(1, 3))))[1]
              for _ in range(OTHER_NARROWINGS)]
    return (f"Narrowing (as served: shorthand forbidden, states computed on first visit) to 대법원 and "
            f"{', '.join(NARROWED_ACTS)} over {len(lexicon):,} names, grammar + compile → first mask: the first in a "
            f"process that prepared nothing {unprepared_ms:.1f} ms; in a started service, which prepared its "
            f"narrowings in {prepare_ms:.0f} ms, {first_ms:.1f} ms (grammar {grammar_ms:.1f} ms), first-visit steps "
            f"median / p99 {statistics.median(first):.1f} / {percentile(first, 0.99):.1f} µs ({len(first)} steps); "
            f"a later one (대법원; {', '.join(LATER_ACTS)}) {later_ms:.1f} ms (grammar {later_grammar_ms:.1f} ms); "
            f"median of {OTHER_NARROWINGS} more (대법원 and 1–3 acts drawn from the book) "
            f"{statistics.median(others):.1f} ms, the slowest {max(others):.1f} ms.")


def answer_language(lexicon, vocabulary) -> str:
    """The answer language `citegen serve` and `citegen ask` build whole over the lexicon at their first start
    (`answer_grammar_for`: shorthand forbidden, `<think>` bypass) and load from the disk cache afterwards: the
    whole build as they pay it (stored and loaded back), its peak RSS growth, the stored file and the load."""
    from citegen.commands.languages import answer_grammar_for

    grammar = answer_grammar_for(as_lexicon(lexicon))
    with tempfile.TemporaryDirectory() as cache_dir:
        gc.collect()
        before = reset_peak_rss()
        started = time.perf_counter()
        built = compile_index(grammar, vocabulary, cache_dir=cache_dir)
        build_s, rss = time.perf_counter() - started, peak_rss() - before
        states, size = built.state_count, index_path(Path(cache_dir), built.key).stat().st_size / 2**20
        del built
        started = time.perf_counter()
        loaded = compile_index(grammar, vocabulary, cache_dir=cache_dir)
        loaded.fill_bitmask(loaded.initial_state, loaded.allocate_bitmask()[0])
        load_ms = (time.perf_counter() - started) * 1e3
    return (f"Answer language as served (`answer_grammar_for` over the same {len(lexicon):,} names, built whole "
            f"at a first start and stored): build {build_s:.1f} s, {states:,} states, peak RSS +{rss:.0f} MiB; "
            f"stored {size:.1f} MiB, loaded back to a first mask in {load_ms:.1f} ms.")


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
    `build_vs_peer`, its build over the fastest peer build (only xgrammar has one), and `first_vs_xgrammar`,
    its first-visit median over xgrammar's; absent where no such peer ran."""
    if row["engine"] != "citegen":
        return {}
    peers = [r for r in rows if r["size"] == row["size"] and r["engine"] != "citegen"]
    builds = [r["build"] for r in peers if r.get("build") is not None]
    xgrammar = [r for r in peers if r["engine"] == "xgrammar"]
    found = {}
    if builds:
        found["build_vs_peer"] = row["build"] / min(builds)
    if xgrammar:
        found["first_vs_xgrammar"] = row["first"][0] / xgrammar[0]["first"][0]
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
            "| first visit vs xgrammar | mask median / p99 µs | apply µs | exact |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        versus = ratios(r, rows)
        lines.append(
            f"| {r['size']} | {r['engine']} | {cell(r, 'lexicon', '{:.1f}')} | {cell(r, 'compile', '{:.1f}')} "
            f"| {cell(r, 'build', '{:.2f}')} | {cell(versus, 'build_vs_peer', '{:.2f}×')} "
            f"| {cell(r, 'states', '{:,}')} | {cell(r, 'rss', '{:.0f}')}{cell(r, 'kept', ' / {:.0f}', '')} "
            f"| {cell(r, 'size_mib', '{:.2f}')} "
            f"| {cell(r, 'warm', '{:.1f}')} | {cell(r, 'first', '{:.1f} / {:.1f}')} "
            f"| {cell(versus, 'first_vs_xgrammar', '{:.2f}×')} | {cell(r, 'mask', '{:.1f} / {:.1f}')} "
            f"| {cell(r, 'apply', '{:.1f}')} | {r.get('exact', '—')} |"
        )
    return "\n".join(lines)


def peer_row(engine: str, label: str, grammar, vocabulary, peer_tokenizer, walks) -> dict:
    regex = parsing_regex(grammar)
    before = reset_peak_rss()
    bench = bench_xgrammar if engine == "xgrammar" else bench_llguidance
    found = bench(label, regex, vocabulary, peer_tokenizer, walks)
    row = {"size": label, "engine": engine, "compile": found.get("compile"), "build": found.get("build"),
           "size_mib": found.get("size"), "warm": found.get("warm"), "first": found["p1"], "mask": found["p2"],
           "rss": peak_rss() - before}
    return row


TOKENIZERS = ("deepseek", "qwen")
PEERS = ("xgrammar", "llguidance")


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
    for size in args.sizes:
        lexicon = full_book() if size == "full" else book_slice(int(size))
        label = f"{size} ({len(lexicon):,} names, {sum(len(v or ()) for v in lexicon.values()):,} articles)"
        walks = [encode(text) for text in citations_of(lexicon, WALKS)]
        if "citegen" in args.engines:
            rows.append(bench_citegen(label, lexicon, vocabulary, walks))
            print(render(rows[-1:], ""), flush=True)
        if size != "full" and int(size) <= args.peers_up_to:
            grammar = statute_grammar(lexicon)
            for engine in PEERS:
                if engine in args.engines:
                    rows.append(peer_row(engine, label, grammar, vocabulary, peer_tokenizer, walks))
                    print(render(rows[-1:], ""), flush=True)
    table = render(rows, header)
    if "full" in args.sizes and "citegen" in args.engines:
        table += "\n\n" + narrowing(full_book(), vocabulary, encode)
        table += "\n\n" + answer_language(full_book(), vocabulary)
    print(f"\n{table}\n", flush=True)
    return table


def release_tokenizer() -> None:
    """Free what a tokenizer's table leaves before the next is loaded: the peers' tokenizer objects (cached by
    ids the next may reuse) and the cycles among what `freeze_loaded` froze (the heap they held goes back
    before each row is measured, `reset_peak_rss`)."""
    forget_tokenizers()
    gc.unfreeze()
    gc.collect()


def footnote(peers_up_to: int) -> str:
    return (
        "Rows: `statute_grammar` over the lexicon alone, the peers given its regex and not run past "
        f"{peers_up_to} acts. One thread on a shared machine: compare times within a row group (same size, same "
        "tokenizer). build vs fastest peer: citegen's full build ÷ xgrammar's compile, the only peer full build "
        "(llguidance computes masks lazily: it has no full build and is left out); first visit vs xgrammar: "
        "citegen's first-visit median ÷ xgrammar's; — where no peer ran. llguidance runs with its default limits "
        "(none raised), its tokenizer made from DeepSeek's HF tokenizer and from Qwen's tiktoken ranks. "
        "outlines-core is not run: at 500 acts it does not finish in 10 minutes (issue 18; bench/grammar_bench.py "
        "runs it on CASE alone). The narrowing paragraph under each table was measured with that table's tokenizer."
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
    parser.add_argument("--peers-up-to", type=int, default=500, help="run the peers on sizes up to this many acts")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    unknown = set(args.tokenizers) - set(TOKENIZERS)
    if unknown or not args.tokenizers:
        parser.error(f"expected tokenizers among {', '.join(TOKENIZERS)}; got {','.join(args.tokenizers)}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(1)
    tables = []
    for tokenizer in args.tokenizers:
        tables.append(tokenizer_table(tokenizer, args))
        release_tokenizer()
    note = footnote(args.peers_up_to)
    print(note)
    if args.out:
        args.out.write_text(results_page([*(part for table in tables for part in (table, "")), note], about=__doc__))


if __name__ == "__main__":
    main()
