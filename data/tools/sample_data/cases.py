"""Case records: the real decisions of catalogue.py plus seeded synthetic ones over every court level.

Synthetic numbers use a 사건부호 that fits the court (상고 codes at 대법원, 항소/항고 codes at
고등법원 and 지방법원 항소부, first-instance codes at 지방법원 and 지원, 허 at 특허법원, 헌X at
헌법재판소); dates are weekdays, 대법원/헌재 선고 on Thursdays as in practice.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field

from grammars import CaseCitation, CaseNumber, StatuteCitation
from grammars.parse import full_year
from sample_data.catalogue import (
    ADMIN_SUBJECTS,
    CIVIL_SUBJECTS,
    CONSTITUTION_BASIS,
    CONSTITUTIONAL,
    CRIMINAL_SUBJECTS,
    FAMILY_SUBJECTS,
    ORDER_SUBJECTS,
    PATENT_SUBJECTS,
    REAL_DECISIONS,
    TAX_SUBJECTS,
    Provision,
    RealDecision,
    Subject,
)

_HOLIDAYS = {(1, 1), (3, 1), (5, 5), (6, 6), (8, 15), (10, 3), (10, 9), (12, 25)}
_NUMBER = re.compile(r"^(?:\((?P<seat>[가-힣]+)\))?(?P<year>\d{2}|\d{4})(?P<code>[가-힣]+)(?P<serial>\d+)$")


@dataclass
class CaseRecord:
    serial: int  # 판례일련번호 / 헌재결정례일련번호
    court: str  # full name, as a canonical citation writes it
    court_label: str  # 법원명 as the record writes it (sometimes abbreviated, as law.go.kr does)
    number: CaseNumber
    date: dt.date
    disposition: str  # 판결 | 결정 | 명령
    title: str
    category: str
    provisions: tuple[Provision, ...]
    panel: str | None = None
    real: bool = False
    precedents: list[CaseRecord] = field(default_factory=list)

    @property
    def delivery(self) -> str:
        return "선고" if self.disposition == "판결" or self.is_constitutional else "자"

    @property
    def is_constitutional(self) -> bool:
        return self.court == "헌법재판소"

    def citation(self) -> CaseCitation:
        # 헌재 benches (전원재판부, 지정재판부) are left out of the canonical form, as in DESIGN.md.
        panel = "전원합의체" if self.panel == "전원합의체" else None
        return CaseCitation(self.number, self.court, self.date, self.delivery, self.disposition, panel)  # type: ignore[arg-type]


def parse_number(text: str) -> CaseNumber:
    match = _NUMBER.match(text)
    if not match:
        raise ValueError(f"expected a case number such as 2024도4202, got {text!r}")
    return CaseNumber(full_year(match["year"]), match["code"], int(match["serial"]), match["seat"])


def statute_citations(provisions: tuple[Provision, ...]) -> list[StatuteCitation]:
    return [StatuteCitation(act, article, branch or None) for act, article, branch in provisions]


def reference_statutes(provisions: tuple[Provision, ...]) -> str:
    """참조조문 as law.go.kr writes it: `민법 제750조, 제756조, 근로기준법 제23조` (act named once per run)."""
    parts: list[str] = []
    previous = None
    for citation in statute_citations(provisions):
        parts.append(citation.provision() if citation.act == previous else citation.canonical())
        previous = citation.act
    return ", ".join(parts)


def _weekday_on_or_after(day: dt.date, weekday: int | None) -> dt.date:
    while (weekday is not None and day.weekday() != weekday) or day.weekday() >= 5 \
            or (day.month, day.day) in _HOLIDAYS:
        day += dt.timedelta(days=1)
    return day


def _date(rng: random.Random, filed: int, lag_years: int, weekday: int | None) -> dt.date:
    # An appeal to 대법원 is decided in a later year than it was filed (lag_years >= 2 marks those).
    year = min(filed + rng.randint(1 if lag_years >= 2 else 0, lag_years), 2026)
    last_month = 10 if year == 2026 else 12
    start = dt.date(year, rng.randint(1, last_month), rng.randint(1, 28))
    return _weekday_on_or_after(start, weekday)


@dataclass(frozen=True)
class _Level:
    """One kind of synthetic record: which courts, codes, subjects and how many."""

    courts: tuple[str, ...]
    codes: tuple[str, ...]
    subjects: tuple[Subject, ...]
    count: int
    disposition: str = "판결"
    serial_range: tuple[int, int] = (1000, 99999)
    thursday: bool = False
    old_share: float = 0.0  # share of pre-2000 (two-digit year) numbers


_DISTRICTS = ("서울중앙지방법원", "서울동부지방법원", "서울남부지방법원", "서울북부지방법원", "서울서부지방법원",
              "의정부지방법원", "인천지방법원", "수원지방법원", "춘천지방법원", "대전지방법원", "청주지방법원",
              "대구지방법원", "부산지방법원", "울산지방법원", "창원지방법원", "광주지방법원", "전주지방법원",
              "제주지방법원")
_BRANCHES = ("수원지방법원 안산지원", "수원지방법원 성남지원", "의정부지방법원 고양지원", "인천지방법원 부천지원",
             "대구지방법원 서부지원", "부산지방법원 동부지원", "창원지방법원 진주지원", "춘천지방법원 강릉지원",
             "대전지방법원 천안지원", "광주지방법원 순천지원")
_HIGH = ("서울고등법원", "대전고등법원", "대구고등법원", "부산고등법원", "광주고등법원", "수원고등법원")
_FIRST_INSTANCE_CIVIL = CIVIL_SUBJECTS[:12] + CIVIL_SUBJECTS[13:]

LEVELS = (
    _Level(("대법원",), ("다",), CIVIL_SUBJECTS, 60, serial_range=(1000, 299999), thursday=True, old_share=0.2),
    _Level(("대법원",), ("도",), CRIMINAL_SUBJECTS, 45, serial_range=(100, 19999), thursday=True, old_share=0.2),
    _Level(("대법원",), ("두",), ADMIN_SUBJECTS + TAX_SUBJECTS, 22, serial_range=(100, 69999), thursday=True,
           old_share=0.0),
    _Level(("대법원",), ("므",), FAMILY_SUBJECTS, 8, serial_range=(100, 19999), thursday=True, old_share=0.25),
    _Level(("대법원",), ("후",), PATENT_SUBJECTS, 6, serial_range=(100, 12999), thursday=True),
    _Level(("대법원",), ("마",), ORDER_SUBJECTS["civil"], 10, "결정", (100, 7999), old_share=0.2),
    _Level(("대법원",), ("모",), ORDER_SUBJECTS["criminal"], 5, "결정", (100, 3999)),
    _Level(("대법원",), ("스",), ORDER_SUBJECTS["family"], 4, "결정", (100, 999)),
    _Level(("대법원",), ("그",), ORDER_SUBJECTS["civil"][3:], 2, "결정", (100, 999)),
    _Level(("대법원",), ("무",), ORDER_SUBJECTS["admin"], 2, "결정", (10, 99)),
    _Level(_HIGH, ("나",), _FIRST_INSTANCE_CIVIL, 14, serial_range=(10000, 99999)),
    _Level(_HIGH, ("노",), CRIMINAL_SUBJECTS, 10, serial_range=(100, 3999)),
    _Level(_HIGH, ("누",), ADMIN_SUBJECTS + TAX_SUBJECTS, 8, serial_range=(10000, 79999)),
    _Level(_HIGH, ("르",), FAMILY_SUBJECTS, 3, serial_range=(1000, 4999)),
    _Level(_HIGH, ("라",), ORDER_SUBJECTS["civil"], 3, "결정", (10000, 29999)),
    _Level(("특허법원",), ("허",), PATENT_SUBJECTS, 8, serial_range=(1000, 9999)),
    _Level(("서울행정법원",), ("구합", "구단"), ADMIN_SUBJECTS + TAX_SUBJECTS, 9, serial_range=(50000, 89999)),
    _Level(("서울행정법원",), ("아",), ORDER_SUBJECTS["admin"], 2, "결정", (10000, 13999)),
    _Level(_DISTRICTS, ("가합", "가단", "가소"), _FIRST_INSTANCE_CIVIL, 24, serial_range=(10000, 599999)),
    _Level(_DISTRICTS, ("고합", "고단"), CRIMINAL_SUBJECTS, 18, serial_range=(100, 9999)),
    _Level(_DISTRICTS, ("나",), CIVIL_SUBJECTS[:6], 4, serial_range=(10000, 99999)),
    _Level(_DISTRICTS, ("노",), CRIMINAL_SUBJECTS[:10], 4, serial_range=(100, 4999)),
    _Level(_DISTRICTS[5:], ("구합",), ADMIN_SUBJECTS + TAX_SUBJECTS, 3, serial_range=(1000, 9999)),
    _Level(_DISTRICTS, ("카합",), ORDER_SUBJECTS["civil"][1:2], 3, "결정", (10000, 29999)),
    _Level(_BRANCHES, ("가단", "가합", "가소"), _FIRST_INSTANCE_CIVIL, 12, serial_range=(1000, 99999)),
    _Level(_BRANCHES, ("고단", "고합"), CRIMINAL_SUBJECTS, 10, serial_range=(100, 4999)),
    _Level(("서울가정법원", "부산가정법원", "수원가정법원 안산지원"), ("드합", "드단"), FAMILY_SUBJECTS[:4], 6,
           serial_range=(1000, 59999)),
    _Level(("서울가정법원",), ("느합",), ORDER_SUBJECTS["family"], 2, "결정", (1000, 9999)),
)
_OUT_OF_SEAT = (("서울고등법원(춘천재판부)", "춘천", "나", CIVIL_SUBJECTS[0]),
                ("부산고등법원(창원재판부)", "창원", "노", CRIMINAL_SUBJECTS[0]))
_CONSTITUTIONAL_CODES = (("헌바", 18, "위헌소원"), ("헌마", 14, "위헌확인"), ("헌가", 6, "위헌제청"),
                         ("헌라", 2, "권한쟁의"), ("헌사", 2, "가처분신청"), ("헌아", 1, "재심"))
# Courts opened after 2005: no synthetic case of theirs is filed before they existed.
OPENED = {"수원고등법원": 2019, "수원가정법원 안산지원": 2016, "부산가정법원": 2009}
_ABBREVIATED_LABELS = {"서울고등법원": "서울고법", "서울중앙지방법원": "서울중앙지법", "서울행정법원": "서울행법",
                       "광주지방법원": "광주지법"}


class _Numbers:
    """Hands out distinct case numbers."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def draw(self, rng: random.Random, year: int, code: str, low: int, high: int, seat: str | None = None) -> CaseNumber:
        while True:
            number = CaseNumber(year, code, rng.randint(low, high), seat)
            if str(number) not in self.used:
                self.used.add(str(number))
                return number


def _synthetic(rng: random.Random, numbers: _Numbers, level: _Level, serial: int) -> CaseRecord:
    court = rng.choice(level.courts)
    code = rng.choice(level.codes)
    old = rng.random() < level.old_share
    filed = rng.randint(1990, 1998) if old else rng.randint(OPENED.get(court, 2005), 2025)
    if court == "서울고등법원" and code == "나" and filed >= 2013:
        low, high = 2000000, 2099999  # 서울고법's 7-digit civil appeal numbers
    else:
        low, high = level.serial_range
    if old:
        high = min(high, 59999)  # serials grew past five digits only in the 2000s
    subject = rng.choice(level.subjects)
    label = court
    if court in _ABBREVIATED_LABELS and rng.random() < 0.3:
        label = _ABBREVIATED_LABELS[court]
    supreme = court == "대법원"
    panel = "전원합의체" if supreme and level.disposition == "판결" and rng.random() < 0.06 else None
    provisions = tuple(rng.sample(subject.provisions, k=rng.randint(1, min(3, len(subject.provisions)))))
    return CaseRecord(serial, court, label, numbers.draw(rng, filed, code, low, high),
                      _date(rng, filed, 2 if supreme else 1, 3 if level.thursday else None),
                      level.disposition, subject.title, subject.category, provisions, panel)


def _constitutional(rng: random.Random, numbers: _Numbers, code: str, kind: str, serial: int,
                    acts_articles: list[Provision]) -> CaseRecord:
    filed = rng.randint(2005, 2024)
    target = rng.choice(acts_articles)
    target_text = StatuteCitation(target[0], target[1], target[2] or None).canonical()
    title = f"{target_text} {kind}" if code in ("헌바", "헌마", "헌가") else kind
    panel = "지정재판부" if code == "헌마" and rng.random() < 0.3 else "전원재판부"
    provisions = (target,) + tuple(rng.sample(CONSTITUTION_BASIS, k=2))
    return CaseRecord(serial, "헌법재판소", "헌법재판소", numbers.draw(rng, filed, code, 1, 1999),
                      _date(rng, filed, 3, 3), "결정", title, CONSTITUTIONAL, provisions, panel)


def _real(decision: RealDecision, serial: int, rng: random.Random) -> CaseRecord:
    subjects = {s.title: s for s in CIVIL_SUBJECTS + CRIMINAL_SUBJECTS + ADMIN_SUBJECTS + TAX_SUBJECTS}
    subject = subjects.get(decision.title)
    if decision.court == "헌법재판소":
        provisions = CONSTITUTION_BASIS[:2]
    elif subject:
        provisions = subject.provisions[:2]
    else:
        provisions = (rng.choice(CIVIL_SUBJECTS if decision.category == "민사" else CRIMINAL_SUBJECTS).provisions[0],)
    number = parse_number(decision.number)
    disposition = "결정" if decision.court == "헌법재판소" or number.code in ("마", "모", "스", "그") else "판결"
    panel = decision.panel or ("전원재판부" if decision.court == "헌법재판소" else None)
    return CaseRecord(serial, decision.court, decision.court, number, dt.date.fromisoformat(decision.date),
                      disposition, decision.title, decision.category, provisions, panel, real=True)


def build_cases(seed: int, citable: list[Provision]) -> list[CaseRecord]:
    """All case records, ordered by date; `citable` are provisions a 헌재 case may review."""
    rng = random.Random(f"{seed}:cases")
    numbers = _Numbers()
    records: list[CaseRecord] = []
    serial = iter(range(100001, 999999))
    for decision in REAL_DECISIONS:
        record = _real(decision, next(serial), rng)
        numbers.used.add(str(record.number))
        records.append(record)
    for level in LEVELS:
        records += [_synthetic(rng, numbers, level, next(serial)) for _ in range(level.count)]
    for court, seat, code, subject in _OUT_OF_SEAT:
        filed = rng.randint(2015, 2024)
        records.append(CaseRecord(next(serial), court, court, numbers.draw(rng, filed, code, 100, 1999, seat),
                                  _date(rng, filed, 1, None), "판결", subject.title, subject.category,
                                  subject.provisions[:2]))
    for code, count, kind in _CONSTITUTIONAL_CODES:
        records += [_constitutional(rng, numbers, code, kind, next(serial), citable) for _ in range(count)]
    records.sort(key=lambda r: (r.date, r.serial))
    _link_precedents(rng, records)
    return records


def _link_precedents(rng: random.Random, records: list[CaseRecord]) -> None:
    """참조판례: earlier 대법원/헌재 decisions on the same category (about half the records cite some)."""
    leading = [r for r in records if r.court in ("대법원", "헌법재판소")]
    for record in records:
        if rng.random() < 0.45:
            continue
        earlier = [r for r in leading if r.date < record.date and r.category == record.category]
        if earlier:
            record.precedents = rng.sample(earlier, k=min(len(earlier), rng.randint(1, 2)))
