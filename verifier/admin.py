"""What administrators read from the database, queried in one place: `citegen-admin audit|stats|search`
and the service's `/admin/audit` and `/admin/stats` call these.

Plain blocking functions over one short-lived connection (each call bounded by the database's
`CALL_TIMEOUT_S`); an async caller runs them in a worker thread.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, case, desc, func, literal, or_, select

from verifier.database import Database
from verifier.models import ACTS, ALIASES, ARTICLES, AUDIT, CASES, COVERAGE, PROVISIONS, SPANS, VERSIONS
from verifier.names import parse_case_number
from verifier.verdict import STATUSES
from verifier.versions import in_force_sequences, standing

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


SNIPPET_CHARS = 40  # of an article's text shown on each side of a hit


@dataclass(frozen=True, slots=True)
class ArticleHit:
    """An article `find_articles` found: the act's name in the version searched, the article's label
    (`제23조`, `제3조의2`), its title, and its text around the hit (from its start for a title hit;
    empty where the database keeps titles only), whether the title held the query."""

    act: str
    article: str
    title: str | None
    snippet: str
    in_title: bool


def _like(text: str) -> str:
    """A LIKE pattern matching `text` anywhere (escape character `\\`), its own % and _ taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def find_acts(database: Database, query: str, limit: int) -> list[dict[str, Any]]:
    """Acts whose name or a 약칭 holds `query`, by name: `name`, `law_id`, `mst`, `kind`."""
    text = query.strip()
    with database.engine.connect() as connection:
        return [row._asdict() for row in connection.execute(
            select(ACTS.c.name, ACTS.c.law_id, ACTS.c.mst, ACTS.c.kind)
            .outerjoin(ALIASES, ALIASES.c.act_id == ACTS.c.id)
            .where(or_(_holds(ACTS.c.name, text), _holds(ALIASES.c.alias, text)))
            .distinct().order_by(ACTS.c.name).limit(limit))]


def find_cases(database: Database, query: str, limit: int) -> list[dict[str, Any]]:
    """The case of a 사건번호, else cases whose 사건명 holds `query`, newest first: `court`, `decided_on`,
    `case_year`, `case_code`, `case_serial`, `disposition`, `title`."""
    text = query.strip()
    number = parse_case_number(text)
    condition = (_holds(CASES.c.title, text) if number is None else
                 (CASES.c.case_year == number.year) & (CASES.c.case_code == number.code)
                 & (CASES.c.case_serial == number.serial))
    with database.engine.connect() as connection:
        return [row._asdict() for row in connection.execute(
            select(CASES.c.court, CASES.c.decided_on, CASES.c.case_year, CASES.c.case_code, CASES.c.case_serial,
                   CASES.c.disposition, CASES.c.title).where(condition)
            .order_by(desc(CASES.c.decided_on)).limit(limit))]


def find_articles(database: Database, query: str, limit: int, on: dt.date) -> list[ArticleHit]:
    """Articles of the version of each act in force on `on` (not repealed, not deleted) whose title or
    text holds `query` (a case-insensitive substring, no word stemming), title hits first (the shorter
    title first), then by act and article; or, for `민법 750` / `민법 제750조`, that article of the acts
    whose name holds `민법`. Acts imported from law.go.kr without their versions are searched by their
    current articles' titles."""
    text = query.strip()
    if not text:
        raise ValueError("expected something to search for, got an empty query")
    if limit < 1:
        raise ValueError(f"expected a limit of at least 1, got {limit}")
    label = _article_of(text)
    current = in_force_sequences(on)
    title_hit = _holds(SPANS.c.title, text)
    # a title hit ranks first, the shorter title (the closer to the query) before the longer
    rank = (case((title_hit, 0), else_=1).label("rank"), case((title_hit, func.length(SPANS.c.title)), else_=0)
            .label("title_length"))
    from_book = (
        select(VERSIONS.c.name, SPANS.c.number, SPANS.c.branch, SPANS.c.title, SPANS.c.text, *rank)
        .select_from(current.join(VERSIONS, (VERSIONS.c.act_id == current.c.act_id)
                                  & (VERSIONS.c.sequence == current.c.sequence))
                     .join(SPANS, (SPANS.c.act_id == current.c.act_id) & (SPANS.c.first <= current.c.sequence)
                           & (SPANS.c.last >= current.c.sequence)))
        .where(standing(), ~SPANS.c.deleted))
    from_lawgo = (
        select(ACTS.c.name, ARTICLES.c.number, ARTICLES.c.branch, ARTICLES.c.title, literal(None).label("text"),
               literal(0).label("rank"), func.length(ARTICLES.c.title).label("title_length"))
        .join(ACTS, ACTS.c.id == ARTICLES.c.act_id)
        .where(ARTICLES.c.status == "현행", ACTS.c.id.not_in(select(VERSIONS.c.act_id))))
    searches: list[Select[Any]]
    if label is not None:
        act, number, branch = label
        searches = [from_book.where(_holds(VERSIONS.c.name, act), SPANS.c.number == number, SPANS.c.branch == branch),
                    from_lawgo.where(_holds(ACTS.c.name, act), ARTICLES.c.number == number,
                                     ARTICLES.c.branch == branch)]
    else:
        searches = [from_book.where(_holds(SPANS.c.title, text) | _holds(SPANS.c.text, text)),
                    from_lawgo.where(_holds(ARTICLES.c.title, text))]
    with database.engine.connect() as connection:
        rows = [row for search in searches for row in connection.execute(
            search.order_by(*(search.selected_columns[name] for name in _RANKING))
            .limit(limit))]
    rows.sort(key=lambda row: tuple(getattr(row, name) for name in _RANKING))
    return [ArticleHit(row.name, f"제{row.number}조" + (f"의{row.branch}" if row.branch else ""), row.title,
                       _snippet(row.text, text), row.rank == 0 and label is None) for row in rows[:limit]]


_RANKING = ("rank", "title_length", "name", "number", "branch")


def _holds(column: ColumnElement[str | None], text: str) -> ColumnElement[bool]:
    return column.ilike(_like(text), escape="\\")


def _article_of(text: str) -> tuple[str, int, int] | None:
    """(act words, number, branch) of `민법 750`, `민법 제750조`, `민법 제3조의2`; None for other text."""
    act, _, label = text.rpartition(" ")
    number, _, branch = label.removeprefix("제").removesuffix("조").partition("의")
    if act.strip() and number.isdigit() and (not branch or branch.isdigit()):
        return act.strip(), int(number), int(branch or 0)
    return None


def _snippet(text: str | None, query: str) -> str:
    if not text:
        return ""
    flat = " ".join(text.replace("**", "").split())  # the book marks ①, ② bold
    at = flat.lower().find(query.lower())
    start = max(0, at - SNIPPET_CHARS)
    end = start + 2 * SNIPPET_CHARS + (len(query) if at >= 0 else 0)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def coverage(database: Database) -> list[tuple[str, str, dt.date | None, dt.date | None]]:
    """(kind, court, from, to) of what the database claims to hold."""
    with database.engine.connect() as connection:
        columns = (COVERAGE.c.kind, COVERAGE.c.court, COVERAGE.c.starts_on, COVERAGE.c.ends_on)
        rows = connection.execute(select(*columns).order_by(COVERAGE.c.kind, COVERAGE.c.court)).all()
    return [tuple(row) for row in rows]


def _utc(at: dt.datetime) -> dt.datetime:
    # SQLite hands back naive datetimes for timezone-aware columns; they were written in UTC.
    return at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)
