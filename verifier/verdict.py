"""What a verification found, as a value. Field names match streaming's `Verdict` protocol
(status, canonical, source, detail), so the composition root adapts one to the other field by field."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # grammars loads where a verdict is made: `citegen-admin --help` reads STATUSES only
    from grammars import ParsedCitation

VerdictStatus = Literal["verified", "mismatch", "not_found", "ambiguous", "not_covered", "outdated"]
STATUSES: tuple[VerdictStatus, ...] = ("verified", "mismatch", "not_found", "ambiguous", "not_covered", "outdated")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A field the citation gives differently from the database (`database` is what it holds)."""

    field: str
    cited: str
    database: str


@dataclass(frozen=True, slots=True)
class ProvisionSource:
    """The cited article as the version checked has it: its title and text (None where the
    database keeps that version's structure only), the version's law.go.kr address and dates."""

    act: str
    article: str  # 제750조, 제23조의2
    title: str | None
    text: str | None
    address: str  # https://www.law.go.kr/LSW/lsInfoP.do?lsiSeq=<MST>
    mst: int
    kind: str  # 법률, 대통령령, …
    promulgated_on: dt.date | None
    promulgation_number: int | None
    effective_on: dt.date | None

    def version(self) -> str:
        """`법률 제17299호, 2020. 5. 19. 공포, 2020. 5. 19. 시행` — as much of it as the database holds."""
        from grammars import format_date  # noqa: PLC0415  see the TYPE_CHECKING import

        parts = [f"{self.kind} 제{self.promulgation_number}호" if self.promulgation_number else self.kind]
        if self.promulgated_on:
            parts.append(f"{format_date(self.promulgated_on)} 공포")
        if self.effective_on:
            parts.append(f"{format_date(self.effective_on)} 시행")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Verdict:
    """`verified`: it exists as cited. `mismatch`: it exists, but `mismatches` differ.
    `not_found`: the database covers it and it is not there (or it cannot exist: `detail` says why).
    `ambiguous`: several records fit (`candidates`). `not_covered`: the database does not cover that
    court, period or statute, so absence says nothing. `outdated`: the provision existed in an
    earlier version of the act but not in the version in force (deleted, changed or repealed):
    `detail` says when, `suggestion` gives the `구` citation that would verify.

    `canonical` is the canonical form of the record found (else of the citation, when complete);
    `source` names the record: 법령ID/MST and 조문, or 판례일련번호. `provision` is the cited
    article's title and text in the version checked, with its address and dates.
    """

    status: VerdictStatus
    citation: ParsedCitation
    detail: str
    canonical: str | None = None
    source: str | None = None
    mismatches: tuple[Mismatch, ...] = ()
    candidates: tuple[str, ...] = ()
    provision: ProvisionSource | None = None
    suggestion: str | None = None

    @property
    def verified(self) -> bool:
        return self.status == "verified"
