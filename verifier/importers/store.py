"""Writing records into the database: idempotent upserts in batches, on the caller's transaction.

Re-importing a file updates rows in place (natural keys, ON CONFLICT DO UPDATE on SQLite and
PostgreSQL alike); an act body replaces the act's articles and provisions, so rows a newer
version dropped disappear. Coverage is widened to the dates of the decisions written, per court.

A body that would drop more than `SHRINK_SHARE` of the act's articles or of its provisions (and
more than `SHRINK_FLOOR` of them) is refused with a `ShrinkError` saying what would go, unless
the writer is told the shrinking is wanted (`allow_shrink`, `citegen-admin import --allow-shrink`):
an amendment keeps a deleted article as a `삭제` row, so a real body rarely drops articles at all,
and loses at most the 항 of the articles it deletes.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Table, delete, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from verifier.errors import ImportFileError, ShrinkError
from verifier.importers.records import (
    ActRecord,
    AliasRecord,
    ArticleRecord,
    CaseRecord,
    CoverageRecord,
    Record,
    SkippedRow,
)
from verifier.models import ACTS, ALIASES, ARTICLES, CASES, COVERAGE, PROVISIONS

logger = logging.getLogger(__name__)

BATCH_ROWS = 2000
SHRINK_SHARE = 0.02  # a body may drop up to 2 % of an act's articles, and of its provisions,
SHRINK_FLOOR = 5  # or 5 of each, whichever is more; dropping more needs `allow_shrink`
SHRINK_SHOWN = 5  # labels of what would go named in the refusal


def upsert(connection: Connection, table: Table, rows: list[dict[str, Any]], keys: tuple[str, ...],
           *, keep_existing_when_null: bool = False, update: bool = True,
           widen: tuple[str, str] | None = None) -> None:
    """INSERT … ON CONFLICT (keys) DO UPDATE (or DO NOTHING); the one place dialects differ.
    A row's `source` names the import that created it and is never updated: with sources that
    overlap (a JSONL file and the statute book naming one act), the last one imported would
    otherwise decide it, and a re-import of the same sources would not leave the same database.
    `widen` (first, last): a range's columns, which an update widens to hold both rows' ranges, inside
    the statement: two imports at once each widen what the other wrote, rather than one undoing the
    other's range (a range read first and written after, on PostgreSQL, lost one)."""
    if not rows:
        return
    key_of = itemgetter(*keys)
    unique = list({key_of(row): row for row in rows}.values())  # one row per key: ON CONFLICT needs it
    insert = sqlite_insert if connection.dialect.name == "sqlite" else postgresql_insert
    statement = insert(table)
    columns = [column for column in unique[0] if column not in keys and column != "source"]
    if update and columns:
        values = {column: func.coalesce(statement.excluded[column], table.c[column]) if keep_existing_when_null
                  else statement.excluded[column] for column in columns}
        if widen is not None:
            sqlite = connection.dialect.name == "sqlite"  # its min and max of two are least and greatest
            for column, pick in zip(widen, (func.min if sqlite else func.least, func.max if sqlite else func.greatest),
                                    strict=True):
                new = statement.excluded[column]
                values[column] = func.coalesce(pick(table.c[column], new), new)  # sqlite's min of a NULL is NULL
        statement = statement.on_conflict_do_update(index_elements=list(keys), set_=values)
    else:
        statement = statement.on_conflict_do_nothing(index_elements=list(keys))
    connection.execute(statement, unique)


ArticleKey = tuple[int, int]  # (number, branch)
ProvisionRow = tuple[int, int, int, int, int, str]  # (article, branch, paragraph, item, item branch, subitem)


def _article_label(number: int, branch: int) -> str:
    return f"제{number}조" + (f"의{branch}" if branch else "")


def _provision_label(key: ProvisionRow) -> str:
    article, branch, paragraph, item, item_branch, subitem = key
    return " ".join(part for part in (
        _article_label(article, branch), f"제{paragraph}항" if paragraph else "",
        (f"제{item}호" + (f"의{item_branch}" if item_branch else "")) if item else "",
        f"{subitem}목" if subitem else "") if part)


def _over_share(gone: int, held: int) -> bool:
    return gone > max(SHRINK_FLOOR, int(held * SHRINK_SHARE))


@dataclass
class _Replacement:
    """An act body being written: what the act held before it, and what it brought so far."""

    act: str  # "민법 (법령ID 001706)"
    held_articles: set[ArticleKey]
    held_provisions: set[ProvisionRow]
    articles: set[ArticleKey] = field(default_factory=set)
    provisions: set[ProvisionRow] = field(default_factory=set)

    def shrinkage(self) -> str | None:
        """What the body would drop, said, when that is more than an amendment drops; else None."""
        gone_articles = sorted(self.held_articles - self.articles)
        gone_provisions = sorted(self.held_provisions - self.provisions)
        if not (_over_share(len(gone_articles), len(self.held_articles))
                or _over_share(len(gone_provisions), len(self.held_provisions))):
            return None
        labels = ([_article_label(*key) for key in gone_articles]
                  or [_provision_label(key) for key in gone_provisions])
        shown = ", ".join(labels[:SHRINK_SHOWN]) + (", …" if len(labels) > SHRINK_SHOWN else "")
        return ("expected a body that keeps the act's articles and provisions (dropping no more than "
                f"{SHRINK_SHARE:.0%} or {SHRINK_FLOOR} of either), got one that would remove "
                f"{len(gone_articles)} of {len(self.held_articles)} articles and {len(gone_provisions)} of "
                f"{len(self.held_provisions)} provisions ({shown})")


class RecordWriter:
    """Stores one file's records on an open transaction; `finish()` flushes and returns counts.
    A `ShrinkError` names `path` (else `source`, for records that came from no file: a sync);
    `allow_shrink` lets a body drop any share of its act."""

    def __init__(self, connection: Connection, source: str, path: Path | None = None, *,
                 allow_shrink: bool = False) -> None:
        self.connection = connection
        self.source = source
        self.path = path if path is not None else Path(source)
        self.allow_shrink = allow_shrink
        self._replacement: _Replacement | None = None
        self.counts: Counter[str] = Counter()
        self.skipped: list[SkippedRow] = []
        self._act_id: int | None = None
        self._act = ""  # the act whose body is being written, as an error names it
        self._act_articles: set[ArticleKey] = set()  # the articles its body brought so far
        self._articles: list[dict[str, Any]] = []
        self._provisions: list[dict[str, Any]] = []
        self._cases: list[dict[str, Any]] = []
        self._aliases: list[AliasRecord] = []
        self._decided: dict[str, tuple[dt.date, dt.date]] = {}

    def write(self, record: Record) -> None:
        if isinstance(record, ArticleRecord):
            self._add_article(record)
        elif isinstance(record, CaseRecord):
            self._add_case(record)
        elif isinstance(record, ActRecord):
            self._write_act(record)
        elif isinstance(record, AliasRecord):
            self._aliases.append(record)
        elif isinstance(record, CoverageRecord):
            upsert(self.connection, COVERAGE, [{"kind": record.kind, "court": record.court,
                                                "starts_on": record.starts_on, "ends_on": record.ends_on}],
                   ("kind", "court"))
            self.counts["coverage"] += 1
        else:
            logger.debug("skipped %s: %s", record.position, record.reason)
            self.skipped.append(record)
            self.counts["skipped"] += 1

    def _write_act(self, record: ActRecord) -> None:
        self._flush_articles()
        self._check_shrinkage()
        row = {"law_id": record.law_id, "name": record.name, "mst": record.mst, "abbreviation": record.abbreviation,
               "kind": record.kind, "promulgated_on": record.promulgated_on, "effective_on": record.effective_on,
               "status": record.status, "source": self.source}
        upsert(self.connection, ACTS, [row], ("law_id",), keep_existing_when_null=True)
        act_id = self.connection.execute(select(ACTS.c.id).where(ACTS.c.law_id == record.law_id)).scalar_one()
        if record.abbreviation:
            upsert(self.connection, ALIASES, [{"alias": record.abbreviation, "act_id": act_id, "official": True}],
                   ("alias", "act_id"), update=False)
        if not self.counts["acts"]:  # holding any act means the database answers for statutes
            upsert(self.connection, COVERAGE, [{"kind": "statute", "court": "", "starts_on": None,
                                                "ends_on": None}], ("kind", "court"), update=False)
        self.counts["acts"] += 1
        self._act_id = None
        self._act, self._act_articles = f"{record.name} (법령ID {record.law_id})", set()
        if record.replaces_articles:
            self._replacement = self._held(act_id, self._act)
            self.connection.execute(delete(PROVISIONS).where(PROVISIONS.c.act_id == act_id))
            self.connection.execute(delete(ARTICLES).where(ARTICLES.c.act_id == act_id))
            self._act_id = act_id

    def _held(self, act_id: int, act: str) -> _Replacement:
        articles = self.connection.execute(select(ARTICLES.c.number, ARTICLES.c.branch)
                                           .where(ARTICLES.c.act_id == act_id))
        provisions = self.connection.execute(select(
            PROVISIONS.c.article, PROVISIONS.c.article_branch, PROVISIONS.c.paragraph, PROVISIONS.c.item,
            PROVISIONS.c.item_branch, PROVISIONS.c.subitem).where(PROVISIONS.c.act_id == act_id))
        return _Replacement(act, {tuple(row) for row in articles}, {tuple(row) for row in provisions})

    def _check_shrinkage(self) -> None:
        """Raise (rolling the file back) if the body just written dropped more than an amendment does."""
        replacement, self._replacement = self._replacement, None
        if replacement is None or self.allow_shrink:
            return
        if (problem := replacement.shrinkage()) is not None:
            raise ShrinkError(self.path, f"act {replacement.act}", problem)

    def _add_article(self, record: ArticleRecord) -> None:
        if self._act_id is None:
            self.skipped.append(SkippedRow(f"article {record.number}", "expected an article after its act, got "
                                                                       "one without"))
            self.counts["skipped"] += 1
            return
        key = (record.number, record.branch)
        if key in self._act_articles:  # stored as one, the second would take the first's provisions
            raise ImportFileError(self.path, f"act {self._act}", f"expected each article once in an act's body, "
                                  f"got {_article_label(*key)} again; nothing was written")
        self._act_articles.add(key)
        self._articles.append({
            "act_id": self._act_id, "number": record.number, "branch": record.branch, "title": record.title,
            "status": record.status, "moved_to": record.moved_to, "effective_on": record.effective_on,
            "amended_on": record.amended_on})
        self._provisions += [{"act_id": self._act_id, "article": record.number, "article_branch": record.branch,
                              "paragraph": key.paragraph, "item": key.item, "item_branch": key.item_branch,
                              "subitem": key.subitem} for key in record.provisions]
        if self._replacement is not None:
            self._replacement.articles.add((record.number, record.branch))
            self._replacement.provisions.update((record.number, record.branch, key.paragraph, key.item,
                                                 key.item_branch, key.subitem) for key in record.provisions)
        if len(self._articles) >= BATCH_ROWS:
            self._flush_articles()

    def _flush_articles(self) -> None:
        upsert(self.connection, ARTICLES, self._articles, ("act_id", "number", "branch"))
        upsert(self.connection, PROVISIONS, self._provisions,
               ("act_id", "article", "article_branch", "paragraph", "item", "item_branch", "subitem"), update=False)
        self.counts["articles"] += len(self._articles)
        self.counts["provisions"] += len(self._provisions)
        self._articles, self._provisions = [], []

    def _add_case(self, record: CaseRecord) -> None:
        number = record.case_number
        self._cases.append({
            "court": record.court, "decided_on": record.decided_on, "case_year": number.year,
            "case_code": number.code, "case_serial": number.serial, "case_seat": number.seat or "",
            "delivery": record.delivery, "disposition": record.disposition, "panel": record.panel,
            "title": record.title, "source": self.source, "source_id": record.source_id})
        first, last = self._decided.get(record.court, (record.decided_on, record.decided_on))
        self._decided[record.court] = (min(first, record.decided_on), max(last, record.decided_on))
        if len(self._cases) >= BATCH_ROWS:
            self._flush_cases()

    def _flush_cases(self) -> None:
        upsert(self.connection, CASES, self._cases, ("court", "case_year", "case_code", "case_serial", "case_seat"))
        self.counts["cases"] += len(self._cases)
        self._cases = []

    def _widen_coverage(self) -> None:
        for court, (first, last) in self._decided.items():
            upsert(self.connection, COVERAGE, [{"kind": "case", "court": court, "starts_on": first,
                                                "ends_on": last}], ("kind", "court"), widen=("starts_on", "ends_on"))

    def _write_aliases(self) -> None:
        for alias in self._aliases:
            act_ids = self.connection.execute(select(ACTS.c.id).where(ACTS.c.name == alias.act_name)).scalars().all()
            if not act_ids:
                self.skipped.append(SkippedRow(f"alias {alias.alias!r}",
                                               f"expected an act named {alias.act_name!r}, got none"))
                self.counts["skipped"] += 1
                continue
            upsert(self.connection, ALIASES, [{"alias": alias.alias, "act_id": act_id, "official": alias.official}
                                              for act_id in act_ids], ("alias", "act_id"))
            self.counts["aliases"] += 1

    def finish(self) -> Counter[str]:
        self._flush_articles()
        self._check_shrinkage()
        self._flush_cases()
        self._widen_coverage()
        self._write_aliases()
        return self.counts
