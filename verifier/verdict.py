"""What a verification found, as a value. Field names match streaming's `Verdict` protocol
(status, canonical, source, detail), so the composition root adapts one to the other field by field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from grammars import ParsedCitation

VerdictStatus = Literal["verified", "mismatch", "not_found", "ambiguous", "not_covered"]
STATUSES: tuple[VerdictStatus, ...] = ("verified", "mismatch", "not_found", "ambiguous", "not_covered")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A field the citation gives differently from the database (`database` is what it holds)."""

    field: str
    cited: str
    database: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """`verified`: it exists as cited. `mismatch`: it exists, but `mismatches` differ.
    `not_found`: the database covers it and it is not there (or it cannot exist: `detail` says why).
    `ambiguous`: several records fit (`candidates`). `not_covered`: the database does not cover that
    court, period or statute, so absence says nothing.

    `canonical` is the canonical form of the record found (else of the citation, when complete);
    `source` names the record: 법령ID/MST and 조문, or 판례일련번호.
    """

    status: VerdictStatus
    citation: ParsedCitation
    detail: str
    canonical: str | None = None
    source: str | None = None
    mismatches: tuple[Mismatch, ...] = ()
    candidates: tuple[str, ...] = ()

    @property
    def verified(self) -> bool:
        return self.status == "verified"
