"""book_bench's ratio columns: citegen's rows over the peers of their own row group, — where none ran."""

from __future__ import annotations

import pytest

from bench.book_bench import ratios, render

CITEGEN = {"size": "500", "engine": "citegen", "build": 0.2, "first": (40.0, 300.0)}
XGRAMMAR = {"size": "500", "engine": "xgrammar", "build": 0.5, "first": (4.0, 30.0)}
LLGUIDANCE = {"size": "500", "engine": "llguidance", "build": None, "first": (25.0, 900.0)}
OTHER_SIZE = {"size": "50", "engine": "xgrammar", "build": 0.05, "first": (2.0, 20.0)}


@pytest.mark.parametrize(
    ("row", "rows", "expected"),
    [
        (CITEGEN, [CITEGEN, XGRAMMAR, LLGUIDANCE], {"build_vs_peer": 0.4, "first_vs_xgrammar": 10.0}),
        (CITEGEN, [CITEGEN, LLGUIDANCE], {}),
        (CITEGEN, [CITEGEN, OTHER_SIZE], {}),
        (XGRAMMAR, [CITEGEN, XGRAMMAR], {}),
    ],
    ids=["xgrammar-and-llguidance", "llguidance-has-no-build", "other-row-group", "peer-row"],
)
def test_ratios(row, rows, expected) -> None:
    assert ratios(row, rows) == pytest.approx(expected)


def test_render_shows_a_dash_where_no_peer_ran() -> None:
    alone = render([CITEGEN], "header").splitlines()[-1].split(" | ")
    paired = render([CITEGEN, XGRAMMAR], "header").splitlines()[-2].split(" | ")
    assert (alone[5], alone[11]) == ("—", "—")
    assert (paired[5], paired[11]) == ("0.40×", "10.00×")
