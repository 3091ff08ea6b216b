"""Writing an act's versions into the history tables, one transaction per act.

An act's articles are stored as spans over its version sequence: a new `article_spans` row only
where an article's title, deletion, 항/호/목 structure or text changes, so 37 versions of 민법
cost about one row per article plus one per amendment of it. Appending versions to an act
already held extends its open spans (those reaching its last version); a version that sorts
before one already held needs the act's whole history, so it is written only when the source
brings all of it (`ActHistory.complete`), the act being rebuilt; otherwise it is skipped, said.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from verifier.importers.records import ProvisionKey
from verifier.importers.store import upsert
from verifier.models import ACTS, COVERAGE, SPANS, SUPPLEMENTS, VERSIONS, structure_code

if TYPE_CHECKING:
    from verifier.importers.legalize import ActVersion

SOURCE = "legalize-kr"
_EARLIEST = dt.date.min


def structure_of(provisions: Iterable[ProvisionKey]) -> str:
    return " ".join(structure_code(key.paragraph, key.item, key.item_branch, key.subitem) for key in provisions)


@dataclass(slots=True)
class Span:
    """Mutable while an act is folded (`last` grows as versions keep the article unchanged)."""

    number: int
    branch: int
    first: int
    last: int
    title: str | None
    deleted: bool
    structure: str
    text: str | None



@dataclass
class ActHistory:
    """What a source brings of one act: versions (their articles included) and, for a bundle,
    spans already folded (then `versions` carry no articles). `complete`: the source holds every
    version of the act, so the act may be rebuilt from it; `whole`, where it does not, reads them all."""

    law_id: str
    versions: list[ActVersion]
    spans: list[Span] | None = None
    complete: bool = False
    # every version of the act the source holds, read when a rebuild needs them (a git file's history)
    whole: Callable[[], list[ActVersion]] | None = None


@dataclass
class ActOutcome:
    versions_added: int = 0
    spans_written: int = 0
    skipped: str | None = None
    rebuilt: bool = False


def promulgation_order(promulgated_on: dt.date | None, number: int | None, mst: int) -> tuple[dt.date, int, int]:
    """Amendments promulgated on one day come in the order of their 공포번호 (법률 제21208호 before
    제21220호), which legalize-kr commits them in; MSTs are not in that order (정부조직법 of 2025. 12. 23.:
    제21220호 is MST 280357, 제21208호 MST 280365), so ordered by MST one version sorted before
    another it follows, and a later commit of the day could not be appended."""
    return promulgated_on or _EARLIEST, number or 0, mst


def sort_key(version: ActVersion) -> tuple[dt.date, int, int]:
    return promulgation_order(version.promulgated_on, version.promulgation_number, version.mst)


def fold(versions: Sequence[ActVersion], start: int, open_spans: dict[tuple[int, int], Span]) -> list[Span]:
    """Spans for `versions` (sorted), numbered from sequence `start`, continuing `open_spans`
    (spans that reach sequence start - 1); returns every span touched, old ones extended."""
    touched: dict[tuple[int, int, int], Span] = {}
    current = {key: Span(**_fields(span)) for key, span in open_spans.items()}  # the caller's stay as they were
    for offset, version in enumerate(versions):
        sequence = start + offset
        for article in version.articles:
            key = (article.number, article.branch)
            previous = current.get(key)
            # the structure is read from the text, so equal text (and title, deletion) is an equal article
            if (previous is not None and previous.last == sequence - 1 and previous.text == article.text
                    and previous.title == article.title and previous.deleted == article.deleted):
                previous.last = sequence
                touched[key + (previous.first,)] = previous
                continue
            span = Span(article.number, article.branch, sequence, sequence, article.title, article.deleted,
                        structure_of(article.provisions), article.text)
            current[key] = span
            touched[key + (sequence,)] = span
    return list(touched.values())


def normalize(versions: list[ActVersion], spans: list[Span]) -> tuple[list[ActVersion], list[Span]]:
    """The act as the importer numbers it: versions in promulgation order (`sort_key`), one per MST
    (a later commit of the same MST re-renders it: the later one is kept), spans re-folded over that
    order. Versions arrive per file, so an act whose history spans several files, or a file whose
    commits are not in promulgation order, needs this; the others come back as they are."""
    last_of = {version.mst: index for index, version in enumerate(versions)}
    order = [index for index in sorted(range(len(versions)), key=lambda index: sort_key(versions[index]))
             if last_of[versions[index].mst] == index]
    if order == list(range(len(versions))):
        return versions, spans
    at: dict[tuple[int, int], dict[int, Span]] = defaultdict(dict)  # article → old sequence → its span
    for span in spans:
        for sequence in range(span.first, span.last + 1):
            at[span.number, span.branch][sequence] = span
    folded: list[Span] = []
    for (number, branch), states in at.items():
        current: Span | None = None
        for sequence, old in enumerate(order, start=1):
            state = states.get(old + 1)
            if state is None:
                current = None
            elif current is not None and (current.title, current.deleted, current.structure, current.text) == (
                    state.title, state.deleted, state.structure, state.text):
                current.last = sequence
            else:
                current = Span(number, branch, sequence, sequence, state.title, state.deleted, state.structure,
                               state.text)
                folded.append(current)
    return [versions[index] for index in order], sorted(folded, key=lambda s: (s.number, s.branch, s.first))


def _fields(span: Span) -> dict[str, Any]:
    return {name: getattr(span, name) for name in Span.__slots__}


def write_act(connection: Connection, history: ActHistory) -> ActOutcome:
    """Add the act's new versions (by MST) on `connection`'s transaction; see the module docstring. An act
    skipped, or with nothing new, is left as it was: its row (name, MST, dates) is written only with new
    versions (else a copy of an older version, imported again, renamed the act back)."""
    savepoint = connection.begin_nested()
    outcome = _write_act(connection, history)
    if outcome.versions_added:
        savepoint.commit()
    else:
        savepoint.rollback()
    return outcome


def _one_per_mst(versions: Iterable[ActVersion]) -> list[ActVersion]:
    """In promulgation order, one per MST: a later commit of the same MST re-renders it (the later kept)."""
    return sorted({version.mst: version for version in versions}.values(), key=sort_key)


def _write_act(connection: Connection, history: ActHistory) -> ActOutcome:
    versions, complete = _one_per_mst(history.versions), history.complete
    if not versions:
        return ActOutcome(skipped="expected at least one version, got none")
    latest = versions[-1]
    act_id = _act_row(connection, latest)
    held = connection.execute(select(VERSIONS.c.sequence, VERSIONS.c.mst, VERSIONS.c.promulgated_on,
                                     VERSIONS.c.promulgation_number)
                              .where(VERSIONS.c.act_id == act_id).order_by(VERSIONS.c.sequence)).all()
    held_msts = {row.mst for row in held}
    new = [version for version in versions if version.mst not in held_msts]
    if not new:
        return ActOutcome()
    added = len(new)  # a rebuild writes the versions held again, not counted
    last_held = promulgation_order(held[-1].promulgated_on, held[-1].promulgation_number, held[-1].mst) if held \
        else None
    # A bundle brings spans folded over its whole history: an act it changes is rebuilt from it.
    rebuild = last_held is not None and (history.spans is not None or sort_key(new[0]) < last_held)
    if rebuild and not complete and history.whole is not None:
        versions, complete = _one_per_mst(history.whole()), True
    if rebuild:
        if not (complete and held_msts <= {version.mst for version in versions}):
            return ActOutcome(skipped=f"expected versions after MST {held[-1].mst} (promulgated "
                                      f"{held[-1].promulgated_on}), got MST {new[0].mst} promulgated "
                                      f"{new[0].promulgated_on}: import the act's whole history to rebuild it")
        connection.execute(delete(SPANS).where(SPANS.c.act_id == act_id))
        connection.execute(delete(VERSIONS).where(VERSIONS.c.act_id == act_id))
        held, new = [], versions
    start = held[-1].sequence + 1 if held else 1
    version_ids = _insert_versions(connection, act_id, new, start)
    existing: dict[tuple[int, int], int]
    if history.spans is not None:
        spans, existing = history.spans, {}
    else:
        open_rows = connection.execute(select(SPANS).where(SPANS.c.act_id == act_id, SPANS.c.last == start - 1)).all()
        existing = {(row.number, row.branch): row.id for row in open_rows}
        opened = {(row.number, row.branch): Span(row.number, row.branch, row.first, row.last, row.title, row.deleted,
                                                 row.structure, row.text) for row in open_rows}
        spans = fold(new, start, opened)
    _write_spans(connection, act_id, spans, existing, start)
    supplements = [{"version_id": version_ids[version.mst], "heading": heading[:200], "text": text or None}
                   for version in new for heading, text in version.supplements]
    if supplements:
        connection.execute(insert(SUPPLEMENTS), supplements)
    return ActOutcome(versions_added=added, spans_written=len(spans), rebuilt=rebuild)


def _act_row(connection: Connection, latest: ActVersion) -> int:
    row = {"law_id": latest.law_id, "name": latest.name, "mst": latest.mst, "kind": latest.kind,
           "promulgated_on": latest.promulgated_on, "effective_on": latest.effective_on, "status": latest.status,
           "source": SOURCE}
    upsert(connection, ACTS, [row], ("law_id",))
    upsert(connection, COVERAGE, [{"kind": "statute", "court": "", "starts_on": None, "ends_on": None}],
           ("kind", "court"), update=False)
    act_id: int = connection.execute(select(ACTS.c.id).where(ACTS.c.law_id == latest.law_id)).scalar_one()
    return act_id


def _insert_versions(connection: Connection, act_id: int, versions: Sequence[ActVersion], start: int) -> dict[int, int]:
    connection.execute(insert(VERSIONS), [{
        "act_id": act_id, "sequence": start + offset, "mst": version.mst, "name": version.name,
        "kind": version.kind, "promulgated_on": version.promulgated_on,
        "promulgation_number": version.promulgation_number, "effective_on": version.effective_on,
        "status": version.status, "change": version.change, "origin": version.origin}
        for offset, version in enumerate(versions)])
    rows = connection.execute(select(VERSIONS.c.mst, VERSIONS.c.id).where(VERSIONS.c.act_id == act_id,
                                                                          VERSIONS.c.sequence >= start))
    return {row.mst: row.id for row in rows}


def _write_spans(connection: Connection, act_id: int, spans: list[Span], existing: dict[tuple[int, int], int],
                 start: int) -> None:
    extended = [{"row_id": existing[span.number, span.branch], "new_last": span.last} for span in spans
                if span.first < start and (span.number, span.branch) in existing]
    fresh = [{"act_id": act_id, **_fields(span)} for span in spans if span.first >= start]
    if extended:
        connection.execute(update(SPANS).where(SPANS.c.id == bindparam("row_id")).values(last=bindparam("new_last")),
                           extended)
    if fresh:
        connection.execute(insert(SPANS), fresh)


@dataclass
class BookReport:
    """What an import of the statute book did: acts touched, versions added, what was skipped."""

    acts: int = 0
    versions: int = 0
    spans: int = 0
    rebuilt: int = 0
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (where, why)
