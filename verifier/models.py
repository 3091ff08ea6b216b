"""The database schema: acts and their articles and provisions, cases, coverage, the audit log.

Identity keys are natural keys, so a re-import updates a row instead of adding one:
acts by 법령ID, articles by (act, 조문번호, 가지번호), provisions by their numbers below an article,
cases by (court, 사건번호). "None" inside a key is stored as 0 or "" (SQL treats NULLs in unique
keys as distinct, which would let duplicates in).

헌법재판소 decisions live in `cases` too: court `헌법재판소`, `decided_on` = 종국일자,
`panel` = 재판부 (전원재판부/지정재판부), so one lookup path serves every court.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, TypeAlias

from sqlalchemy import (
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    Row,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# A result row of a Core query over these tables, of any width (`Row[Any]` would be a one-column row).
AnyRow: TypeAlias = Row[*tuple[Any, ...]]


class Base(DeclarativeBase):
    pass


def table_of(model: type[Base]) -> Table:
    """The Core table of a mapped class (SQLAlchemy types `__table__` as any FromClause; a declarative
    class over one table always has a Table)."""
    table = model.__table__
    if not isinstance(table, Table):
        raise TypeError(f"expected a class mapped to one table, got {model.__name__} over {table!r}")
    return table


class Act(Base):
    """One law (법률, 대통령령, 부령 …) at the version last imported."""

    __tablename__ = "acts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    law_id: Mapped[str] = mapped_column(String(16), unique=True)  # 법령ID, 6 digits with leading zeros
    mst: Mapped[int | None] = mapped_column(Integer)  # 법령일련번호 of the imported version
    name: Mapped[str] = mapped_column(String(200), index=True)
    abbreviation: Mapped[str | None] = mapped_column(String(100))  # official 법령약칭명
    kind: Mapped[str | None] = mapped_column(String(40))  # 법종구분: 법률, 대통령령, …
    promulgated_on: Mapped[dt.date | None] = mapped_column(Date)
    effective_on: Mapped[dt.date | None] = mapped_column(Date)
    status: Mapped[str | None] = mapped_column(String(20))  # 현행 / 연혁
    source: Mapped[str] = mapped_column(String(40))


class ActAlias(Base):
    """Another name an act is cited by: official 약칭 or an informal one (민소법, 헌법)."""

    __tablename__ = "act_aliases"
    __table_args__ = (UniqueConstraint("alias", "act_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    alias: Mapped[str] = mapped_column(String(200), index=True)
    act_id: Mapped[int] = mapped_column(ForeignKey("acts.id", ondelete="CASCADE"))
    official: Mapped[bool] = mapped_column(Boolean)


class Article(Base):
    """One 조 (제3조의2 = number 3, branch 2); 전문 heading rows are never stored."""

    __tablename__ = "articles"
    __table_args__ = (UniqueConstraint("act_id", "number", "branch"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    act_id: Mapped[int] = mapped_column(ForeignKey("acts.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    branch: Mapped[int] = mapped_column(Integer)  # 0 = no 가지번호
    title: Mapped[str | None] = mapped_column(String(300))
    status: Mapped[str] = mapped_column(String(10))  # 현행 / 삭제 / 이동
    moved_to: Mapped[str | None] = mapped_column(String(40))  # label after a 조문이동, e.g. "5의2"
    effective_on: Mapped[dt.date | None] = mapped_column(Date)
    amended_on: Mapped[dt.date | None] = mapped_column(Date)  # date of the 삭제/이동 when known


class Provision(Base):
    """A 항, 호 or 목 below an article; the row for 제1항 제2호 가목 is (1, 2, 0, "가")."""

    __tablename__ = "provisions"
    __table_args__ = (
        UniqueConstraint("act_id", "article", "article_branch", "paragraph", "item", "item_branch", "subitem"),
        ForeignKeyConstraint(["act_id", "article", "article_branch"],
                             ["articles.act_id", "articles.number", "articles.branch"], ondelete="CASCADE"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    act_id: Mapped[int] = mapped_column(Integer)
    article: Mapped[int] = mapped_column(Integer)
    article_branch: Mapped[int] = mapped_column(Integer)
    paragraph: Mapped[int] = mapped_column(Integer)  # 0 = the article has no numbered 항
    item: Mapped[int] = mapped_column(Integer)  # 0 = a 항 row
    item_branch: Mapped[int] = mapped_column(Integer)
    subitem: Mapped[str] = mapped_column(String(4))  # "" = not a 목 row


class Case(Base):
    """A decision of any court, 헌법재판소 included; 사건번호 is stored split."""

    __tablename__ = "cases"
    __table_args__ = (
        UniqueConstraint("court", "case_year", "case_code", "case_serial", "case_seat"),
        Index("ix_cases_number", "case_year", "case_code", "case_serial"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    court: Mapped[str] = mapped_column(String(60))
    decided_on: Mapped[dt.date] = mapped_column(Date)  # 선고일자, or 종국일자 for 헌재
    case_year: Mapped[int] = mapped_column(Integer)
    case_code: Mapped[str] = mapped_column(String(8))
    case_serial: Mapped[int] = mapped_column(Integer)
    case_seat: Mapped[str] = mapped_column(String(8))  # 원외재판부 prefix, "" for none
    delivery: Mapped[str] = mapped_column(String(4))  # 선고 / 자
    disposition: Mapped[str] = mapped_column(String(4))  # 판결 / 결정 / 명령
    panel: Mapped[str | None] = mapped_column(String(10))  # 전원합의체 / 전원재판부 / 지정재판부
    title: Mapped[str | None] = mapped_column(String(500))  # 사건명
    source: Mapped[str] = mapped_column(String(40))
    source_id: Mapped[str | None] = mapped_column(String(40), index=True)  # 판례일련번호 / 헌재결정례일련번호


class Coverage(Base):
    """What the database claims to hold: a court's decisions over a period, or statutes.

    Absence inside a covered range is `not_found`; outside it, `not_covered`.
    """

    __tablename__ = "coverage"
    __table_args__ = (UniqueConstraint("kind", "court"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))  # "case" or "statute"
    court: Mapped[str] = mapped_column(String(60))  # "" for statutes
    starts_on: Mapped[dt.date | None] = mapped_column(Date)
    ends_on: Mapped[dt.date | None] = mapped_column(Date)


class AuditEntry(Base):
    """One verification the service made, written in batches."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), index=True)
    citation: Mapped[str] = mapped_column(String(1000))
    status: Mapped[str] = mapped_column(String(12), index=True)
    canonical: Mapped[str | None] = mapped_column(String(1000))
    source_ref: Mapped[str | None] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(String(1000))


class ActVersion(Base):
    """One version of an act (legalize-kr: one commit): in force from `effective_on` (None: no
    date fixed) until the next version's. `sequence` orders an act's versions (promulgation date,
    then MST); `name` is the act's name in that version, since acts get renamed."""

    __tablename__ = "act_versions"
    __table_args__ = (UniqueConstraint("act_id", "sequence"), UniqueConstraint("act_id", "mst"),
                      Index("ix_act_versions_number", "promulgation_number"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    act_id: Mapped[int] = mapped_column(ForeignKey("acts.id", ondelete="CASCADE"))
    sequence: Mapped[int] = mapped_column(Integer)
    mst: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(200), index=True)
    kind: Mapped[str] = mapped_column(String(40))  # 법률, 대통령령, …부령
    promulgated_on: Mapped[dt.date | None] = mapped_column(Date)
    promulgation_number: Mapped[int | None] = mapped_column(Integer)  # 공포번호: 법률 제N호
    effective_on: Mapped[dt.date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(20))  # 시행 / 폐지 / …
    change: Mapped[str | None] = mapped_column(String(20))  # 일부개정, 전부개정, 타법개정, 제정, 폐지 …
    origin: Mapped[str] = mapped_column(String(400))  # commit:path or file the version came from


class ArticleSpan(Base):
    """An article over the run of an act's versions in which it did not change (text, title,
    deletion or 항/호/목 structure): versions `first`..`last` by sequence. `structure` lists its
    provision keys, space-separated: `1 1.2 1.2의3 1.2의3-가` (항, 호, 호의가지, 목)."""

    __tablename__ = "article_spans"
    __table_args__ = (Index("ix_article_spans_article", "act_id", "number", "branch", "first"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    act_id: Mapped[int] = mapped_column(ForeignKey("acts.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    branch: Mapped[int] = mapped_column(Integer)
    first: Mapped[int] = mapped_column(Integer)
    last: Mapped[int] = mapped_column(Integer)
    title: Mapped[str | None] = mapped_column(String(300))
    deleted: Mapped[bool] = mapped_column(Boolean)
    structure: Mapped[str] = mapped_column(Text)
    text: Mapped[str | None] = mapped_column(Text)  # None where the source kept the structure only


class Supplement(Base):
    """One 부칙 block of a version (`부칙 <제5305호,1997.3.13>` and its text)."""

    __tablename__ = "supplements"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("act_versions.id", ondelete="CASCADE"), index=True)
    heading: Mapped[str] = mapped_column(String(200))
    text: Mapped[str | None] = mapped_column(Text)


class SyncCursor(Base):
    """Where `citegen-admin sync` stands with one law.go.kr list (a target, and a court for 판례):
    `synced_through` is the last day a finished run covered (the next run starts after it); while
    a run is under way `next_page` is the list page it reads next and `run_since`/`run_until` its
    window, so an interrupted run resumes there. The OC key is never stored."""

    __tablename__ = "sync_cursors"

    stream: Mapped[str] = mapped_column(String(80), primary_key=True)  # `prec`, `prec:대법원`, `law`, …
    synced_through: Mapped[dt.date | None] = mapped_column(Date)
    run_since: Mapped[dt.date | None] = mapped_column(Date)
    run_until: Mapped[dt.date | None] = mapped_column(Date)
    next_page: Mapped[int | None] = mapped_column(Integer)  # None: no run under way


class SyncItem(Base):
    """One list row a run under way has imported (in the same transaction as the import), with
    what it did: a resumed run skips it, and the run's summary counts it. Cleared when the run ends."""

    __tablename__ = "sync_items"

    stream: Mapped[str] = mapped_column(String(80), primary_key=True)
    item: Mapped[str] = mapped_column(String(40), primary_key=True)  # MST, 판례일련번호, …
    outcome: Mapped[str] = mapped_column(String(10))  # added / updated / skipped
    reason: Mapped[str | None] = mapped_column(String(300))  # why it was skipped


# The Core tables, for the queries and bulk writes that need no mapped objects.
ACTS = table_of(Act)
ALIASES = table_of(ActAlias)
ARTICLES = table_of(Article)
PROVISIONS = table_of(Provision)
CASES = table_of(Case)
COVERAGE = table_of(Coverage)
VERSIONS = table_of(ActVersion)
SPANS = table_of(ArticleSpan)
SUPPLEMENTS = table_of(Supplement)


def structure_code(paragraph: int, item: int = 0, item_branch: int = 0, subitem: str = "") -> str:
    """One provision key of `ArticleSpan.structure`: `1`, `1.2`, `1.2의3`, `1.2의3-가` (항 0 where the
    article has no numbered 항; 0 and "" stand for an absent level)."""
    code = str(paragraph)
    if item:
        code += f".{item}" + (f"의{item_branch}" if item_branch else "")
    if subitem:
        code += f"-{subitem}"
    return code
