"""What administrators read from the database, queried in one place: `citegen-admin audit|stats`
and the service's `/admin/audit` and `/admin/stats` both call these.

Plain blocking functions over one short-lived connection (each call bounded by the database's
`CALL_TIMEOUT_S`); an async caller runs them in a worker thread.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import desc, func, select

from verifier.database import Database
from verifier.importers.history import SPANS, VERSIONS
from verifier.importers.store import ACTS, ALIASES, ARTICLES, CASES, COVERAGE, PROVISIONS
from verifier.verdict import STATUSES
from verifier.verify import AUDIT

# Table name as reported: what `row_counts` counts, in this order.
COUNTED = {"acts": ACTS, "act versions": VERSIONS, "article spans": SPANS, "aliases": ALIASES,
           "articles": ARTICLES, "provisions": PROVISIONS, "cases": CASES, "audit_log": AUDIT}


def row_counts(database: Database) -> dict[str, int]:
    """Rows per table (`COUNTED`)."""
    with database.engine.connect() as connection:
        return {name: connection.execute(select(func.count()).select_from(table)).scalar_one()
                for name, table in COUNTED.items()}


def holds_law(database: Database) -> bool:
    """Whether the database holds any statute or decision (an empty one would answer every citation
    `not_covered`)."""
    with database.engine.connect() as connection:
        return any(connection.execute(select(table.c.id).limit(1)).first() is not None for table in (ACTS, CASES))


def audit_entries(database: Database, limit: int, status: str | None = None) -> list[dict[str, Any]]:
    """The `limit` most recent verifications, newest first, optionally of one verdict status:
    `at` (aware datetime, UTC), `status`, `citation`, `canonical`, `source_ref`, `reason`."""
    if status is not None and status not in STATUSES:
        raise ValueError(f"expected a status among {', '.join(STATUSES)}, got {status!r}")
    if limit < 1:
        raise ValueError(f"expected a limit of at least 1, got {limit}")
    query = (select(AUDIT.c.at, AUDIT.c.status, AUDIT.c.citation, AUDIT.c.canonical, AUDIT.c.source_ref,
                    AUDIT.c.reason).order_by(desc(AUDIT.c.id)).limit(limit))
    if status is not None:
        query = query.where(AUDIT.c.status == status)
    with database.engine.connect() as connection:
        rows = connection.execute(query).all()
    return [{**row._asdict(), "at": _utc(row.at)} for row in rows]


def coverage(database: Database) -> list[tuple[str, str, dt.date | None, dt.date | None]]:
    """(kind, court, from, to) of what the database claims to hold."""
    with database.engine.connect() as connection:
        columns = (COVERAGE.c.kind, COVERAGE.c.court, COVERAGE.c.starts_on, COVERAGE.c.ends_on)
        rows = connection.execute(select(*columns).order_by(COVERAGE.c.kind, COVERAGE.c.court)).all()
    return [tuple(row) for row in rows]


def _utc(at: dt.datetime) -> dt.datetime:
    # SQLite hands back naive datetimes for timezone-aware columns; they were written in UTC.
    return at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)
