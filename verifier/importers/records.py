"""What the readers produce and the writer stores: one flat stream of records per file.

An `ActRecord` with `replaces_articles` starts an act body: the `ArticleRecord`s that follow
belong to it and replace the articles it had (so a re-import of a newer version drops repealed
rows). A list row (`replaces_articles=False`) touches the act only.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from grammars import CaseNumber


@dataclass(frozen=True, slots=True)
class ActRecord:
    law_id: str
    name: str
    mst: int | None = None
    abbreviation: str | None = None
    kind: str | None = None
    promulgated_on: dt.date | None = None
    effective_on: dt.date | None = None
    status: str | None = None
    replaces_articles: bool = False


@dataclass(frozen=True, slots=True)
class ProvisionKey:
    """제1항 제2호의3 가목 = (1, 2, 3, "가"); zeros and "" stand for an absent level."""

    paragraph: int = 0
    item: int = 0
    item_branch: int = 0
    subitem: str = ""


@dataclass(frozen=True, slots=True)
class ArticleRecord:
    number: int
    branch: int = 0
    title: str | None = None
    status: str = "현행"  # 현행 / 삭제 / 이동
    moved_to: str | None = None
    effective_on: dt.date | None = None
    amended_on: dt.date | None = None
    provisions: tuple[ProvisionKey, ...] = ()


@dataclass(frozen=True, slots=True)
class CaseRecord:
    court: str
    decided_on: dt.date
    case_number: CaseNumber
    delivery: str  # 선고 / 자
    disposition: str  # 판결 / 결정 / 명령
    panel: str | None = None
    title: str | None = None
    source_id: str | None = None


@dataclass(frozen=True, slots=True)
class AliasRecord:
    alias: str
    act_name: str
    official: bool = False


@dataclass(frozen=True, slots=True)
class CoverageRecord:
    kind: str  # "case" or "statute"
    court: str = ""
    starts_on: dt.date | None = None
    ends_on: dt.date | None = None


@dataclass(frozen=True, slots=True)
class SkippedRow:
    """A row the reader understood as a row but could not use (no 사건번호, an NTS-style number …)."""

    position: str
    reason: str


Record = ActRecord | ArticleRecord | CaseRecord | AliasRecord | CoverageRecord | SkippedRow
