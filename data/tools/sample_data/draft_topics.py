"""The draft texts: eight topics of legal opinions and briefs, each written three times over other records.

Every topic function writes one paragraph-sized draft through a DraftBuilder; the cases it cites
are drawn from the sample records that fit (by court, category, disposition), so the same topic
cites different decisions in each variant.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from sample_data.cases import CaseRecord
from sample_data.drafts import DraftBuilder, shaped_provision
from sample_data.messy import court_abbreviation
from sample_data.statutes import Act

SUPREME = "대법원"
CONSTITUTIONAL_COURT = "헌법재판소"


@dataclass
class Pools:
    records: list[CaseRecord]
    rng: random.Random

    def pick(self, *, court: str | None = None, category: str | None = None, disposition: str | None = None,
             lower: bool = False, panel: str | None = None, before: int | None = None,
             abbreviable: bool = False) -> CaseRecord:
        fits = [r for r in self.records
                if (court is None or r.court == court)
                and (category is None or r.category == category)
                and (disposition is None or r.disposition == disposition)
                and (not lower or r.court not in (SUPREME, CONSTITUTIONAL_COURT))
                and (panel is None or r.panel == panel)
                and (before is None or r.number.year < before)
                and (not abbreviable or (court_abbreviation(r.court) and not r.number.seat))]
        if not fits:
            raise LookupError(f"expected a sample record with court={court} category={category}, got none")
        return self.rng.choice(fits)


Topic = Callable[[DraftBuilder, Pools, dict[str, Act]], None]


def tort(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    b.text("검토 의견\n\n1. 불법행위책임의 성립\n피고의 행위가 ")
    b.statute("canonical", "민법", 750).text("의 불법행위에 해당하려면 고의 또는 과실, 위법성, 손해의 발생과 "
                                            "인과관계가 모두 인정되어야 한다(")
    b.case(p.pick(court=SUPREME, category="민사", disposition="판결"), "대판 with compact date and comma")
    b.text(" 참조). 정신적 손해에 대하여는 ").statute("같은 법", article=751, paragraph=1)
    b.text("에 따라 위자료를 청구할 수 있고, 법원은 ").statute("동조", paragraph=2)
    b.text("에 따라 정기금 지급을 명할 수도 있다.\n2. 사용자책임\n피고 회사는 ")
    b.statute("compact", "민법", 756, paragraph=1).text("에 따른 사용자책임을 부담한다. 이 점은 ")
    b.case(p.pick(court=SUPREME, category="민사", disposition="판결"), "no spaces in date")
    b.text("의 취지와도 같다. 다만 ").statute("같은 조", paragraph=3)
    b.text("에 따른 구상권 행사는 신의칙상 제한될 수 있다(").case(
        p.pick(court=SUPREME, category="민사", disposition="판결"), "bare case number")
    b.text(").\n3. 소멸시효\n원고가 손해 및 가해자를 안 날부터 3년이 지났는지는 ")
    b.statute("canonical", "민법", 766, paragraph=1).text("에 따라 판단하며, 제1심인 ")
    b.case(p.pick(category="민사", disposition="판결", lower=True, abbreviable=True), "court abbreviation")
    b.text("도 같은 입장이다. 소송절차에 관하여는 ").statute("informal abbreviation", "민사소송법", 98)
    b.text("를 함께 검토하였다.\n")


def dismissal(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    decree = shaped_provision(acts["근로기준법 시행령"], p.rng, "item")
    b.text("# 부당해고 구제신청 검토서\n\n사용자는 ")
    b.statute("compact", "근로기준법", 23, paragraph=1)
    b.text("에 따라 정당한 이유 없이 근로자를 해고하지 못한다. 업무상 부상으로 휴업한 기간의 해고는 ")
    b.statute("동조", paragraph=2).text("가 금지한다. 직장 내 괴롭힘에 관하여는 ")
    b.statute("canonical", "근로기준법", 76, branch=2).text("가 적용되고, 조치의무는 ")
    b.statute("같은 법", article=76, branch=3).text("에 규정되어 있다.\n\n- 판례: ")
    b.case(p.pick(court=SUPREME, category="민사", disposition="판결"), "canonical")
    b.text("\n- 하급심: ").case(p.pick(category="일반행정", disposition="판결", lower=True),
                              "no spaces in date")
    b.text("\n- 퇴직금: ").statute("official 약칭", "근로자퇴직급여 보장법", 8)
    b.text(" 및 ").statute("informal abbreviation", "근로기준법", 36).text("\n- 시행령: ")
    b.statute("compact", "근로기준법 시행령", **decree)  # type: ignore[arg-type]
    b.text("\n\n결론적으로 ").case(p.pick(court=SUPREME, category="일반행정", disposition="판결"),
                               "대판 with compact date and comma")
    b.text("의 법리에 비추어 이 사건 해고는 무효로 볼 여지가 크다.\n")


def lease(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    decree = shaped_provision(acts["주택임대차보호법 시행령"], p.rng, "paragraph")
    b.text("임대차보증금 반환 청구에 관한 의견\n\n임차인이 주택의 인도와 주민등록을 마친 때에는 ")
    b.statute("official 약칭", "주택임대차보호법", 3, paragraph=1)
    b.text("에 따라 그 다음 날부터 대항력을 취득한다. 우선변제권은 ")
    b.statute("quoted", "주택임대차보호법", 3, branch=2).text("가, 임차권등기명령은 ")
    b.statute("동법", article=3, branch=3).text("이 정한다. 소액임차인의 범위는 ")
    b.statute("canonical", "주택임대차보호법 시행령", **decree)  # type: ignore[arg-type]
    b.text("에서 정하고 있다. 상가건물의 경우 권리금 회수기회 보호에 관하여 ")
    b.statute("informal abbreviation", "상가건물 임대차보호법", 10, branch=4).text("가 적용된다(")
    b.case(p.pick(court=SUPREME, category="민사", disposition="판결"), "court and number only")
    b.text(" 참조). 한편 경매절차에서의 배당에 관하여는 ").case(
        p.pick(court=SUPREME, category="민사", disposition="결정"), "대결 without 자")
    b.text("이 있고, 항소심인 ").case(p.pick(category="민사", disposition="판결", lower=True), "canonical")
    b.text("도 이를 따랐다. 주택임대차보호법의 적용 범위는 ").statute("canonical", "주택임대차보호법", 2)
    b.text("에 의한다.\n")


def fraud(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    b.text("변호인 의견서\n\n1. 사기죄의 성립 여부\n")
    b.statute("canonical", "형법", 347, paragraph=1).text("의 사기죄는 기망행위, 착오, 처분행위 및 재산상 "
                                                        "이익의 취득이 인과관계로 연결되어야 성립한다(")
    b.case(p.pick(court=SUPREME, category="형사", disposition="판결"), "bare case number")
    b.text("). 제3자로 하여금 이익을 취득하게 한 경우는 ").statute("같은 조", paragraph=2)
    b.text("가 규율한다. 이득액이 5억원 이상이면 ")
    b.statute("official 약칭", "특정경제범죄 가중처벌 등에 관한 법률", 3)
    b.text("가 적용된다.\n2. 배임 부분\n").statute("compact", "형법", 355, paragraph=2)
    b.text("의 배임죄에 관하여 ").case(p.pick(court=SUPREME, category="형사", disposition="판결"),
                                   "no final dot, spaced number, no 판결")
    b.text("는 재산상 손해 발생의 위험으로 족하다고 하였다.\n3. 양형\n원심인 ")
    b.case(p.pick(category="형사", disposition="판결", lower=True, abbreviable=True), "court abbreviation")
    b.text("은 ").statute("informal abbreviation", "형사소송법", 70)
    b.text("의 사유를 들어 구속을 유지하였으나, 그 근거로 든 ")
    b.statute("compact", "형사소송법", **shaped_provision(acts["형사소송법"], p.rng, "item branch"))  # type: ignore[arg-type]
    b.text("는 이 사건과 무관하다. 도주치상 부분은 ")
    b.statute("informal abbreviation", "특정범죄 가중처벌 등에 관한 법률", 5, branch=3)
    b.text("의 적용 대상이 아니다.\n")


def defamation(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    b.text("## 명예훼손 고소 사건 검토\n\n피의자가 인터넷 게시판에 허위사실을 게시한 행위는 ")
    b.statute("official 약칭", "정보통신망 이용촉진 및 정보보호 등에 관한 법률", 70)
    b.text("에 해당할 수 있고, 오프라인 발언은 ").statute("canonical", "형법", 307, paragraph=2)
    b.text(" 또는 ").statute("동조", paragraph=1).text("에 해당한다. 표현의 자유의 제한은 ")
    b.statute("informal abbreviation", "대한민국헌법", 37, paragraph=2)
    b.text("의 비례원칙에 따라야 한다(").case(p.pick(court=CONSTITUTIONAL_COURT), "헌재 short form")
    b.text(").\n\n- 관련 판례: ").case(p.pick(court=SUPREME, category="형사", disposition="판결"),
                                   "commas instead of 선고 (law.go.kr header)")
    b.text("\n- 정통망법 위반 사건의 하급심: ").case(p.pick(category="형사", disposition="판결", lower=True),
                                            "no spaces in date")
    b.text("\n- 위법성조각: ").statute("canonical", "형법", 310)
    b.text("\n- 폭행 부분(반의사불벌): ").statute("compact", "형법", 260, paragraph=3).text("\n")


def constitution(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    first = shaped_provision(acts["헌법재판소법"], p.rng, "paragraph")
    b.text("헌법소원심판 청구서(초안)\n\n청구인은 이 사건 조항이 ")
    b.statute("informal abbreviation", "대한민국헌법", 10).text("가 보장하는 인간의 존엄과 가치 및 행복추구권과 ")
    b.statute("같은 법", article=11).text("의 평등권을 침해한다고 주장한다. 기본권 제한의 한계는 ")
    b.statute("canonical", "대한민국헌법", 37, paragraph=2).text("가 정하고 있다. 청구는 ")
    b.statute("informal abbreviation", "헌법재판소법", **first)  # type: ignore[arg-type]
    b.text("에 따른 것이다. 선례로는 ").case(p.pick(court=CONSTITUTIONAL_COURT), "canonical")
    b.text(", ").case(p.pick(court=CONSTITUTIONAL_COURT), "헌재 short form")
    b.text("가 있다. 또한 ").case(p.pick(court=SUPREME, panel="전원합의체"), "대판(전) for 전원합의체")
    b.text("도 같은 취지이다. 대법원은 ").case(p.pick(court=SUPREME, before=2000), "canonical")
    b.text("에서 이미 이 문제를 다룬 바 있다.\n")


def administrative(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    item = shaped_provision(acts["도로교통법 시행규칙"], p.rng, "subitem")
    b.text("행정소송 소장 검토 메모\n\n1) 원고적격: ").statute("informal abbreviation", "행정소송법", 12)
    b.text("\n2) 제소기간: ").statute("canonical", "행정소송법", 20).text("\n3) 사전통지 누락: ")
    b.statute("quoted", "행정절차법", 21).text(", 의견제출 기회: ").statute("같은 법", article=22)
    b.text("\n4) 운전면허 취소 기준: ").statute("compact", "도로교통법 시행규칙", **item)  # type: ignore[arg-type]
    b.text(", 근거 법률: ").statute("informal abbreviation", "도로교통법", 93)
    b.text("\n5) 판례: ").case(p.pick(court=SUPREME, category="일반행정", disposition="판결"), "canonical")
    b.text("; ").case(p.pick(court="서울행정법원", disposition="판결"), "court abbreviation")
    b.text("; ").case(p.pick(court=SUPREME, category="세무", disposition="판결"), "bare case number")
    b.text("\n6) 집행정지: ").statute("canonical", "행정소송법", 23).text(" — ")
    b.case(p.pick(category="일반행정", disposition="결정"), "canonical").text("\n")


def family(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    b.text("이혼 및 재산분할 사건 의견\n\n재판상 이혼사유는 ").statute("canonical", "민법", 840)
    b.text("에 열거되어 있고, 이 사건에서는 ").statute("같은 조", item=6)
    b.text("의 \"기타 혼인을 계속하기 어려운 중대한 사유\"가 문제된다. 재산분할청구권은 ").statute("canonical", "민법", 839, branch=2)
    b.text("에 근거하며, 재판상 이혼에는 ").statute("같은 법", article=843).text("에 의하여 준용된다. 상속에서의 "
                                                                  "기여분은 ")
    b.statute("compact", "민법", 1008, branch=2).text("가 정한다(").case(
        p.pick(court=SUPREME, category="가사"), "bare case number")
    b.text(" 참조). 절차에 관하여는 ").statute("informal abbreviation", "가사소송법", 2)
    b.text("를 본다. 면접교섭에 관하여는 ").case(p.pick(category="가사", disposition="결정"), "canonical")
    b.text("이, 친생자관계에 관하여는 ").case(p.pick(category="가사", disposition="판결", lower=True), "canonical")
    b.text("이 참고가 된다.\n")


TOPICS: tuple[tuple[str, Topic], ...] = (
    ("tort", tort), ("dismissal", dismissal), ("lease", lease), ("fraud", fraud),
    ("defamation", defamation), ("constitution", constitution), ("administrative", administrative),
    ("family", family),
)


def mistakes(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    """Citations that cannot resolve (wrong numbers and dates, deleted or missing articles), among good ones."""
    taken = {str(r.number) for r in p.records}
    wrong_number = p.pick(court=SUPREME, category="민사", disposition="판결")
    serial = wrong_number.number.serial + 1
    while f"{wrong_number.number.year}{wrong_number.number.code}{serial}" in taken:
        serial += 1
    shifted = p.pick(court=SUPREME, category="형사", disposition="판결")
    out_of_seat = p.pick(lower=True, category="민사", court="서울고등법원(춘천재판부)")
    b.text("[검토 필요] 인용 확인 메모\n\n가. 원고가 인용한 ")
    written = wrong_number.citation().canonical().replace(str(wrong_number.number),
                                                            f"{wrong_number.number.year}다{serial}")
    b.unresolvable(written, "no such case number in the sample data")
    b.text("은 존재하지 않는 사건번호로 보인다.\n나. 피고가 든 ")
    moved = shifted.citation().canonical().replace(
        f"{shifted.date.year}. {shifted.date.month}. {shifted.date.day}.",
        f"{shifted.date.year}. {shifted.date.month}. {shifted.date.day % 27 + 1}.")
    b.unresolvable(moved, f"date does not match the record ({shifted.citation().canonical()})")
    b.text("은 선고일자가 기록과 다르다.\n다. ")
    b.unresolvable(f"대법원 {wrong_number.date.year}. {wrong_number.date.month}. {wrong_number.date.day}. "
                   f"선고 {wrong_number.number.year}가합{serial} 판결", "가합 is a first-instance code, not 대법원's")
    b.text("은 대법원 사건부호가 아니다.\n라. ")
    b.unresolvable("대법원 2021. 2. 30. 선고 2020다12345 판결", "no such calendar date (2월 30일)")
    b.text("의 날짜는 달력에 없다.\n마. 조문: ")
    b.unresolvable("민법 제1200조", "민법 ends at 제1118조")
    b.text(", ")
    b.unresolvable("형법 제241조", "deleted article (삭제 <2016. 1. 6.>)")
    b.text(", ")
    b.unresolvable("근로기준법 제23조 제5항", "제23조 has two paragraphs")
    b.text(", ")
    b.unresolvable("주택임대차특별법 제3조", "no such act")
    b.text("은 모두 확인되지 않는다.\n바. 반면 ")
    b.case(out_of_seat, "court abbreviation").text("과 ").case(out_of_seat, "canonical")
    b.text("은 원외재판부 판결로, ").case(p.pick(court="서울고등법원", abbreviable=True), "court abbreviation")
    b.text("은 서울고등법원의 재판으로 확인되었고, ")
    b.statute("canonical", "민법", 750).text(" 및 ").statute("동조").text("의 인용도 정확하다.\n")


def _articles(act: Act, rng: random.Random, count: int, digit: str = "") -> list[int]:
    """Distinct live articles (no branch) of `act`, holding `digit` and another digit where one is asked."""
    numbers = [a.number for a in act.articles if not a.branch and not a.deleted_on
               and (not digit or (digit in str(a.number) and len(str(a.number)) > 1))]
    return rng.sample(numbers, count)


def decrees(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    """시행령/시행규칙 cited through the act before them (같은 법 시행령), by their short names (영, 규칙),
    declared or not, and again by 같은 영/동령/같은 시행규칙; 같은 법/동법 after them (their 법률). The
    references that cannot be resolved with certainty are labelled so."""
    labour = _articles(acts["근로기준법 시행령"], p.rng, 5)
    rules = _articles(acts["도로교통법 시행규칙"], p.rng, 4)
    lease = _articles(acts["주택임대차보호법 시행령"], p.rng, 2)
    listed = p.pick(court=SUPREME, category="민사", disposition="판결")
    taken = {str(r.number) for r in p.records}
    later = next(serial for serial in range(listed.number.serial + 1, listed.number.serial + 100)
                 if str(replace(listed.number, serial=serial)) not in taken)
    b.text("시행령·시행규칙 인용 검토 메모\n\n1. 사내 규칙 제3조는 법령이 아니고, ")
    b.unresolvable(f"영 제{labour[0]}조", "영 before any 시행령 is named")
    b.text("의 뜻은 아래에서 본다.\n2. 해고의 서면통지는 ").statute("canonical", "근로기준법", 27)
    b.text("에 따르고, 그 절차는 ").statute("같은 법 시행령", "근로기준법 시행령", labour[1])
    b.text("이 정한다. ").statute("영", "근로기준법 시행령", labour[2]).text("도 함께 본다.\n3. 운전면허에 관하여는 ")
    b.statute("canonical", "도로교통법", 93).text(", ").statute("동법 시행규칙", "도로교통법 시행규칙", rules[0])
    b.text("을 본다. 다만 ").unresolvable(f"규칙 제{rules[1]}조", "규칙 not declared: suggested, never applied")
    b.text("의 적용 여부는 다툼이 있다. ").statute("declares 규칙 in 「」", "도로교통법 시행규칙", rules[2])
    b.text("와 ").statute("규칙", "도로교통법 시행규칙", rules[3]).text("에 의하여도 같다.\n4. 소액임차인의 범위는 ")
    b.statute("canonical", "주택임대차보호법 시행령", lease[0]).text("가 정하나, ")
    b.unresolvable(f"영 제{lease[1]}조", "영 after two 시행령 cited: ambiguous")
    b.text("가 어느 시행령을 말하는지는 분명하지 않다. 이하 ").statute("declares 영", "근로기준법 시행령", labour[3])
    b.text("을 기준으로 하고, ").statute("영", "근로기준법 시행령", labour[4]).text("도 같다.\n5. 판례: ")
    b.case_list(listed, later).text(" 참조.\n6. ")
    # 같은 법 after a 시행령/시행규칙 names its 법률; 같은 영, 같은 시행규칙, 동령 the very one cited last.
    statute_article = _articles(acts["근로기준법"], p.rng, 1)[0]
    labour_more = _articles(acts["근로기준법 시행령"], p.rng, 3)
    rules_more = _articles(acts["도로교통법 시행규칙"], p.rng, 3)
    b.text("퇴직금 중간정산은 ").statute("canonical", "근로기준법 시행령", labour_more[0])
    b.text("과 ").statute("같은 법", article=statute_article).text("에 따르고, ")
    b.statute("같은 영", article=labour_more[1]).text("도 본다. 면허의 효력은 ")
    b.statute("canonical", "도로교통법 시행규칙", rules_more[0]).text(", ").statute("동법", article=93)
    b.text(" 및 ").statute("같은 시행규칙", article=rules_more[1]).text("이 정하고, ")
    b.statute("동령", article=labour_more[2]).text("은 이와 무관하다. ")
    b.unresolvable(f"같은 규칙 제{rules_more[2]}조", "같은 규칙: another rule may be meant; suggested, never applied")
    b.text("의 해석은 유보한다.\n")


def scanned(b: DraftBuilder, p: Pools, acts: dict[str, Act]) -> None:
    """A scanned judgment: letters OCR reads for digits, 대법윈, full-width digits; and prose with the
    same letters, a placeholder article and a 단기-era citation, none of which may become a citation."""
    civil, criminal = acts["민법"], acts["형법"]
    with_zero = _articles(civil, p.rng, 1, digit="0")[0]
    with_one = _articles(criminal, p.rng, 1, digit="1")[0]
    labour = shaped_provision(acts["근로기준법"], p.rng, "paragraph")
    b.text("[스캔본 발췌] 판결 이유\n\n원고는 ").statute("O for 0", "민법", with_zero)
    b.text("에 기하여 손해배상을 구하고, 피고는 ").statute("l for 1", "형법", with_one)
    b.text("를 들어 다툰다. 근로관계에는 ").statute("full-width digits", "근로기준법", **labour)  # type: ignore[arg-type]
    b.text("이 적용된다(").case(p.pick(court=SUPREME, category="민사", disposition="판결"), "대법윈 (OCR)")
    b.text(", ").case(p.pick(court=SUPREME, category="형사", disposition="판결"), "full-width digits")
    b.text(" 참조).\n조문 번호가 정해지지 않은 민법 제O조(미정), 지하철 제1O호선, 모델 I7 제품은 인용이 아니다. "
           "단기 4293년에 선고된 대법원 1960. 5. 12. 선고 4292민상123 판결은 구 사건부호라 확인 대상이 아니다.\n")


# Drafts beyond the eight topics, two of each: unresolvable citations among good ones, decrees and
# their short names, scanned text.
CHECKS: tuple[tuple[str, Topic], ...] = (("mistakes", mistakes), ("decrees", decrees), ("scanned", scanned))
