"""`python -m bench` rewrites only the README's Numbers section, exactly and idempotently."""

from __future__ import annotations

import pytest

from bench.__main__ import BENCHES, Bench, Outcome, block_for, selected, updated_readme
from bench.report import (
    BenchReportError,
    Block,
    blocks_of,
    preamble_of,
    rewrite_numbers,
    summary_block,
    summary_of,
)

README = """# citegen

Intro text stays.

## Numbers

<!-- bench:begin -->
Old preamble.

<!-- bench alpha ran="2026-11-30, H200" -->
**Alpha** (old heading)

| a | b |
|---|---|
| 1 | 2 |

A caveat beside its number.

<!-- /bench alpha -->

<!-- bench beta ran="2026-11-29" -->
**Beta**

beta summary

<!-- /bench beta -->
<!-- bench:end -->

On a machine with a GPU, text after the section stays too.
"""


def test_blocks_are_read_back_with_their_date_and_summary() -> None:
    blocks = blocks_of(README)
    assert list(blocks) == ["alpha", "beta"]
    assert blocks["alpha"] == Block(
        "alpha",
        "2026-11-30, H200",
        "**Alpha** (old heading)",
        "| a | b |\n|---|---|\n| 1 | 2 |\n\nA caveat beside its number.",
    )


def test_rewriting_the_same_blocks_is_exact_and_idempotent() -> None:
    blocks = blocks_of(README)
    once = rewrite_numbers(README, "Old preamble.", blocks, ["alpha", "beta"])
    assert once == README
    assert rewrite_numbers(once, "Old preamble.", blocks_of(once), ["alpha", "beta"]) == once


def test_only_the_text_between_the_markers_changes() -> None:
    blocks = dict(blocks_of(README))
    blocks["beta"] = Block("beta", "2026-12-01 20:00 UTC, abc1234", "**Beta** (ran)", "new summary")
    rewritten = rewrite_numbers(README, "New preamble.", blocks, ["beta", "alpha"])
    before, after = README.split("<!-- bench:begin -->"), rewritten.split("<!-- bench:begin -->")
    assert after[0] == before[0]
    assert after[1].split("<!-- bench:end -->")[1] == before[1].split("<!-- bench:end -->")[1]
    assert "New preamble." in rewritten and "Old preamble." not in rewritten
    assert list(blocks_of(rewritten)) == ["beta", "alpha"]
    assert blocks_of(rewritten)["beta"].summary == "new summary"


@pytest.mark.parametrize(
    "readme",
    [README.replace("<!-- bench:end -->", ""), README + "<!-- bench:begin -->\n", "no markers at all\n"],
    ids=["no end", "two begins", "none"],
)
def test_a_readme_without_exactly_one_pair_of_markers_is_refused(readme: str) -> None:
    with pytest.raises(BenchReportError, match="bench:begin"):
        blocks_of(readme)


def test_every_bench_needs_a_block() -> None:
    with pytest.raises(BenchReportError, match="gamma"):
        rewrite_numbers(README, "p", blocks_of(README), ["alpha", "gamma"])


def test_the_summary_a_bench_marks_is_what_the_driver_reads() -> None:
    results = "\n".join(["# full result", *summary_block(["## Part", "| x |", "|---|", "| 1 |"]), "details"])
    assert summary_of(results, "bench/results/x.md") == "**Part**\n| x |\n|---|\n| 1 |"
    with pytest.raises(BenchReportError, match=r"bench/results/x\.md"):
        summary_of("# no summary here", "bench/results/x.md")


def test_unknown_bench_names_are_refused_by_name() -> None:
    assert [bench.name for bench in selected("verify_bench,grammar_bench")] == [
        "grammar_bench",
        "verify_bench",
    ]
    assert selected(None) == list(BENCHES)
    with pytest.raises(BenchReportError, match="'verify_bench,nope'"):
        selected("verify_bench,nope")


def test_a_bench_not_rerun_keeps_its_numbers_and_their_date() -> None:
    bench = Bench("gpu_mask", "GPU mask kernel")
    previous = Block("gpu_mask", "2026-11-30, NVIDIA H200", "**GPU mask kernel**", "| µs |")
    outcome = Outcome(bench, "skipped", 0.0, "no CUDA device on this machine")
    kept = block_for(outcome, None, previous, "2026-12-01 20:00 UTC, abc1234", "2026-12-01")
    assert kept.ran == "2026-11-30, NVIDIA H200" and kept.summary == "| µs |"
    assert "not rerun on 2026-12-01, no CUDA device on this machine" in kept.heading
    assert "from 2026-11-30, NVIDIA H200" in kept.heading


def test_an_only_run_keeps_the_whole_runs_line_and_stamps_its_own_blocks() -> None:
    benches = [Bench("alpha", "Alpha"), Bench("beta", "Beta")]
    blocks = dict(blocks_of(README))
    blocks["beta"] = Block("beta", "2026-12-01 23:00 UTC, abc1234", "**Beta** (ran)", "new summary")
    only = updated_readme(README, blocks, None, "2026-12-01 23:00 UTC, abc1234", benches)
    assert preamble_of(only) == preamble_of(README) == "Old preamble."
    assert blocks_of(only)["beta"].ran == "2026-12-01 23:00 UTC, abc1234"
    assert blocks_of(only)["alpha"] == blocks_of(README)["alpha"]
    whole = updated_readme(README, blocks, "Last run: python -m bench.", "2026-12-01 23:00 UTC, abc1234", benches)
    assert preamble_of(whole) == "Last run: python -m bench."


def test_a_bench_added_since_the_last_whole_run_gets_a_block_saying_so() -> None:
    benches = [Bench("alpha", "Alpha"), Bench("gamma", "Gamma"), Bench("beta", "Beta")]
    rewritten = updated_readme(README, blocks_of(README), None, "2026-12-01 23:00 UTC, abc1234", benches)
    assert list(blocks_of(rewritten)) == ["alpha", "gamma", "beta"]
    gamma = blocks_of(rewritten)["gamma"]
    assert gamma.summary == "No result yet." and "not selected" in gamma.heading


def test_the_statute_book_is_filled_before_the_benches_that_read_it() -> None:
    order = [bench.book for bench in BENCHES if bench.book]
    assert order[0] == "fills" and order.count("fills") == 1
    assert set(order[1:]) <= {"reads", "reads+postgresql"}
