"""The seam between each bench script and the README's Numbers section.

A bench writes its full result to bench/results/<name>.md and marks in it the short part the README
shows (`summary_block`); `python -m bench` reads that part back (`summary_of`) and rewrites the
README between its markers (`rewrite_numbers`), one block per bench:

    <!-- bench:begin -->
    ...machine and commit of the run...
    <!-- bench grammar ran="2026-12-01 19:40 UTC" -->
    **Grammars** (...)
    <summary the bench wrote>

    <!-- /bench grammar -->

    <!-- bench:end -->

A block whose bench did not run this time keeps its summary and its `ran` date, and says why it was
not rerun; text outside the markers is never touched.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SUMMARY_BEGIN = "<!-- summary:begin -->"
SUMMARY_END = "<!-- summary:end -->"
NUMBERS_BEGIN = "<!-- bench:begin -->"
NUMBERS_END = "<!-- bench:end -->"
_BLOCK = re.compile(
    r'^<!-- bench (?P<name>[a-z_]+) ran="(?P<ran>[^"]*)" -->\n(?P<body>.*?)^<!-- /bench (?P=name) -->\n',
    re.MULTILINE | re.DOTALL,
)


_HEADING = re.compile(r"^#+ +(?P<title>.+?) *$", re.MULTILINE)


class BenchReportError(ValueError):
    """A results file or README that does not hold the markers this module reads and writes."""


@dataclass(frozen=True, slots=True)
class Block:
    """One bench's part of the Numbers section: a heading line (what ran, when, or why not), then
    the summary the bench wrote; `ran` says when and where that summary was measured."""

    name: str
    ran: str
    heading: str
    summary: str

    def render(self) -> str:
        return (
            f'<!-- bench {self.name} ran="{self.ran}" -->\n{self.heading}\n\n{self.summary.strip()}\n\n'
            f"<!-- /bench {self.name} -->\n"
        )


def summary_block(lines: list[str]) -> list[str]:
    """`lines` marked as the part of a results file the README shows."""
    return [SUMMARY_BEGIN, *lines, SUMMARY_END]


def results_page(summary: Sequence[str], details: Sequence[str] = (), about: str | None = None) -> str:
    """A bench's whole results file: the summary the README shows, the rest of its tables, then how it
    is measured (the script's docstring), so the file stands on its own."""
    lines = [*summary_block(list(summary)), *(["", *details] if details else [])]
    if about:
        lines += ["", "## How it is measured", "", about.strip()]
    return "\n".join(lines).rstrip() + "\n"


def summary_of(results: str, source: str) -> str:
    """The summary a bench marked in its results text (read from `source`, named in errors), its
    headings made bold lines, so the README's own headings stay the only ones in its Numbers section."""
    begin, end = results.find(SUMMARY_BEGIN), results.find(SUMMARY_END)
    if begin < 0 or end < begin:
        raise BenchReportError(f"expected {SUMMARY_BEGIN} … {SUMMARY_END} in {source}, got none")
    return _HEADING.sub(r"**\g<title>**", results[begin + len(SUMMARY_BEGIN) : end]).strip()


def numbers_section(readme: str) -> tuple[int, int]:
    """Start and end offsets of the generated text between the README's Numbers markers."""
    begin, end = readme.find(NUMBERS_BEGIN), readme.find(NUMBERS_END)
    if begin < 0 or end < begin or readme.count(NUMBERS_BEGIN) != 1 or readme.count(NUMBERS_END) != 1:
        raise BenchReportError(
            f"expected one {NUMBERS_BEGIN} followed by one {NUMBERS_END} in README.md, got "
            f"{readme.count(NUMBERS_BEGIN)} and {readme.count(NUMBERS_END)}"
        )
    return begin + len(NUMBERS_BEGIN), end


def preamble_of(readme: str) -> str:
    """The line(s) before the first block of the README's Numbers section: the last whole run's
    date, commit and machine (an `--only` run keeps them; its blocks carry their own stamps)."""
    start, end = numbers_section(readme)
    first = _BLOCK.search(readme, start, end)
    return readme[start : first.start() if first else end].strip()


def blocks_of(readme: str) -> dict[str, Block]:
    """The bench blocks now in the README's Numbers section, by bench name."""
    start, end = numbers_section(readme)
    found = {}
    for match in _BLOCK.finditer(readme, start, end):
        heading, _, summary = match["body"].partition("\n\n")
        found[match["name"]] = Block(match["name"], match["ran"], heading.strip(), summary.strip())
    return found


def rewrite_numbers(readme: str, preamble: str, blocks: Mapping[str, Block], order: list[str]) -> str:
    """`readme` with its Numbers section replaced by `preamble` and the blocks of `order`, in that order."""
    missing = [name for name in order if name not in blocks]
    if missing:
        raise BenchReportError(f"expected a block for every bench, got none for {', '.join(missing)}")
    start, end = numbers_section(readme)
    generated = "\n".join([preamble.strip() + "\n", *(blocks[name].render() for name in order)])
    return readme[:start] + "\n" + generated + readme[end:]
