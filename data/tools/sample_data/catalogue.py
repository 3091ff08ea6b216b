"""What the case records may cite: statute provisions by subject, and the real decisions.

REAL_DECISIONS are decisions whose court, date, number and panel the author is sure of (several
also appear in ../shared/reference/legal-citations.md); their 사건명 is as remembered (generic
where not known) and every other field of their records is synthetic. Each subject lists the provisions its 참조조문 draws from; all of them
exist (and are not deleted) in the sample statutes, which the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass

Provision = tuple[str, int, int]  # (act, article, branch)

CIVIL = "민사"
CRIMINAL = "형사"
ADMIN = "일반행정"
TAX = "세무"
FAMILY = "가사"
PATENT = "특허"
CONSTITUTIONAL = "헌법재판"

CATEGORY_CODES = {CIVIL: "400101", CRIMINAL: "400102", ADMIN: "400103", TAX: "400104", FAMILY: "400105",
                  PATENT: "400106"}


@dataclass(frozen=True)
class Subject:
    title: str  # 사건명
    category: str
    provisions: tuple[Provision, ...]


def _p(act: str, *articles: int | tuple[int, int]) -> tuple[Provision, ...]:
    return tuple((act, a, 0) if isinstance(a, int) else (act, a[0], a[1]) for a in articles)


CIVIL_SUBJECTS = (
    Subject("손해배상(기)", CIVIL, _p("민법", 750, 751, 756, 763, 393)),
    Subject("손해배상(자)", CIVIL, _p("민법", 750, 763, 396)),
    Subject("손해배상(의)", CIVIL, _p("민법", 750, 390, 393)),
    Subject("손해배상(산)", CIVIL, _p("민법", 750, 756) + _p("산업안전보건법", 38, 39)),
    Subject("대여금", CIVIL, _p("민법", 598, 603, 390)),
    Subject("소유권이전등기", CIVIL, _p("민법", 186, 245, 563)),
    Subject("부당이득금", CIVIL, _p("민법", 741, 748, 103)),
    Subject("임대차보증금", CIVIL, _p("주택임대차보호법", 3, (3, 2), 8) + _p("민법", 618)),
    Subject("건물명도", CIVIL, _p("민법", 213, 618, 640) + _p("상가건물 임대차보호법", 10, (10, 4))),
    Subject("해고무효확인", CIVIL, _p("근로기준법", 23, 24, 27)),
    Subject("임금", CIVIL, _p("근로기준법", 2, 43, 56)),
    Subject("퇴직금", CIVIL, _p("근로자퇴직급여 보장법", 8, 9) + _p("근로기준법", 2)),
    Subject("주주총회결의취소", CIVIL, _p("상법", 376, 368, 382)),
    Subject("청구이의", CIVIL, _p("민사집행법", 44, 45)),
    Subject("배당이의", CIVIL, _p("민사집행법", 151, 154)),
    Subject("구상금", CIVIL, _p("민법", 425, 441, 2)),
    Subject("약정금", CIVIL, _p("민법", 105, 390, 398)),
    Subject("국가배상", CIVIL, _p("국가배상법", 2, 3) + _p("민법", 750)),
)
CRIMINAL_SUBJECTS = (
    Subject("사기", CRIMINAL, _p("형법", 347, 37, 38)),
    Subject("특정경제범죄가중처벌등에관한법률위반(사기)", CRIMINAL,
            _p("특정경제범죄 가중처벌 등에 관한 법률", 3) + _p("형법", 347)),
    Subject("업무상횡령", CRIMINAL, _p("형법", 355, 356)),
    Subject("업무상배임", CRIMINAL, _p("형법", 356, 355)),
    Subject("살인", CRIMINAL, _p("형법", 250, 10)),
    Subject("폭행", CRIMINAL, _p("형법", 260)),
    Subject("상해", CRIMINAL, _p("형법", 257, 21)),
    Subject("명예훼손", CRIMINAL, _p("형법", 307, 310)),
    Subject("절도", CRIMINAL, _p("형법", 329, 330)),
    Subject("강도상해", CRIMINAL, _p("형법", 337, 333)),
    Subject("도로교통법위반(음주운전)", CRIMINAL, _p("도로교통법", 44, (148, 2))),
    Subject("특정범죄가중처벌등에관한법률위반(도주치상)", CRIMINAL,
            _p("특정범죄 가중처벌 등에 관한 법률", (5, 3)) + _p("도로교통법", 54)),
    Subject("특정범죄가중처벌등에관한법률위반(위험운전치상)", CRIMINAL,
            _p("특정범죄 가중처벌 등에 관한 법률", (5, 11)) + _p("도로교통법", 44)),
    Subject("성폭력범죄의처벌등에관한특례법위반(카메라등이용촬영)", CRIMINAL,
            _p("성폭력범죄의 처벌 등에 관한 특례법", 14, (14, 2))),
    Subject("정보통신망이용촉진및정보보호등에관한법률위반(명예훼손)", CRIMINAL,
            _p("정보통신망 이용촉진 및 정보보호 등에 관한 법률", 70) + _p("형법", 307)),
    Subject("근로기준법위반", CRIMINAL, _p("근로기준법", 36, 109, 43)),
    Subject("중대재해처벌등에관한법률위반(산업재해치사)", CRIMINAL,
            _p("중대재해 처벌 등에 관한 법률", 4, 6) + _p("산업안전보건법", 38)),
    Subject("개인정보보호법위반", CRIMINAL, _p("개인정보 보호법", 17, 71)),
    Subject("저작권법위반", CRIMINAL, _p("저작권법", 136, 30)),
    Subject("폭력행위등처벌에관한법률위반(공동상해)", CRIMINAL, _p("폭력행위 등 처벌에 관한 법률", 2) + _p("형법", 257)),
    Subject("가정폭력범죄의처벌등에관한특례법위반", CRIMINAL, _p("가정폭력범죄의 처벌 등에 관한 특례법", 2, 9)),
)
ADMIN_SUBJECTS = (
    Subject("부당해고구제재심판정취소", ADMIN, _p("근로기준법", 23, 28, 30)),
    Subject("영업정지처분취소", ADMIN, _p("행정절차법", 21, 22) + _p("행정소송법", 27)),
    Subject("정보공개거부처분취소", ADMIN, _p("행정소송법", 12, 19)),
    Subject("건축허가취소처분취소", ADMIN, _p("건축법", 11) + _p("행정기본법", 18)),
    Subject("시정명령등취소", ADMIN, _p("독점규제 및 공정거래에 관한 법률", 45, 102)),
    Subject("자동차운전면허취소처분취소", ADMIN, _p("도로교통법", 93, 44) + _p("행정소송법", 27)),
    Subject("과징금부과처분취소", ADMIN, _p("개인정보 보호법", 64) + _p("행정기본법", 28)),
)
TAX_SUBJECTS = (
    Subject("종합소득세부과처분취소", TAX, _p("소득세법", 14, 19) + _p("국세기본법", 14)),
    Subject("부가가치세부과처분취소", TAX, _p("부가가치세법", 38, 39) + _p("국세기본법", 14, 18)),
    Subject("경정거부처분취소", TAX, _p("국세기본법", (45, 0), 14)),
)
FAMILY_SUBJECTS = (
    Subject("이혼 및 위자료", FAMILY, _p("민법", 840, 843, 806)),
    Subject("친생자관계부존재확인", FAMILY, _p("민법", 865) + _p("가사소송법", 2)),
    Subject("재산분할", FAMILY, _p("민법", (839, 2), 843)),
    Subject("상속재산분할", FAMILY, _p("민법", 1013, (1008, 2))),
    Subject("양육비", FAMILY, _p("민법", 837, 909)),
)
PATENT_SUBJECTS = (
    Subject("등록무효(특)", PATENT, _p("특허법", 29, 133)),
    Subject("권리범위확인(특)", PATENT, _p("특허법", 135, 97)),
    Subject("거절결정(특)", PATENT, _p("특허법", 29, 62)),
)
# Decisions (결정) at each level, by code family.
ORDER_SUBJECTS = {
    "civil": (Subject("부동산임의경매", CIVIL, _p("민사집행법", 268, 83)),
              Subject("가처분이의", CIVIL, _p("민사집행법", 283, 300)),
              Subject("채권압류및추심명령", CIVIL, _p("민사집행법", 223, 229)),
              Subject("소송비용액확정", CIVIL, _p("민사소송법", 110, 98))),
    "criminal": (Subject("재정신청기각결정에대한재항고", CRIMINAL, _p("형사소송법", 260, 262)),
                 Subject("구속집행정지", CRIMINAL, _p("형사소송법", 101, 70)),
                 Subject("기피", CRIMINAL, _p("형사소송법", 18, 20))),
    "family": (Subject("면접교섭허가", FAMILY, _p("민법", (837, 2))),
               Subject("친권자변경", FAMILY, _p("민법", 909))),
    "admin": (Subject("집행정지", ADMIN, _p("행정소송법", 23, 24)),),
}
CONSTITUTION_BASIS = _p("대한민국헌법", 10, 11, 37)


@dataclass(frozen=True)
class RealDecision:
    court: str
    date: str  # ISO
    number: str  # 사건번호 as written
    title: str
    category: str
    panel: str | None = None


REAL_DECISIONS = (
    RealDecision("대법원", "1996-04-12", "95다55245", "손해배상(기)", CIVIL),
    RealDecision("대법원", "1997-04-17", "96도3376", "반란수괴·반란모의참여·반란중요임무종사·불법진퇴·지휘관계엄지역수소이탈·"
                 "상관살해·상관살해미수·초병살해·내란수괴·내란모의참여·내란중요임무종사·내란목적살인·특정범죄가중처벌등에관한법률위반(뇌물)",
                 CRIMINAL, "전원합의체"),
    RealDecision("대법원", "1999-03-18", "98다32175", "소유권이전등기", CIVIL, "전원합의체"),
    RealDecision("대법원", "1999-08-19", "99다23383", "부당이득금", CIVIL, "전원합의체"),
    RealDecision("대법원", "2004-07-15", "2004도2965", "병역법위반", CRIMINAL, "전원합의체"),
    RealDecision("대법원", "2005-07-21", "2002다1178", "종회회원확인", CIVIL, "전원합의체"),
    RealDecision("대법원", "2007-07-26", "2007다29119", "손해배상(기)", CIVIL),
    RealDecision("대법원", "2008-11-20", "2007다27670", "유체동산인도등", CIVIL, "전원합의체"),
    RealDecision("대법원", "2009-05-21", "2009다17417", "무의미한연명치료장치제거등", CIVIL, "전원합의체"),
    RealDecision("대법원", "2011-01-20", "2008재도11", "간첩·국가보안법위반·법령제5호위반", CRIMINAL, "전원합의체"),
    RealDecision("대법원", "2013-05-16", "2012도14788", "성폭력범죄의처벌등에관한특례법위반(특수강간)", CRIMINAL, "전원합의체"),
    RealDecision("대법원", "2013-12-18", "2012다89399", "퇴직금", CIVIL, "전원합의체"),
    RealDecision("대법원", "2018-01-19", "2017마1332", "집행에 관한 이의", CIVIL),
    RealDecision("대법원", "2018-10-30", "2013다61381", "손해배상(기)", CIVIL, "전원합의체"),
    RealDecision("대법원", "2018-11-01", "2016도10912", "병역법위반", CRIMINAL, "전원합의체"),
    RealDecision("대법원", "2019-02-21", "2018다248909", "손해배상(기)", CIVIL, "전원합의체"),
    RealDecision("대법원", "2019-08-29", "2018도2738", "특정범죄가중처벌등에관한법률위반(뇌물)", CRIMINAL, "전원합의체"),
    RealDecision("대법원", "2020-09-03", "2016두32992", "법외노조통보처분취소", ADMIN, "전원합의체"),
    RealDecision("헌법재판소", "1994-07-29", "92헌바49", "토지초과이득세법 제10조 등 위헌소원", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2004-05-14", "2004헌나1", "대통령(노무현) 탄핵", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2004-10-21", "2004헌마554", "신행정수도의건설을위한특별조치법 위헌확인", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2011-08-30", "2006헌마788", "대한민국과 일본국 간의 재산 및 청구권에 관한 문제의 해결과 "
                 "경제협력에 관한 협정 제3조 부작위 위헌확인", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2012-08-23", "2011헌바97", "위헌소원", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2014-12-19", "2013헌다1", "통합진보당 해산", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2015-02-26", "2009헌바17", "형법 제241조 위헌소원", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2015-09-24", "2015헌바35", "위헌소원", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2017-03-10", "2016헌나1", "대통령(박근혜) 탄핵", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2018-06-28", "2011헌바379", "병역법 제88조 제1항 등 위헌소원", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2019-04-11", "2017헌바127", "형법 제269조 제1항 등 위헌소원", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2022-07-21", "2017헌가4", "위헌제청", CONSTITUTIONAL),
    RealDecision("헌법재판소", "2022-11-24", "2021헌마130", "위헌확인", CONSTITUTIONAL),
)
