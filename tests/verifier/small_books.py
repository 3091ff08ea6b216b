"""Statute books written in code: bundle lines (verifier/importers/book.py) holding a few real versions
of an act from the shipped book (data/law, law.go.kr via legalize-kr), cut down to the provisions a
test cites. For histories the legalize fixture lacks; a module of its own, as legalize_history is."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from verifier import Database, import_paths

# (mst, name, kind, promulgated_on, number, effective_on, change), dates ISO
Version = tuple[int, str, str, str, int, str, str]
# (number, branch, first, last, title, deleted, structure, text)
Span = tuple[int, int, int, int, str | None, bool, str, str | None]


@dataclass(frozen=True)
class Act:
    law_id: str
    versions: Sequence[Version]
    spans: Sequence[Span] = ()
    supplements: Sequence[tuple[int, str, str | None]] = field(default=())  # (mst, heading, text)

    def line(self) -> str:
        versions = [[mst, name, kind, promulgated, number, effective, "시행", change, f"test:{self.law_id}/{mst}"]
                    for mst, name, kind, promulgated, number, effective, change in self.versions]
        return json.dumps({"law_id": self.law_id, "versions": versions, "spans": [list(s) for s in self.spans],
                           "supplements": [list(s) for s in self.supplements]}, ensure_ascii=False)


def import_acts(database: Database, folder: Path, *acts: Act) -> None:
    """Import `acts` into `database` as one bundle written in `folder`."""
    bundle = folder / "small.book.jsonl"
    bundle.write_text("".join(act.line() + "\n" for act in acts), encoding="utf-8")
    (report,) = import_paths(database, [bundle])
    assert not report.skipped, report.skipped
