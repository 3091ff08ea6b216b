"""The sync's state in the database (tables `sync_cursors`, `sync_items`): a cursor per list
stream and the items a run under way has imported, so an interrupted run resumes where it stopped.

A run of a stream: `begin` fixes its window (since, until) and page 1, or finds the run under way;
each item is marked done by `mark` on the transaction that imports it (so it is done exactly when
its data are in); `advance` moves the cursor past a page once every row of it is done; `finish`
records `until` as synced through and clears the run's items, returning what they did.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import Connection, delete, select, update

from verifier.importers.store import upsert
from verifier.models import SYNC_CURSORS as CURSORS
from verifier.models import SYNC_ITEMS as ITEMS

OUTCOMES = ("added", "updated", "skipped")


@dataclass(frozen=True, slots=True)
class Run:
    """A stream's run under way: its window and the page it reads next; `resumed` if an earlier
    invocation started it."""

    stream: str
    since: dt.date | None
    until: dt.date
    page: int
    resumed: bool


@dataclass
class StreamSummary:
    """What a stream's run did, counted over every invocation that worked on it."""

    stream: str
    since: dt.date | None
    until: dt.date
    counts: Counter[str] = field(default_factory=Counter)  # added / updated / skipped
    skipped_why: Counter[str] = field(default_factory=Counter)


def begin(connection: Connection, stream: str, since: dt.date | None, until: dt.date,
          lookback: dt.timedelta = dt.timedelta(0)) -> Run:
    """The run under way for `stream`, else a new one from `since` (or, `lookback` before it, the
    day after the last run covered; or the beginning) to `until`."""
    row = connection.execute(select(CURSORS).where(CURSORS.c.stream == stream)).first()
    if row is not None and row.next_page is not None:
        return Run(stream, row.run_since, row.run_until, row.next_page, resumed=True)
    if since is None and row is not None and row.synced_through is not None:
        since = row.synced_through + dt.timedelta(days=1) - lookback
    upsert(connection, CURSORS, [{"stream": stream, "synced_through": row.synced_through if row else None,
                                  "run_since": since, "run_until": until, "next_page": 1}], ("stream",))
    return Run(stream, since, until, 1, resumed=False)


def done_items(connection: Connection, stream: str) -> set[str]:
    return set(connection.execute(select(ITEMS.c.item).where(ITEMS.c.stream == stream)).scalars())


def mark(connection: Connection, stream: str, item: str, outcome: str, reason: str | None = None) -> None:
    if outcome not in OUTCOMES:
        raise ValueError(f"expected an outcome in {OUTCOMES}, got {outcome!r}")
    upsert(connection, ITEMS, [{"stream": stream, "item": item[:40], "outcome": outcome,
                                "reason": reason[:300] if reason else None}], ("stream", "item"))


def advance(connection: Connection, stream: str, next_page: int) -> None:
    connection.execute(update(CURSORS).where(CURSORS.c.stream == stream).values(next_page=next_page))


def finish(connection: Connection, run: Run) -> StreamSummary:
    summary = StreamSummary(run.stream, run.since, run.until)
    items = select(ITEMS.c.outcome, ITEMS.c.reason).where(ITEMS.c.stream == run.stream)
    for outcome, reason in connection.execute(items):
        summary.counts[outcome] += 1
        if outcome == "skipped":
            summary.skipped_why[reason or "no reason given"] += 1
    connection.execute(delete(ITEMS).where(ITEMS.c.stream == run.stream))
    connection.execute(update(CURSORS).where(CURSORS.c.stream == run.stream).values(
        synced_through=run.until, run_since=None, run_until=None, next_page=None))
    return summary
