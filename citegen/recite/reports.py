"""The reviewer's view of a batch: a JSONL line per citation (and per document that failed or had
no citations) and one HTML page with a summary table and a per-document diff.

Both are assembled from per-document results on disk in input order, so a resumed batch reports
every document, and memory holds one document at a time.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import IO

from citegen.recite.pipeline import NEEDS_REVIEW, CitationOutcome

ACTIONS = ("kept", "rewritten", "suggested", "review")


@dataclass(slots=True)
class DocumentReport:
    """What one document came to; stored as JSON between the worker and the report writer."""

    file: str
    output: str | None
    status: str  # "done", "no_citations" or a DocumentError kind ("corrupt", "encoding", ...)
    message: str = ""
    encoding: str | None = None
    outcomes: list[dict] = field(default_factory=list)
    diff_html: str = ""  # this document's part of the HTML report (`render_diff`)

    @property
    def needs_review(self) -> bool:
        return self.status not in ("done", "no_citations") or any(o["action"] in NEEDS_REVIEW for o in self.outcomes)

    def counts(self) -> Counter[str]:
        return Counter(o["action"] for o in self.outcomes)

    def to_json(self) -> str:
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)}, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> DocumentReport:
        return cls(**json.loads(text))


def outcome_record(outcome: CitationOutcome) -> dict:
    return {"part": outcome.stream, "span": list(outcome.span), "original": outcome.original,
            "canonical": outcome.canonical, "verdict": outcome.verdict, "action": outcome.action,
            "reason": outcome.reason, "form": outcome.form, "changes": list(outcome.changes),
            "context": list(outcome.context), "scanned": outcome.scanned}


def write_jsonl(reports: Iterable[DocumentReport], out: IO[str]) -> None:
    for report in reports:
        if report.status != "done":
            out.write(json.dumps({"file": report.file, "record": "document", "span": None, "original": None,
                                  "canonical": None, "verdict": report.status,
                                  "action": "review" if report.needs_review else "none",
                                  "reason": report.message}, ensure_ascii=False) + "\n")
        for outcome in report.outcomes:
            out.write(json.dumps({"file": report.file, "record": "citation", **outcome}, ensure_ascii=False) + "\n")


def render_diff(streams: Sequence[str], outcomes: Sequence[CitationOutcome]) -> str:
    """An HTML fragment: each line holding a citation that changed or needs review, before and after."""
    rows: list[str] = []
    for stream, text in enumerate(streams):
        mine = [o for o in outcomes if o.stream == stream and o.action != "kept"]
        line_start = 0
        for number, line in enumerate(text.split("\n"), start=1):
            line_end = line_start + len(line)
            here = [o for o in mine if line_start <= o.span[0] < line_end + 1]
            if here:
                rows.append(_diff_rows(stream, number, line, line_start, here))
            line_start = line_end + 1
    if not rows:
        return '<p class="quiet">No citation changed or needs review.</p>'
    return '<table class="diff">' + "".join(rows) + "</table>"


def _diff_rows(stream: int, number: int, line: str, line_start: int, outcomes: Sequence[CitationOutcome]) -> str:
    before, after, notes = [], [], []
    position = 0
    for outcome in sorted(outcomes, key=lambda o: o.span):
        start, end = outcome.span[0] - line_start, min(outcome.span[1] - line_start, len(line))
        plain = html.escape(line[position:start])
        before.append(plain)
        after.append(plain)
        original = html.escape(line[start:end])
        if outcome.action == "rewritten":
            before.append(f"<del>{original}</del>")
            after.append(f"<ins>{html.escape(outcome.canonical or '')}</ins>")
            if outcome.context:  # a rewrite that rests on other text is worth a reviewer's glance
                notes.append(f"<li><b>rewritten from context</b> <code>{original}</code> → "
                             f"<code>{html.escape(outcome.canonical or '')}</code>: "
                             f"{html.escape('; '.join(outcome.context))}</li>")
        else:
            marked = f'<mark class="{outcome.action}" title="{html.escape(outcome.reason)}">{original}</mark>'
            before.append(marked)
            after.append(marked)
            proposal = f" → <code>{html.escape(outcome.canonical)}</code>" if outcome.canonical else ""
            notes.append(f"<li><b>{outcome.action}</b> <code>{original}</code>{proposal}: "
                         f"{html.escape(outcome.reason)} <i>({html.escape(outcome.verdict)})</i></li>")
        position = end
    rest = html.escape(line[position:])
    where = f"{stream}:{number}" if stream else str(number)
    note_row = f'<tr><td></td><td></td><td><ul>{"".join(notes)}</ul></td></tr>' if notes else ""
    return (f'<tr class="del"><td>{where}</td><td>−</td><td>{"".join(before)}{rest}</td></tr>'
            f'<tr class="ins"><td></td><td>+</td><td>{"".join(after)}{rest}</td></tr>{note_row}')


_STYLE = """body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}th{background:#eee}
.diff td:nth-child(3){white-space:pre-wrap}.del{background:#fff0f0}.ins{background:#f0fff0}
del{background:#fbb}ins{background:#bfb;text-decoration:none}mark.suggested{background:#ffe08a}
mark.review{background:#f9a}.quiet{color:#777}.bad{color:#a00}"""


def write_html(reports: Callable[[], Iterable[DocumentReport]], out: IO[str], title: str) -> None:
    """The HTML report: a summary table, then each document's diff. `reports` is called twice
    (summary, then body), so one document is in memory at a time."""
    rows, totals, documents, review_documents = [], Counter[str](), 0, 0
    for index, report in enumerate(reports()):
        counts = report.counts()
        totals.update(counts)
        documents += 1
        review_documents += report.needs_review
        cells = "".join(f"<td>{counts.get(action, 0)}</td>" for action in ACTIONS)
        rows.append(f'<tr><td><a href="#doc{index}">{html.escape(report.file)}</a></td>'
                    f'<td class="{"bad" if report.needs_review else ""}">{html.escape(report.status)}'
                    f'{" · needs review" if report.needs_review else ""}</td>{cells}</tr>')
    out.write(f'<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
              f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>\n")
    out.write(f"<p>{documents} documents, {sum(totals.values())} citations, "
              f"{review_documents} documents need review.</p>\n")
    header = "".join(f"<th>{action}</th>" for action in ACTIONS)
    total_cells = "".join(f"<th>{totals.get(action, 0)}</th>" for action in ACTIONS)
    out.write(f'<table class="summary"><tr><th>document</th><th>status</th>{header}</tr>\n'
              + "\n".join(rows) + f"\n<tr><th>total</th><th></th>{total_cells}</tr></table>\n<h2>Documents</h2>\n")
    for index, report in enumerate(reports()):
        out.write(f'<section id="doc{index}"><h3>{html.escape(report.file)}</h3>\n')
        if report.status in ("done", "no_citations"):
            out.write(report.diff_html + "\n")
        else:
            out.write(f'<p class="bad">{html.escape(report.status)}: {html.escape(report.message)}</p>\n')
        out.write("</section>\n")
    out.write("</body></html>\n")
