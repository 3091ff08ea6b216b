"""Case records in law.go.kr shapes: PrecSearch/PrecService, 헌재 DetcSearch/DetcService, and JSON twins."""

from __future__ import annotations

from pathlib import Path

from sample_data.cases import CaseRecord, reference_statutes
from sample_data.catalogue import CATEGORY_CODES
from sample_data.nodes import Node, json_document, search_list, write_json, write_xml

NO_RECORD = "일치하는 판례가 없습니다.  판례명을 확인하여 주십시오."
JSON_BODIES = 10
JSON_LIST_ROWS = 20
_CONSTITUTIONAL_KINDS = {"헌가": ("위헌법률심판", "330101"), "헌바": ("헌법소원", "330102"), "헌마": ("헌법소원", "330102"),
                         "헌라": ("권한쟁의심판", "330103"), "헌나": ("탄핵심판", "330104"),
                         "헌다": ("정당해산심판", "330105"), "헌사": ("신청사건", "330106"),
                         "헌아": ("특별사건", "330107")}
_PANEL_CODES = {"전원재판부": "430201", "지정재판부": "430202"}
_MARK = "[표본 문안: 실제 판결문이 아님]"


def _date_text(record: CaseRecord) -> str:
    return f"{record.date:%Y%m%d}"


def _judgment_type(record: CaseRecord) -> str:
    return f"전원합의체 {record.disposition}" if record.panel == "전원합의체" else record.disposition


def _court_kind_code(record: CaseRecord) -> str:
    return "400201" if record.court == "대법원" else "400202"


def _category_code(record: CaseRecord) -> str:
    return CATEGORY_CODES.get(record.category, "400199")


def reference_statutes_field(record: CaseRecord) -> str:
    """참조조문, numbered `[1] … / [2] …` when the record has two 판시사항 (every third record)."""
    provisions = record.provisions
    if len(provisions) >= 2 and record.serial % 3 == 0:
        return f"[1] {reference_statutes(provisions[:1])} / [2] {reference_statutes(provisions[1:])}"
    return reference_statutes(provisions)


def reference_cases_field(record: CaseRecord) -> str:
    return ", ".join(precedent.citation().canonical() for precedent in record.precedents)


_CONSTITUTIONAL_ORDERS = {"헌가": "심판대상조항은 헌법에 위반되지 아니한다.",
                          "헌바": "심판대상조항은 헌법에 위반되지 아니한다.",
                          "헌마": "이 사건 심판청구를 기각한다.", "헌라": "이 사건 심판청구를 기각한다.",
                          "헌사": "이 사건 신청을 기각한다.", "헌아": "이 사건 재심청구를 각하한다."}
_APPEAL_CODES = {"나", "노", "누", "르"}
_COMPLAINT_CODES = {"라", "로", "루", "브"}
REAL_RECORD_TEXT = ("(표본 자료: 법원, 선고일자, 사건번호는 실제 재판의 것이나 주문과 이유는 수록하지 않았다. "
                    "이 기록의 다른 내용은 모두 합성된 것이다.)")


def _order(record: CaseRecord) -> str:
    """A plausible 주문 for a synthetic record (real records get none: see REAL_RECORD_TEXT)."""
    code = record.number.code
    if record.is_constitutional:
        return "이 사건 심판청구를 각하한다." if record.panel == "지정재판부" else _CONSTITUTIONAL_ORDERS[code]
    if record.court == "대법원":
        if record.disposition != "판결":
            return "재항고를 기각한다."
        return "상고를 기각한다." if record.serial % 4 else "원심판결을 파기하고, 사건을 원심법원에 환송한다."
    if record.disposition != "판결":
        return "항고를 기각한다." if code in _COMPLAINT_CODES else "이 사건 신청을 기각한다."
    if code in _APPEAL_CODES:
        return "항소를 기각한다."
    return "피고인을 징역 1년에 처한다." if record.category == "형사" else "원고의 청구를 기각한다."


def _reasoning(record: CaseRecord) -> str:
    statutes = reference_statutes(record.provisions)
    text = (f"1. {statutes}의 해석에 관하여 본다. 원심은 판시와 같은 이유로 {record.title} 사건에서 "
            f"위 규정의 요건이 충족되었다고 판단하였다.")
    if record.precedents:
        cited = ", ".join(p.citation().canonical() for p in record.precedents)
        text += f" 이러한 판단은 종래의 판례({cited} 등 참조)에 따른 것이다."
    return f"{text}\n2. 그러므로 주문과 같이 판단한다. {_MARK}"


def full_text(record: CaseRecord) -> str:
    """판례내용 / 전문: 주문 and 이유 of a synthetic record; a plain notice for a real one."""
    if record.real:
        return REAL_RECORD_TEXT
    return f"【주문】\n{_order(record)}\n【이유】\n{_reasoning(record)}"


def _summary(record: CaseRecord) -> str:
    first = reference_statutes(record.provisions[:1])
    return f"[1] {first}의 적용 요건 (표본 판시사항)"


def _holding(record: CaseRecord) -> str:
    first = reference_statutes(record.provisions[:1])
    return f"[1] {first}에 관한 법리를 설시한 표본 요지이다. {_MARK}"


def prec_service(record: CaseRecord) -> Node:
    root = Node("PrecService")
    root.add("판례정보일련번호", record.serial)
    root.add("사건명", record.title, cdata=True)
    root.add("사건번호", str(record.number))
    root.add("선고일자", _date_text(record))
    root.add("선고", "선고" if record.delivery == "선고" else "고지")
    root.add("법원명", record.court_label)
    root.add("법원종류코드", _court_kind_code(record))
    root.add("사건종류명", record.category)
    root.add("사건종류코드", _category_code(record))
    root.add("판결유형", _judgment_type(record))
    root.add("판시사항", _summary(record), cdata=True)
    root.add("판결요지", _holding(record), cdata=True)
    root.add("참조조문", reference_statutes_field(record), cdata=True)
    root.add("참조판례", reference_cases_field(record), cdata=True)
    root.add("판례내용", full_text(record), cdata=True)
    return root


def _prec_row(parent: Node, tag: str, index: int, record: CaseRecord) -> None:
    row = parent.add(tag, id=str(index))
    row.add("판례일련번호", record.serial)
    row.add("사건명", record.title, cdata=True)
    row.add("사건번호", str(record.number))
    row.add("선고일자", _date_text(record))
    row.add("법원명", record.court_label)
    row.add("법원종류코드", _court_kind_code(record))
    row.add("사건종류명", record.category)
    row.add("사건종류코드", _category_code(record))
    row.add("판결유형", _judgment_type(record))
    row.add("선고", "선고" if record.delivery == "선고" else "고지")
    row.add("데이터출처명", "대법원")
    row.add("판례상세링크", f"/DRF/lawService.do?OC=sample&target=prec&ID={record.serial}&type=HTML")


def prec_search(records: list[CaseRecord], total: int | None = None) -> Node:
    root = search_list("PrecSearch", "prec", "evtNm", total if total is not None else len(records))
    for index, record in enumerate(records, 1):
        _prec_row(root, "prec", index, record)
    return root


def detc_service(record: CaseRecord) -> Node:
    kind, kind_code = _CONSTITUTIONAL_KINDS[record.number.code]
    root = Node("DetcService")
    root.add("헌재결정례일련번호", record.serial)
    root.add("종국일자", _date_text(record))
    root.add("사건번호", str(record.number))
    root.add("사건명", record.title, cdata=True)
    root.add("사건종류명", kind)
    root.add("사건종류코드", kind_code)
    root.add("재판부구분코드", _PANEL_CODES[record.panel or "전원재판부"])
    root.add("판시사항", _summary(record), cdata=True)
    root.add("결정요지", _holding(record), cdata=True)
    root.add("전문", full_text(record), cdata=True)
    root.add("참조조문", reference_statutes_field(record), cdata=True)
    root.add("참조판례", reference_cases_field(record), cdata=True)
    root.add("심판대상조문", reference_statutes(record.provisions[:1]), cdata=True)
    return root


def detc_search(records: list[CaseRecord], row_tag: str) -> Node:
    """The 헌재 list; law.go.kr's XML rows are `detc`, its JSON rows `Detc` (MOLEG unwrap.py)."""
    root = search_list("DetcSearch", "detc", "evtNm", len(records))
    for index, record in enumerate(records, 1):
        row = root.add(row_tag, id=str(index))
        row.add("헌재결정례일련번호", record.serial)
        row.add("종국일자", _date_text(record))
        row.add("사건번호", str(record.number))
        row.add("사건명", record.title, cdata=True)
        row.add("헌재결정례상세링크", f"/DRF/lawService.do?OC=sample&target=detc&ID={record.serial}&type=HTML")
    return root


def write_cases(records: list[CaseRecord], out: Path) -> None:
    courts = [r for r in records if not r.is_constitutional]
    constitutional = [r for r in records if r.is_constitutional]
    write_xml(out / "PrecSearch.xml", prec_search(courts))
    for record in courts:
        write_xml(out / "prec" / f"{record.serial}.xml", prec_service(record))
    (out / "prec" / "no_record.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Law>{NO_RECORD}</Law>\n', encoding="utf-8")
    write_xml(out / "detc" / "DetcSearch.xml", detc_search(constitutional, "detc"))
    for record in constitutional:
        write_xml(out / "detc" / f"{record.serial}.xml", detc_service(record))
    json_dir = out / "json"
    write_json(json_dir / "PrecSearch.json", json_document(prec_search(courts[:JSON_LIST_ROWS], len(courts))))
    write_json(json_dir / "PrecSearch_single.json", json_document(prec_search(courts[-1:])))
    write_json(json_dir / "DetcSearch.json", json_document(detc_search(constitutional, "Detc")))
    for record in courts[-JSON_BODIES:]:
        write_json(json_dir / "PrecService" / f"{record.serial}.json", json_document(prec_service(record)))
    write_json(json_dir / "PrecService" / "no_record.json", {})
