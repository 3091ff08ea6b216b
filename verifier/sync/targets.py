"""What each sync target lists, fetches and imports, one item per call on the caller's transaction.

    target         list (lawSearch.do)                 body (lawService.do)    imported as
    law            target=eflaw, ancYd (공포일자 window), target=law&MST=…      a new act version (history
                   nw (status), sort=dasc                                      tables) and the act's current
                                                                               articles (importers.store)
    prec           target=prec, prncYd, curt            target=prec&ID=…        a case (importers.store)
    detc           target=detc, edYd                    target=detc&ID=…        a case of 헌법재판소
    abbreviations  target=lsAbrv, stdDt/endDt           (the list row)          an official alias

Statute versions are listed from `eflaw`, which lists every version of an act (현행연혁코드 연혁,
시행예정, 현행), not from `law`, which lists the acts in force: two amendments of one act between
two syncs are two versions, each imported on its own, oldest first (`sort=dasc`, and a page's rows
put in 공포일자 order). eflaw lists a version once per 시행일자 it has; it is imported once, by MST,
its body being the version as promulgated (`lawService.do?target=law&MST=…`, which serves any
version, not only the one in force). A first sync (no start day) lists the versions in force and
those promulgated but not in force yet (nw=2,3): an act's earlier history comes from legalize-kr
(`citegen-admin import`); a sync from a start day lists every version promulgated since (nw=1,2,3).

Bodies are read by the importers' own law.go.kr reader (`importers.lawgo.read_xml`: DTDs refused,
streamed); its errors come back as `ResponseShapeError` naming the request. List pages are read
here with defusedxml, and a page whose root, `totalCnt` or row key is missing is a changed schema.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring
from sqlalchemy import Connection, select

from verifier.errors import ImportFileError, ShrinkError
from verifier.importers.history import ActHistory, write_act
from verifier.importers.lawgo import read_xml
from verifier.importers.legalize import ActVersion, ArticleText
from verifier.importers.records import ActRecord, AliasRecord, ArticleRecord, CaseRecord, Record, SkippedRow
from verifier.importers.store import RecordWriter
from verifier.models import ACTS, ALIASES, CASES, VERSIONS
from verifier.names import normalise_act_name, parse_date
from verifier.sync.client import ApiRequest
from verifier.sync.errors import ResponseShapeError

SOURCE = "law.go.kr sync"
_NO_RECORD_ROOT = "Law"  # <Law>일치하는 판례가 없습니다…</Law>
_WHOLE_TEXT_CHANGES = frozenset({"전부개정", "폐지", "타법폐지", "폐지제정"})  # 제개정구분 that replace every article


@dataclass(frozen=True, slots=True)
class Outcome:
    """What importing one item did: `added`, `updated` or `skipped` (then `reason` says why)."""

    kind: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Item:
    """One list row, the body fetched for it (None for targets whose row is the item), and the
    request each came from (key redacted), for messages."""

    row: dict[str, str]
    body: bytes | None
    request: str
    workdir: Path


@dataclass(frozen=True, slots=True)
class ListPage:
    total: int
    rows: list[dict[str, str]]


Window = Callable[[dt.date | None, dt.date], list[tuple[str, str]]]  # (since, until) -> list parameters


def _range(parameter: str) -> Window:
    """`parameter=YYYYMMDD~YYYYMMDD` (ancYd, prncYd, edYd); no `since`: from before anything law.go.kr holds."""
    def window(since: dt.date | None, until: dt.date) -> list[tuple[str, str]]:
        return [(parameter, f"{since or dt.date(1900, 1, 1):%Y%m%d}~{until:%Y%m%d}")]
    return window


def _versions_promulgated(since: dt.date | None, until: dt.date) -> list[tuple[str, str]]:
    """eflaw's window (see the module docstring): by 공포일자, oldest first; every status from a
    start day, the versions in force or scheduled without one."""
    return [("nw", "1,2,3" if since else "2,3"), *_range("ancYd")(since, until), ("sort", "dasc")]


def _promulgation_order(row: dict[str, str]) -> tuple[str, ...]:
    """A version's place among an act's: 공포일자, then MST (as importers.history sorts them), then
    시행일자 (the last row of a version listed per 시행일자 is the one it is imported from)."""
    return row.get("공포일자", ""), row.get("법령일련번호", "").zfill(12), row.get("시행일자", "")


def _registered_between(since: dt.date | None, until: dt.date) -> list[tuple[str, str]]:
    """The 약칭 registry's window: stdDt and endDt (등록일)."""
    return [*([("stdDt", f"{since:%Y%m%d}")] if since else []), ("endDt", f"{until:%Y%m%d}")]


@dataclass(frozen=True, slots=True)
class Target:
    """One target: its list (`list_target`, the roots and row tags a page has, the date window),
    how a row names its item (`key_fields`, the first required in every row), and the body request
    (`body_target` with `id_parameter`; None where the row is the item). An item `held` already is
    not fetched again. `lookback`: law.go.kr publishes many decisions weeks or months after their
    선고일자, so the list's window reaches back that far before the last run's end; what it lists
    again is held, and costs a list row, not a body. `order`: the order a page's rows are imported
    in (None: as listed)."""

    name: str
    list_target: str
    roots: tuple[str, ...]
    row_tags: tuple[str, ...]
    key_fields: tuple[str, ...]
    window: Window
    body_target: str | None
    id_parameter: str
    importer: Callable[[Connection, Item], Outcome]
    held: Callable[[Connection, Sequence[str]], set[str]] | None  # the listed keys the database holds
    lookback: dt.timedelta  # how far before the last run's end the next run lists again
    order: Callable[[dict[str, str]], tuple[str, ...]] | None = None

    @property
    def key(self) -> str:
        return self.key_fields[0]

    def list_request(self, page: int, size: int, since: dt.date | None, until: dt.date,
                     court: str | None) -> ApiRequest:
        params = [("target", self.list_target), ("display", str(size)), ("page", str(page)),
                  *self.window(since, until), *([("curt", court)] if court else [])]
        return ApiRequest("lawSearch.do", tuple(params))

    def body_request(self, row: dict[str, str]) -> ApiRequest:
        assert self.body_target is not None, "only targets with bodies have body requests"
        return ApiRequest("lawService.do", (("target", self.body_target), (self.id_parameter, row[self.key])))

    def item_key(self, row: dict[str, str]) -> str:
        return ":".join(row.get(field, "") for field in self.key_fields)[:40]

    def pending(self, rows: Sequence[dict[str, str]], done: set[str]) -> list[dict[str, str]]:
        """A page's rows not `done` yet, one per item (the last listed), in the target's order."""
        ordered = sorted(rows, key=self.order) if self.order is not None else rows
        last = {self.item_key(row): row for row in ordered}
        return [row for key, row in last.items() if key not in done]


# --- list pages -------------------------------------------------------------------------------

def _fields(element: Element) -> dict[str, str]:
    return {child.tag: (child.text or "").strip() for child in element}


def read_list(target: Target, body: bytes, shown: str) -> ListPage:
    try:
        root = fromstring(body, forbid_dtd=True)
    except (ParseError, DefusedXmlException) as error:
        raise ResponseShapeError(shown, f"expected a well-formed {target.roots[0]} list, got: {error} "
                                        "(a truncated or broken answer)") from error
    if root.tag == _NO_RECORD_ROOT:
        return ListPage(0, [])
    if root.tag not in target.roots:
        raise ResponseShapeError(shown, f"expected <{target.roots[0]}>, got <{root.tag}>: the API's schema changed")
    total_text = (root.findtext("totalCnt") or "").strip()
    if not total_text.isdigit():
        raise ResponseShapeError(shown, f"expected <totalCnt> with a number in <{root.tag}>, got "
                                        f"{total_text[:40]!r}: the API's schema changed")
    rows = [_fields(element) for element in root if element.tag in target.row_tags]
    for index, row in enumerate(rows, start=1):
        if not row.get(target.key, "").strip():
            raise ResponseShapeError(shown, f"expected <{target.key}> in every <{target.row_tags[0]}>, got row "
                                            f"{index} without it (fields: {', '.join(list(row)[:8])}): the API's "
                                            "schema changed")
    return ListPage(int(total_text), rows)


# --- bodies -------------------------------------------------------------------------------------

# What a body must hold to be read as the API documents it; a body without one is a changed schema
# (a body of the shape with an empty 사건번호 is a row law.go.kr lacks data for: skipped, said why).
_REQUIRED = {"PrecService": ("사건번호", "선고일자", "법원명"), "DetcService": ("사건번호", "종국일자"),
             "법령": ("기본정보/법령ID", "조문")}


def _records(item: Item, name: str) -> list[Record]:
    """The body read by the importers' law.go.kr reader; its errors name the request."""
    assert item.body is not None, "a body target's item carries its body"
    path = item.workdir / f"{name}.xml"
    path.write_bytes(item.body)
    try:
        records = list(read_xml(path))
    except ImportFileError as error:
        where = f" at {error.position}" if error.position else ""
        raise ResponseShapeError(item.request, f"{error.problem}{where}") from error
    finally:
        path.unlink(missing_ok=True)
    root = fromstring(item.body, forbid_dtd=True)  # read_xml has read it: well-formed, no DTD
    missing = [field for field in _REQUIRED.get(root.tag, ()) if root.find(field) is None]
    if missing:
        raise ResponseShapeError(item.request, f"expected <{missing[0]}> in <{root.tag}>, got a body without it: "
                                               "the API's schema changed")
    return records


def _import_case(connection: Connection, item: Item, courts: frozenset[str]) -> Outcome:
    records = _records(item, "case")
    cases = [record for record in records if isinstance(record, CaseRecord)]
    if not cases:
        why = next((record.reason for record in records if isinstance(record, SkippedRow)),
                   "law.go.kr has no body for it")
        return Outcome("skipped", why)
    case = cases[0]
    if courts and case.court not in courts:
        return Outcome("skipped", f"court {case.court} not asked for")
    number = case.case_number
    held = connection.execute(select(CASES.c.id).where(
        CASES.c.court == case.court, CASES.c.case_year == number.year, CASES.c.case_code == number.code,
        CASES.c.case_serial == number.serial, CASES.c.case_seat == (number.seat or ""))).first()
    writer = RecordWriter(connection, SOURCE)
    writer.write(case)
    writer.finish()
    return Outcome("updated" if held else "added")


@dataclass(frozen=True, slots=True)
class _BodyExtras:
    """What a statute body holds beyond the importer's records: each article's text (조문내용, then
    its 항/호/목 lines) by (조문번호, 가지번호), the 기본정보 fields (공포번호, 제개정구분), and the
    부칙 blocks as (heading, text), the heading being the block's first line (`부칙 <제8974호,2008.3.21>`)."""

    texts: dict[tuple[int, int], str]
    info: dict[str, str]
    supplements: tuple[tuple[str, str], ...]


_TEXT_TAGS = frozenset({"조문내용", "항내용", "호내용", "목내용"})


def _body_extras(body: bytes) -> _BodyExtras:
    root = fromstring(body, forbid_dtd=True)  # read_xml has read it already: well-formed, no DTD
    basic = root.find("기본정보")
    texts: dict[tuple[int, int], str] = {}
    for unit in root.iter("조문단위"):
        if (unit.findtext("조문여부") or "").strip() != "조문":
            continue
        number, branch = (unit.findtext("조문번호") or "").strip(), (unit.findtext("조문가지번호") or "0").strip()
        if not number.isdigit():
            continue
        lines = [(node.text or "").strip() for node in unit.iter() if node.tag in _TEXT_TAGS]
        texts[int(number), int(branch) if branch.isdigit() else 0] = "\n".join(line for line in lines if line)
    supplements = []
    for block in root.iter("부칙내용"):
        heading, _, text = "".join(block.itertext()).strip().partition("\n")
        if heading:
            supplements.append((heading.strip(), text.strip()))
    return _BodyExtras(texts, _fields(basic) if basic is not None else {}, tuple(supplements))


def _import_law(connection: Connection, item: Item) -> Outcome:
    records = _records(item, "law")
    act = next((record for record in records if isinstance(record, ActRecord)), None)
    if act is None:
        return Outcome("skipped", "law.go.kr has no body for this MST")
    mst = act.mst or int(item.row["법령일련번호"])
    assert item.body is not None
    extras = _body_extras(item.body)
    number = extras.info.get("공포번호", "")
    articles = tuple(ArticleText(record.number, record.branch, record.title, record.status == "삭제",
                                 extras.texts.get((record.number, record.branch), ""), record.provisions)
                     for record in records if isinstance(record, ArticleRecord))
    version = ActVersion(
        law_id=act.law_id, mst=mst, name=act.name, kind=act.kind or "", promulgated_on=act.promulgated_on,
        promulgation_number=int(number) if number.isdigit() else None, effective_on=act.effective_on,
        status=item.row.get("현행연혁코드") or "현행", change=extras.info.get("제개정구분") or None,
        origin=f"law.go.kr MST {mst}", articles=articles, supplements=extras.supplements)
    outcome = write_act(connection, ActHistory(act.law_id, [version]))
    if outcome.skipped or not outcome.versions_added:
        return Outcome("skipped", outcome.skipped or f"version MST {mst} is held already")
    # The act's current articles: this version is its newest. A 전부개정 (or a repeal) replaces the
    # whole text, so dropping articles is what it does; any other amendment keeps a deleted article
    # as a `삭제` row, and a body of one that drops many is refused as mis-shaped.
    writer = RecordWriter(connection, SOURCE, allow_shrink=version.change in _WHOLE_TEXT_CHANGES)
    try:
        for record in records:
            writer.write(record)
        writer.finish()
    except ShrinkError as error:
        raise ResponseShapeError(item.request, f"a {version.change or '개정'} of {act.name} that drops articles "
                                               f"without keeping them as 삭제 rows: {error.dropped}") from error
    return Outcome("added")


def _import_abbreviation(connection: Connection, item: Item) -> Outcome:
    alias = normalise_act_name(item.row.get("법령약칭명", ""))
    name = normalise_act_name(item.row.get("법령명한글", ""))
    if not alias or not name:
        return Outcome("skipped", "the row has no 법령약칭명 or 법령명한글")
    act_ids = connection.execute(select(ACTS.c.id).where(ACTS.c.name == name)).scalars().all()
    if not act_ids:
        return Outcome("skipped", "no act of that name in the database (sync law first)")
    held = connection.execute(select(ALIASES.c.id).where(ALIASES.c.alias == alias,
                                                         ALIASES.c.act_id.in_(act_ids))).first()
    writer = RecordWriter(connection, SOURCE)
    writer.write(AliasRecord(alias, name, official=True))
    writer.finish()
    return Outcome("updated" if held else "added")


def _held_versions(connection: Connection, msts: Sequence[str]) -> set[str]:
    numbers = [int(mst) for mst in msts if mst.isdigit()]
    return {str(mst) for mst in connection.execute(select(VERSIONS.c.mst).where(VERSIONS.c.mst.in_(numbers))).scalars()}


def _held_cases(connection: Connection, ids: Sequence[str]) -> set[str]:
    return set(connection.execute(select(CASES.c.source_id).where(CASES.c.source_id.in_(list(ids)))).scalars()) - {None}


def targets(courts: frozenset[str] = frozenset()) -> dict[str, Target]:
    """The targets by name; `courts` narrows 판례 to these courts (full names)."""
    def cases(connection: Connection, item: Item) -> Outcome:
        return _import_case(connection, item, courts)

    year, month = dt.timedelta(days=365), dt.timedelta(days=30)
    return {
        "law": Target("law", "eflaw", ("LawSearch",), ("law",), ("법령일련번호",), _versions_promulgated, "law",
                      "MST", _import_law, _held_versions, month, _promulgation_order),
        "prec": Target("prec", "prec", ("PrecSearch",), ("prec",), ("판례일련번호",), _range("prncYd"), "prec", "ID",
                       cases, _held_cases, year),
        "detc": Target("detc", "detc", ("DetcSearch",), ("Detc", "detc"), ("헌재결정례일련번호",), _range("edYd"),
                       "detc", "ID", cases, _held_cases, year),
        # the registry's item tag is <law> (korean-law-mcp CHANGELOG 4.7.5); its root is not documented
        "abbreviations": Target("abbreviations", "lsAbrv", ("LsAbrvSearch", "LawSearch"), ("law",),
                                ("법령ID", "법령약칭명"), _registered_between, None, "", _import_abbreviation, None,
                                month),
    }


def parse_day(text: str) -> dt.date:
    """`2024-07-11` or `20240711`; raises ValueError naming the text."""
    day = parse_date(text)
    if day is None:
        raise ValueError(f"expected a date such as 2024-07-11, got {text!r}")
    return day


def describe(row: dict[str, Any]) -> str:
    """A row in a few words for the progress line."""
    return str(row.get("사건번호") or row.get("법령명한글") or row.get("사건명") or "")[:40]
