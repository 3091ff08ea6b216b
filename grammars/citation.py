"""The citation value types: what a citation *is*, independent of how it was written.

`ParsedCitation` is the one definition every package shares. Parsing (canonical or lenient)
produces these values; `canonical()` renders the single canonical string of
../shared/DESIGN.md. Fields a lenient parse could not find are None; `is_complete` says whether
`canonical()` can render the value.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import ClassVar, Literal

from grammars.errors import IncompleteCitationError

Delivery = Literal["선고", "자"]  # 선고 (pronounced judgment) or 자 (notified decision/order)
Disposition = Literal["판결", "결정", "명령"]
Panel = Literal["전원합의체", "전원재판부", "지정재판부"]
BackReference = Literal[
    "같은 법", "동법", "이 법", "법", "같은 조", "동조", "같은 항", "동항",
    # the document's own act, when it is a decree or a rule (`이 영 제4조`, `이 규칙 제3조`)
    "이 영", "이 규칙",
    # the 시행령/시행규칙 of the act cited before, and the short names of a 시행령/시행규칙 in context
    "같은 법 시행령", "같은 법 시행규칙", "동법 시행령", "동법 시행규칙", "영", "규칙",
    # the 시행령/시행규칙 (for 같은 규칙, the rule) cited before
    "같은 영", "같은 시행령", "동령", "동 시행령", "같은 시행규칙", "같은 규칙",
    # `위 제46조`: an article of the act cited before; `같은 제24호`, `같은 제3항`, `같은 제38조의3`: a provision
    # below what was cited before, at the level written first (statutes write them so)
    "위", "같은",
]


# Acts every court cites by another name than their title (DESIGN's canonical forms): the constitution,
# titled 대한민국헌법 in the statute book, is cited `헌법 제37조 제2항`.
CITED_NAMES: dict[str, str] = {"대한민국헌법": "헌법"}


def format_date(date: dt.date) -> str:
    """`2024. 7. 11.`: year, month and day each followed by a period, no zero padding."""
    return f"{date.year}. {date.month}. {date.day}."


def case_year(year: int) -> str:
    """A year as a case number writes it: two digits before 2000 (`95다…`), four from 2000 on."""
    return f"{year % 100:02d}" if year < 2000 else str(year)


@dataclass(frozen=True, slots=True)
class CaseNumber:
    """A 사건번호 such as `2024도4202`, `95다38677` or `(창원)2012노368`.

    `year` is always the full year (1995 for `95`); numbers filed before 2000 are written with
    two digits, from 2000 on with four.
    """

    year: int
    code: str
    serial: int
    seat: str | None = None  # 원외재판부 prefix, e.g. "창원"

    def __str__(self) -> str:
        prefix = f"({self.seat})" if self.seat else ""
        return f"{prefix}{case_year(self.year)}{self.code}{self.serial}"


@dataclass(frozen=True, slots=True)
class ParsedCitation:
    """Base of the two citation kinds; `kind` tells them apart without isinstance."""

    kind: ClassVar[Literal["case", "statute"]]

    @property
    def is_complete(self) -> bool:
        raise NotImplementedError

    def canonical(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class CaseCitation(ParsedCitation):
    """`대법원 2024. 7. 11. 선고 2024도4202 판결`, `대법원 2023. 1. 12.자 2022마6489 결정`."""

    kind: ClassVar[Literal["case"]] = "case"

    case_number: CaseNumber
    court: str | None = None
    date: dt.date | None = None
    delivery: Delivery | None = None
    disposition: Disposition | None = None
    panel: Panel | None = None

    @property
    def is_complete(self) -> bool:
        return None not in (self.court, self.date, self.delivery, self.disposition)

    def canonical(self) -> str:
        if not self.is_complete:
            missing = [name for name in ("court", "date", "delivery", "disposition") if getattr(self, name) is None]
            raise IncompleteCitationError(
                f"expected a complete case citation, got {self.case_number} without {', '.join(missing)}"
            )
        assert self.date is not None  # narrowed by is_complete
        when = f"{format_date(self.date)} 선고" if self.delivery == "선고" else f"{format_date(self.date)}자"
        panel = f" {self.panel}" if self.panel else ""
        return f"{self.court} {when} {self.case_number}{panel} {self.disposition}"


# 전문개정 and 전면개정 are the older words for 전부개정, as notes of the time wrote them.
AmendmentChange = Literal["제정", "개정", "일부개정", "전부개정", "전문개정", "전면개정", "폐지", "타법개정"]


@dataclass(frozen=True, slots=True)
class AmendmentNote:
    """The version note of a 구법 citation: `(2002. 1. 26. 법률 제6626호로 전부개정되기 전의 것)` names
    the version in force just before that amendment (`before=True`); `(… 법률 제3754호로 전부개정된
    것)` the version it made (`before=False`); `(… 법률 제9932호로 개정되어 2011. 1. 1. 시행되기 전의
    것)` the version in force before that amendment took effect (`effective_on`, `before=True`).
    `law_kind` is what the number counts (법률, 대통령령, 총리령, …부령); `promulgated_on` is None when
    the note gives the number alone. Real notes often name the amendment that made the version first
    (`…로 개정되고, 2010. 4. 15. 법률 제10257호로 개정되기 전의 것`): those are `earlier`, in order, each
    a note of the version it made (`before=False`). An amendment that renamed the act names the new
    title (`1998. 12. 28. 법률 제5584호 조세특례제한법으로 전문개정되기 전의 것`): `renamed_to`."""

    law_kind: str
    number: int
    change: AmendmentChange
    before: bool
    promulgated_on: dt.date | None = None
    effective_on: dt.date | None = None
    earlier: tuple[AmendmentNote, ...] = ()
    renamed_to: str | None = None

    def __str__(self) -> str:
        if self.effective_on is not None:
            ending = f"되어 {format_date(self.effective_on)} 시행되기 전의 것"
        else:
            ending = "되기 전의 것" if self.before else "된 것"
        clauses = [f"{note._clause()}되고, " for note in self.earlier]
        return f"({''.join(clauses)}{self._clause()}{ending})"

    def _clause(self) -> str:
        date = f"{format_date(self.promulgated_on)} " if self.promulgated_on else ""
        into = f" {self.renamed_to}{_to(self.renamed_to)}" if self.renamed_to else "로"
        return f"{date}{self.law_kind} 제{self.number}호{into} {self.change}"


def _to(word: str) -> str:
    """The particle `(으)로` after `word`: 로 after a vowel or ㄹ (`법률로`), 으로 after any other final
    consonant (`조세특례제한법으로`)."""
    final = (ord(word[-1]) - 0xAC00) % 28 if "가" <= word[-1] <= "힣" else 0
    return "로" if final in (0, 8) else "으로"


@dataclass(frozen=True, slots=True)
class Supplement:
    """The 부칙 a provision belongs to: that of the amendment promulgated on `promulgated_on` as `law_kind`
    제`number`호, either of which the text may leave out (`부칙(2005. 5. 26.) 제3항`, `법률 제7428호 부칙
    제2조`), or both (`부칙 제3조`). Rendered as courts write it: `부칙(2005. 3. 31. 법률 제7427호)`."""

    promulgated_on: dt.date | None = None
    law_kind: str | None = None
    number: int | None = None

    def __str__(self) -> str:
        parts = [format_date(self.promulgated_on)] if self.promulgated_on else []
        if self.number is not None:
            parts.append(f"{self.law_kind} 제{self.number}호" if self.law_kind else f"제{self.number}호")
        return f"부칙({' '.join(parts)})" if parts else "부칙"


@dataclass(frozen=True, slots=True)
class StatuteCitation(ParsedCitation):
    """`민법 제750조`, `근로기준법 제23조의2 제1항 제2호 가목`, and 구법:
    `구 민사소송법(2002. 1. 26. 법률 제6626호로 전부개정되기 전의 것) 제263조`, `구 소득세법 제94조`.

    `act` is None for an unresolved back-reference (`같은 법 제3조`, `동조`); `back_reference`
    keeps which one was written. `article` is None only for `동조`/`같은 조` forms. `former` is the
    written `구` (a version other than the one in force; never dropped) and `amendment` the version
    note, if any: a note without `구` (`…로 전부개정된 것`) names a version too. `supplement` says the
    provision is one of a 부칙 (`민법 부칙(2005. 3. 31. 법률 제7427호) 제2조`), whose short ones number
    their paragraphs only (`부칙(2005. 5. 26.) 제3항`: `article` None).
    """

    kind: ClassVar[Literal["statute"]] = "statute"

    act: str | None
    article: int | None
    article_branch: int | None = None  # 제3조의2 -> 2
    paragraph: int | None = None  # 제1항
    item: int | None = None  # 제2호
    item_branch: int | None = None  # 제3호의2 -> 2
    subitem: str | None = None  # 가목 -> "가"
    back_reference: BackReference | None = None
    former: bool = False
    amendment: AmendmentNote | None = None
    supplement: Supplement | None = None

    @property
    def is_complete(self) -> bool:
        if self.act is None:
            return False
        return self.article is not None or (self.supplement is not None and self.paragraph is not None)

    def canonical(self) -> str:
        if not self.is_complete:
            raise IncompleteCitationError(
                f"expected a statute citation with an act and an article, got {self!r}"
            )
        return f"{self.act_reference()} {self.provision()}"

    def act_reference(self) -> str:
        """The act as cited, with its version: `구 민사소송법(2002. 1. 26. 법률 제6626호로 …의 것)`, and its
        부칙: `민법 부칙(2005. 3. 31. 법률 제7427호)`."""
        former = "구 " if self.former else ""
        note = str(self.amendment) if self.amendment else ""
        name = CITED_NAMES.get(self.act, self.act) if self.act else ""
        supplement = f" {self.supplement}" if self.supplement and name else str(self.supplement or "")
        return f"{former}{name}{note}{supplement}"

    def provision(self) -> str:
        """The part after the act's name: `제23조의2 제1항 제2호 가목`; a 부칙's paragraph alone: `제3항`."""
        paragraphs_only = self.article is None and self.supplement is not None
        branch = f"의{self.article_branch}" if self.article_branch else ""
        parts = [] if paragraphs_only else [f"제{self.article}조{branch}"]
        if self.paragraph is not None:
            parts.append(f"제{self.paragraph}항")
        if self.item is not None:
            parts.append(f"제{self.item}호" + (f"의{self.item_branch}" if self.item_branch else ""))
        if self.subitem is not None:
            parts.append(f"{self.subitem}목")
        return " ".join(parts)
