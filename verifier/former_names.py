"""Names an act held before the statute book's versions of it begin, as its own 부칙 declare them.

legalize-kr keeps an act's history from the version that gave it its current file name, so an act
renamed before that (조세감면규제법, 조세특례제한법 since 법률 제5584호 of 1998. 12. 28.) holds no version
under its former name, and courts still cite it by that name (`구 조세감면규제법 제56조`). The 부칙 of
the amendment that renamed it says which name it replaced, in a clause every such amendment has:
"이 법 시행당시 종전의 조세감면규제법 및 그 조항을 인용하고 있는 법령에 대하여는 이 법 및 이 법의 해당 각
조항을 인용한 것으로 본다" (today: "다른 법령에서 종전의 「X」 또는 그 규정을 인용한 경우 … 이 법 또는 이 법의
해당 규정을 인용한 것으로 본다"). `declared_former_names` reads those clauses, once per lookup cache
(and, with a cache directory, once per state of the database: `stored_declared_former_names`).

A block counts only where `이 법` is the act itself: its heading's number is one of the act's own
amendments (not a 타법개정, whose 부칙 is the amending act's), or it predates every version held of an
act whose held history does not start at its 제정. A clause naming several acts the new one took over
(`건설업법·건설공제조합법·전문건설공제조합법`) declares each of them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, and_, select

from verifier.database import Database
from verifier.derived import read_through
from verifier.models import SUPPLEMENTS, VERSIONS
from verifier.names import normalise_act_name, own_supplement_text, parse_date

# The 다른 법령과의 관계 clause; the name stops at a bracket, a stop or a comma.
_CLAUSE = re.compile(r"종전의\s*「?(?P<name>[^「」\n.,]{2,80}?)」?\s*(?:또는|및)\s*"
                     r"(?:그|동법의?|같은 법의?|동령의?)?\s*(?:각\s*)?(?:규정|조항)"
                     r"[^.]{0,160}?이\s*(?:법|영|규칙)[^.]{0,80}?인용(?:한|하는|된) 것으로 본다")
_HEADING = re.compile(r"제\s*(?P<number>[0-9]+)\s*호\s*,\s*(?P<date>[0-9]{4}\s*\.\s*[0-9]{1,2}\s*\.\s*[0-9]{1,2})")
# Several acts in one clause: split only where every part is itself an act's name (`경륜ㆍ경정법` is one).
_PARTS = re.compile(r"\s*[·ㆍ]\s*|\s+(?:및|또는)\s+")
_ACT_ENDINGS = ("법", "법률", "령", "규칙", "규정")
_GENERIC = frozenset(("법률", "시행령", "시행규칙", "규칙", "규정", "이 법", "이 법률"))  # `종전의 법률 또는 그 규정`
_NOT_THE_ACTS_OWN = ("타법개정", "타법폐지")
_WORDING = (SUPPLEMENTS.c.text.like("%종전의%"), SUPPLEMENTS.c.text.like("%인용%"))


@dataclass(frozen=True, slots=True)
class DeclaredName:
    """A name the act `act_id` held until the amendment `number` (promulgated on `promulgated_on`),
    whose 부칙 says so."""

    act_id: int
    number: int
    promulgated_on: dt.date | None


def unspaced(name: str) -> str:
    """The key names are compared by: statutes and judgments space older titles freely."""
    return normalise_act_name(name).replace(" ", "")


def declared_former_names(connection: Connection) -> Mapping[str, tuple[DeclaredName, ...]]:
    """{unspaced former name: the acts that declare it}, for names no version held carries."""
    held = {unspaced(name) for name in connection.execute(select(VERSIONS.c.name).distinct()).scalars()}
    versions: dict[int, list[tuple[int | None, str | None, dt.date | None]]] = defaultdict(list)
    for act_id, number, change, promulgated_on in connection.execute(
            select(VERSIONS.c.act_id, VERSIONS.c.promulgation_number, VERSIONS.c.change, VERSIONS.c.promulgated_on)
            .order_by(VERSIONS.c.act_id, VERSIONS.c.sequence)):
        versions[act_id].append((number, change, promulgated_on))
    declared: dict[str, dict[DeclaredName, None]] = defaultdict(dict)
    for act_id, heading, text in connection.execute(
            select(VERSIONS.c.act_id, SUPPLEMENTS.c.heading, SUPPLEMENTS.c.text)
            .join(VERSIONS, VERSIONS.c.id == SUPPLEMENTS.c.version_id).where(and_(*_WORDING))):
        amendment = _HEADING.search(heading)
        if amendment is None:
            continue
        number, promulgated_on = int(amendment["number"]), parse_date(amendment["date"])
        if not _the_acts_own(versions[act_id], number, promulgated_on):
            continue
        for clause in _CLAUSE.finditer(own_supplement_text(text)):  # another act's block read into it names its own
            for name in _names_in(clause["name"]):
                if unspaced(name) not in held:
                    declared[unspaced(name)].setdefault(DeclaredName(act_id, number, promulgated_on))
    return {name: tuple(acts) for name, acts in declared.items()}


def stored_declared_former_names(database: Database, cache_dir: Path | None,
                                 connect: Callable[[], AbstractContextManager[Connection]]
                                 ) -> Mapping[str, tuple[DeclaredName, ...]]:
    """`declared_former_names` of `database` (queried on `connect()`), kept in `cache_dir` until the
    database changes (verifier.derived): reading the 부칙 takes most of a second, every process."""
    def derive() -> dict[str, list[tuple[int, int, int | None]]]:
        with connect() as connection:
            return {name: [(d.act_id, d.number, None if d.promulgated_on is None else d.promulgated_on.toordinal())
                           for d in acts] for name, acts in declared_former_names(connection).items()}

    return {name: tuple(DeclaredName(act_id, number, None if day is None else dt.date.fromordinal(day))
                        for act_id, number, day in acts)
            for name, acts in read_through(database, cache_dir, "former-names", (Path(__file__),), derive).items()}


def _the_acts_own(versions: list[tuple[int | None, str | None, dt.date | None]], number: int,
                  promulgated_on: dt.date | None) -> bool:
    """Whether the 부칙 block of amendment `number` is the act's own (its `이 법` is the act)."""
    changes = [change for held_number, change, _ in versions if held_number == number]
    if changes:
        return any(change not in _NOT_THE_ACTS_OWN for change in changes)
    _, first_change, first_promulgated = versions[0]
    return first_change != "제정" and promulgated_on is not None and first_promulgated is not None \
        and promulgated_on < first_promulgated


def _names_in(written: str) -> list[str]:
    name = normalise_act_name(written)
    parts = _PARTS.split(name)
    if len(parts) > 1 and all(part.endswith(_ACT_ENDINGS) and len(part) > 2 for part in parts):
        return parts
    return [name] if name.endswith(_ACT_ENDINGS) and name not in _GENERIC else []
