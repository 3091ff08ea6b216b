"""`Verifier.verify(citation) -> Verdict`: look a parsed citation up and say precisely what was found.

Verdicts are cached (citations are frozen values, so they are their own keys), and so are act
names, decisions by number (`lookups`, which the resolvers built beside the verifier share) and
coverage rows, until the next `clear_cache()`; call it after importing into a database a
long-lived verifier reads. Lookups run on one autocommit connection. Every verification is
appended to the audit log, written in batches of `audit_batch` rows (and on `flush_audit()` /
`close()`), never one commit per call. A batch that cannot be written (database locked or gone)
stays buffered and is tried again with the next flush, up to `audit_buffer` rows; only past that
are rows lost, and counted (`audit_rows_lost`, which must stay 0). `start_audit_writer()` moves
the writing to a thread of its own, so a caller on an event loop never waits on it.

Thread-safe: one lock guards the reader connection (every cache miss), another the audit buffer
(recording a verdict never waits on a lookup), the caches lock their own entries, so an async
caller may run `verify` in worker threads, and `verify_cached` on its loop.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import threading
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, and_, bindparam, insert, select
from sqlalchemy.exc import SQLAlchemyError

from grammars import CaseCitation, CaseNumber, ParsedCitation, StatuteCitation, format_date
from verifier.database import Database
from verifier.former_names import unspaced
from verifier.lookups import DECLARED_FORMER_NAME, FORMER_MATCHES, BoundedCache, LookupCache, searchable
from verifier.models import ARTICLES, AUDIT, COVERAGE, PROVISIONS, AnyRow
from verifier.names import normalise_act_name, normalise_court
from verifier.rules import CONSTITUTIONAL, CONSTITUTIONAL_CODES, SUPREME, SUPREME_ONLY_CODES, case_problems
from verifier.supplements import SupplementCheck
from verifier.verdict import Mismatch, Verdict
from verifier.versions import ActUnderTest, StatuteHistory, acts_meant, versions_of

logger = logging.getLogger(__name__)

# The article and, when the citation names one, its 항/호/목, in one round trip.
_ARTICLE_AND_PROVISION = (
    select(ARTICLES.c.status, ARTICLES.c.moved_to, ARTICLES.c.amended_on, PROVISIONS.c.id.label("provision"))
    .select_from(ARTICLES.outerjoin(PROVISIONS, and_(
        PROVISIONS.c.act_id == ARTICLES.c.act_id, PROVISIONS.c.article == ARTICLES.c.number,
        PROVISIONS.c.article_branch == ARTICLES.c.branch, PROVISIONS.c.paragraph == bindparam("paragraph"),
        PROVISIONS.c.item == bindparam("item"), PROVISIONS.c.item_branch == bindparam("item_branch"),
        PROVISIONS.c.subitem == bindparam("subitem"))))
    .where(ARTICLES.c.act_id == bindparam("act_id"), ARTICLES.c.number == bindparam("number"),
           ARTICLES.c.branch == bindparam("branch"))
    .limit(1))
# The statute grammar writes 조 with four digits: no article is numbered past it.
_MOST_ARTICLE = 9999
_COVERAGE = select(COVERAGE.c.starts_on, COVERAGE.c.ends_on).where(
    COVERAGE.c.kind == bindparam("kind"), COVERAGE.c.court == bindparam("court"))


def describe(citation: ParsedCitation) -> str:
    """The canonical form when complete, else what was written, field by field."""
    if citation.is_complete:
        return citation.canonical()
    if isinstance(citation, CaseCitation):
        parts = [citation.court, format_date(citation.date) if citation.date else None, citation.delivery,
                 str(citation.case_number), citation.panel, citation.disposition]
        return " ".join(part for part in parts if part)
    if isinstance(citation, StatuteCitation):
        head = citation.act or citation.back_reference or "?"
        return f"{head} {citation.provision()}" if citation.article is not None else head
    return repr(citation)


def _storable(text: str | None) -> str | None:
    """The text with any NUL (which PostgreSQL refuses, failing the whole audit batch) as U+FFFD."""
    return None if text is None else text.replace("\x00", "\ufffd")


def _article_label(number: int, branch: int) -> str:
    return f"제{number}조" + (f"의{branch}" if branch else "")


class Verifier:
    """Verifies citations against one database; shared by a process (cache, audit buffer, reader). With a
    `cache_dir`, what every process would read of the database alike is kept there (`LookupCache`)."""

    def __init__(self, database: Database, *, cache_size: int = 200_000, audit: bool = True,
                 audit_batch: int = 1000, audit_buffer: int = 1_000_000, cache_dir: Path | None = None) -> None:
        self.database = database
        self._verdicts: BoundedCache[tuple[ParsedCitation, dt.date], Verdict] = BoundedCache(cache_size)
        self._versions: BoundedCache[int, tuple[AnyRow, ...]] = BoundedCache(cache_size)
        self.lookups = LookupCache(cache_size, database=database, cache_dir=cache_dir)
        self._audit_enabled = audit
        self._audit_batch = audit_batch
        self._audit_buffer = audit_buffer
        self._audit_rows: list[dict[str, Any]] = []
        self._audit_lock = threading.Lock()  # the buffer
        self._flush_lock = threading.Lock()  # one flush at a time, so rows keep their order
        self._audit_wanted = threading.Event()
        self._audit_writer: threading.Thread | None = None
        self._audit_stop = threading.Event()
        self.audit_rows_lost = 0
        self._lock = threading.Lock()
        self._reader: Connection | None = None
        # A few rows per court beside the verdict cache.
        self._coverage: dict[tuple[str, str], AnyRow | None] = {}

    # --- public -----------------------------------------------------------------------------

    def verify(self, citation: ParsedCitation, on: dt.date | None = None) -> Verdict:
        """The verdict on `citation` as of `on` (default today): a statute citation is checked against
        the version in force that day (a judgment's 선고일, a brief's date), a 구법 citation against
        the version it names."""
        day = on or dt.date.today()
        verdict = self._verdicts.get((citation, day), lambda: self._look_up_on_reader(citation, day))
        if self._audit_enabled:
            self._record(verdict)
        return verdict

    def verify_cached(self, citation: ParsedCitation, on: dt.date | None = None) -> Verdict | None:
        """`verify` when the verdict is cached (recorded as usual); None, without a query, when not."""
        verdict = self._verdicts.peek((citation, on or dt.date.today()))
        if verdict is not None and self._audit_enabled:
            self._record(verdict)
        return verdict

    def _look_up_on_reader(self, citation: ParsedCitation, on: dt.date) -> Verdict:
        # One autocommit connection for all lookups: no pool checkout per call, no open transaction.
        with self._lock:
            if self._reader is None:
                self._reader = self.database.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            try:
                return self._look_up(self._reader, citation, on)
            except SQLAlchemyError as error:
                logger.warning("lookup of %s failed, reconnecting on the next call: %s", type(citation).__name__,
                               error)
                self._reader.invalidate()  # a dropped connection is replaced on the next call
                self._reader.close()
                self._reader = None
                raise

    def clear_cache(self) -> None:
        """Forget verdicts, act names, decisions and coverage: call after importing into the database."""
        self._verdicts.clear()
        self._versions.clear()
        self.lookups.clear()
        with self._lock:
            self._coverage.clear()

    def flush_audit(self) -> bool:
        """Write the buffered audit rows; False when the database refused them (they stay buffered
        for the next flush, the reason logged)."""
        with self._flush_lock:
            with self._audit_lock:
                rows, self._audit_rows = self._audit_rows, []
            if not rows:
                return True
            try:
                with self.database.engine.begin() as connection:
                    connection.execute(insert(AUDIT), rows)
            except SQLAlchemyError as error:
                with self._audit_lock:
                    self._audit_rows[:0] = rows  # before anything recorded meanwhile
                    overflow = len(self._audit_rows) - self._audit_buffer
                    if overflow > 0:
                        del self._audit_rows[:overflow]
                        self.audit_rows_lost += overflow
                        logger.error("audit buffer full: %d oldest rows lost", overflow)
                logger.warning("audit flush of %d rows failed, kept for the next one: %s", len(rows),
                               str(getattr(error, "orig", None) or error).strip().splitlines()[0])
                return False
            return True

    @property
    def audit_rows_pending(self) -> int:
        return len(self._audit_rows)

    def start_audit_writer(self, interval_s: float = 1.0) -> None:
        """Write the audit log from a thread of this verifier's own, every `interval_s` and when a
        batch fills, instead of on the thread that recorded the verdict."""
        if self._audit_writer is None:
            self._audit_writer = threading.Thread(target=self._write_audit, args=(interval_s,),
                                                  name="audit-writer", daemon=True)
            self._audit_writer.start()

    def _write_audit(self, interval_s: float) -> None:
        while not self._audit_stop.is_set():
            self._audit_wanted.wait(interval_s)
            self._audit_wanted.clear()
            self.flush_audit()

    def close(self) -> None:
        if self._audit_writer is not None:
            self._audit_stop.set()
            self._audit_wanted.set()
            self._audit_writer.join()
            self._audit_writer = None
        if not self.flush_audit():
            with self._audit_lock:
                lost, self._audit_rows = len(self._audit_rows), []
            self.audit_rows_lost += lost
            logger.error("closing with %d audit rows the database would not take: lost", lost)
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- audit ------------------------------------------------------------------------------

    def _record(self, verdict: Verdict) -> None:
        row = {"at": dt.datetime.now(dt.UTC), "citation": _storable(describe(verdict.citation)[:1000]),
               "status": verdict.status, "canonical": _storable(verdict.canonical),
               "source_ref": _storable(verdict.source), "reason": _storable(verdict.detail[:1000])}
        with self._audit_lock:
            self._audit_rows.append(row)
            full = len(self._audit_rows) >= self._audit_batch
        if full and self._audit_writer is not None:
            self._audit_wanted.set()
        elif full:
            self.flush_audit()

    # --- lookups ----------------------------------------------------------------------------

    def _look_up(self, connection: Connection, citation: ParsedCitation, on: dt.date) -> Verdict:
        if isinstance(citation, CaseCitation):
            return self._verify_case(connection, citation)
        if isinstance(citation, StatuteCitation):
            return self._verify_statute(connection, citation, on)
        raise TypeError(f"expected a CaseCitation or StatuteCitation, got {type(citation).__name__}")

    # --- statutes ---------------------------------------------------------------------------

    def _verify_statute(self, connection: Connection, citation: StatuteCitation, on: dt.date) -> Verdict:
        supplement = citation.supplement is not None and citation.is_complete  # an article of a 부칙, not the body
        if (citation.act is None or citation.article is None) and not supplement:
            return Verdict("ambiguous", citation,
                           f"expected a citation naming its act and article, got the back-reference "
                           f"{citation.back_reference or '(none)'}: resolve it against its document first")
        assert citation.act is not None  # a complete 부칙 citation names its act
        if (citation.article or 0) > _MOST_ARTICLE or not searchable(
                citation.article, citation.article_branch, citation.paragraph, citation.item, citation.item_branch,
                citation.subitem):
            return Verdict("not_found", citation, f"no statute numbers a provision {citation.provision()} (articles "
                                                  f"run to 제{_MOST_ARTICLE}조)")
        name = normalise_act_name(citation.act)
        acts, matched_by = self.lookups.acts_named(lambda: nullcontext(connection), name)
        if not acts:
            covered = self._coverage_of(connection, "statute", "") is not None
            return Verdict("not_found" if covered else "not_covered", citation,
                           f"no act named {name!r} in the statute book" if covered
                           else "the database holds no statutes, so it cannot say", canonical=citation.canonical())
        note = f" (cited by the {matched_by} {name!r})" if matched_by else ""
        cited_as = name if matched_by in FORMER_MATCHES else None
        declared = self.lookups.declared_former_names(lambda: nullcontext(connection)).get(unspaced(name), ()) \
            if matched_by == DECLARED_FORMER_NAME else ()
        histories = [ActUnderTest(act, self._versions.get(act.id, functools.partial(versions_of, connection, act.id)),
                                  cited_as, tuple(d for d in declared if d.act_id == act.id)) for act in acts]
        histories = [history for history in histories if history.versions]
        if histories:
            meant = acts_meant(histories, citation, on)
            if not meant:
                return Verdict("ambiguous", citation, f"{name!r} names {len(acts)} acts, none of them singled out by "
                                                      f"the date or the version note",
                               candidates=tuple(f"{h.row.name} (법령ID {h.row.law_id})" for h in histories))
            if supplement:
                return SupplementCheck(connection, meant[0], citation, on).verify()
            verdicts = (StatuteHistory(connection, act, citation, on, note).verify() for act in meant)
            first = next(verdicts)
            return first if first.verified else next((v for v in verdicts if v.verified), first)
        if supplement:  # an act without versions has no 부칙 blocks
            return Verdict("not_covered", citation, f"{citation.supplement}: the database holds no 부칙 of "
                           f"{acts[0].name}", canonical=citation.canonical())
        if len(acts) > 1:
            return Verdict("ambiguous", citation, f"{name!r} names {len(acts)} acts",
                           candidates=tuple(act.name for act in acts))
        act = acts[0]
        assert citation.article is not None  # only a 부칙 citation goes without one
        resolved = replace(citation, act=act.name, back_reference=None)
        canonical = resolved.canonical()
        source = f"법령ID {act.law_id}" + (f", MST {act.mst}" if act.mst else "") + f", {resolved.provision()}"
        branch = citation.article_branch or 0
        label = _article_label(citation.article, branch)
        article = connection.execute(_ARTICLE_AND_PROVISION, {
            "act_id": act.id, "number": citation.article, "branch": branch, "paragraph": citation.paragraph or 0,
            "item": citation.item or 0, "item_branch": citation.item_branch or 0, "subitem": citation.subitem or ""
        }).first()
        if article is None:
            return Verdict("not_found", citation, f"{act.name} has no {label}", canonical=canonical)
        if article.status == "삭제":
            when = format_date(article.amended_on) if article.amended_on else None
            return Verdict("mismatch", citation, f"{act.name} {label} was deleted" + (f" on {when}" if when else ""),
                           canonical, source, (Mismatch("article", label, f"삭제 ({when})" if when else "삭제"),))
        if article.status == "이동":
            moved = article.moved_to or "?"
            number, _, moved_branch = moved.partition("의")
            target = _article_label(int(number), int(moved_branch or 0)) if number.isdigit() else moved
            return Verdict("mismatch", citation, f"{act.name} {label} was moved to {target}", canonical, source,
                           (Mismatch("article", label, f"이동: {target}"),))
        names_a_provision = citation.paragraph is not None or citation.item is not None or citation.subitem is not None
        if names_a_provision and article.provision is None:
            missing = resolved.provision().removeprefix(label).strip()
            return Verdict("not_found", citation, f"{act.name} {label} exists but has no {missing}", canonical, source)
        return Verdict("verified", citation, f"{act.name} {resolved.provision()} exists{note}", canonical, source)

    # --- cases ------------------------------------------------------------------------------

    def _verify_case(self, connection: Connection, citation: CaseCitation) -> Verdict:
        number = citation.case_number
        court = normalise_court(citation.court) if citation.court else None
        cited = replace(citation, court=court)
        problems = list(case_problems(cited))
        rows = self.lookups.cases_numbered(lambda: nullcontext(connection), number)
        at_court = [row for row in rows if court is None or row.court == court]
        if cited.date is not None and len(at_court) > 1:
            at_court = [row for row in at_court if row.decided_on == cited.date] or at_court
        for candidates in (at_court, rows):
            if len(candidates) == 1:
                return self._compare_case(cited, candidates[0], problems)
            if candidates:
                return Verdict("ambiguous", cited, f"{len(candidates)} decisions carry the number {number}",
                               candidates=tuple(_case_of_row(row).canonical() for row in candidates))
        canonical = cited.canonical() if cited.is_complete else None
        if problems:
            return Verdict("not_found", cited, "no such decision can exist: " + "; ".join(why for _, why in problems),
                           canonical)
        return self._absent_case(connection, cited, canonical)

    def _absent_case(self, connection: Connection, cited: CaseCitation, canonical: str | None) -> Verdict:
        number = cited.case_number
        court = cited.court or (CONSTITUTIONAL if number.code in CONSTITUTIONAL_CODES
                                else SUPREME if number.code in SUPREME_ONLY_CODES else None)
        if court is None:
            return Verdict("not_covered", cited, f"no decision {number} in the database, and without a court it "
                                                 "cannot say whether it covers it", canonical)
        coverage = self._coverage_of(connection, "case", court)
        if coverage is None:
            return Verdict("not_covered", cited, f"the database does not cover the {court}", canonical)
        starts, ends = coverage.starts_on, coverage.ends_on
        period = f"{format_date(starts) if starts else '…'} – {format_date(ends) if ends else '…'}"
        if cited.date is not None and ((starts and cited.date < starts) or (ends and cited.date > ends)):
            return Verdict("not_covered", cited, f"the database covers the {court} only over {period}", canonical)
        return Verdict("not_found", cited, f"the database covers the {court} over {period} and holds no {number}",
                       canonical)

    def _coverage_of(self, connection: Connection, kind: str, court: str) -> AnyRow | None:
        if not searchable(court):
            return None
        if (kind, court) not in self._coverage:
            self._coverage[kind, court] = connection.execute(_COVERAGE, {"kind": kind, "court": court}).first()
        return self._coverage[kind, court]

    @staticmethod
    def _compare_case(cited: CaseCitation, row: AnyRow, problems: list[tuple[str, str]]) -> Verdict:
        record = _case_of_row(row, cited.panel)
        mismatches = [
            Mismatch(name, str(mine), str(theirs)) for name, mine, theirs in (
                ("court", cited.court, record.court), ("delivery", cited.delivery, record.delivery),
                ("disposition", cited.disposition, record.disposition))
            if mine is not None and mine != theirs]
        if cited.date is not None and cited.date != record.date:
            mismatches.append(Mismatch("date", format_date(cited.date), format_date(row.decided_on)))
        if cited.panel != row.panel and (cited.panel is not None or row.panel == "전원합의체"):
            mismatches.append(Mismatch("panel", cited.panel or "(none)", row.panel or "(none)"))
        canonical = record.canonical()
        source = (f"{'헌재결정례일련번호' if row.court == CONSTITUTIONAL else '판례일련번호'} {row.source_id}"
                  if row.source_id else f"{row.source} record")
        if mismatches:
            differences = "; ".join(f"{m.field} is {m.database}, not {m.cited}" for m in mismatches)
            rules = "".join(f" ({why})" for field, why in problems if any(m.field == field for m in mismatches))
            return Verdict("mismatch", cited, f"{record.case_number} exists, but its {differences}{rules}",
                           canonical, source, tuple(mismatches))
        filled = [name for name in ("court", "date", "delivery", "disposition") if getattr(cited, name) is None]
        note = f"; completed from the database: {', '.join(filled)}" if filled else ""
        return Verdict("verified", cited, f"found {canonical}{note}", canonical, source)


def _case_of_row(row: AnyRow, cited_panel: str | None = None) -> CaseCitation:
    # 헌재 panels are optional in the canonical form: keep one only where the citation named it.
    panel = row.panel if row.panel == "전원합의체" or row.panel == cited_panel else None
    return CaseCitation(CaseNumber(row.case_year, row.case_code, row.case_serial, row.case_seat or None),
                        court=row.court, date=row.decided_on, delivery=row.delivery,
                        disposition=row.disposition, panel=panel)
