"""Statutes: build each act's articles from its ActSpec, then write law.go.kr `<법령>` bodies and the list.

Articles are real in their numbering (see acts.py); their text is real only for REAL_ARTICLES and
otherwise a placeholder that says so (`[표본 문안]`). Structure (항, 호 with 호가지번호, 목) is drawn
from a seeded generator so that every shape the importer must handle occurs.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from pathlib import Path

from sample_data.acts import ACTS, INFORMAL_ALIASES, KIND_CODES, MINISTRY_CODES, ActSpec
from sample_data.nodes import Node, json_document, search_list, write_json, write_xml
from sample_data.texts import REAL_ARTICLES, RealParagraph

CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
SUBITEM_LETTERS = "가나다라마바사아자차카타파하"
JSON_BODY_ACTS = ("근로기준법", "주택임대차보호법")

_TITLES = ("정의", "적용 범위", "다른 법률과의 관계", "신청", "신고", "허가", "등록", "통지", "기간의 계산",
           "비용의 부담", "자료의 제출", "조사", "청문", "이의신청", "시정명령", "과징금", "권한의 위임",
           "비밀유지", "수수료", "협조 요청")
_SUBJECTS = ("관할 행정청", "신청인", "당사자", "사업자", "위원회", "법원", "임차인", "사용자", "보호기관", "채권자")
_ACTIONS = ("대통령령으로 정하는 바에 따라 필요한 조치를 하여야 한다",
            "지체 없이 그 사실을 상대방에게 알려야 한다",
            "정당한 사유 없이 이를 거부하여서는 아니 된다",
            "그 내용을 서면으로 작성하여 보관하여야 한다",
            "관계 기관의 장에게 협조를 요청할 수 있다",
            "그 기간을 한 차례 연장할 수 있다")
_ITEMS = ("신청인의 성명과 주소", "처분의 내용과 이유", "기간과 장소", "그 밖에 필요한 사항", "비용의 산정 기준",
          "관계 서류의 사본", "위반 행위의 내용", "이해관계인의 의견")
_CHAPTERS = ("기본계획", "신청과 심사", "권리와 의무", "감독", "분쟁의 조정", "보칙")


@dataclass
class Subitem:
    letter: str
    text: str


@dataclass
class Item:
    number: int
    branch: int
    text: str
    subitems: list[Subitem] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.number}의{self.branch}." if self.branch else f"{self.number}."


@dataclass
class Paragraph:
    number: int  # 0 when the article has a single unnumbered body
    text: str
    items: list[Item] = field(default_factory=list)


@dataclass
class Article:
    number: int
    branch: int
    title: str
    paragraphs: list[Paragraph]
    deleted_on: str | None = None
    real_text: bool = False

    @property
    def label(self) -> str:
        return f"제{self.number}조" + (f"의{self.branch}" if self.branch else "")


@dataclass
class Act:
    spec: ActSpec
    articles: list[Article]
    headings: dict[tuple[int, int], list[str]]
    serial: int  # 법령일련번호 (MST)
    promulgated: dt.date
    promulgation_no: int
    effective: dt.date

    @property
    def key(self) -> str:
        return f"{self.spec.law_id}{self.promulgated:%Y%m%d}{self.promulgation_no:05d}"

    def article(self, number: int, branch: int = 0) -> Article | None:
        return next((a for a in self.articles if (a.number, a.branch) == (number, branch)), None)


def _topic(noun: str) -> str:
    """The noun with its topic particle: 은 after a final consonant, 는 after a vowel."""
    return noun + ("은" if (ord(noun[-1]) - 0xAC00) % 28 else "는")


def _placeholder_body(rng: random.Random) -> str:
    return f"[표본 문안] {_topic(rng.choice(_SUBJECTS))} {rng.choice(_ACTIONS)}."


def _items(rng: random.Random, article: int) -> list[Item]:
    count = rng.randint(2, 6)
    items: list[Item] = []
    for number in range(1, count + 1):
        items.append(Item(number, 0, rng.choice(_ITEMS)))
        if number == 2 and count >= 3 and rng.random() < 0.2:
            items.append(Item(2, 2, f"{rng.choice(_ITEMS)}(제{max(1, article - 1)}조에 따른 것으로 한정한다)"))
    for item in items:
        if rng.random() < 0.25:
            item.subitems = [Subitem(letter, rng.choice(_ITEMS)) for letter in SUBITEM_LETTERS[: rng.randint(2, 4)]]
    return items


def _placeholder_article(rng: random.Random, spec: ActSpec, number: int, branch: int) -> Article:
    if number == 1 and not branch:
        title = "목적"
    elif number == spec.last_article:
        title = "과태료"
    else:
        title = rng.choice(_TITLES)
    shape = rng.random()
    if shape < 0.3:
        return Article(number, branch, title, [Paragraph(0, _placeholder_body(rng))])
    if shape < 0.4:  # an unnumbered body listing 호 (law.go.kr puts them in a 항 without 항번호)
        text = f"[표본 문안] {_topic(rng.choice(_SUBJECTS))} 다음 각 호의 어느 하나에 해당하는 경우에는 이를 거부할 수 있다."
        return Article(number, branch, title, [Paragraph(0, text, _items(rng, number))])
    paragraphs = []
    for index in range(1, rng.randint(2, 5) + 1):
        text = _placeholder_body(rng)
        items = _items(rng, number) if rng.random() < 0.4 else []
        if items:
            text = f"[표본 문안] {_topic(rng.choice(_SUBJECTS))} 다음 각 호의 사항을 정하여야 한다."
        paragraphs.append(Paragraph(index, text, items))
    return Article(number, branch, title, paragraphs)


def _real_article(number: int, branch: int, title: str, texts: tuple[RealParagraph, ...]) -> Article:
    paragraphs = []
    for index, written in enumerate(texts, 1):
        text, items = (written, ()) if isinstance(written, str) else written
        paragraphs.append(Paragraph(0 if len(texts) == 1 else index, text,
                                    [Item(i, 0, item) for i, item in enumerate(items, 1)]))
    return Article(number, branch, title, paragraphs, real_text=True)


def _generated_headings(rng: random.Random, spec: ActSpec) -> tuple[tuple[int, str], ...]:
    headings = [(1, "제1장 총칙")]
    step = max(6, spec.last_article // rng.randint(4, 9))
    chapter = 1
    for start in range(step, spec.last_article - 3, step):
        chapter += 1
        headings.append((start, f"제{chapter}장 {_CHAPTERS[(chapter - 2) % len(_CHAPTERS)]}"))
        if chapter == 2 and step >= 10:
            headings += [(start, "제1절 통칙"), (start + step // 2, "제2절 절차")]
    headings.append((spec.last_article - 2, f"제{chapter + 1}장 벌칙"))
    return tuple(headings)


def build_act(spec: ActSpec, rng: random.Random) -> Act:
    articles: list[Article] = []
    for number in range(1, spec.last_article + 1):
        for branch in (0, *range(2, spec.branches.get(number, 1) + 1)):
            real = REAL_ARTICLES.get((spec.name, number, branch))
            if branch == 0 and number in spec.deleted:
                articles.append(Article(number, 0, "", [], deleted_on=spec.deleted[number]))
            elif real:
                articles.append(_real_article(number, branch, *real))
            else:
                articles.append(_placeholder_article(rng, spec, number, branch))
    headings: dict[tuple[int, int], list[str]] = {}
    for number, text in spec.headings or _generated_headings(rng, spec):
        headings.setdefault((number, 0), []).append(text)
    year = rng.randint(2019, 2025)
    promulgated = dt.date(year, rng.randint(1, 12), rng.randint(1, 28))
    number_ranges = {"헌법": (10, 10), "법률": (16000, 20999), "대통령령": (30000, 35999), "부령": (1000, 2100)}
    low, high = number_ranges[spec.kind]
    return Act(spec, articles, headings, serial=rng.randint(200000, 279999),
               promulgated=promulgated, promulgation_no=rng.randint(low, high),
               effective=promulgated + dt.timedelta(days=rng.choice((0, 90, 180, 365))))


def build_acts(seed: int) -> list[Act]:
    return [build_act(spec, random.Random(f"{seed}:law:{spec.law_id}")) for spec in ACTS]


def _article_key(article: Article) -> str:
    return f"{article.number:04d}{article.branch:02d}1"


def _heading_key(article: Article, index: int) -> str:
    # Headings end in 0 so they never collide with an article's key; the index tells apart
    # several headings before one article (편, 장 and 절 at 제1조).
    return f"{article.number:04d}{index:02d}0"


def _article_node(parent: Node, act: Act, article: Article) -> None:
    unit = parent.add("조문단위", 조문키=_article_key(article))
    unit.add("조문번호", article.number)
    if article.branch:
        unit.add("조문가지번호", article.branch)
    unit.add("조문여부", "조문")
    if article.deleted_on:
        unit.add("조문시행일자", f"{act.effective:%Y%m%d}")
        unit.add("조문제개정유형", "삭제")
        unit.add("조문변경여부", "N")
        unit.add("조문내용", f"{article.label} 삭제 <{article.deleted_on}>", cdata=True)
        return
    unit.add("조문제목", article.title, cdata=True)
    unit.add("조문시행일자", f"{act.effective:%Y%m%d}")
    unit.add("조문이동이전", "")
    unit.add("조문이동이후", "")
    unit.add("조문변경여부", "N")
    heading = f"{article.label}({article.title})" if article.title else article.label
    if len(article.paragraphs) == 1 and article.paragraphs[0].number == 0:
        # An unnumbered body: its text joins the heading; its 호, if any, sit in a 항 without a number.
        unit.add("조문내용", f"{heading} {article.paragraphs[0].text}", cdata=True)
    else:
        unit.add("조문내용", heading, cdata=True)
    for paragraph in article.paragraphs:
        if paragraph.number == 0 and not paragraph.items:
            continue
        hang = unit.add("항")
        if paragraph.number:
            marker = CIRCLED[paragraph.number - 1]
            hang.add("항번호", marker)
            hang.add("항내용", f"{marker} {paragraph.text}", cdata=True)
        for item in paragraph.items:
            ho = hang.add("호")
            ho.add("호번호", f"{item.number}.")
            if item.branch:
                ho.add("호가지번호", item.branch)
            ho.add("호내용", f"{item.label} {item.text}", cdata=True)
            for subitem in item.subitems:
                mok = ho.add("목")
                mok.add("목번호", f"{subitem.letter}.")
                mok.add("목내용", f"{subitem.letter}. {subitem.text}", cdata=True)


def act_body(act: Act) -> Node:
    spec = act.spec
    root = Node("법령", attrs={"법령키": act.key})
    info = root.add("기본정보")
    info.add("법령ID", spec.law_id)
    info.add("공포일자", f"{act.promulgated:%Y%m%d}")
    info.add("공포번호", act.promulgation_no)
    info.add("언어", "한글")
    info.add("법종구분", spec.kind, 법종구분코드=KIND_CODES[spec.kind])
    info.add("법령명_한글", spec.name, cdata=True)
    info.add("법령명_한자", spec.hanja or spec.name, cdata=True)
    info.add("법령명약칭", spec.abbreviation, cdata=True)
    info.add("제명변경여부", "N")
    info.add("한글법령여부", "Y")
    info.add("소관부처", spec.ministry, 소관부처코드=MINISTRY_CODES[spec.ministry])
    info.add("시행일자", f"{act.effective:%Y%m%d}")
    info.add("제개정구분", "일부개정")
    body = root.add("조문")
    for article in act.articles:
        for index, text in enumerate(act.headings.get((article.number, article.branch), [])):
            unit = body.add("조문단위", 조문키=_heading_key(article, index))
            unit.add("조문번호", article.number)
            unit.add("조문여부", "전문")
            unit.add("조문내용", text, cdata=True)
        _article_node(body, act, article)
    annex = root.add("부칙").add("부칙단위", 부칙키=f"{act.promulgated:%Y%m%d}{act.promulgation_no:05d}")
    annex.add("부칙공포일자", f"{act.promulgated:%Y%m%d}")
    annex.add("부칙공포번호", act.promulgation_no)
    annex.add("부칙내용", f"부칙 <제{act.promulgation_no}호, {act.promulgated.year}. {act.promulgated.month}. "
                      f"{act.promulgated.day}.>\n이 법은 공포 후 6개월이 경과한 날부터 시행한다. [표본 문안]", cdata=True)
    return root


def law_search(acts: list[Act]) -> Node:
    root = search_list("LawSearch", "law", "lawNm", len(acts))
    for index, act in enumerate(acts, 1):
        spec = act.spec
        row = root.add("law", id=str(index))
        row.add("법령일련번호", act.serial)
        row.add("현행연혁코드", "현행")
        row.add("법령명한글", spec.name, cdata=True)
        row.add("법령약칭명", spec.abbreviation, cdata=True)
        row.add("법령ID", spec.law_id)
        row.add("공포일자", f"{act.promulgated:%Y%m%d}")
        row.add("공포번호", act.promulgation_no)
        row.add("제개정구분명", "일부개정")
        row.add("소관부처명", spec.ministry)
        row.add("소관부처코드", MINISTRY_CODES[spec.ministry])
        row.add("법령구분명", spec.kind)
        row.add("시행일자", f"{act.effective:%Y%m%d}")
        row.add("자법타법여부", "")
        row.add("법령상세링크", f"/DRF/lawService.do?OC=sample&target=law&MST={act.serial}&type=HTML")
    return root


def write_statutes(acts: list[Act], out: Path) -> None:
    for act in acts:
        write_xml(out / "body" / f"{act.spec.law_id}.xml", act_body(act))
        if act.spec.name in JSON_BODY_ACTS:
            write_json(out / "json" / f"{act.spec.law_id}.json", json_document(act_body(act)))
    write_xml(out / "LawSearch.xml", law_search(acts))
    write_json(out / "aliases.json", INFORMAL_ALIASES)
