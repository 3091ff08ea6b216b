"""A snapshot of what the imports wrote: every imported table as JSON lines, in a stable order.

    {"row": {"law_id": "001706", "name": "민법", …}, "table": "acts"}

Rows are named by natural keys, never by the surrogate ids a re-import renumbers (an article by
its act's 법령ID, a 부칙 block by its version's MST), ordered by those keys (text compared
byte-wise, as SQLite does, also on PostgreSQL), keys sorted, dates ISO: the same data gives the same
bytes, so a re-import of the same sources can be checked to change nothing
(`citegen-admin dump`). The audit log is not imported data and is left out.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import IO, Any

from sqlalchemy import ColumnElement, Connection, Select, String, Table, select

from verifier.database import Database
from verifier.models import ACTS, ALIASES, ARTICLES, CASES, COVERAGE, PROVISIONS, SPANS, SUPPLEMENTS, VERSIONS


def _columns(table: Table, *skipped: str) -> list[ColumnElement[Any]]:
    return [column for column in table.c if column.name not in ("id", "act_id", "version_id", *skipped)]


def _queries() -> list[tuple[str, Select[Any], Sequence[ColumnElement[Any]]]]:
    """(table, query, order) for each imported table; the order is the natural key."""
    law_id = ACTS.c.law_id
    return [
        ("acts", select(*_columns(ACTS)), [law_id]),
        ("act_aliases", select(ALIASES.c.alias, law_id, ALIASES.c.official).join(ACTS), [ALIASES.c.alias, law_id]),
        ("articles", select(law_id, *_columns(ARTICLES)).join(ACTS),
         [law_id, ARTICLES.c.number, ARTICLES.c.branch]),
        ("provisions", select(law_id, *_columns(PROVISIONS)).join(ACTS, ACTS.c.id == PROVISIONS.c.act_id),
         [law_id, *_columns(PROVISIONS)]),
        ("act_versions", select(law_id, *_columns(VERSIONS)).join(ACTS), [law_id, VERSIONS.c.sequence]),
        ("article_spans", select(law_id, *_columns(SPANS)).join(ACTS),
         [law_id, SPANS.c.number, SPANS.c.branch, SPANS.c.first]),
        ("supplements", select(law_id, VERSIONS.c.mst, *_columns(SUPPLEMENTS)).select_from(SUPPLEMENTS)
         .join(VERSIONS).join(ACTS), [law_id, VERSIONS.c.sequence, SUPPLEMENTS.c.id]),
        ("cases", select(*_columns(CASES)), [CASES.c.court, CASES.c.case_year, CASES.c.case_code,
                                             CASES.c.case_serial, CASES.c.case_seat]),
        ("coverage", select(*_columns(COVERAGE)), [COVERAGE.c.kind, COVERAGE.c.court]),
    ]


def _bytewise(connection: Connection, column: ColumnElement[Any]) -> ColumnElement[Any]:
    """PostgreSQL orders text by the database's collation; "C" compares bytes, as SQLite's BINARY does."""
    if connection.dialect.name == "postgresql" and isinstance(column.type, String):
        return column.collate("C")
    return column


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


def write_snapshot(database: Database, out: IO[bytes]) -> int:
    """Write the snapshot to `out` (UTF-8 JSON lines); returns the number of rows written."""
    rows = 0
    with database.snapshot() as connection:  # an import committing meanwhile is in no table or in all
        for table, query, order in _queries():
            result = connection.execution_options(yield_per=2000).execute(
                query.order_by(*(_bytewise(connection, column) for column in order)))
            for row in result.mappings():
                line = {"table": table, "row": {name: _plain(value) for name, value in row.items()}}
                out.write(json.dumps(line, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n")
                rows += 1
    return rows
