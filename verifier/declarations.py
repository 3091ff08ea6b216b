"""The short names a document declares for acts, and the version each was declared with.

`소득세법 시행령(이하 '영'이라 한다)` declares `영` for that 시행령 from then on;
`구 「상가건물 임대차보호법」(2018. 10. 16. 법률 제15791호로 개정되기 전의 것, 이하 ‘구 상가임대차법’이라고
한다)` declares `구 상가임대차법` for that act in that version: a later `구 상가임대차법 제10조의4` that writes
no note of its own cites the version before the 2018 amendment, not the act in force. `DocumentResolver`
keeps one `Declarations` per document.
"""

from __future__ import annotations

import re

from grammars import DECREE_KIND_OF_SHORT_NAME, StatuteCitation

SUBORDINATE_SUFFIXES = (" 시행령", " 시행규칙")
# A 시행규칙 a ministry issues for its part of an act: `농림축산식품부 소관 식품산업진흥법 시행규칙`.
_MINISTRYS_PART = re.compile(r"^\S+ 소관 ")


def parent_act(act: str) -> str:
    """`근로기준법 시행령` -> `근로기준법`: the 법률 a 시행령/시행규칙 carries out (a ministry's part of it too:
    `농림축산식품부 소관 식품산업진흥법 시행규칙` -> `식품산업진흥법`); any other act is its own."""
    return next((_MINISTRYS_PART.sub("", act.removesuffix(suffix)) for suffix in SUBORDINATE_SUFFIXES
                 if act.endswith(suffix)), act)


class Declarations:
    """Short name -> act (`acts`), and the citation that declared it where that one stated a version (`구`,
    a note)."""

    def __init__(self) -> None:
        self.acts: dict[str, str] = {}
        self._versions: dict[str, StatuteCitation] = {}

    def declare(self, short_name: str, act: str, declaring: StatuteCitation | None = None) -> None:
        """`short_name` stands for `act` from now on, in the version `declaring` states, if any. A name that
        cannot stand for it is no declaration: 영 names a 시행령, 규칙 a 시행규칙, 법 a 법률 (`소득세법(이하
        '영'…)`); any other name whatever act it is declared for."""
        kind = DECREE_KIND_OF_SHORT_NAME.get(short_name)
        if not (act.endswith(f" {kind}") if kind else parent_act(act) == act or short_name != "법"):
            return
        self.acts[short_name] = act
        if declaring is not None and (declaring.former or declaring.amendment):
            self._versions[short_name] = declaring
        else:  # declared again, without a version
            self._versions.pop(short_name, None)

    def version_of(self, citation: StatuteCitation, act: str, written: str) -> tuple[str, StatuteCitation] | None:
        """The short name a citation of `act` was written with (its act as the finder read it, or how its
        text begins) and the citation that declared that name with a version; None where the citation states
        a note of its own, or no such name was declared for `act`."""
        if citation.amendment is not None:
            return None
        for short_name, declaring in self._versions.items():
            if declaring.act == act and (citation.act == short_name or written.startswith(short_name)):
                return short_name, declaring
        return None
