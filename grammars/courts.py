"""Korean courts whose decisions are cited: names, kinds, parents and the abbreviations drafts use.

Source: ../shared/reference/legal-citations.md §1.5 (current courts, mid-2026). 시·군법원 are left
out: their decisions are almost never cited, and their names would only widen the anchor set.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class CourtKind(str, Enum):
    SUPREME = "대법원"
    CONSTITUTIONAL = "헌법재판소"
    HIGH = "고등법원"
    HIGH_OUT_OF_SEAT = "원외재판부"
    PATENT = "특허법원"
    ADMINISTRATIVE = "행정법원"
    REHABILITATION = "회생법원"
    FAMILY = "가정법원"
    FAMILY_BRANCH = "가정법원 지원"
    DISTRICT = "지방법원"
    DISTRICT_BRANCH = "지방법원 지원"
    HISTORICAL = "폐지된 법원"


@dataclass(frozen=True, slots=True)
class Court:
    """A court as it is named in a canonical citation (`수원지방법원 안산지원`, with its space)."""

    name: str
    kind: CourtKind
    parent: str | None = None
    abbreviations: tuple[str, ...] = ()
    seat: str | None = None  # the 원외재판부 prefix written before its case numbers, e.g. "춘천"


def _abbreviate(name: str) -> tuple[str, ...]:
    # 서울고등법원 -> 서울고법, 서울중앙지방법원 -> 서울중앙지법, 서울행정법원 -> 서울행법, ...
    for long, short in (("고등법원", "고법"), ("지방법원", "지법"), ("행정법원", "행법"),
                        ("가정법원", "가법"), ("회생법원", "회생법원")):
        if name.endswith(long) and short != long:
            return (name[: -len(long)] + short,)
    return ()


def _branches(parent: str, kind: CourtKind, places: str) -> list[Court]:
    parent_short = _abbreviate(parent)
    return [
        Court(f"{parent} {place}지원", kind, parent,
              tuple(f"{short} {place}지원" for short in parent_short))
        for place in places.split()
    ]


_HIGH_SEATS = {"서울": ["춘천", "인천"], "대전": ["청주"], "대구": [], "부산": ["창원", "울산"],
               "광주": ["전주", "제주"], "수원": []}
_FAMILY_BRANCHES = {"인천": "부천", "수원": "성남 여주 평택 안산 안양", "대전": "홍성 논산 천안 공주 서산",
                    "대구": "안동 경주 포항 김천 상주 의성 영덕", "광주": "목포 장흥 순천 해남"}
_DISTRICTS = {
    "서울중앙": "", "서울동부": "", "서울남부": "", "서울북부": "", "서울서부": "",
    "의정부": "고양 남양주", "인천": "부천", "수원": "성남 여주 평택 안산 안양",
    "춘천": "강릉 원주 속초 영월", "대전": "홍성 논산 천안 공주 서산", "청주": "충주 제천 영동",
    "대구": "서부 안동 경주 포항 김천 상주 의성 영덕", "부산": "동부 서부", "울산": "",
    "창원": "마산 진주 통영 밀양 거창", "광주": "목포 장흥 순천 해남", "전주": "군산 정읍 남원",
    "제주": "",
}


def _build() -> tuple[Court, ...]:
    courts = [
        Court("대법원", CourtKind.SUPREME),
        Court("헌법재판소", CourtKind.CONSTITUTIONAL, abbreviations=("헌재",)),
    ]
    for city, seats in _HIGH_SEATS.items():
        high = f"{city}고등법원"
        courts.append(Court(high, CourtKind.HIGH, abbreviations=_abbreviate(high)))
        # `서울고법(춘천)`, and as judgments name the court below: `부산고등법원(창원) 2013. 1. 10. 선고 2012노368
        # 판결`, `광주고등법원 제주재판부 2015.12.2. 선고 2014누535 판결`
        courts += [Court(f"{high}({seat}재판부)", CourtKind.HIGH_OUT_OF_SEAT, high,
                         (f"{city}고법({seat})", f"{high}({seat})", f"{high} {seat}재판부", f"{city}고법 {seat}재판부"),
                         seat) for seat in seats]
    courts.append(Court("특허법원", CourtKind.PATENT))
    courts.append(Court("서울행정법원", CourtKind.ADMINISTRATIVE, abbreviations=("서울행법",)))
    courts += [Court(f"{city}회생법원", CourtKind.REHABILITATION) for city in "서울 수원 부산 대전 대구 광주".split()]  # noqa: SIM905  words
    for city in "서울 인천 수원 대전 대구 부산 광주 울산".split():  # noqa: SIM905  a word list reads best as words
        family = f"{city}가정법원"
        courts.append(Court(family, CourtKind.FAMILY, abbreviations=_abbreviate(family)))
        courts += _branches(family, CourtKind.FAMILY_BRANCH, _FAMILY_BRANCHES.get(city, ""))
    for city, places in _DISTRICTS.items():
        district = f"{city}지방법원"
        courts.append(Court(district, CourtKind.DISTRICT, abbreviations=_abbreviate(district)))
        courts += _branches(district, CourtKind.DISTRICT_BRANCH, places)
    # Renamed or split courts whose decisions are still cited.
    courts += [Court("서울지방법원", CourtKind.HISTORICAL, abbreviations=("서울지법",)),
               Court("서울민사지방법원", CourtKind.HISTORICAL, abbreviations=("서울민사지법",)),
               Court("서울형사지방법원", CourtKind.HISTORICAL, abbreviations=("서울형사지법",))]
    return tuple(courts)


COURTS: tuple[Court, ...] = _build()
COURTS_BY_NAME: dict[str, Court] = {court.name: court for court in COURTS}
# 원외재판부 prefixes written before a case number: `(춘천)2012노368`.
OUT_OF_SEAT_PREFIXES: tuple[str, ...] = tuple(c.seat for c in COURTS if c.seat)
