"""The peers' rows of bench/book_bench.py, each given the statute grammar's regex.

- xgrammar and outlines-core build everything at compile, and past a few hundred acts that can take
  minutes or more memory than this machine has (xgrammar's `serialize_json`, its disk cache, asks for
  more than 8 GiB at 5,000 acts). Each row runs in a child process (spawned: it loads the tokenizer and
  the lexicon itself), its address space capped at `MEMORY_CAP_GIB` above what it holds before the
  compile (reserved as well as resident pages count), stopped after its time limit. Whatever stops it is
  the row's text: `failed: …`; xgrammar's warm load comes after its row (compile and steps measured), with
  a time limit of its own, and what stops it is the warm cell's. Peak RSS is the child's growth from
  before the compile, not counting xgrammar's load;
- llguidance computes masks as it goes, in this process: with its default limits, and where they stop
  it (its matcher in an error state, at compile or along a walk) the failure is a row of its own and a
  second row runs with every limit raised (`RAISED_LIMIT`).
"""

from __future__ import annotations

import multiprocessing
import queue as queues
import resource
from typing import Any

from bench.grammar_bench import (
    PeerFailed,
    bench_llguidance,
    bench_outlines,
    load_tokenizer,
    parsing_regex,
    xgrammar_load_ms,
    xgrammar_row,
)
from bench.memory import peak_rss, reset_peak_rss, status_mib
from bench.statute_book import book_of, citations_of
from grammars import statute_grammar

PEERS = ("xgrammar", "llguidance", "outlines-core")
CHILD_PEERS = ("xgrammar", "outlines-core")  # run in a child process: stopped when over a limit
LIMITS_RAISED = "llguidance, limits raised"
MEMORY_CAP_GIB = 8  # a child's address space past what it holds before the compile (this machine: 24 GiB)
XGRAMMAR_TIMEOUT = 600.0  # seconds: its compile of the full book takes about 30


def peer_rows(engine: str, label: str, lexicon, vocabulary, peer_tokenizer, walks, *, child: tuple[str, str, int],
              outlines_timeout: float) -> list[dict]:
    """One peer's rows for one size (`lexicon`, its statute grammar's); `child` (tokenizer name, size, walk
    count) is what a child process rebuilds the same grammar and walks from."""
    if engine in CHILD_PEERS:
        return [_child_row(engine, label, *child, XGRAMMAR_TIMEOUT if engine == "xgrammar" else outlines_timeout)]
    regex = parsing_regex(statute_grammar(lexicon))
    try:
        return [_measured(engine, label, lambda: bench_llguidance(label, regex, vocabulary, peer_tokenizer, walks))]
    except PeerFailed as failure:
        rows = [failed_row(engine, label, str(failure))]
    try:
        rows.append(_measured(LIMITS_RAISED, label, lambda: bench_llguidance(
            label, regex, vocabulary, peer_tokenizer, walks, raise_limits=True)))
    except PeerFailed as failure:
        rows.append(failed_row(LIMITS_RAISED, label, str(failure)))
    return rows


def failed_row(engine: str, label: str, why: str) -> dict:
    return {"size": label, "engine": engine, "failed": _first_line(why)}


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text.strip() else "no message"


def _measured(engine: str, label: str, bench) -> dict:
    """A grammar_bench row as a book_bench row, with the process's peak RSS growth while it ran."""
    before = reset_peak_rss()
    found = bench()
    return _book_row(engine, label, found, peak_rss() - before)


def _book_row(engine: str, label: str, found: dict, rss: float) -> dict:
    return {"size": label, "engine": engine, "compile": found.get("compile"), "build": found.get("build"),
            "size_mib": found.get("size"), "warm": found.get("warm"), "first": found["p1"], "mask": found["p2"],
            "rss": rss}


def _child_row(engine: str, label: str, tokenizer: str, size: str, walk_count: int, timeout: float) -> dict:
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_child, args=(engine, label, tokenizer, size, walk_count, results))
    process.start()
    try:
        ready = next_message(results, process, None)  # the child's tokenizer and grammar are ready: its compile starts
        if ready != "ready":
            return failed_row(engine, label, str(ready))
        row = next_message(results, process, timeout)
        if not isinstance(row, dict):
            return failed_row(engine, label, str(row))
        if engine == "xgrammar":  # its warm load, measured after the row
            loaded = next_message(results, process, timeout)
            row.update(loaded if isinstance(loaded, dict) else {"warm_failed": str(loaded)})
        return row
    finally:
        process.kill()
        process.join()


def next_message(results: Any, process: Any, timeout: float | None) -> object:
    """The child's next message; its end (killed past the memory cap) or `timeout` seconds said as text."""
    waited = 0.0
    while timeout is None or waited < timeout:
        try:
            return results.get(timeout=1.0)
        except queues.Empty:
            waited += 1.0
            if not process.is_alive():
                try:
                    return results.get(timeout=1.0)  # what it put just before it ended
                except queues.Empty:
                    return f"its process ended (exit code {process.exitcode}) without a row"
    return f"not finished in {timeout:.0f} s (stopped)"


def _child(engine: str, label: str, tokenizer: str, size: str, walk_count: int, results: Any) -> None:
    try:  # every failure goes back as the row's text: the parent waits on this queue
        vocabulary, peer_tokenizer, encode, _ = load_tokenizer(tokenizer)
        lexicon = book_of(size)
        walks = [encode(text) for text in citations_of(lexicon, walk_count)]
        regex = parsing_regex(statute_grammar(lexicon))
        held = int(status_mib("VmSize") * 2**20) + MEMORY_CAP_GIB * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (held, held))
    except Exception as error:  # reported as the row, in the parent
        results.put(f"{type(error).__name__}: {error}")
        return
    results.put("ready")
    try:
        if engine == "outlines-core":
            results.put(_measured(engine, label, lambda: bench_outlines(label, regex, vocabulary, walks)))
            return
        before = reset_peak_rss()
        found, compiled = xgrammar_row(label, regex, vocabulary, peer_tokenizer, walks)
        results.put(_book_row(engine, label, found, peak_rss() - before))
        try:
            results.put({"warm": xgrammar_load_ms(compiled, vocabulary, peer_tokenizer)})
        except (MemoryError, RuntimeError) as error:  # xgrammar raises std::bad_alloc as a RuntimeError
            why = _first_line(str(error))
            out_of_memory = isinstance(error, MemoryError) or "bad_alloc" in why
            results.put({"warm_failed": f"{why} (at the {MEMORY_CAP_GIB} GiB cap)" if out_of_memory else why})
    except Exception as error:  # reported as the row (or the warm cell), in the parent
        results.put(f"{type(error).__name__}: {error}")
