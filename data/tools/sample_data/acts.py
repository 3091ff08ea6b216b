"""The acts of the sample statute set: real names, 약칭, numbering; identifiers are sample values.

`last_article`, `branches` and `deleted` follow the real acts as far as the author knows them
(`numbering="real"`), or approximate them (`numbering="approximate"`: the act is real, its last
article number is close to, but not checked against, the current text). 법령ID, 공포일자/번호 and
소관부처코드 are sample values shaped like law.go.kr's, except the two IDs quoted in
../shared/reference/legal-citations.md (민사집행법 009290, 소득세법 001565).
"""

from __future__ import annotations

from dataclasses import dataclass, field

Numbering = str  # "real" | "approximate"


@dataclass(frozen=True)
class ActSpec:
    name: str
    law_id: str  # 법령ID, 6 digits with leading zeros
    last_article: int
    kind: str = "법률"  # 헌법 | 법률 | 대통령령 | 부령
    ministry: str = "법무부"
    abbreviation: str = ""  # official 약칭 (법령명약칭), empty when the act has none
    hanja: str = ""
    numbering: Numbering = "real"
    branches: dict[int, int] = field(default_factory=dict)  # article -> highest 의N
    deleted: dict[int, str] = field(default_factory=dict)  # article -> date of 삭제, "2005. 3. 31."
    # Headings (편/장/절) placed before an article; acts without them get generated 장 headings.
    headings: tuple[tuple[int, str], ...] = ()


def _span(first: int, last: int, date: str) -> dict[int, str]:
    return {number: date for number in range(first, last + 1)}


KIND_CODES = {"헌법": "A0001", "법률": "A0002", "대통령령": "A0003", "부령": "A0007"}
MINISTRY_CODES = {
    "법무부": "1270000", "고용노동부": "1492000", "국토교통부": "1613000", "경찰청": "1320000",
    "행정안전부": "1741000", "기획재정부": "1051000", "공정거래위원회": "1130000",
    "개인정보보호위원회": "1661000", "문화체육관광부": "1371000", "지식재산처": "1430000",
    "과학기술정보통신부": "1721000", "법제처": "1170000", "국회": "9700000", "법원행정처": "9710000",
    "헌법재판소": "9730000", "국민권익위원회": "1140100",
}

ACTS: tuple[ActSpec, ...] = (
    ActSpec("대한민국헌법", "001444", 130, kind="헌법", ministry="법제처", hanja="大韓民國憲法",
            headings=((1, "제1장 총강"), (10, "제2장 국민의 권리와 의무"), (40, "제3장 국회"),
                      (66, "제4장 정부"), (66, "제1절 대통령"), (86, "제2절 행정부"),
                      (101, "제5장 법원"), (111, "제6장 헌법재판소"), (114, "제7장 선거관리"),
                      (117, "제8장 지방자치"), (119, "제9장 경제"), (128, "제10장 헌법개정"))),
    ActSpec("민법", "001706", 1118, hanja="民法",
            branches={14: 3, 52: 2, 289: 2, 312: 2, 428: 3, 436: 2, 674: 9, 826: 2, 836: 2, 837: 2,
                      839: 3, 909: 2, 927: 2, 959: 20, 1008: 3, 1057: 2},
            deleted={778: "2005. 3. 31.", 780: "2005. 3. 31.", **_span(782, 795, "2005. 3. 31."),
                     **_span(980, 995, "2005. 3. 31.")},
            headings=((1, "제1편 총칙"), (1, "제1장 통칙"), (3, "제2장 인"), (31, "제3장 법인"),
                      (98, "제4장 물건"), (103, "제5장 법률행위"), (155, "제6장 기간"),
                      (162, "제7장 소멸시효"), (185, "제2편 물권"), (373, "제3편 채권"),
                      (373, "제1장 총칙"), (527, "제2장 계약"), (734, "제3장 사무관리"),
                      (741, "제4장 부당이득"), (750, "제5장 불법행위"), (767, "제4편 친족"),
                      (997, "제5편 상속"))),
    ActSpec("형법", "001692", 372, hanja="刑法",
            branches={59: 2, 62: 2, 140: 2, 227: 2, 232: 2, 297: 2, 305: 3, 324: 6, 347: 2, 348: 2,
                      350: 2},
            deleted={241: "2016. 1. 6.", 304: "2012. 12. 18.", 306: "2012. 12. 18."},
            headings=((1, "제1편 총칙"), (1, "제1장 형법의 적용범위"), (8, "제2장 죄"),
                      (41, "제3장 형"), (87, "제2편 각칙"), (250, "제24장 살인의 죄"),
                      (257, "제25장 상해와 폭행의 죄"), (307, "제33장 명예에 관한 죄"),
                      (329, "제38장 절도와 강도의 죄"), (347, "제39장 사기와 공갈의 죄"),
                      (355, "제40장 횡령과 배임의 죄"))),
    ActSpec("상법", "001702", 935, hanja="商法",
            branches={360: 26, 401: 2, 408: 9, 542: 13}),
    ActSpec("민사소송법", "001700", 502, hanja="民事訴訟法"),
    ActSpec("형사소송법", "001671", 493, hanja="刑事訴訟法",
            branches={59: 3, 200: 6, 201: 2, 214: 2, 245: 10, 266: 16}),
    ActSpec("행정소송법", "001218", 46, hanja="行政訴訟法"),
    ActSpec("민사집행법", "009290", 312, hanja="民事執行法"),
    ActSpec("가사소송법", "001707", 73, numbering="approximate"),
    ActSpec("근로기준법", "001872", 116, ministry="고용노동부",
            branches={43: 3, 51: 3, 76: 3}),
    ActSpec("근로기준법 시행령", "003462", 61, kind="대통령령", ministry="고용노동부",
            numbering="approximate"),
    ActSpec("근로자퇴직급여 보장법", "010014", 48, ministry="고용노동부", abbreviation="퇴직급여법",
            numbering="approximate"),
    ActSpec("산업안전보건법", "001766", 175, ministry="고용노동부"),
    ActSpec("중대재해 처벌 등에 관한 법률", "014159", 16, ministry="법무부",
            abbreviation="중대재해처벌법"),
    ActSpec("주택임대차보호법", "001248", 31, abbreviation="주택임대차법", numbering="approximate",
            branches={3: 6, 6: 3, 7: 2, 8: 2, 10: 2}),
    ActSpec("주택임대차보호법 시행령", "002977", 41, kind="대통령령", numbering="approximate"),
    ActSpec("상가건물 임대차보호법", "009085", 22, abbreviation="상가임대차법",
            branches={10: 9, 11: 2}),
    ActSpec("집합건물의 소유 및 관리에 관한 법률", "001389", 66, abbreviation="집합건물법",
            numbering="approximate"),
    ActSpec("개인정보 보호법", "011357", 76, ministry="개인정보보호위원회", numbering="approximate",
            branches={28: 7}),
    ActSpec("정보통신망 이용촉진 및 정보보호 등에 관한 법률", "000030", 76,
            ministry="과학기술정보통신부", abbreviation="정보통신망법", numbering="approximate",
            branches={28: 2, 44: 10, 48: 4}),
    ActSpec("도로교통법", "001638", 166, ministry="경찰청", numbering="approximate",
            branches={148: 2}),
    ActSpec("도로교통법 시행규칙", "007361", 170, kind="부령", ministry="행정안전부",
            numbering="approximate"),
    ActSpec("국가배상법", "001235", 17),
    ActSpec("특정범죄 가중처벌 등에 관한 법률", "001451", 16, abbreviation="특정범죄가중법",
            branches={4: 3, 5: 13}),
    ActSpec("특정경제범죄 가중처벌 등에 관한 법률", "001618", 14, abbreviation="특정경제범죄법",
            numbering="approximate"),
    ActSpec("폭력행위 등 처벌에 관한 법률", "001491", 10, abbreviation="폭력행위처벌법",
            numbering="approximate"),
    ActSpec("성폭력범죄의 처벌 등에 관한 특례법", "011251", 50, abbreviation="성폭력처벌법",
            numbering="approximate", branches={14: 3}),
    ActSpec("가정폭력범죄의 처벌 등에 관한 특례법", "001935", 66, abbreviation="가정폭력처벌법",
            numbering="approximate"),
    ActSpec("아동ㆍ청소년의 성보호에 관한 법률", "009941", 67, ministry="법무부",
            abbreviation="청소년성보호법", numbering="approximate"),
    ActSpec("저작권법", "000241", 142, ministry="문화체육관광부", numbering="approximate"),
    ActSpec("특허법", "000219", 232, ministry="지식재산처", numbering="approximate"),
    ActSpec("국세기본법", "001586", 86, ministry="기획재정부", numbering="approximate",
            branches={81: 19}),
    ActSpec("소득세법", "001565", 175, ministry="기획재정부", numbering="approximate"),
    ActSpec("부가가치세법", "001571", 76, ministry="기획재정부", numbering="approximate"),
    ActSpec("행정기본법", "014041", 40, ministry="법제처", numbering="approximate"),
    ActSpec("행정절차법", "001362", 56, ministry="행정안전부", numbering="approximate"),
    ActSpec("행정심판법", "001363", 64, ministry="국민권익위원회", numbering="approximate"),
    ActSpec("헌법재판소법", "001445", 79, ministry="헌법재판소", numbering="approximate"),
    ActSpec("독점규제 및 공정거래에 관한 법률", "001612", 130, ministry="공정거래위원회",
            abbreviation="공정거래법", numbering="approximate"),
    ActSpec("건축법", "001823", 113, ministry="국토교통부", numbering="approximate"),
)

# Informal abbreviations practitioners write (not in the official 약칭 registry), and the
# constitution's everyday name. Values are 법령명_한글 of ACTS.
INFORMAL_ALIASES: dict[str, str] = {
    "헌법": "대한민국헌법",
    "민소법": "민사소송법",
    "형소법": "형사소송법",
    "행소법": "행정소송법",
    "민집법": "민사집행법",
    "가소법": "가사소송법",
    "근기법": "근로기준법",
    "근퇴법": "근로자퇴직급여 보장법",
    "산안법": "산업안전보건법",
    "중처법": "중대재해 처벌 등에 관한 법률",
    "주임법": "주택임대차보호법",
    "상임법": "상가건물 임대차보호법",
    "개보법": "개인정보 보호법",
    "정통망법": "정보통신망 이용촉진 및 정보보호 등에 관한 법률",
    "도교법": "도로교통법",
    "국배법": "국가배상법",
    "특가법": "특정범죄 가중처벌 등에 관한 법률",
    "특경법": "특정경제범죄 가중처벌 등에 관한 법률",
    "폭처법": "폭력행위 등 처벌에 관한 법률",
    "성폭법": "성폭력범죄의 처벌 등에 관한 특례법",
    "가폭법": "가정폭력범죄의 처벌 등에 관한 특례법",
    "아청법": "아동ㆍ청소년의 성보호에 관한 법률",
    "국기법": "국세기본법",
    "부가법": "부가가치세법",
    "행절법": "행정절차법",
    "행심법": "행정심판법",
    "헌재법": "헌법재판소법",
}

ACTS_BY_NAME: dict[str, ActSpec] = {act.name: act for act in ACTS}
