"""The sample data in data/: shapes of ../shared/reference/legal-citations.md §2.4, counts, and consistency.

Statute and case records must parse with the element names law.go.kr uses; every case number must
carry a real 사건부호 and a real weekday date; every 참조판례/참조조문 and every draft label must
point at something the data holds; and the generator must rewrite it all byte for byte.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from grammars import (
    CASE_CODES_BY_TEXT,
    CITED_NAMES,
    COURTS_BY_NAME,
    CaseCitation,
    CitationParser,
    StatuteCitation,
    parse_citation,
)

DATA = Path(__file__).resolve().parents[2] / "data"
LAW, CASES, DRAFTS = DATA / "synthetic_law", DATA / "cases", DATA / "drafts"

BASIC_INFO = {"법령ID", "공포일자", "공포번호", "언어", "법종구분", "법령명_한글", "법령명_한자", "법령명약칭",
              "제명변경여부", "한글법령여부", "소관부처", "시행일자", "제개정구분"}
ARTICLE_FIELDS = {"조문번호", "조문가지번호", "조문여부", "조문제목", "조문시행일자", "조문제개정유형", "조문이동이전",
                  "조문이동이후", "조문변경여부", "조문내용", "항"}
PARAGRAPH_FIELDS = {"항번호", "항내용", "호"}
ITEM_FIELDS = {"호번호", "호가지번호", "호내용", "목"}
SUBITEM_FIELDS = {"목번호", "목내용"}
PREC_FIELDS = ["판례정보일련번호", "사건명", "사건번호", "선고일자", "선고", "법원명", "법원종류코드", "사건종류명",
               "사건종류코드", "판결유형", "판시사항", "판결요지", "참조조문", "참조판례", "판례내용"]
DETC_FIELDS = ["헌재결정례일련번호", "종국일자", "사건번호", "사건명", "사건종류명", "사건종류코드", "재판부구분코드",
               "판시사항", "결정요지", "전문", "참조조문", "참조판례", "심판대상조문"]
PREC_LIST_FIELDS = ["판례일련번호", "사건명", "사건번호", "선고일자", "법원명", "법원종류코드", "사건종류명",
                    "사건종류코드", "판결유형", "선고", "데이터출처명", "판례상세링크"]
# 대법원 hears 상고/재항고/특별항고 (and 재심 of its own cases); 헌재 codes stay at 헌재; 허 at 특허법원.
SUPREME_CODES = {"다", "도", "두", "므", "후", "마", "모", "스", "그", "무", "재도"}
NUMBER = re.compile(r"^(?:\((?P<seat>[가-힣]+)\))?(?P<year>\d{2}|\d{4})(?P<code>[가-힣]+)(?P<serial>[1-9]\d{0,6})$")
PROVISION = re.compile(r"제(\d+)조(?:의(\d+))?(?: 제(\d+)항)?")


@functools.cache
def acts() -> dict[str, ET.Element]:
    bodies = {}
    for path in sorted((LAW / "body").glob("*.xml")):
        root = ET.parse(path).getroot()
        bodies[root.findtext("기본정보/법령명_한글")] = root
    return bodies


@functools.cache
def live_articles() -> set[tuple[str, int, int]]:
    """(act, article, branch) of every article that is not deleted."""
    found = set()
    for name, root in acts().items():
        for unit in root.iter("조문단위"):
            if unit.findtext("조문여부") == "조문" and unit.findtext("조문제개정유형") != "삭제":
                found.add((name, int(unit.findtext("조문번호")), int(unit.findtext("조문가지번호") or 0)))
    return found


@functools.cache
def case_bodies() -> list[ET.Element]:
    paths = sorted((CASES / "prec").glob("*.xml")) + sorted((CASES / "detc").glob("*.xml"))
    roots = [ET.parse(path).getroot() for path in paths]
    return [root for root in roots if root.tag in ("PrecService", "DetcService")]


def case_date(body: ET.Element) -> str:
    return body.findtext("선고일자") or body.findtext("종국일자") or ""


def draft_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp949")


@functools.cache
def labels() -> list[dict]:
    return [json.loads(line) for line in (DRAFTS / "labels.jsonl").read_text(encoding="utf-8").splitlines()]


def test_statute_bodies_use_the_law_go_kr_element_names() -> None:
    for name, root in acts().items():
        assert root.tag == "법령" and re.fullmatch(r"\d{19}", root.get("법령키", "")), name
        info = root.find("기본정보")
        assert {child.tag for child in info} == BASIC_INFO, name
        assert re.fullmatch(r"\d{6}", info.findtext("법령ID")), name
        assert info.find("법종구분").get("법종구분코드", "").startswith("A"), name
        for unit in root.iter("조문단위"):
            assert {child.tag for child in unit} <= ARTICLE_FIELDS, (name, unit.get("조문키"))
        for tag, allowed in (("항", PARAGRAPH_FIELDS), ("호", ITEM_FIELDS), ("목", SUBITEM_FIELDS)):
            assert all({child.tag for child in node} <= allowed for node in root.iter(tag)), (name, tag)


def test_statutes_cover_the_required_acts_and_shapes() -> None:
    kinds = [root.findtext("기본정보/법종구분") for root in acts().values()]
    assert kinds.count("법률") + kinds.count("헌법") >= 30 and kinds.count("법률") < len(kinds) - 2
    assert len(live_articles()) >= 5000
    units = [unit for root in acts().values() for unit in root.iter("조문단위")]
    assert any(unit.findtext("조문여부") == "전문" for unit in units)
    assert any(unit.findtext("조문제개정유형") == "삭제" for unit in units)
    assert any(unit.findtext("조문가지번호") for unit in units)
    assert any(True for root in acts().values() for _ in root.iter("호가지번호"))
    assert any(True for root in acts().values() for _ in root.iter("목"))


@pytest.mark.parametrize(("act", "last"), [("민법", 1118), ("형법", 372), ("대한민국헌법", 130)],
                         ids=["민법", "형법", "헌법"])
def test_major_acts_have_their_real_last_article(act: str, last: int) -> None:
    numbers = {number for name, number, _ in live_articles() if name == act}
    assert max(numbers) == last


def test_deleted_articles_read_as_law_go_kr_writes_them() -> None:
    deleted = [unit for unit in acts()["형법"].iter("조문단위") if unit.findtext("조문제개정유형") == "삭제"]
    assert {unit.findtext("조문내용") for unit in deleted} >= {"제241조 삭제 <2016. 1. 6.>"}


def test_lists_and_aliases_name_the_same_acts() -> None:
    listed = ET.parse(LAW / "LawSearch.xml").getroot()
    assert listed.tag == "LawSearch"
    assert {row.findtext("법령명한글") for row in listed.iter("law")} == set(acts())
    aliases = json.loads((LAW / "aliases.json").read_text(encoding="utf-8"))
    assert set(aliases.values()) <= set(acts()) and aliases["민소법"] == "민사소송법"
    for path in (LAW / "json").glob("*.json"):
        body = json.loads(path.read_text(encoding="utf-8"))["법령"]
        assert body["기본정보"]["법령명_한글"] in acts()


def test_statute_json_writes_a_lone_element_as_an_object() -> None:
    paths = sorted((LAW / "json").glob("*.json"))
    assert len(paths) >= 2
    units = [unit for path in paths
             for unit in json.loads(path.read_text(encoding="utf-8"))["법령"]["조문"]["조문단위"]]
    shapes = {type(unit["항"]) for unit in units if "항" in unit}
    assert shapes == {dict, list}


def test_case_records_use_the_law_go_kr_element_names() -> None:
    for body in case_bodies():
        expected = PREC_FIELDS if body.tag == "PrecService" else DETC_FIELDS
        assert [child.tag for child in body] == expected, body.findtext("사건번호")
    rows = list(ET.parse(CASES / "PrecSearch.xml").getroot().iter("prec"))
    assert rows and all([child.tag for child in row] == PREC_LIST_FIELDS for row in rows)
    assert ET.parse(CASES / "detc" / "DetcSearch.xml").getroot().find("detc") is not None
    assert ET.parse(CASES / "prec" / "no_record.xml").getroot().tag == "Law"


def test_case_json_has_both_list_shapes() -> None:
    many = json.loads((CASES / "json" / "PrecSearch.json").read_text(encoding="utf-8"))["PrecSearch"]["prec"]
    single = json.loads((CASES / "json" / "PrecSearch_single.json").read_text(encoding="utf-8"))["PrecSearch"]["prec"]
    detc = json.loads((CASES / "json" / "DetcSearch.json").read_text(encoding="utf-8"))["DetcSearch"]["Detc"]
    assert isinstance(many, list) and isinstance(single, dict) and isinstance(detc, list)


def test_case_counts_cover_every_court_level() -> None:
    bodies = case_bodies()
    assert len(bodies) >= 300
    courts = {body.findtext("법원명") or "헌법재판소" for body in bodies}
    for court in ("대법원", "헌법재판소", "특허법원", "서울행정법원", "서울고등법원(춘천재판부)"):
        assert court in courts
    assert any(name.endswith("지원") for name in courts)
    assert any(name.endswith("지방법원") for name in courts)
    assert any(body.findtext("판결유형") == "전원합의체 판결" for body in bodies)
    assert any(re.match(r"^\d{2}[가-힣]", body.findtext("사건번호")) for body in bodies)


def test_every_case_number_has_a_real_code_and_date() -> None:
    for body in case_bodies():
        number, court = body.findtext("사건번호"), body.findtext("법원명")
        match = NUMBER.match(number)
        assert match and match["code"] in CASE_CODES_BY_TEXT, number
        date = dt.datetime.strptime(case_date(body), "%Y%m%d").date()  # raises on 2월 30일
        assert date.weekday() < 5, (number, date)
        code = match["code"]
        if body.tag == "DetcService":
            assert code.startswith("헌"), number
        elif court == "대법원":
            assert code in SUPREME_CODES, number
        else:
            assert code not in SUPREME_CODES and not code.startswith("헌"), number
            assert (code == "허") == (court == "특허법원"), number
        if body.tag == "PrecService":
            assert (body.findtext("선고") == "선고") == body.findtext("판결유형").endswith("판결"), number


def _record_citations() -> set[str]:
    cited = set()
    for body in case_bodies():
        for citation in re.split(r", (?=대법원|헌법재판소|[가-힣]+법원)", body.findtext("참조판례") or ""):
            if citation:
                cited.add(citation)
    return cited


def test_reference_cases_are_canonical_and_point_at_records() -> None:
    numbers = {body.findtext("사건번호"): body for body in case_bodies()}
    cited = _record_citations()
    assert len(cited) >= 50
    for text in cited:
        parsed = parse_citation(text)
        assert isinstance(parsed, CaseCitation) and parsed.canonical() == text, text
        body = numbers[str(parsed.case_number)]
        assert case_date(body) == f"{parsed.date:%Y%m%d}", text


TITLES = {cited: title for title, cited in CITED_NAMES.items()}  # the acts courts cite by another name


def test_reference_statutes_exist_in_the_statute_data() -> None:
    for body in case_bodies():
        field = body.findtext("참조조문")
        for group in re.sub(r"\[\d+\] ", "", field).split(" / "):
            act = None
            for part in group.split(", "):
                head = PROVISION.search(part)
                act = part[: head.start()].strip() or act
                title = TITLES.get(act, act)  # 헌법 is the act titled 대한민국헌법
                assert (title, int(head[1]), int(head[2] or 0)) in live_articles(), (body.findtext("사건번호"), part)


def test_drafts_and_labels_meet_the_minimums() -> None:
    drafts = sorted(path for path in DRAFTS.iterdir() if path.suffix in (".txt", ".md"))
    assert len(drafts) >= 20 and {path.suffix for path in drafts} == {".txt", ".md"}
    not_utf8 = []
    for path in drafts:
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            not_utf8.append(path.name)
    assert len(not_utf8) == 2
    assert len(labels()) >= 200
    assert any(label["expected_canonical"] is None for label in labels())


def test_labels_point_at_their_text_in_the_drafts() -> None:
    texts = {label["file"]: draft_text(DRAFTS / label["file"]) for label in labels()}
    for label in labels():
        start, end = label["span"]
        assert texts[label["file"]][start:end] == label["original"], label


def test_expected_canonical_forms_resolve_to_the_data() -> None:
    numbers = {body.findtext("사건번호"): case_date(body) for body in case_bodies()}
    parser = CitationParser.for_lexicon({name: None for name in acts()})
    for label in labels():
        expected = label["expected_canonical"]
        if expected is None:
            continue
        parsed = parser.parse(expected)
        assert parsed is not None and parsed.canonical() == expected, label
        if isinstance(parsed, CaseCitation):
            assert numbers[str(parsed.case_number)] == f"{parsed.date:%Y%m%d}", label
            assert parsed.court in COURTS_BY_NAME, label
        else:
            assert isinstance(parsed, StatuteCitation)
            title = TITLES.get(parsed.act, parsed.act)  # 헌법
            assert (title, parsed.article, parsed.article_branch or 0) in live_articles(), label


@pytest.mark.slow
def test_the_generator_rewrites_the_data_byte_for_byte(sample_data: Callable[[str], ModuleType],
                                                        tmp_path: Path) -> None:
    generator = sample_data("build")
    generator.generate(tmp_path, generator.DEFAULT_SEED)
    for folder in ("synthetic_law", "cases", "drafts"):
        ours = sorted(p.relative_to(DATA) for p in (DATA / folder).rglob("*") if p.is_file())
        theirs = sorted(p.relative_to(tmp_path) for p in (tmp_path / folder).rglob("*") if p.is_file())
        assert ours == theirs, folder
        changed = [str(p) for p in ours if (DATA / p).read_bytes() != (tmp_path / p).read_bytes()]
        assert not changed, changed[:5]
