"""What the readers produce and the writer stores: one flat stream of records per file.

An `ActRecord` with `replaces_articles` starts an act body: the `ArticleRecord`s that follow
belong to it and replace the articles it had (so a re-import of a newer version drops repealed
rows). A list row (`replaces_articles=False`) touches the act only.

Each record kind is a pydantic dataclass, checked as it is made, strictly (no coercion) and within
the bounds of the columns it goes to: a value out of bounds is refused at the edge, named with the
limit (`checked` turns that into an `InvalidValueError` with the file and position), instead of
being truncated, stored as `nan`, or failing halfway through a write on one database and not the other.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, TypeVar, cast, dataclass_transform

from pydantic import ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass as record

from grammars import CaseNumber
from verifier.errors import InvalidValueError

STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)
MAX_INTEGER = 2**31 - 1  # the INTEGER columns of both databases

LawId = Annotated[str, Field(pattern=r"^[0-9]{1,16}$")]  # 법령ID: digits, leading zeros kept
ActName = Annotated[str, Field(min_length=1, max_length=200)]
Serial = Annotated[int, Field(ge=1, le=MAX_INTEGER)]  # MST, 공포번호: law.go.kr's numbers
Level = Annotated[int, Field(ge=0, le=999)]  # 항, 호, 가지번호 (0: absent)


_FIELD_NAMES: dict[str, list[str]] = {}  # record kind -> its fields in order, for errors of positional arguments
_T = TypeVar("_T")


@dataclass_transform(frozen_default=True, field_specifiers=(Field,))
def record_kind(cls: type[_T]) -> type[_T]:
    """A frozen, slotted pydantic dataclass, checked strictly (no coercion) as it is made."""
    made = record(frozen=True, slots=True, config=STRICT)(cls)
    _FIELD_NAMES[made.__name__] = [field.name for field in fields(made)]
    return cast(type[_T], made)


@record_kind
class ActRecord:
    law_id: LawId
    name: ActName
    mst: Serial | None = None
    abbreviation: Annotated[str, Field(max_length=100)] | None = None
    kind: Annotated[str, Field(max_length=40)] | None = None
    promulgated_on: dt.date | None = None
    effective_on: dt.date | None = None
    status: Annotated[str, Field(max_length=20)] | None = None
    replaces_articles: bool = False


@record_kind
class ProvisionKey:
    """제1항 제2호의3 가목 = (1, 2, 3, "가"); zeros and "" stand for an absent level."""

    paragraph: Level = 0
    item: Level = 0
    item_branch: Level = 0
    subitem: Annotated[str, Field(max_length=1)] = ""


@record_kind
class ArticleRecord:
    number: Annotated[int, Field(ge=1, le=9999)]
    branch: Annotated[int, Field(ge=0, le=99)] = 0
    title: Annotated[str, Field(max_length=300)] | None = None
    status: Annotated[str, Field(pattern="^(현행|삭제|이동)$")] = "현행"
    moved_to: Annotated[str, Field(max_length=40)] | None = None
    effective_on: dt.date | None = None
    amended_on: dt.date | None = None
    provisions: tuple[ProvisionKey, ...] = ()


@record_kind
class CaseRecord:
    court: Annotated[str, Field(min_length=1, max_length=60)]
    decided_on: dt.date
    case_number: CaseNumber
    delivery: Annotated[str, Field(pattern="^(선고|자)$")]
    disposition: Annotated[str, Field(pattern="^(판결|결정|명령)$")]
    panel: Annotated[str, Field(max_length=10)] | None = None
    title: Annotated[str, Field(max_length=500)] | None = None
    source_id: Annotated[str, Field(max_length=40)] | None = None


@record_kind
class AliasRecord:
    alias: Annotated[str, Field(min_length=1, max_length=200)]
    act_name: ActName
    official: bool = False


@record_kind
class CoverageRecord:
    kind: Annotated[str, Field(pattern="^(case|statute)$")]
    court: Annotated[str, Field(max_length=60)] = ""
    starts_on: dt.date | None = None
    ends_on: dt.date | None = None


@dataclass(frozen=True, slots=True)
class SkippedRow:
    """A row the reader understood as a row but could not use (no 사건번호, an NTS-style number …)."""

    position: str
    reason: str


Record = ActRecord | ArticleRecord | CaseRecord | AliasRecord | CoverageRecord | SkippedRow


def describe(error: ValidationError) -> str:
    """The first problem of `error` as "act name: expected at most 200 characters, got 5001"."""
    first = error.errors(include_url=False)[0]
    kind = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", error.title.removesuffix("Record").removesuffix("Key")).lower()
    names = _FIELD_NAMES.get(error.title, [])
    field = ".".join(names[part] if isinstance(part, int) and index == 0 and part < len(names) else str(part)
                     for index, part in enumerate(first["loc"]))
    value, context, problem = first.get("input"), first.get("ctx") or {}, first["type"]
    shown = repr(value)[:60]
    if problem == "string_too_long":
        expected, shown = f"at most {context['max_length']} characters", str(len(str(value)))
    elif problem == "string_too_short":
        expected, shown = f"at least {context['min_length']} character", "an empty text"
    elif problem == "string_pattern_mismatch":
        expected = f"text matching {context['pattern']}"
    elif problem in ("less_than_equal", "greater_than_equal"):
        expected = f"a number up to {context['le']}" if "le" in context else f"a number from {context['ge']}"
    else:  # a wrong type: pydantic's "Input should be a valid string", and what came
        expected, shown = first["msg"].removeprefix("Input should be ").lower(), f"{type(value).__name__} {shown}"
    return f"{kind} {field}: expected {expected}, got {shown}"


@contextmanager
def checked(path: Path | str, position: str | None) -> Iterator[None]:
    """Records made inside are refused as an `InvalidValueError` naming `path`, `position` and the limit."""
    try:
        yield
    except ValidationError as error:
        raise InvalidValueError(path, position, describe(error)) from None
