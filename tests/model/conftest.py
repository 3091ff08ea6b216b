"""A small law data folder in the law.go.kr shapes (§2.4 of the reference notes), written in code,
so the corpus tests do not depend on the size or the progress of data/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ACTS = {
    "민법": ("001706", None, [
        (750, None, "불법행위의 내용", "고의 또는 과실로 인한 위법행위로 타인에게 손해를 가한 자는 그 손해를 배상할 책임이 있다."),
        (751, None, "재산 이외의 손해의 배상", "타인의 신체, 자유 또는 명예를 해하거나 기타 정신상고통을 가한 자는 재산 이외의 손해에 대하여도 배상할 책임이 있다."),
        (312, 2, "전세금 증감청구권", "전세금이 목적 부동산에 관한 조세ㆍ공과금 기타 부담의 증감에 의하여 상당하지 아니하게 된 때에는 당사자는 장래에 대하여 그 증감을 청구할 수 있다."),
    ]),
    "주택임대차보호법": ("001248", "주택임대차법", [
        (3, None, "대항력 등", "임대차는 그 등기가 없는 경우에도 임차인이 주택의 인도와 주민등록을 마친 때에는 그 다음 날부터 제삼자에 대하여 효력이 생긴다."),
    ]),
}
DECISIONS = [  # court, 사건번호, 선고일자, 사건명, 판결유형, 참조조문
    ("대법원", "2024도4202", "20240711", "사기", "판결", "형법 제347조"),
    ("대법원", "95다38677", "19960412", "손해배상(기)", "판결", "민법 제750조, 제751조"),
    ("대법원", "2023마6489", "20230112", "부동산경매", "결정", "민법 제312조의2"),
    ("서울고등법원", "2022나2034567", "20230504", "임대차보증금", "판결", "주택임대차보호법 제3조"),
    ("수원지방법원 안산지원", "2018고단1234", "20180905", "상해", "판결", ""),
]
CONSTITUTIONAL = [("2017헌마1281", "20200326", "기본권 침해 위헌확인", "430201")]


def _law_xml(name: str, law_id: str, short: str | None, articles: list) -> str:
    units = ['<조문단위 조문키="0001000"><조문번호>1</조문번호><조문여부>전문</조문여부>'
             '<조문내용>제1장 총칙</조문내용></조문단위>']
    for number, branch, title, text in articles:
        label = f"제{number}조" + (f"의{branch}" if branch else "")
        units.append(
            f'<조문단위 조문키="{number:04d}001"><조문번호>{number}</조문번호>'
            + (f"<조문가지번호>{branch}</조문가지번호>" if branch else "")
            + f"<조문여부>조문</조문여부><조문제목>{title}</조문제목><조문내용>{label}({title})</조문내용>"
            f"<항><항번호>① </항번호><항내용><![CDATA[①{text}]]></항내용></항></조문단위>"
        )
    units.append('<조문단위 조문키="0900001"><조문번호>900</조문번호><조문여부>조문</조문여부>'
                 '<조문제개정유형>삭제</조문제개정유형><조문내용>제900조 삭제 &lt;2011. 3. 7.&gt;</조문내용></조문단위>')
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<법령 법령키="{law_id}2024010120000"><기본정보>'
            f"<법령ID>{law_id}</법령ID><법종구분 법종구분코드=\"A0002\">법률</법종구분>"
            f"<법령명_한글><![CDATA[{name}]]></법령명_한글><법령명약칭>{short or ''}</법령명약칭>"
            f"</기본정보><조문>{''.join(units)}</조문></법령>")


def _prec_xml(court: str, number: str, date: str, name: str, kind: str, statutes: str,
              delivery: str | None = None) -> str:
    delivery = delivery if delivery is not None else "선고" if kind == "판결" else "자"
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<PrecService><판례정보일련번호>1</판례정보일련번호>'
            f"<사건명>{name}</사건명><사건번호>{number}</사건번호><선고일자>{date}</선고일자>"
            f"<선고>{delivery}</선고><법원명>{court}</법원명><판결유형>{kind}</판결유형>"
            f"<판시사항>[1] {name}에 관한 법리를 오해한 위법이 있는지 여부(적극)</판시사항>"
            f"<참조조문>{statutes}</참조조문></PrecService>")


def _detc_xml(number: str, date: str, name: str, panel: str) -> str:
    return (f"<DetcService><헌재결정례일련번호>1</헌재결정례일련번호><종국일자>{date}</종국일자>"
            f"<사건번호>{number}</사건번호><사건명>{name}</사건명><재판부구분코드>{panel}</재판부구분코드>"
            f"<판시사항>청구인의 기본권을 침해하는지 여부(소극)</판시사항></DetcService>")


def write_law_data(root: Path) -> tuple[Path, Path]:
    law_dir, case_dir = root / "law", root / "cases"
    law_dir.mkdir(parents=True)
    case_dir.mkdir(parents=True)
    for index, (name, (law_id, short, articles)) in enumerate(ACTS.items()):
        (law_dir / f"{index:02d}.xml").write_text(_law_xml(name, law_id, short, articles), encoding="utf-8")
    (law_dir / "aliases.json").write_text(json.dumps({"주임법": "주택임대차보호법"}, ensure_ascii=False))
    for index, record in enumerate(DECISIONS):
        (case_dir / f"prec_{index:02d}.xml").write_text(_prec_xml(*record), encoding="utf-8")
    for index, record in enumerate(CONSTITUTIONAL):
        (case_dir / f"detc_{index:02d}.xml").write_text(_detc_xml(*record), encoding="utf-8")
    (case_dir / "empty.xml").write_text("<Law>일치하는 판례가 없습니다. 판례명을 확인하여 주십시오.</Law>", encoding="utf-8")
    return law_dir, case_dir


@pytest.fixture(scope="session")
def law_data_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_law_data(tmp_path_factory.mktemp("law-data"))
