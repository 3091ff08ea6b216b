"""Builds data/law/statute-book.book.jsonl.xz, the statute book `make demo` imports, from a
legalize-kr git repository (law.go.kr mirrored as Markdown, one commit per amendment; public
domain, 저작권법 제7조):

    python data/tools/build_statute_book.py /path/to/legalize-kr [--out data/law/statute-book.book.jsonl.xz]

Every version of every act is kept with its dates, numbers, name, change kind and the structure
of every article (label, title, deletion, 항/호/목) as spans over the act's versions; the text is
kept for the articles of the versions in force on the build date (and of versions promulgated but
not yet in force), older text is dropped to keep the file small. 부칙: a version in force keeps all its
blocks with text; an older version keeps only the headings of the blocks it brought (each legalize-kr
file repeats every earlier 부칙, which would make the file grow with the square of the amendments).
`citegen-admin import` reads the result; a full import of the repository itself keeps every version's text.
"""

from __future__ import annotations

import argparse
import datetime as dt
import lzma
import sys
import time
from collections import defaultdict
from pathlib import Path

from verifier.importers.book import bundle_line, read_histories
from verifier.importers.history import BookReport, Span, fold, normalize, sort_key
from verifier.importers.legalize import ActVersion


class ActState:
    """One act while its versions stream in: metadata, closed spans (text kept only where still
    in force), open spans (text kept), the next sequence number."""

    def __init__(self) -> None:
        self.versions: list[ActVersion] = []
        self.closed: list[Span] = []
        self.open: dict[tuple[int, int], Span] = {}
        self.supplement_texts: dict[str, str] = {}  # 부칙 heading → its text, each block once
        self.out_of_order = 0

    def add(self, versions: list[ActVersion], today: dt.date) -> None:
        versions = sorted(versions, key=sort_key)
        if self.versions and sort_key(versions[0]) < sort_key(self.versions[-1]):
            self.out_of_order += 1
        start = len(self.versions) + 1
        touched = fold(versions, start, self.open)
        for version in versions:
            brought = tuple((heading, text) for heading, text in version.supplements
                            if heading not in self.supplement_texts)
            self.supplement_texts.update(brought)
            self.versions.append(ActVersion(**{**_fields(version), "articles": (), "supplements": brought}))
        last = len(self.versions)
        seen = {(span.number, span.branch, span.first) for span in touched}
        ended = [span for span in touched if span.last < last] + [
            span for span in self.open.values() if (span.number, span.branch, span.first) not in seen]
        self.open = {(span.number, span.branch): span for span in touched if span.last == last}
        for span in ended:
            closer = self.versions[span.last]  # the version after the span's last, which ended it
            in_force = closer.effective_on is None or closer.effective_on > today
            self.closed.append(span if in_force else Span(**{**_fields(span), "text": None}))

    def final_versions(self, today: dt.date) -> list[ActVersion]:
        """The versions as the bundle holds them: every 부칙 block with text for the last version and
        those not yet in force, the headings a version brought for the others."""
        out, blocks = [], []
        for index, version in enumerate(self.versions):
            blocks += version.supplements
            after = self.versions[index + 1] if index + 1 < len(self.versions) else None
            in_force = after is None or after.effective_on is None or after.effective_on > today
            kept = tuple(blocks) if in_force else tuple((heading, None) for heading, _ in version.supplements)
            out.append(ActVersion(**{**_fields(version), "supplements": kept}))
        return out

    def spans(self) -> list[Span]:
        return sorted(self.closed + list(self.open.values()), key=lambda s: (s.number, s.branch, s.first))


def _fields(value: object) -> dict[str, object]:
    return {name: getattr(value, name) for name in type(value).__slots__}  # type: ignore[attr-defined]


def build(repo: Path, out: Path, today: dt.date) -> None:
    report = BookReport()
    acts: dict[str, ActState] = defaultdict(ActState)
    started = time.monotonic()
    for history, done, total in read_histories(repo, set(), report):
        acts[history.law_id].add(history.versions, today)
        if done % 100 == 0:
            print(f"\r{done}/{total} files, {len(acts)} acts, {time.monotonic() - started:.0f} s", end="",
                  file=sys.stderr, flush=True)
    print(file=sys.stderr)
    out.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(out, "wt", encoding="utf-8", preset=9) as bundle:
        for law_id in sorted(acts):
            state = acts[law_id]
            bundle.write(bundle_line(*normalize(state.final_versions(today), state.spans())) + "\n")
    versions = sum(len(state.versions) for state in acts.values())
    spans = sum(len(state.closed) + len(state.open) for state in acts.values())
    disorder = sum(state.out_of_order for state in acts.values())
    print(f"{len(acts)} acts, {versions} versions, {spans} article spans, {len(report.skipped)} files skipped, "
          f"{disorder} acts with versions out of promulgation order; {out} is {out.stat().st_size / 1e6:.1f} MB "
          f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    for where, why in report.skipped[:20]:
        print(f"skipped {where}: {why}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a legalize-kr git repository (bare or a checkout)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "law" / "statute-book.book.jsonl.xz")
    parser.add_argument("--today", type=dt.date.fromisoformat, default=dt.date.today(),
                        help="the date whose versions keep their text (default: today)")
    arguments = parser.parse_args()
    build(arguments.repo, arguments.out, arguments.today)


if __name__ == "__main__":
    main()
