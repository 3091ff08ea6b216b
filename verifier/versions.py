"""Point-in-time verification of statute citations against an act's versions (`act_versions`,
`article_spans`): which version a citation names, and what that version holds.

- A plain citation names the version in force on a date (the last, by sequence, whose 시행일자
  is on or before it; a version with no date fixed or a future one is not in force yet). What an
  earlier amendment not yet in force that day brought is not in it, though law.go.kr prints it in
  the text of the versions that take effect before that amendment does.
- Of acts sharing a name, a citation means the one enacted last among those with a version on the
  day, repealed or not (`acts_meant`).
- `구 X(… 법률 제N호로 개정되기 전의 것)` names the version before that amendment, `…개정된 것`
  the version it made; the note itself is checked against the act's real amendments.
- `구 X` without a note verifies if some version other than the one in force had the provision.
- An item cited without its 항 (`제2조제10호`) is the item of the one 항 that holds it.
- A plain citation to a provision that the version in force lacks but an earlier one had is
  `outdated`, with the `구` form that would verify.
- A citation by a name the act held once (`구 조세감면규제법 제56조`, the act today's 조세특례제한법) is
  checked against the versions that carried that name, and keeps it: `구 X` verifies if one of them
  had the provision; a plain `X` verifies where the version in force on its date carried the name,
  and is `outdated` after the rename, offering `구 X(… 전부개정되기 전의 것)`; a note must name a
  version under that name. Where no version held carries it (the book starts at the rename, the
  name known only from the renaming amendment's 부칙) the verdict is `not_covered`, never
  `not_found`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import ColumnElement, Connection, Subquery, and_, bindparam, case, func, or_, select

from grammars import AmendmentNote, StatuteCitation, format_date
from verifier.former_names import DeclaredName, unspaced
from verifier.models import SPANS, VERSIONS, AnyRow, structure_code
from verifier.verdict import Mismatch, ProvisionSource, Verdict

ADDRESS = "https://www.law.go.kr/LSW/lsInfoP.do?lsiSeq={mst}"
_VERSIONS = (select(VERSIONS.c.sequence, VERSIONS.c.mst, VERSIONS.c.name, VERSIONS.c.kind, VERSIONS.c.promulgated_on,
                    VERSIONS.c.promulgation_number, VERSIONS.c.effective_on, VERSIONS.c.status, VERSIONS.c.change)
             .where(VERSIONS.c.act_id == bindparam("act_id")).order_by(VERSIONS.c.sequence))
_SPANS = (select(SPANS.c.first, SPANS.c.last, SPANS.c.title, SPANS.c.deleted, SPANS.c.structure, SPANS.c.text)
          .where(SPANS.c.act_id == bindparam("act_id"), SPANS.c.number == bindparam("number"),
                 SPANS.c.branch == bindparam("branch")).order_by(SPANS.c.first))


def versions_of(connection: Connection, act_id: int) -> tuple[AnyRow, ...]:
    return tuple(connection.execute(_VERSIONS, {"act_id": act_id}).all())


def in_force(versions: Sequence[AnyRow], on: dt.date) -> AnyRow | None:
    current = None
    for version in versions:
        if version.effective_on is not None and version.effective_on <= on:
            current = version if current is None or version.sequence > current.sequence else current
    return current


def in_force_sequences(on: dt.date) -> Subquery:
    """`in_force` for every act at once, in SQL: (act_id, sequence) of the version in force on `on`,
    or of the earliest version held where the book starts after it (the verifier's fallback, see
    `StatuteHistory.verify`); an act enacted with its first version not yet in force has no row."""
    earliest_without_enactment = case((and_(VERSIONS.c.sequence == 1, or_(VERSIONS.c.change.is_(None),
                                                                             VERSIONS.c.change != "제정")), 1))
    sequence = func.coalesce(func.max(case((VERSIONS.c.effective_on <= on, VERSIONS.c.sequence))),
                             func.min(earliest_without_enactment))
    return (select(VERSIONS.c.act_id, sequence.label("sequence")).group_by(VERSIONS.c.act_id)
            .having(sequence.is_not(None)).subquery("in_force"))


REPEALING_CHANGES = ("폐지", "타법폐지")


def repealed(version: AnyRow) -> bool:
    """Repealed by the act itself (`폐지`) or by another act (`타법폐지`)."""
    return bool(version.change in REPEALING_CHANGES or version.status == "폐지")


def standing() -> ColumnElement[bool]:
    """`not repealed(version)` over `act_versions`, in SQL."""
    return ~or_(func.coalesce(VERSIONS.c.change, "").in_(REPEALING_CHANGES), VERSIONS.c.status == "폐지")


def provision_code(citation: StatuteCitation) -> str | None:
    """The structure code of the 항/호/목 a citation names (models.structure_code), or None."""
    if citation.paragraph is None and citation.item is None and citation.subitem is None:
        return None
    return structure_code(citation.paragraph or 0, citation.item or 0, citation.item_branch or 0,
                          citation.subitem or "")


def _has(span: AnyRow, code: str | None) -> bool:
    return not span.deleted and holds(span.structure.split(" "), code)


def holds(codes: Sequence[str], code: str | None) -> bool:
    """Whether an article with the provision `codes` (its structure) has the provision `code` (None:
    the article itself)."""
    if code is None:
        return True
    if code in codes:
        return True
    # `제2조제10호` of an article with numbered 항: statutes and judgments leave the 항 out where
    # one 항 alone holds the item (정보통신망법 제2조제1항제10호); any other reading names nothing.
    if code.startswith("0."):
        item = code.removeprefix("0.")
        return sum(1 for held in codes if held.partition(".")[2] == item) == 1
    return False


def amendment_numbered(versions: Sequence[AnyRow], number: int, kind: str | None,
                       promulgated_on: dt.date | None) -> AnyRow | None:
    """The version the amendment `kind` 제`number`호 made (any kind where None). A number may be given
    twice, as 부령 numbers restart when a ministry is renamed (보건복지부령 제408호 of 2007. 7. 25. and of
    2016. 6. 30.): the one promulgated on `promulgated_on` then, else the first."""
    numbered = [v for v in versions if v.promulgation_number == number and (kind is None or v.kind == kind)]
    return next((v for v in numbered if v.promulgated_on == promulgated_on), numbered[0] if numbered else None)


def version_label(version: AnyRow) -> str:
    number = f"{version.kind} 제{version.promulgation_number}호" if version.promulgation_number else version.kind
    date = format_date(version.promulgated_on) if version.promulgated_on else "?"
    return f"{date} {number}"


def _period(versions: Sequence[AnyRow], first: int, last: int) -> str:
    start = versions[first - 1].effective_on
    after = versions[last] if last < len(versions) else None
    end = f"until {format_date(after.effective_on)}" if after and after.effective_on else "to date"
    return f"from {format_date(start) if start else '?'} ({version_label(versions[first - 1])}) {end}"


def _renamed_otherwise(note: AmendmentNote, amendment: AnyRow) -> tuple[Mismatch, ...]:
    """The note's new title (`… 제5584호 조세특례제한법으로 전문개정`) where the amendment gave another."""
    if note.renamed_to is None or unspaced(note.renamed_to) == unspaced(amendment.name):
        return ()
    return (Mismatch("renamed to", note.renamed_to, amendment.name),)


@dataclass(frozen=True, slots=True)
class ActUnderTest:
    """The act a citation resolved to: its row (id, law_id, name) and its versions; `cited_as` the
    former name it was cited by, with the amendments whose 부칙 `declared` it (see former_names)."""

    row: AnyRow
    versions: tuple[AnyRow, ...]
    cited_as: str | None = None
    declared: tuple[DeclaredName, ...] = ()

    @property
    def name(self) -> str:
        """The name a verdict writes: the former name it was cited by, or its own."""
        return self.cited_as or str(self.row.name)


def acts_meant(acts: Sequence[ActUnderTest], citation: StatuteCitation, on: dt.date) -> list[ActUnderTest]:
    """The acts a name may denote when several share it (근로기준법 of 1953, repealed in 1997, and
    today's), in the order to try them: the one whose amendments hold the note's number; for a plain
    citation, or a note no act's amendments hold, the one in force on the day; for `구` without a
    note the one in force (its earlier versions are what `구` usually means), then the others, the
    later enacted first. Empty when the note or the date singles out none."""
    if len(acts) == 1:
        return [acts[0]]
    note = citation.amendment
    if note is not None:
        fitting = [act for act in acts if any(v.promulgation_number == note.number and v.kind == note.law_kind
                                              for v in act.versions)]
        if len(fitting) == 1:
            return fitting
    current = _in_force_under_the_name(acts, on)
    if note is not None:  # no act holds the note's amendment: checked against the one in force, to say so
        return [current] if current is not None and not fitting else []
    if not citation.former:
        return [current] if current is not None else []
    others = sorted((act for act in acts if act is not current), key=_enacted_on, reverse=True)
    return ([current] if current is not None else []) + others


def _in_force_under_the_name(acts: Sequence[ActUnderTest], on: dt.date) -> ActUnderTest | None:
    """Of acts sharing a name, the one the name denotes on `on`: of those with a version on that day,
    the one enacted last, repealed or not (None only on a tie). Where the statute book leaves an older
    act without its repeal (a 1948 군정법령 민사소송법 beside the 1960 법률) the later act is meant; once that
    one is repealed, the name denotes it still (its verdict `outdated`), never the older act again."""
    dated = [act for act in acts if in_force(act.versions, on) is not None]
    if len(dated) < 2:
        return dated[0] if dated else None
    enacted = sorted(dated, key=_enacted_on, reverse=True)
    return enacted[0] if _enacted_on(enacted[0]) > _enacted_on(enacted[1]) else None


def _enacted_on(act: ActUnderTest) -> dt.date:
    first = act.versions[0]
    return first.effective_on or first.promulgated_on or dt.date.min


class StatuteHistory:
    """Verdicts for one citation against one act with versions; `connection` answers span queries."""

    def __init__(self, connection: Connection, act: ActUnderTest, citation: StatuteCitation, on: dt.date,
                 note: str) -> None:
        self.connection = connection
        self.act = act
        self.citation = citation
        self.on = on
        self.note = note
        self.versions = act.versions
        self.code = provision_code(citation)
        branch = citation.article_branch or 0
        self.label = f"제{citation.article}조" + (f"의{branch}" if branch else "")
        self.spans = tuple(connection.execute(_SPANS, {"act_id": act.row.id, "number": citation.article,
                                                       "branch": branch}).all())

    # --- the verdicts -------------------------------------------------------------------------

    def verify(self) -> Verdict:
        if self.act.cited_as is not None:
            under_former_name = self._under_former_name(self.act.cited_as)
            if under_former_name is not None:
                return under_former_name
        if self.citation.amendment is not None:
            return self._with_note(self.citation.amendment)
        current = in_force(self.versions, self.on)
        first = self.versions[0]
        if current is None and not self._whole_history():  # the book starts after the version in force
            self.note += (f"; checked against the earliest version held ({version_label(first)}, in force from "
                          f"{_date(first.effective_on)}), as the database holds none in force on "
                          f"{format_date(self.on)}")
            current = first
        if self.citation.former:
            return self._former(current)
        if current is None:
            return self._verdict("not_found", f"{self.act.row.name} was not yet in force on {format_date(self.on)} "
                                              f"(in force from {_date(first.effective_on)})", None)
        if repealed(current):
            return self._gone(current, f"{self.act.row.name} was repealed by {version_label(current)}")
        span = self._span_in_force(current)
        if span is not None and _has(span, self.code):
            return self._verdict("verified", f"{current.name} {self._provision()} exists in the version in "
                                             f"force on {format_date(self.on)}{self.note}", current, span)
        why = (f"{current.name} {self.label} was deleted" if span is not None and span.deleted
               else f"{current.name} {self.label} has no {self._below_article()}" if span is not None
               else f"{current.name} has no {self.label}")
        return self._gone(current, why)

    def _gone(self, current: AnyRow, why: str) -> Verdict:
        earlier = [span for span in self.spans if span.first <= current.sequence and not self._pending(span, current)
                   and _has(span, self.code)]
        if not earlier:
            later = [span for span in self.spans if (span.first > current.sequence or self._pending(span, current))
                     and _has(span, self.code)]
            when = f"; a version not yet in force has it ({_period(self.versions, later[0].first, later[0].last)})" \
                if later else ""
            return self._verdict("not_found", f"{why} in the version in force on {format_date(self.on)}{when}", None)
        span = earlier[-1]
        changed = self.versions[span.last] if span.last < len(self.versions) else current
        return self._verdict(
            "outdated", f"{why} in the version in force on {format_date(self.on)}: it changed with "
                        f"{version_label(changed)} (in force from {_date(changed.effective_on)}); the cited "
                        f"provision existed {_period(self.versions, span.first, span.last)}",
            self.versions[span.last - 1], span, suggestion=self._former_form(self.act.name, changed))

    def _former_form(self, name: str, changed: AnyRow) -> str:
        """The citation as `구 name`, noted as the version before the amendment `changed` where it has a
        number: what an `outdated` verdict offers."""
        note = AmendmentNote(changed.kind, changed.promulgation_number, _change(changed.change), True,
                             changed.promulgated_on) if changed.promulgation_number else None
        return replace(self.citation, act=name, former=True, back_reference=None, amendment=note).canonical()

    def _former(self, current: AnyRow | None) -> Verdict:
        before = current.sequence if current is not None else len(self.versions) + 1
        earlier = [span for span in self.spans if span.first < before and _has(span, self.code)
                   and (current is None or not self._pending(span, current))]
        if not earlier and not self._whole_history():
            return self._verdict("not_covered", f"the database holds {self.act.row.name}'s versions from "
                                                f"{version_label(self.versions[0])} only, so it cannot say what "
                                                f"earlier ones held", None)
        if not earlier:
            return self._verdict("not_found", f"no version of {self.act.row.name} before the one in force on "
                                              f"{format_date(self.on)} has {self._provision()}", None)
        span = earlier[-1]
        version = self.versions[min(span.last, before - 1) - 1]
        return self._verdict("verified", f"구 {self.act.row.name} {self._provision()} existed "
                                         f"{_period(self.versions, span.first, span.last)}{self.note}", version, span)

    def _with_note(self, note: AmendmentNote) -> Verdict:
        amendment = amendment_numbered(self.versions, note.number, note.law_kind, note.promulgated_on)
        if amendment is None and not self._whole_history():
            return self._verdict("not_covered", f"the database holds {self.act.row.name}'s versions from "
                                                f"{version_label(self.versions[0])} only, so it cannot check "
                                                f"{note.law_kind} 제{note.number}호", None)
        if amendment is None:
            near = sorted((v for v in self.versions if v.promulgation_number), key=lambda v: abs(
                (v.promulgated_on - note.promulgated_on).days) if note.promulgated_on and v.promulgated_on else 0)
            truth = version_label(near[0]) if near else "none"
            return self._verdict("mismatch", f"{self.act.row.name} has no amendment {note.law_kind} 제{note.number}호; "
                                             f"the nearest is {truth}", None,
                                 mismatches=(Mismatch("amendment", f"{note.law_kind} 제{note.number}호", truth),))
        mismatches = []
        if note.promulgated_on is not None and note.promulgated_on != amendment.promulgated_on:
            mismatches.append(Mismatch("amendment date", format_date(note.promulgated_on),
                                       _date(amendment.promulgated_on)))
        if amendment.change and not _same_change(note.change, amendment.change):
            mismatches.append(Mismatch("amendment kind", note.change, amendment.change))
        mismatches.extend(_renamed_otherwise(note, amendment))
        target = amendment.sequence - 1 if note.before else amendment.sequence
        if target < 1:
            return self._verdict("not_found", f"{version_label(amendment)} made the first version of "
                                              f"{self.act.row.name}: there is none before it", None)
        version = self.versions[target - 1]
        span = self._span_at(target)
        if mismatches:
            differences = "; ".join(f"{m.field} is {m.database}, not {m.cited}" for m in mismatches)
            return self._verdict("mismatch", f"{self.act.row.name}'s amendment {note.law_kind} 제{note.number}호 "
                                             f"exists, but its {differences}", version, span,
                                 mismatches=tuple(mismatches))
        which = "before" if note.before else "made by"
        if span is None or not _has(span, self.code):
            return self._verdict("not_found", f"the version of {self.act.row.name} {which} {version_label(amendment)} "
                                              f"has no {self._provision()}", version)
        return self._verdict("verified", f"{self._provision()} exists in the version of {self.act.row.name} {which} "
                                         f"{version_label(amendment)} ({_period(self.versions, span.first, span.last)})"
                                         f"{self.note}", version, span)

    # --- former names -------------------------------------------------------------------------

    def _under_former_name(self, name: str) -> Verdict | None:
        """The verdict on a citation by a name the act held once, against the versions that carried
        it; None where the version the citation names carries it (then checked as any other)."""
        named = [version for version in self.versions if unspaced(version.name) == unspaced(name)]
        if not named:
            return self._before_the_book(name)
        if self.citation.amendment is not None:
            return self._noted_under(self.citation.amendment, name, named)
        current = in_force(self.versions, self.on)
        if not self.citation.former and current is not None and current.sequence in {v.sequence for v in named}:
            return None
        first, last = named[0].sequence, named[-1].sequence
        under_name = [span for span in self.spans
                      if span.first <= last and span.last >= first and _has(span, self.code)]
        carried = f"{name} is {self.act.row.name}'s name {_period(self.versions, first, last)}"
        if not under_name and first == 1 and not self._whole_history():
            return self._verdict("not_covered", f"{carried}, and the database holds none of its versions before "
                                                f"{version_label(self.versions[0])}: none of those held has "
                                                f"{self._provision()}", None)
        if not under_name:
            return self._verdict("not_found", f"{carried}, and no version under it has {self._provision()}", None)
        span = under_name[-1]
        version = self.versions[min(span.last, last) - 1]
        if self.citation.former:
            return self._verdict("verified", f"구 {name} {self._provision()} existed "
                                             f"{_period(self.versions, max(span.first, first), min(span.last, last))}"
                                             f"{self.note}", version, span)
        if current is None or current.sequence < first:
            return self._verdict("not_found", f"{carried}: not yet on {format_date(self.on)}", None)
        renaming = self.versions[last] if last < len(self.versions) else current
        return self._verdict("outdated", f"{carried}; {version_label(renaming)} renamed it {renaming.name} (in "
                                         f"force from {_date(renaming.effective_on)}), so on {format_date(self.on)} "
                                         f"{name} {self._provision()} is a former version's", version, span,
                             suggestion=self._former_form(name, renaming))

    def _noted_under(self, note: AmendmentNote, name: str, named: list[AnyRow]) -> Verdict:
        """`구 X(… 법률 제N호로 개정되기 전의 것)` by a former name X: the note is checked as any other, and the
        version it names must carry X."""
        verdict = self._with_note(note)
        checked = verdict.provision
        if checked is None or any(version.mst == checked.mst for version in named):
            return verdict
        truth = f"{checked.act} ({version_label(next(v for v in self.versions if v.mst == checked.mst))})"
        return replace(verdict, status="mismatch",
                       detail=f"the version the note names was titled {checked.act}, not {name}: {verdict.detail}",
                       mismatches=(*verdict.mismatches, Mismatch("act name", name, truth)))

    def _before_the_book(self, name: str) -> Verdict:
        """A name no version held carries: one the act's 부칙 says it replaced (see former_names). The
        versions under it are not in the book, so nothing about them can be checked but a note's
        amendment."""
        replaced = ", ".join(f"{self.versions[0].kind} 제{declared.number}호"
                             + (f" ({format_date(declared.promulgated_on)})" if declared.promulgated_on else "")
                             for declared in self.act.declared) or "an amendment"
        detail = (f"{name} is the name {self.act.row.name} (법령ID {self.act.row.law_id}) replaced by {replaced}, "
                  f"as its 부칙 says; the statute book holds its versions from {version_label(self.versions[0])} "
                  f"only, none under that name, so it cannot check {name} {self._provision()}")
        note = self.citation.amendment
        if note is not None and any(declared.number == note.number for declared in self.act.declared):
            detail += f" (the note's {note.law_kind} 제{note.number}호 is that amendment)"
            renaming = amendment_numbered(self.versions, note.number, None, note.promulgated_on)
            wrong_title = () if renaming is None else _renamed_otherwise(note, renaming)
            if renaming is not None and wrong_title:
                return self._verdict("mismatch", f"{version_label(renaming)} renamed {name} {renaming.name}, not "
                                                 f"{note.renamed_to}", None, mismatches=wrong_title)
        return self._verdict("not_covered", detail, None)

    # --- helpers ------------------------------------------------------------------------------

    def _whole_history(self) -> bool:
        """Whether the database holds the act from its 제정 (a tree import holds one version only)."""
        return bool(self.versions[0].change == "제정")

    def _span_at(self, sequence: int) -> AnyRow | None:
        return next((span for span in self.spans if span.first <= sequence <= span.last), None)

    def _span_in_force(self, current: AnyRow) -> AnyRow | None:
        """The article as in force on the day under the version `current`: its span, or the one before
        where that span came with an amendment not yet in force (see `_pending`)."""
        span = self._span_at(current.sequence)
        while span is not None and self._pending(span, current):
            span = self._span_at(span.first - 1)
        return span

    def _pending(self, span: AnyRow, current: AnyRow) -> bool:
        """Whether the span came with a version before `current` not yet in force on the day. law.go.kr
        prints an amendment promulgated but not yet in force in the text of the versions that take
        effect before it (민법 제428조의2, inserted by 법률 제13125호 in force from 2016. 2. 4., is in the
        text of 법률 제13710호, promulgated later and in force from 2016. 1. 6.)."""
        effective = self.versions[span.first - 1].effective_on
        return span.first < current.sequence and (effective is None or effective > self.on)

    def _provision(self) -> str:
        return replace(self.citation, act="").provision()

    def _below_article(self) -> str:
        return self._provision().removeprefix(self.label).strip()

    def _verdict(self, status: str, detail: str, version: AnyRow | None, span: AnyRow | None = None, *,
                 mismatches: tuple[Mismatch, ...] = (), suggestion: str | None = None) -> Verdict:
        resolved = replace(self.citation, act=self.act.name, back_reference=None)
        source = f"법령ID {self.act.row.law_id}" + (f", MST {version.mst}" if version is not None else "") + \
            f", {resolved.provision()}"
        provision = None if version is None else ProvisionSource(
            act=version.name, article=self.label, title=span.title if span is not None else None,
            text=span.text if span is not None else None, address=ADDRESS.format(mst=version.mst), mst=version.mst,
            kind=version.kind, promulgated_on=version.promulgated_on,
            promulgation_number=version.promulgation_number, effective_on=version.effective_on)
        return Verdict(status, self.citation, detail, resolved.canonical(), source, mismatches,  # type: ignore[arg-type]
                       provision=provision, suggestion=suggestion)


# The older words notes use for 전부개정 (as written until the 2000s), and 폐지 for a repeal by another act.
_CHANGE_SYNONYMS = {"전문개정": "전부개정", "전면개정": "전부개정", "타법폐지": "폐지"}


def _same_change(cited: str, held: str) -> bool:
    """Whether a note's amendment kind names the database's (`개정` alone names any kind)."""
    return cited == "개정" or _CHANGE_SYNONYMS.get(cited, cited) == _CHANGE_SYNONYMS.get(held, held)


def _date(value: dt.date | None) -> str:
    return format_date(value) if value else "no date fixed"


def _change(change: str | None) -> Any:
    return change if change in ("제정", "개정", "일부개정", "전부개정", "폐지", "타법개정") else "개정"
