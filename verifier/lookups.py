"""The two lookups verify and resolve share: an act by any of its names, decisions by 사건번호."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, bindparam, select

from grammars import CaseNumber, Lexicon, default_lexicon
from verifier.importers.store import ACTS, ALIASES, CASES
from verifier.names import normalise_act_name

_ACT_COLUMNS = (ACTS.c.id, ACTS.c.law_id, ACTS.c.mst, ACTS.c.name)
_ACT_BY_NAME = select(*_ACT_COLUMNS).where(ACTS.c.name == bindparam("name"))
_ACT_BY_ALIAS = (select(*_ACT_COLUMNS).join(ALIASES, ALIASES.c.act_id == ACTS.c.id)
                 .where(ALIASES.c.alias == bindparam("name")).order_by(ACTS.c.name))
_CASES = select(CASES).where(
    CASES.c.case_year == bindparam("year"), CASES.c.case_code == bindparam("code"),
    CASES.c.case_serial == bindparam("serial"), CASES.c.case_seat == bindparam("seat"))


@functools.cache
def _builtin_lexicon() -> Lexicon:
    return default_lexicon()


def acts_named(connection: Connection, written: str) -> tuple[Sequence[Row[Any]], str | None]:
    """Acts a written name denotes, and how it was matched when not by its own name: the alias
    kind (`약칭` from the database, or `abbreviation` from grammars' built-in list of 약칭 and
    practitioners' abbreviations, used only when the full name is in the database)."""
    name = normalise_act_name(written)
    acts = connection.execute(_ACT_BY_NAME, {"name": name}).all()
    if acts:
        return acts, None
    acts = connection.execute(_ACT_BY_ALIAS, {"name": name}).all()
    if acts:
        return acts, "약칭"
    full = _builtin_lexicon().canonical_name(name)
    if full is not None and full != name:
        return connection.execute(_ACT_BY_NAME, {"name": full}).all(), "abbreviation"
    return (), None


def cases_numbered(connection: Connection, number: CaseNumber) -> Sequence[Row[Any]]:
    return connection.execute(_CASES, {"year": number.year, "code": number.code, "serial": number.serial,
                                       "seat": number.seat or ""}).all()
