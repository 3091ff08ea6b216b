"""The sync's state in the database (tables `sync_cursors`, `sync_items`): a cursor per list
stream and the items a run under way has imported, so an interrupted run resumes where it stopped.

A run of a stream: `begin` fixes its window (since, until) and page 1, or takes over the run under
way; each item is marked done by `mark` on the transaction that imports it (so it is done exactly
when its data are in); `advance` moves the cursor past a page once every row of it is done; `finish`
records `until` as synced through and clears the run's items, returning what they did.

One invocation owns a run at a time. `begin` writes a new owner into the cursor, and `mark`,
`advance` and `finish` write only while the cursor still names theirs (a row-locking update on the
transaction they share with the import), so when a second sync of the same stream starts, the first
stops at its next write with `SyncTakenOverError` and that item rolled back, and the second goes on
from the items done. Without it, one run's `finish` and the other's `advance` left a cursor with a
page and no window, which every later sync failed on.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import Connection, delete, select, update

from verifier.importers.store import upsert
from verifier.models import SYNC_CURSORS as CURSORS
from verifier.models import SYNC_ITEMS as ITEMS
from verifier.sync.errors import SyncTakenOverError

logger = logging.getLogger(__name__)

OUTCOMES = ("added", "updated", "skipped")


@dataclass(frozen=True, slots=True)
class Run:
    """A stream's run under way: its window, the page it reads next in pages of `page_size` rows, and
    the invocation that owns it; `resumed` if an earlier invocation started it."""

    stream: str
    since: dt.date | None
    until: dt.date
    page: int
    page_size: int
    owner: str
    resumed: bool


@dataclass
class StreamSummary:
    """What a stream's run did, counted over every invocation that worked on it."""

    stream: str
    since: dt.date | None
    until: dt.date
    counts: Counter[str] = field(default_factory=Counter)  # added / updated / skipped
    skipped_why: Counter[str] = field(default_factory=Counter)


def begin(connection: Connection, stream: str, since: dt.date | None, until: dt.date, page_size: int,
          lookback: dt.timedelta = dt.timedelta(0)) -> Run:
    """The run under way for `stream`, taken over by this invocation, else a new one from `since`
    (or, `lookback` before it, the day after the last run covered; or the beginning) to `until`.

    A run under way keeps its window unless `since` asks for another (then a new run starts; the
    items done stay done). Resumed with another page size, it starts at the page holding the first
    row it has not passed: rows are listed again rather than skipped (the done ones are not fetched)."""
    row = connection.execute(select(CURSORS).where(CURSORS.c.stream == stream).with_for_update()).first()
    owner = uuid.uuid4().hex
    if row is not None and row.next_page is not None and row.run_until is not None:  # a run under way
        if since is None or since == row.run_since:
            passed = (row.next_page - 1) * row.run_page_size if row.run_page_size else 0
            page = passed // page_size + 1
            connection.execute(update(CURSORS).where(CURSORS.c.stream == stream).values(
                next_page=page, run_page_size=page_size, run_owner=owner))
            return Run(stream, row.run_since, row.run_until, page, page_size, owner, resumed=True)
        logger.warning("%s: the run under way (%s to %s) is replaced by one from %s, as --since asks", stream,
                       row.run_since or "the beginning", row.run_until, since)
    if since is None and row is not None and row.synced_through is not None:
        since = row.synced_through + dt.timedelta(days=1) - lookback
    upsert(connection, CURSORS, [{"stream": stream, "synced_through": row.synced_through if row else None,
                                  "run_since": since, "run_until": until, "next_page": 1,
                                  "run_page_size": page_size, "run_owner": owner}], ("stream",))
    return Run(stream, since, until, 1, page_size, owner, resumed=False)


def _hold(connection: Connection, run: Run) -> None:
    """Lock the stream's cursor for this transaction if `run` still owns it, else raise: a later
    invocation took the run over."""
    held = connection.execute(update(CURSORS).where(CURSORS.c.stream == run.stream, CURSORS.c.run_owner == run.owner)
                              .values(run_owner=run.owner))
    if held.rowcount != 1:
        raise SyncTakenOverError(run.stream)


def done_items(connection: Connection, stream: str) -> set[str]:
    return set(connection.execute(select(ITEMS.c.item).where(ITEMS.c.stream == stream)).scalars())


def mark(connection: Connection, run: Run, item: str, outcome: str, reason: str | None = None) -> None:
    if outcome not in OUTCOMES:
        raise ValueError(f"expected an outcome in {OUTCOMES}, got {outcome!r}")
    _hold(connection, run)
    upsert(connection, ITEMS, [{"stream": run.stream, "item": item[:40], "outcome": outcome,
                                "reason": reason[:300] if reason else None}], ("stream", "item"))


def advance(connection: Connection, run: Run, next_page: int) -> None:
    _hold(connection, run)
    connection.execute(update(CURSORS).where(CURSORS.c.stream == run.stream).values(next_page=next_page))


def finish(connection: Connection, run: Run) -> StreamSummary:
    _hold(connection, run)
    summary = StreamSummary(run.stream, run.since, run.until)
    items = select(ITEMS.c.outcome, ITEMS.c.reason).where(ITEMS.c.stream == run.stream)
    for outcome, reason in connection.execute(items):
        summary.counts[outcome] += 1
        if outcome == "skipped":
            summary.skipped_why[reason or "no reason given"] += 1
    connection.execute(delete(ITEMS).where(ITEMS.c.stream == run.stream))
    connection.execute(update(CURSORS).where(CURSORS.c.stream == run.stream).values(
        synced_through=run.until, run_since=None, run_until=None, next_page=None, run_page_size=None,
        run_owner=None))
    return summary
