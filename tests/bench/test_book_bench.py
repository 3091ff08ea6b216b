"""book_bench's ratio columns (citegen's rows over the peers of their own row group, — where none ran), its
failed rows, which peers run at which size, and how a peer's child process is waited on."""

from __future__ import annotations

import argparse
import multiprocessing
import time

import pytest

from bench.book_bench import peers_on, ratios, render
from bench.book_peers import LIMITS_RAISED, next_message

CITEGEN = {"size": "500", "engine": "citegen", "build": 0.2, "first": (40.0, 300.0)}
XGRAMMAR = {"size": "500", "engine": "xgrammar", "build": 0.5, "first": (4.0, 30.0)}
LLGUIDANCE = {"size": "500", "engine": "llguidance", "build": None, "first": (25.0, 900.0)}
OTHER_SIZE = {"size": "50", "engine": "xgrammar", "build": 0.05, "first": (2.0, 20.0)}


LIMITS_FAILED = {"size": "500", "engine": "llguidance", "failed": "initial lexer configuration (grammar) too big"}
RAISED = {"size": "500", "engine": LIMITS_RAISED, "build": None, "first": (20.0, 800.0)}


@pytest.mark.parametrize(
    ("row", "rows", "expected"),
    [
        (CITEGEN, [CITEGEN, XGRAMMAR, LLGUIDANCE], {"build_vs_peer": 0.4, "first_vs_peers": "10.00× / 1.60×"}),
        (CITEGEN, [CITEGEN, LLGUIDANCE], {"first_vs_peers": "— / 1.60×"}),
        (CITEGEN, [CITEGEN, LIMITS_FAILED, RAISED], {"first_vs_peers": "— / 2.00×"}),
        (CITEGEN, [CITEGEN, OTHER_SIZE], {}),
        (XGRAMMAR, [CITEGEN, XGRAMMAR], {}),
    ],
    ids=["xgrammar-and-llguidance", "llguidance-has-no-build", "llguidance-with-limits-raised", "other-row-group",
         "peer-row"],
)
def test_ratios(row, rows, expected) -> None:
    found = ratios(row, rows)
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert found[key] == (pytest.approx(value) if isinstance(value, float) else value)


def test_render_shows_a_dash_where_no_peer_ran() -> None:
    alone = render([CITEGEN], "header").splitlines()[-1].split(" | ")
    paired = render([CITEGEN, XGRAMMAR], "header").splitlines()[-2].split(" | ")
    assert (alone[5], alone[11]) == ("—", "—")
    assert (paired[5], paired[11]) == ("0.40×", "10.00× / —")


def test_render_says_what_stopped_a_peer() -> None:
    """A peer stopped by its limits, its memory cap or its time limit is a row that says so, with the
    table's columns; a warm load that failed alone says so in its cell."""
    unloaded = {**XGRAMMAR, "mask": (1.0, 2.0), "rss": 400.0, "warm_failed": "std::bad_alloc (at the 8 GiB cap)"}
    lines = render([LIMITS_FAILED, unloaded], "header").splitlines()
    failed, loaded = lines[-2].split(" | "), lines[-1].split(" | ")
    assert failed[3] == "failed: initial lexer configuration (grammar) too big"
    assert len(failed) == len(loaded) == len(lines[2].split(" | "))
    assert loaded[9] == "failed: std::bad_alloc (at the 8 GiB cap)"


def _args(peers_up_to: str = "full") -> argparse.Namespace:
    return argparse.Namespace(engines=["citegen", "xgrammar", "llguidance", "outlines-core"], peers_up_to=peers_up_to,
                              outlines_up_to="500")


@pytest.mark.parametrize(
    ("size", "stopped", "expected"),
    [
        ("50", set(), ["xgrammar", "llguidance", "outlines-core"]),
        ("5000", set(), ["xgrammar", "llguidance"]),
        ("full", {"xgrammar"}, ["llguidance"]),
        ("500", {"outlines-core"}, ["xgrammar", "llguidance"]),
    ],
    ids=["all", "outlines-core-up-to-500", "xgrammar-stopped-before", "outlines-core-stopped-before"],
)
def test_which_peers_run_at_a_size(size: str, stopped: set[str], expected: list[str]) -> None:
    assert peers_on(size, _args(), stopped) == expected


def test_no_peer_runs_past_peers_up_to() -> None:
    assert peers_on("5000", _args(peers_up_to="500"), set()) == []
    assert peers_on("500", _args(peers_up_to="500"), set()) == ["xgrammar", "llguidance", "outlines-core"]


def _put_then_exit(results) -> None:
    results.put({"row": 1})


def _exit_silently(results) -> None:
    return None


def _sleep(results) -> None:
    time.sleep(30)


@pytest.mark.parametrize(
    ("target", "timeout", "expected"),
    [
        (_put_then_exit, 10.0, {"row": 1}),
        (_exit_silently, 10.0, "its process ended (exit code 0) without a row"),
        (_sleep, 2.0, "not finished in 2 s (stopped)"),
    ],
    ids=["a-row-put-just-before-it-ended", "ended-without-a-row", "stopped-past-its-time"],
)
def test_a_child_is_waited_on_until_its_row_its_end_or_its_time(target, timeout: float, expected) -> None:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    process = context.Process(target=target, args=(results,))
    process.start()
    try:
        assert next_message(results, process, timeout) == expected
    finally:
        process.kill()
        process.join()
