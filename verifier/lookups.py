"""The two lookups verify and resolve share: an act by any of its names, decisions by 사건번호,
and `LookupCache`, which keeps their answers so that a batch asks the database once per name
and number, not once per citation, and reads the former names the acts' 부칙 declare once."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Generic, TypeVar

import cachetools
from sqlalchemy import Connection, bindparam, func, select

from grammars import CITED_NAMES, CaseNumber, Lexicon, default_lexicon
from verifier.database import Database
from verifier.former_names import DeclaredName, declared_former_names, stored_declared_former_names, unspaced
from verifier.models import ACTS, ALIASES, CASES, VERSIONS, AnyRow
from verifier.names import normalise_act_name

_ACT_COLUMNS = (ACTS.c.id, ACTS.c.law_id, ACTS.c.mst, ACTS.c.name)
_ACT_BY_NAME = select(*_ACT_COLUMNS).where(ACTS.c.name == bindparam("name"))
_ACT_BY_ALIAS = (select(*_ACT_COLUMNS).join(ALIASES, ALIASES.c.act_id == ACTS.c.id)
                 .where(ALIASES.c.alias == bindparam("name")).order_by(ACTS.c.name))
_ACT_BY_FORMER_NAME = (select(*_ACT_COLUMNS).where(ACTS.c.id.in_(
    select(VERSIONS.c.act_id).where(VERSIONS.c.name == bindparam("name")))).order_by(ACTS.c.law_id))
# Statute texts and older writing space act names otherwise than their titles (`국고금관리법` for
# 국고금 관리법, `근로자퇴직급여보장법`): a name matches when it is equal with the spaces left out.
_ACT_BY_UNSPACED_NAME = (select(*_ACT_COLUMNS).where(func.replace(ACTS.c.name, " ", "") == bindparam("name"))
                         .order_by(ACTS.c.law_id))
_CASES = select(CASES).where(
    CASES.c.case_year == bindparam("year"), CASES.c.case_code == bindparam("code"),
    CASES.c.case_serial == bindparam("serial"), CASES.c.case_seat == bindparam("seat"))


@functools.cache
def _builtin_lexicon() -> Lexicon:
    return default_lexicon()


_ACTS_BY_ID = select(*_ACT_COLUMNS).where(ACTS.c.id.in_(bindparam("ids", expanding=True))).order_by(ACTS.c.law_id)
# How an act was matched by a name it held once: a version's, or one its 부칙 declare (no version held has it).
FORMER_NAME = "former name"
DECLARED_FORMER_NAME = "former name declared in its 부칙"
FORMER_MATCHES = (FORMER_NAME, DECLARED_FORMER_NAME)
DeclaredNames = Mapping[str, tuple[DeclaredName, ...]]

# PostgreSQL refuses, as a query's value, an integer past its 4-byte columns and text holding a NUL, where
# SQLite just finds nothing: such values are answered "nothing" before any query, alike on both.
_INT4 = range(-2**31, 2**31)


def searchable(*values: int | str | None) -> bool:
    """Whether every value may be compared with the database's columns (None: not given, so not compared)."""
    return all(value is None or (value in _INT4 if isinstance(value, int) else "\x00" not in value)
               for value in values)


# The titles of acts courts cite by another name (`헌법` is the act titled 대한민국헌법).
_TITLES = {cited: title for title, cited in CITED_NAMES.items()}


def acts_named(connection: Connection, written: str,
               declared: Callable[[], DeclaredNames] | None = None) -> tuple[Sequence[AnyRow], str | None]:
    """Acts a written name denotes, and how it was matched when not by its own name: the alias
    kind (`former name`: the name of one of its versions, `약칭` from the database,
    `abbreviation` from grammars' built-in list of 약칭 and practitioners' abbreviations, used only
    when the full name is in the database, `spacing`: the title written with other spaces, or,
    last, `DECLARED_FORMER_NAME`: a name `declared()` (`declared_former_names`, asked only here) says
    it held before the versions the book holds)."""
    name = normalise_act_name(written)
    if not searchable(name):
        return (), None
    acts = connection.execute(_ACT_BY_NAME, {"name": _TITLES.get(name, name)}).all()
    if acts:
        return acts, None
    acts = connection.execute(_ACT_BY_FORMER_NAME, {"name": name}).all()
    if acts:  # a version's title spaced otherwise (송유관안전관리법) is no former name of 송유관 안전관리법
        return acts, "spacing" if all(unspaced(act.name) == unspaced(name) for act in acts) else FORMER_NAME
    acts = connection.execute(_ACT_BY_ALIAS, {"name": name}).all()
    if acts:
        return acts, "약칭"
    full = _builtin_lexicon().canonical_name(name)
    if full is not None and full != name:
        return connection.execute(_ACT_BY_NAME, {"name": full}).all(), "abbreviation"
    acts = connection.execute(_ACT_BY_UNSPACED_NAME, {"name": name.replace(" ", "")}).all()
    if acts:
        return acts, "spacing"
    declaring = declared().get(unspaced(name), ()) if declared is not None else ()
    if declaring:
        return connection.execute(_ACTS_BY_ID, {"ids": sorted({d.act_id for d in declaring})}).all(), \
            DECLARED_FORMER_NAME
    return (), None


def cases_numbered(connection: Connection, number: CaseNumber) -> Sequence[AnyRow]:
    if not searchable(number.year, number.code, number.serial, number.seat):
        return ()
    return tuple(connection.execute(_CASES, {"year": number.year, "code": number.code, "serial": number.serial,
                                             "seat": number.seat or ""}).all())


Connect = Callable[[], AbstractContextManager[Connection]]
Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class BoundedCache(Generic[Key, Value]):
    """At most `size` answers, the oldest dropped first (a cachetools `FIFOCache`); thread-safe. Two
    threads that miss the same key both compute it (the answers are equal): no lock is held over a
    query, only over the cache itself."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"expected a cache size of at least 1, got {size}")
        self._entries: cachetools.FIFOCache[Key, Value] = cachetools.FIFOCache(size)
        self._lock = threading.Lock()

    def get(self, key: Key, compute: Callable[[], Value]) -> Value:
        with self._lock:
            if key in self._entries:
                return self._entries[key]
        value = compute()
        with self._lock:
            self._entries[key] = value
        return value

    def peek(self, key: Key) -> Value | None:
        """The answer if known, without computing it."""
        with self._lock:
            return self._entries.get(key)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class LookupCache:
    """`acts_named` and `cases_numbered` answers by normalised name and by number, at most `size`
    of each, until `clear()` (after an import), and the declared former names, read on the first name
    no other way matches (seconds over the statute book's 부칙). `connect` gives a connection to query on a miss
    (`engine.connect`, or `nullcontext(open_connection)`); one cache is shared by a `Verifier`
    and the `DocumentResolver`s built beside it. With the `database` and a `cache_dir`, the declared
    former names are kept there for the next process (`stored_declared_former_names`)."""

    def __init__(self, size: int = 100_000, *, database: Database | None = None, cache_dir: Path | None = None) -> None:
        self._database, self._cache_dir = database, cache_dir
        self._acts: BoundedCache[str, tuple[Sequence[AnyRow], str | None]] = BoundedCache(size)
        self._cases: BoundedCache[CaseNumber, Sequence[AnyRow]] = BoundedCache(size)
        self._declared: BoundedCache[None, DeclaredNames] = BoundedCache(1)

    def acts_named(self, connect: Connect, written: str) -> tuple[Sequence[AnyRow], str | None]:
        def query() -> tuple[Sequence[AnyRow], str | None]:
            with connect() as connection:
                acts, matched_by = acts_named(connection, written, lambda: self.declared_former_names(connect))
            return tuple(acts), matched_by

        return self._acts.get(normalise_act_name(written), query)

    def declared_former_names(self, connect: Connect) -> DeclaredNames:
        def query() -> DeclaredNames:
            if self._database is not None:
                return stored_declared_former_names(self._database, self._cache_dir, connect)
            with connect() as connection:
                return declared_former_names(connection)

        return self._declared.get(None, query)

    def cases_numbered(self, connect: Connect, number: CaseNumber) -> Sequence[AnyRow]:
        def query() -> Sequence[AnyRow]:
            with connect() as connection:
                return cases_numbered(connection, number)

        return self._cases.get(number, query)

    def clear(self) -> None:
        self._acts.clear()
        self._cases.clear()
        self._declared.clear()
