"""The reviewer's view of a batch: a JSONL line per citation (and per document that failed, had
no citations or was read with a doubt) and one HTML page with a summary table and a per-document
diff, written in Python (`write_html`, `write_diff`) with every value escaped as markupsafe escapes
it: a template engine's work per citation would be most of the report's time, and importing one and
compiling the page cost every process more than writing the page.

Both are assembled from per-document results on disk in input order, so a resumed batch reports
every document. A result is three files (`ResultFiles`): a small JSON header (`DocumentReport`),
the outcomes as JSON lines and the diff as an HTML fragment; the report writer streams them, so
memory holds one line at a time, whatever the size of a document. Rendering is linear in the size
of the document and the number of its citations.
"""

from __future__ import annotations

import json
import re
import shutil
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any

from markupsafe import escape

from citegen.recite.atomic import write_bytes_atomically
from citegen.recite.pipeline import NEEDS_REVIEW, CitationOutcome, placeless

ACTIONS = ("kept", "rewritten", "suggested", "review")
DIFF_PIECE = 1 << 20  # bytes of a document's diff fragment the report writer holds at a time
_NEWLINE = re.compile("\n")
_HTML_SPECIAL = re.compile("[&<>\"']")  # what markupsafe's escape replaces
_JSON_LINE = json.JSONEncoder(ensure_ascii=False)  # json.dumps(ensure_ascii=False) without an encoder per call
_MOST_ENCODED = 100_000  # encodings `_OutcomeLines` keeps at a time
_LINES_PER_WRITE = 1024


@dataclass(slots=True)
class DocumentReport:
    """What one document came to, without its citations: the header of its result on disk."""

    file: str
    output: str | None
    status: str  # "done", "no_citations" or a DocumentError kind ("corrupt", "encoding", ...)
    message: str = ""
    encoding: str | None = None
    doubts: list[str] = field(default_factory=list)  # why the reading itself needs a look (an encoding guess)
    counts: dict[str, int] = field(default_factory=dict)  # citations by action

    @property
    def needs_review(self) -> bool:
        return (self.status not in ("done", "no_citations") or bool(self.doubts)
                or any(self.counts.get(action) for action in NEEDS_REVIEW))

    def to_json(self) -> str:
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)}, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> DocumentReport:
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class ResultFiles:
    """Where one document's result lies: `header` is written last, after `outcomes` and `diff`."""

    header: Path

    @property
    def outcomes(self) -> Path:
        return self.header.with_suffix(".outcomes.jsonl")

    @property
    def diff(self) -> Path:
        return self.header.with_suffix(".diff.html")

    def write_outcomes(self, report: DocumentReport, outcomes: Iterable[CitationOutcome],
                       streams: Sequence[str]) -> None:
        """Leave the result of a document that was read, but its header (`write_header`, last):
        `outcomes`, found in its `streams` in stream and text order (as the pipeline decides them), each
        written as it comes, to the lines and, unless kept, to the diff, and counted in
        `report`; none is held."""
        counts: Counter[str] = Counter()
        encoded = _OutcomeLines()
        with self.outcomes.open("w", encoding="utf-8") as lines, self.diff.open("w", encoding="utf-8") as page:
            held: list[str] = []  # lines written a batch at a time: a write per line cost more than encoding it

            def recorded() -> Iterator[CitationOutcome]:
                for outcome in outcomes:
                    counts[outcome.action] += 1
                    held.append(encoded.line(outcome))
                    if len(held) >= _LINES_PER_WRITE:
                        lines.write("".join(held))
                        held.clear()
                    yield outcome

            write_diff(streams, recorded(), page)
            lines.write("".join(held))
        report.counts = dict(counts)

    def write_header(self, report: DocumentReport) -> None:
        """The header, written last and whole (`atomic`): a result without one is redone."""
        write_bytes_atomically(self.header, report.to_json().encode("utf-8"))

    def write_failure(self, report: DocumentReport) -> None:
        self.outcomes.unlink(missing_ok=True)
        self.diff.unlink(missing_ok=True)
        write_bytes_atomically(self.header, report.to_json().encode("utf-8"))

    def read(self) -> DocumentReport:
        return DocumentReport.from_json(self.header.read_text("utf-8"))

    def outcome_pieces(self) -> Iterator[bytes]:
        """The outcome lines as written (UTF-8) a piece of whole lines at a time, each of about DIFF_PIECE
        bytes."""
        if self.outcomes.exists():
            with self.outcomes.open("rb") as lines:
                while piece := lines.read(DIFF_PIECE):
                    yield piece + lines.readline()

    def copy_diff(self, out: IO[bytes]) -> None:
        """The diff fragment as written (UTF-8), DIFF_PIECE bytes at a time: a 50 MB draft's is ~200 MB."""
        if self.diff.exists():
            with self.diff.open("rb") as fragment:
                shutil.copyfileobj(fragment, out, DIFF_PIECE)


def outcome_record(outcome: CitationOutcome) -> dict[str, Any]:
    return {"part": outcome.stream, "span": list(outcome.span), "original": outcome.original,
            "canonical": outcome.canonical, "verdict": outcome.verdict, "action": outcome.action,
            "reason": outcome.reason, "form": outcome.form, "changes": list(outcome.changes),
            "context": list(outcome.context), "scanned": outcome.scanned}


class _OutcomeLines:
    """`outcome_record` of each outcome as a JSON line. A draft repeats its citations, and outcomes
    that differ only in where they stand share the encoding of the rest, made once."""

    def __init__(self) -> None:
        self._rest_of: dict[tuple[object, ...], str] = {}

    def line(self, outcome: CitationOutcome) -> str:
        key = placeless(outcome)
        rest = self._rest_of.get(key)
        if rest is None:
            if len(self._rest_of) >= _MOST_ENCODED:
                self._rest_of.clear()
            record = outcome_record(outcome)
            del record["part"], record["span"]
            rest = self._rest_of[key] = _JSON_LINE.encode(record)[1:] + "\n"  # after its `{`
        start, end = outcome.span
        return f'{{"part": {outcome.stream}, "span": [{start}, {end}], {rest}'


def write_jsonl(result: ResultFiles, report: DocumentReport, out: IO[bytes]) -> None:
    """One document's lines, in UTF-8: a document record when it failed, had no citations or is in
    doubt, then one per citation, streamed from its result as bytes (decoding and encoding them again
    cost two thirds of the copy: 0.044 -> 0.015 s for a 1 MB draft's 5 MB of lines)."""
    if report.status != "done" or report.doubts:
        reason = "; ".join(filter(None, [report.message, *report.doubts]))
        out.write(json.dumps({"file": report.file, "record": "document", "span": None, "original": None,
                              "canonical": None, "verdict": report.status,
                              "action": "review" if report.needs_review else "none",
                              "reason": reason}, ensure_ascii=False).encode() + b"\n")
    prefix = json.dumps({"file": report.file, "record": "citation"}, ensure_ascii=False)[:-1].encode() + b", "
    # Each line is an object we wrote, its members to follow the prefix's: its `{` becomes the prefix. A
    # line break stands only at a line's end (JSON escapes those inside strings, and no byte of a multi-byte
    # UTF-8 character is one), so a piece of whole lines is done in one replace.
    for piece in result.outcome_pieces():
        out.write(prefix + piece[1:].replace(b"\n{", b"\n" + prefix))


def write_diff(streams: Sequence[str], outcomes: Iterable[CitationOutcome], out: IO[str]) -> None:
    """An HTML fragment: each line holding a citation that changed or needs review, before (−) and
    after (+), with a note per citation worth a reviewer's glance. Written a line at a time as `outcomes`
    come (in stream and text order), in Python rather than by a template: a document can hold hundreds
    of thousands of citations, and a template engine's work per piece was a sixth of the time a 1 MB
    draft took."""
    shown = False
    for row in _lines(streams, (o for o in outcomes if o.action != "kept")):
        if not shown:
            out.write('<table class="diff">')
            shown = True
        out.write(row)
    out.write("</table>" if shown else '<p class="quiet">No citation changed or needs review.</p>')


def _lines(streams: Sequence[str], shown: Iterable[CitationOutcome]) -> Iterator[str]:
    """The rows of the lines holding `shown` (in stream and text order), each with the citations on it."""
    here: list[CitationOutcome] = []  # the citations of the line being gathered
    where, text, line_start, line_end = "", "", 0, 0
    stream, starts = -1, [0]
    last: tuple[int, tuple[int, int]] | None = None
    for outcome in shown:
        order = (outcome.stream, outcome.span)
        if last is not None and order < last:  # the pipeline decides them in order: anything else is a bug
            raise RuntimeError(f"expected outcomes in stream and text order, got {order} after {last}")
        last = order
        if here and outcome.stream == stream and line_start <= outcome.span[0] <= line_end:
            here.append(outcome)
            continue
        if here:
            yield _line(where, text, line_start, line_end, here)
        if outcome.stream != stream:
            stream, text = outcome.stream, streams[outcome.stream]
            starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
        number = bisect_right(starts, outcome.span[0])  # 1-based line number
        line_start = starts[number - 1]
        line_end = starts[number] - 1 if number < len(starts) else len(text)
        where = f"{stream}:{number}" if stream else str(number)
        here = [outcome]
    if here:
        yield _line(where, text, line_start, line_end, here)


def _line(where: str, text: str, line_start: int, line_end: int, outcomes: Sequence[CitationOutcome]) -> str:
    """One line's rows: as written (`del`), as rewritten (`ins`), then the notes on its citations."""
    before, after, notes, position = [], [], [], line_start
    # Most lines hold no character to escape: then no piece of them does.
    escape_text = _escape if _HTML_SPECIAL.search(text, line_start, line_end) else _as_is
    for outcome in outcomes:
        start, end = outcome.span[0], min(outcome.span[1], line_end)
        plain, cited = escape_text(text[position:start]), escape_text(text[start:end])
        if outcome.action == "rewritten":
            before += [plain, "<del>", cited, "</del>"]
            after += [plain, "<ins>", _escape(outcome.canonical), "</ins>"]
            if outcome.context:  # a rewrite resting on other text is worth a glance
                notes.append(f"<li><b>rewritten from context</b> <code>{cited}</code> → "
                             f"<code>{_escape(outcome.canonical)}</code>: {_escape('; '.join(outcome.context))}</li>")
        else:
            marked = f'<mark class="{_escape(outcome.action)}" title="{_escape(outcome.reason)}">{cited}</mark>'
            before += [plain, marked]
            after += [plain, marked]
            proposed = f" → <code>{_escape(outcome.canonical)}</code>" if outcome.canonical else ""
            notes.append(f"<li><b>{_escape(outcome.action)}</b> <code>{cited}</code>{proposed}: "
                         f"{_escape(outcome.reason)} <i>({_escape(outcome.verdict)})</i></li>")
        position = max(position, end)
    rest = escape_text(text[position:line_end])
    rows = (f'<tr class="del"><td>{_escape(where)}</td><td>−</td><td>{"".join(before)}{rest}</td></tr>\n'
            f'<tr class="ins"><td></td><td>+</td><td>{"".join(after)}{rest}</td></tr>\n')
    return rows + (f"<tr><td></td><td></td><td><ul>{''.join(notes)}</ul></td></tr>" if notes else "")


def _as_is(text: str) -> str:
    return text


def _escape(text: str | None) -> str:
    """A value as the templates write it (markupsafe: `&`, `<`, `>` and quotes). Most pieces of a
    draft hold none of them, and a search in C is cheaper than building markup."""
    if text is not None and _HTML_SPECIAL.search(text) is None:
        return text
    return str(escape(text))


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """A document's line in the summary table, kept for every document while their diffs stream."""

    file: str
    status: str
    needs_review: bool
    counts: dict[str, int]

    @classmethod
    def of(cls, report: DocumentReport) -> SummaryRow:
        return cls(report.file, report.status, report.needs_review, report.counts)


def write_html(rows: Sequence[SummaryRow], results: Iterable[tuple[DocumentReport, ResultFiles]],
               out: IO[bytes], title: str) -> None:
    """The HTML report in UTF-8: the summary table of `rows`, then each document's diff, copied from
    `results` (the same documents in the same order) as its bytes, one piece in memory at a time."""
    actions: Counter[str] = Counter()
    for row in rows:
        actions.update(row.counts)
    name = _escape(title)
    page = [f'<!DOCTYPE html>\n<html lang="ko"><head><meta charset="utf-8"><title>{name}</title>\n{_STYLE}'
            f"<h1>{name}</h1>\n<p>{len(rows)} documents, {sum(actions.values())} citations, "
            f"{sum(row.needs_review for row in rows)} documents need review.</p>\n"
            f'<table class="summary"><tr><th>document</th><th>status</th>{_cells("th", ACTIONS)}</tr>\n']
    for index, row in enumerate(rows):
        review = row.needs_review
        page.append(f'<tr><td><a href="#doc{index}">{_escape(row.file)}</a></td><td class="{"bad" if review else ""}">'
                    f'{_escape(row.status)}{" · needs review" if review else ""}</td>'
                    f"{_cells('td', [row.counts.get(action, 0) for action in ACTIONS])}</tr>\n")
    page.append(f"<tr><th>total</th><th></th>{_cells('th', [actions[action] for action in ACTIONS])}</tr></table>\n"
                "<h2>Documents</h2>\n")
    out.write("".join(page).encode("utf-8"))
    for index, (report, result) in enumerate(results):
        section = [f'<section id="doc{index}"><h3>{_escape(report.file)}</h3>\n',
                   *(f'<p class="bad">review: {_escape(doubt)}</p>\n' for doubt in report.doubts)]
        if report.status in ("done", "no_citations"):
            out.write("".join(section).encode("utf-8"))
            result.copy_diff(out)
            out.write(b"\n</section>\n")
        else:
            section.append(f'<p class="bad">{_escape(report.status)}: {_escape(report.message)}</p>\n</section>\n')
            out.write("".join(section).encode("utf-8"))
    out.write(b"</body></html>\n")


def _cells(tag: str, values: Iterable[object]) -> str:
    return "".join(f"<{tag}>{_escape(str(value))}</{tag}>" for value in values)


_STYLE = """<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}th{background:#eee}
.diff td:nth-child(3){white-space:pre-wrap}.del{background:#fff0f0}.ins{background:#f0fff0}
del{background:#fbb}ins{background:#bfb;text-decoration:none}mark.suggested{background:#ffe08a}
mark.review{background:#f9a}.quiet{color:#777}.bad{color:#a00}</style></head><body>
"""
