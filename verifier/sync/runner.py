"""`run_sync`: list what changed since the last sync, fetch the bodies, import each item in its
own transaction, and resume an interrupted run where it stopped (see state.py).

A stream is one list to walk: a target, or for 판례 narrowed by `--court` a target and a court.
Per stream: the run's window and page come from the database; each page is read, the rows the run
has not imported yet get their bodies fetched (bounded concurrency, in order), and each is
imported and marked done on one transaction; the cursor moves past the page when all its rows are
done. A failure (a `SyncError`, or anything else: Ctrl-C, a lost network) leaves every item before
it imported and the one it hit rolled back, so the next run continues from that item. A second sync
of a stream takes its run over (state.py); the first stops with `SyncTakenOverError`.
"""

from __future__ import annotations

import datetime as dt
import logging
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.database import Database
from verifier.sync import state
from verifier.sync.api import PAGE_SIZE, TARGETS
from verifier.sync.client import LawGoClient
from verifier.sync.targets import Item, Target, describe, read_list, targets

logger = logging.getLogger(__name__)

# (stream, items done in this run, items listed or None before the first page, what)
Progress = Callable[[str, int, int | None, str], None]


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """What to sync: targets in order, an explicit start day (else where the last run ended),
    the last day (today), and the courts 판례 are narrowed to (full names; empty: all)."""

    targets: Sequence[str] = TARGETS
    since: dt.date | None = None
    until: dt.date = field(default_factory=dt.date.today)
    courts: Sequence[str] = ()
    page_size: int = PAGE_SIZE

    def __post_init__(self) -> None:
        unknown = [name for name in self.targets if name not in TARGETS]
        if unknown or not self.targets:
            raise ValueError(f"expected targets among {', '.join(TARGETS)}, got {', '.join(unknown) or 'none'}")
        if self.since is not None and self.since > self.until:
            raise ValueError(f"expected --since on or before {self.until}, got {self.since}")
        if not 1 <= self.page_size <= PAGE_SIZE:
            raise ValueError(f"expected a page size of 1 to {PAGE_SIZE}, got {self.page_size}")


@dataclass
class SyncReport:
    streams: list[state.StreamSummary] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)
    requests: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"requests": self.requests, "resumed": self.resumed, "streams": {
            summary.stream: {"since": summary.since and summary.since.isoformat(), "until": summary.until.isoformat(),
                             **{outcome: summary.counts[outcome] for outcome in state.OUTCOMES},
                             "skipped_why": dict(summary.skipped_why.most_common())}
            for summary in self.streams}}


def _streams(plan: SyncPlan) -> list[tuple[str, str, str | None]]:
    """(stream, target, court) in the plan's order; 판례 once per court asked for."""
    streams: list[tuple[str, str, str | None]] = []
    for name in plan.targets:
        if name == "prec" and plan.courts:
            streams += [(f"prec:{court}", name, court) for court in plan.courts]
        else:
            streams.append((name, name, None))
    return streams


def run_sync(database: Database, client: LawGoClient, plan: SyncPlan,
             on_progress: Progress | None = None) -> SyncReport:
    report = SyncReport()
    known = targets(frozenset(plan.courts))
    with tempfile.TemporaryDirectory(prefix="citegen-sync-") as workdir:
        for stream, name, court in _streams(plan):
            summary = _sync_stream(database, client, known[name], stream, court, plan, Path(workdir), report,
                                   on_progress or (lambda *_: None))
            report.streams.append(summary)
    report.requests = client.requests_sent
    return report


def _sync_stream(database: Database, client: LawGoClient, target: Target, stream: str, court: str | None,
                 plan: SyncPlan, workdir: Path, report: SyncReport, on_progress: Progress) -> state.StreamSummary:
    with database.engine.begin() as connection:
        run = state.begin(connection, stream, plan.since, plan.until, plan.page_size, target.lookback)
        done = state.done_items(connection, stream)
    if run.resumed:
        report.resumed.append(stream)
        logger.info("resuming %s at page %d (%d items done)", stream, run.page, len(done))
    if run.since is None or run.since <= run.until:  # else the last run covered today already
        _walk(database, client, target, run, court, plan, workdir, done, on_progress)
    with database.engine.begin() as connection:
        return state.finish(connection, run)


def _walk(database: Database, client: LawGoClient, target: Target, run: state.Run, court: str | None,
          plan: SyncPlan, workdir: Path, done: set[str], on_progress: Progress) -> None:
    """Read the run's list from its page on, importing each row not done yet."""
    stream = run.stream
    page, count = run.page, len(done)
    while True:
        list_request = target.list_request(page, run.page_size, run.since, run.until, court)
        listing = read_list(target, client.get(list_request), client.url_of(list_request))
        on_progress(stream, count, listing.total, "")
        todo = target.pending(listing.rows, done)
        if target.held is not None and todo:
            unheld = _skip_held(database, target, run, todo)
            count += len(todo) - len(unheld)
            todo = unheld
        if target.body_target is None:
            shown = client.url_of(list_request)
            items = (Item(row, None, shown, workdir) for row in todo)
        else:
            requests = [target.body_request(row) for row in todo]
            items = (Item(row, body, client.url_of(request), workdir)
                     for row, request, body in zip(todo, requests, client.get_all(requests), strict=True))
        for item in items:
            key = target.item_key(item.row)
            with database.engine.begin() as connection:
                outcome = target.importer(connection, item)
                state.mark(connection, run, key, outcome.kind, outcome.reason)
            done.add(key)
            count += 1
            on_progress(stream, count, listing.total, describe(item.row))
        if not listing.rows or page * run.page_size >= listing.total:
            break
        page += 1
        with database.engine.begin() as connection:
            state.advance(connection, run, page)


def _skip_held(database: Database, target: Target, run: state.Run, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows whose item the database does not hold yet; the others are marked skipped unfetched."""
    with database.engine.begin() as connection:
        held = target.held(connection, [row[target.key] for row in rows]) if target.held is not None else set()
        for row in rows:
            if row[target.key] in held:
                state.mark(connection, run, target.item_key(row), "skipped", "held already")
    return [row for row in rows if row[target.key] not in held]
