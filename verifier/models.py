"""The database schema: acts and their articles and provisions, cases, coverage, the audit log.

Identity keys are natural keys, so a re-import updates a row instead of adding one:
acts by 법령ID, articles by (act, 조문번호, 가지번호), provisions by their numbers below an article,
cases by (court, 사건번호). "None" inside a key is stored as 0 or "" (SQL treats NULLs in unique
keys as distinct, which would let duplicates in).

헌법재판소 decisions live in `cases` too: court `헌법재판소`, `decided_on` = 종국일자,
`panel` = 재판부 (전원재판부/지정재판부), so one lookup path serves every court.

Core tables, not ORM classes: every query and write is Core, and the ORM cost every process that
opens a database ~0.1 s CPU to import and map (a `citegen recite` worker's start-up). A column is
NOT NULL unless it says `nullable=True`.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    Row,
    String,
    Table,
    Text,
    UniqueConstraint,
)

# A result row of a Core query over these tables, of any width (`Row[Any]` would be a one-column row).
AnyRow: TypeAlias = Row[*tuple[Any, ...]]

METADATA = MetaData()


def _column(name: str, kind: Any, *args: Any, nullable: bool = False, **options: Any) -> Column[Any]:
    return Column(name, kind, *args, nullable=nullable, **options)


def _id() -> Column[Any]:
    return Column("id", Integer, primary_key=True)


def _act_id() -> Column[Any]:
    return _column("act_id", Integer, ForeignKey("acts.id", ondelete="CASCADE"))


# One law (법률, 대통령령, 부령 …) at the version last imported.
ACTS = Table(
    "acts", METADATA,
    _id(),
    _column("law_id", String(16), unique=True),  # 법령ID, 6 digits with leading zeros
    _column("mst", Integer, nullable=True),  # 법령일련번호 of the imported version
    _column("name", String(200), index=True),
    _column("abbreviation", String(100), nullable=True),  # official 법령약칭명
    _column("kind", String(40), nullable=True),  # 법종구분: 법률, 대통령령, …
    _column("promulgated_on", Date, nullable=True),
    _column("effective_on", Date, nullable=True),
    _column("status", String(20), nullable=True),  # 현행 / 연혁
    _column("source", String(40)),
)

# Another name an act is cited by: official 약칭 or an informal one (민소법, 헌법).
ALIASES = Table(
    "act_aliases", METADATA,
    _id(),
    _column("alias", String(200), index=True),
    _act_id(),
    _column("official", Boolean),
    UniqueConstraint("alias", "act_id"),
)

# One 조 (제3조의2 = number 3, branch 2); 전문 heading rows are never stored.
ARTICLES = Table(
    "articles", METADATA,
    _id(),
    _act_id(),
    _column("number", Integer),
    _column("branch", Integer),  # 0 = no 가지번호
    _column("title", String(300), nullable=True),
    _column("status", String(10)),  # 현행 / 삭제 / 이동
    _column("moved_to", String(40), nullable=True),  # label after a 조문이동, e.g. "5의2"
    _column("effective_on", Date, nullable=True),
    _column("amended_on", Date, nullable=True),  # date of the 삭제/이동 when known
    UniqueConstraint("act_id", "number", "branch"),
)

# A 항, 호 or 목 below an article; the row for 제1항 제2호 가목 is (1, 2, 0, "가").
PROVISIONS = Table(
    "provisions", METADATA,
    _id(),
    _column("act_id", Integer),
    _column("article", Integer),
    _column("article_branch", Integer),
    _column("paragraph", Integer),  # 0 = the article has no numbered 항
    _column("item", Integer),  # 0 = a 항 row
    _column("item_branch", Integer),
    _column("subitem", String(4)),  # "" = not a 목 row
    UniqueConstraint("act_id", "article", "article_branch", "paragraph", "item", "item_branch", "subitem"),
    ForeignKeyConstraint(["act_id", "article", "article_branch"],
                         ["articles.act_id", "articles.number", "articles.branch"], ondelete="CASCADE"),
)

# A decision of any court, 헌법재판소 included; 사건번호 is stored split.
CASES = Table(
    "cases", METADATA,
    _id(),
    _column("court", String(60)),
    _column("decided_on", Date),  # 선고일자, or 종국일자 for 헌재
    _column("case_year", Integer),
    _column("case_code", String(8)),
    _column("case_serial", Integer),
    _column("case_seat", String(8)),  # 원외재판부 prefix, "" for none
    _column("delivery", String(4)),  # 선고 / 자
    _column("disposition", String(4)),  # 판결 / 결정 / 명령
    _column("panel", String(10), nullable=True),  # 전원합의체 / 전원재판부 / 지정재판부
    _column("title", String(500), nullable=True),  # 사건명
    _column("source", String(40)),
    _column("source_id", String(40), nullable=True, index=True),  # 판례일련번호 / 헌재결정례일련번호
    UniqueConstraint("court", "case_year", "case_code", "case_serial", "case_seat"),
    Index("ix_cases_number", "case_year", "case_code", "case_serial"),
)

# What the database claims to hold: a court's decisions over a period, or statutes. Absence inside a
# covered range is `not_found`; outside it, `not_covered`.
COVERAGE = Table(
    "coverage", METADATA,
    _id(),
    _column("kind", String(10)),  # "case" or "statute"
    _column("court", String(60)),  # "" for statutes
    _column("starts_on", Date, nullable=True),
    _column("ends_on", Date, nullable=True),
    UniqueConstraint("kind", "court"),
)

# One verification the service made, written in batches.
AUDIT = Table(
    "audit_log", METADATA,
    _id(),
    _column("at", DateTime(timezone=True), index=True),
    _column("citation", String(1000)),
    _column("status", String(12), index=True),
    _column("canonical", String(1000), nullable=True),
    _column("source_ref", String(200), nullable=True),
    _column("reason", String(1000)),
)

# One version of an act (legalize-kr: one commit): in force from `effective_on` (None: no date fixed)
# until the next version's. `sequence` orders an act's versions (promulgation date, then MST); `name`
# is the act's name in that version, since acts get renamed.
VERSIONS = Table(
    "act_versions", METADATA,
    _id(),
    _act_id(),
    _column("sequence", Integer),
    _column("mst", Integer),
    _column("name", String(200), index=True),
    _column("kind", String(40)),  # 법률, 대통령령, …부령
    _column("promulgated_on", Date, nullable=True),
    _column("promulgation_number", Integer, nullable=True),  # 공포번호: 법률 제N호
    _column("effective_on", Date, nullable=True),
    _column("status", String(20)),  # 시행 / 폐지 / …
    _column("change", String(20), nullable=True),  # 일부개정, 전부개정, 타법개정, 제정, 폐지 …
    _column("origin", String(400)),  # commit:path or file the version came from
    UniqueConstraint("act_id", "sequence"), UniqueConstraint("act_id", "mst"),
    Index("ix_act_versions_number", "promulgation_number"),
)

# An article over the run of an act's versions in which it did not change (text, title, deletion or
# 항/호/목 structure): versions `first`..`last` by sequence. `structure` lists its provision keys,
# space-separated: `1 1.2 1.2의3 1.2의3-가` (항, 호, 호의가지, 목).
SPANS = Table(
    "article_spans", METADATA,
    _id(),
    _act_id(),
    _column("number", Integer),
    _column("branch", Integer),
    _column("first", Integer),
    _column("last", Integer),
    _column("title", String(300), nullable=True),
    _column("deleted", Boolean),
    _column("structure", Text),
    _column("text", Text, nullable=True),  # None where the source kept the structure only
    Index("ix_article_spans_article", "act_id", "number", "branch", "first"),
)

# One 부칙 block of a version (`부칙 <제5305호,1997.3.13>` and its text).
SUPPLEMENTS = Table(
    "supplements", METADATA,
    _id(),
    _column("version_id", Integer, ForeignKey("act_versions.id", ondelete="CASCADE"), index=True),
    _column("heading", String(200)),
    _column("text", Text, nullable=True),
)

# Where `citegen-admin sync` stands with one law.go.kr list (a target, and a court for 판례):
# `synced_through` is the last day a finished run covered (the next run starts after it); while a run is
# under way `next_page` is the list page it reads next (in pages of `run_page_size` rows) and
# `run_since`/`run_until` its window, so an interrupted run resumes there; `run_owner` names the
# invocation working on it (a later one takes the run over, and the earlier stops at its next write).
# The OC key is never stored.
SYNC_CURSORS = Table(
    "sync_cursors", METADATA,
    _column("stream", String(80), primary_key=True),  # `prec`, `prec:대법원`, `law`, …
    _column("synced_through", Date, nullable=True),
    _column("run_since", Date, nullable=True),
    _column("run_until", Date, nullable=True),
    _column("next_page", Integer, nullable=True),  # None: no run under way
    _column("run_page_size", Integer, nullable=True),
    _column("run_owner", String(32), nullable=True),
)

# One list row a run under way has imported (in the same transaction as the import), with what it did:
# a resumed run skips it, and the run's summary counts it. Cleared when the run ends.
SYNC_ITEMS = Table(
    "sync_items", METADATA,
    _column("stream", String(80), primary_key=True),
    _column("item", String(40), primary_key=True),  # MST, 판례일련번호, …
    _column("outcome", String(10)),  # added / updated / skipped
    _column("reason", String(300), nullable=True),  # why it was skipped
)


def structure_code(paragraph: int, item: int = 0, item_branch: int = 0, subitem: str = "") -> str:
    """One provision key of `ArticleSpan.structure`: `1`, `1.2`, `1.2의3`, `1.2의3-가` (항 0 where the
    article has no numbered 항; 0 and "" stand for an absent level)."""
    code = str(paragraph)
    if item:
        code += f".{item}" + (f"의{item_branch}" if item_branch else "")
    if subitem:
        code += f"-{subitem}"
    return code
