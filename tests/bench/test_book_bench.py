"""book_bench's ratio columns: citegen's rows over the peers of their own row group, — where none ran."""

from __future__ import annotations

import pytest

from bench.book_bench import ratios, render
from bench.book_peers import LIMITS_RAISED

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
