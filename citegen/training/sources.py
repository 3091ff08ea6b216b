"""Turn law data into the few facts the corpus needs: acts with their articles (title, what the
text says, the provisions it refers to), and decisions with their citation fields.

Two sources of acts:
- the real statute book (data/law): the composition root reads the bundle with the verifier's
  reader (`citegen.commands.statute_book`) and hands the articles in force over as plain
  `ArticleText` values; `book_acts` chooses the acts of the corpus and reads their texts;
- law.go.kr `<법령>` bodies (../shared/reference/legal-citations.md §2.4, the synthetic sample
  and test fixtures), read leniently here by `read_law_data`.
Decisions come from law.go.kr case bodies (data/cases: synthetic sample decisions), any record with
a 사건번호 and a date, whatever its wrapper (PrecService, PrecSearch rows, 헌재 detc bodies); a record
whose number, date or court cannot be read is skipped with a warning. A JSON file that does not
parse, or aliases.json that is not an object of act names, is refused with its path.

This is a reader for corpus generation only. The verifier owns the real importers (validation,
hostile input, the database); this module never imports it (STYLE.md: citegen's library code sees
grammars only).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from citegen.training.errors import TrainingDataError
from grammars import (
    COURTS,
    COURTS_BY_NAME,
    CaseCitation,
    CaseNumber,
    CitationFinder,
    CitationParser,
    Disposition,
    Panel,
    StatuteCitation,
)

logger = logging.getLogger(__name__)

Tree = dict[str, Any]

_ARTICLE_HEADING = re.compile(r"^\s*제\d+조(?:의\d+)?\s*(?:\([^)]*\))?\s*")
_LEADING_MARK = re.compile(r"^\s*(?:[①-⑳]|\d+\.|[가-하]\.)\s*")
_SAMPLE_MARK = re.compile(r"\s*\(표본[^)]*\)")  # the sample data's "(표본 판시사항)" tag on invented text
# law.go.kr's 법원명 is sometimes abbreviated (`서울고법`, `광주지법`); a citation names the court in full.
_COURT_NAMES = {**{short: court.name for court in COURTS for short in court.abbreviations},
                **{name: name for name in COURTS_BY_NAME}}


# The acts most cited in real writing: the codes, procedure, labour, lease, tax, crime and
# administrative acts that data/cases' decisions apply and data/law/aliases.json abbreviates.
CORE_ACTS = (
    "대한민국헌법", "민법", "형법", "민사소송법", "형사소송법", "상법", "민사집행법", "가사소송법", "행정소송법",
    "행정심판법", "행정절차법", "행정기본법", "국가배상법", "헌법재판소법", "근로기준법", "근로자퇴직급여 보장법",
    "산업안전보건법", "중대재해 처벌 등에 관한 법률", "주택임대차보호법", "상가건물 임대차보호법",
    "집합건물의 소유 및 관리에 관한 법률", "건축법", "도로교통법", "소득세법", "부가가치세법", "국세기본법",
    "특정범죄 가중처벌 등에 관한 법률", "특정경제범죄 가중처벌 등에 관한 법률", "폭력행위 등 처벌에 관한 법률",
    "성폭력범죄의 처벌 등에 관한 특례법", "가정폭력범죄의 처벌 등에 관한 특례법", "아동ㆍ청소년의 성보호에 관한 법률",
    "개인정보 보호법", "정보통신망 이용촉진 및 정보보호 등에 관한 법률", "독점규제 및 공정거래에 관한 법률",
    "저작권법", "특허법",
)
MIN_ARTICLES = 10  # an act drawn besides the core ones has at least this many articles with text


class ArticleText(NamedTuple):
    """An article of an act in force as the statute book holds it (label, title, Markdown text)."""

    number: int
    branch: int  # 0 for 제N조, M for 제N조의M
    title: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Article:
    number: int
    branch: int | None
    title: str  # empty for acts without article titles (대한민국헌법)
    text: str  # the first sentence of its first paragraph not deleted, numbering marks removed
    paragraphs: int
    references: tuple[StatuteCitation, ...] = ()  # other articles its text refers to, in the corpus's acts

    @property
    def is_placeholder(self) -> bool:
        """Sample data marks text not copied from the act with a bracketed tag (`[표본 문안] …`)."""
        return self.text.startswith("[")


@dataclass(frozen=True, slots=True)
class Act:
    name: str
    short_name: str | None  # the official 약칭 (법령명약칭), when the act has one
    articles: tuple[Article, ...]  # in force, not wholly deleted, in the order of the body
    highest_article: int

    def cite(self, article: Article, paragraph: int | None = None) -> StatuteCitation:
        return StatuteCitation(self.name, article.number, article.branch, paragraph)


@dataclass(frozen=True, slots=True)
class Decision:
    citation: CaseCitation
    name: str  # 사건명, e.g. 손해배상(기)
    holding: str  # the first sentence of 판시사항 (or 판결요지 / 결정요지), may be empty
    statutes: tuple[StatuteCitation, ...]  # 참조조문 that name an act of the data


@dataclass(frozen=True, slots=True)
class LawData:
    acts: tuple[Act, ...]
    decisions: tuple[Decision, ...]
    aliases: dict[str, str]  # informal abbreviation -> act name (data/synthetic_law/aliases.json)


def read_law_data(law_dir: Path, case_dir: Path) -> LawData:
    """Read every `<법령>` body under `law_dir` and every decision under `case_dir`."""
    if not law_dir.is_dir():
        raise TrainingDataError(f"expected a folder of law.go.kr <법령> bodies (XML/JSON), got {law_dir}")
    acts = {act.name: act for _, tree in _trees(law_dir) for act in _acts(tree)}
    if not acts:
        raise TrainingDataError(f"expected law.go.kr <법령> bodies (XML/JSON) in {law_dir}, got no act")
    return law_data(tuple(acts.values()), case_dir, law_dir / "aliases.json")


def law_data(acts: Sequence[Act], case_dir: Path, aliases_file: Path) -> LawData:
    """The acts with every decision under `case_dir` and the aliases of `aliases_file` (if it
    exists) that name one of them, sorted for reproducibility."""
    if not acts:  # checked before the finder: a lexicon without acts is refused deep in grammars
        raise TrainingDataError("expected at least one act for the corpus, got none")
    if not case_dir.is_dir():
        why = "is not a folder" if case_dir.exists() else "does not exist"
        raise TrainingDataError(f"expected a folder of law.go.kr case bodies (PrecService, DetcService), "
                                f"got {case_dir}, which {why}")
    by_name = {act.name: act for act in acts}
    # The grammars' own finder reads 사건번호 and 참조조문: "a citation" is defined once.
    finder = CitationFinder(CitationParser.for_lexicon({name: None for name in by_name}))
    # Case numbers are per court: two courts' 2022나2034567 are two decisions.
    decisions: dict[tuple[str, str], Decision] = {}
    for path, tree in _trees(case_dir):
        for record in _case_records(tree):
            decision = _decision(record, finder)
            if isinstance(decision, str):
                logger.warning("skipping a case record of %s: %s", path, decision)
                continue
            key = (str(decision.citation.case_number), decision.citation.court or "")
            if key not in decisions or len(decision.holding) > len(decisions[key].holding):
                decisions[key] = decision
    if not decisions:
        raise TrainingDataError(f"expected case bodies with decisions in {case_dir}, got none")
    aliases = {alias: name for alias, name in sorted(_read_aliases(aliases_file).items()) if name in by_name}
    logger.info("read %d acts and %d decisions", len(by_name), len(decisions))
    return LawData(
        tuple(by_name[name] for name in sorted(by_name)),
        tuple(decisions[key] for key in sorted(decisions)),
        aliases,
    )


def _read_aliases(path: Path) -> dict[str, str]:
    """aliases.json: `{"주임법": "주택임대차보호법", …}`; none when the file does not exist."""
    if not path.is_file():
        return {}
    aliases = _read_json(path)
    if not isinstance(aliases, dict):
        raise TrainingDataError(f"expected a JSON object of abbreviation: act name in {path}, "
                                f"got a {type(aliases).__name__}")
    wrong = [f"{alias}: {name!r}" for alias, name in aliases.items() if not isinstance(name, str)]
    if wrong:
        raise TrainingDataError(f"expected act names as strings in {path}, got {', '.join(wrong[:3])}")
    return aliases


def book_acts(book: Mapping[str, tuple[str, Sequence[ArticleText]]], others: int, seed: int,
              core: Sequence[str] = CORE_ACTS) -> tuple[Act, ...]:
    """The corpus's acts from the statute book in force (`{name: (법령구분, articles)}`): every
    `core` act, and `others` 법률 drawn with `seed` from the rest that have MIN_ARTICLES articles
    with text. Each keeps its live articles: real titles, the first sentence of the text, and the
    references its text makes to articles of the chosen acts."""
    missing = [name for name in core if name not in book]
    if missing:
        raise TrainingDataError(f"expected the statute book to hold every core act in force, got none named {missing}")
    rest = sorted(name for name, (kind, articles) in book.items()
                  if name not in core and kind == "법률" and len(articles) >= MIN_ARTICLES)
    if not 0 <= others <= len(rest):
        raise TrainingDataError(f"expected 0 to {len(rest)} other acts to draw, got {others}")
    chosen = sorted((*core, *random.Random(seed).sample(rest, others)))
    # Which articles the corpus keeps is decided first: a reference may only point to one of them.
    kept: dict[str, list[tuple[ArticleText, str, str]]] = {}
    for name in chosen:
        kept[name] = [(article, *read) for article in book[name][1] if (read := _in_force(article)) is not None]
        if not kept[name]:
            raise TrainingDataError(f"expected {name} to have an article in force with text, got none of its "
                                    f"{len(book[name][1])} articles")
    live = {name: {(article.number, article.branch) for article, _, _ in kept[name]} for name in chosen}
    finder = CitationFinder(CitationParser.for_lexicon({name: None for name in chosen}))
    acts = []
    for name in chosen:
        articles = tuple(_book_article(name, article, text, first, finder, live) for article, text, first in kept[name])
        acts.append(Act(name, None, articles, max(article.number for article in articles)))
    logger.info("chose %d acts of the statute book (%d core, %d drawn), %d articles",
                len(acts), len(core), others, sum(len(act.articles) for act in acts))
    return tuple(acts)


_CIRCLED = re.compile(r"\*\*([①-⑳])\*\*")  # Markdown's bold 항 marks
_ESCAPED_DOT = re.compile(r"\\\.")  # `1\.` in Markdown: a 호 number
# Notes the statute book appends to provisions (`<개정 2018.3.20>`, `[본조신설 2009. 5. 8.]`), not law text.
_EDITORIAL_NOTE = re.compile(r"\s*(?:<[^<>]*\d{4}[^<>]*>|\[[^\[\]]*\d{4}\.[^\[\]]*\])")
# A bare `제N조` in an act's text names an article of the same act; `법 제N조` / `영 제N조` (a decree's
# 법률) and `「다른 법」 제N조` of an act outside the corpus do not.
_BARE_ARTICLE = re.compile(r"(?<!법 )(?<!영 )(?<!규칙 )(?<!」 )(?<![가-힣0-9」])제(\d+)조(?:의(\d+))?")
_PARAGRAPH = re.compile(r"^[①-⑳]", re.MULTILINE)
# `② 삭제 <2016. 1. 6.>` is a deleted paragraph; an item's `삭제지원요청자의 …` is text.
_DELETED = re.compile(r"삭제(?![가-힣])")


def _first_in_force(paragraphs: Iterable[str]) -> str | None:
    """The first paragraph not deleted (① may be deleted while ② is in force), its numbering mark
    removed; None when every one is deleted or empty."""
    for paragraph in paragraphs:
        text = _LEADING_MARK.sub("", paragraph).strip()
        if text and not _DELETED.match(text):
            return text
    return None


def _in_force(article: ArticleText) -> tuple[str, str] | None:
    """The article's plain text and its first paragraph in force; None when every one is deleted or empty."""
    text = _EDITORIAL_NOTE.sub("", _ESCAPED_DOT.sub(".", _CIRCLED.sub(r"\1", article.text)))
    chunks = text.split("\n\n")
    # The book writes each paragraph (and each run of 호) in a chunk of its own; an article without
    # ① marks has one paragraph, its first chunk.
    first = _first_in_force([chunk for chunk in chunks if _PARAGRAPH.match(chunk.lstrip())] or chunks[:1])
    return None if first is None else (text, first)


def _book_article(act: str, article: ArticleText, text: str, first: str, finder: CitationFinder,
                  live: Mapping[str, set[tuple[int, int]]]) -> Article:
    itself = (act, article.number, article.branch)
    references = [ref for ref in _references(act, text, finder) if ref != itself]
    return Article(
        article.number,
        article.branch or None,
        article.title or "",
        _first_sentence(first),
        len(_PARAGRAPH.findall(text)),
        tuple(dict.fromkeys(StatuteCitation(name, number, branch or None) for name, number, branch in references
                            if (number, branch) in live.get(name, ()))),
    )


def _references(act: str, text: str, finder: CitationFinder) -> Iterator[tuple[str, int, int]]:
    """(act, article, branch) of each article `act`'s text refers to: named (`「민법」 제3조`, and
    what continues it), `이 법 제N조`, `같은 법 제N조` (the act named last), and bare `제N조`."""
    named_spans: list[tuple[int, int]] = []
    previous: str | None = None
    for found in finder.find(text, lenient=True):
        citation = found.citation
        if not isinstance(citation, StatuteCitation) or citation.article is None:
            continue
        named_spans.append(found.span)
        back = (citation.back_reference or "").replace(" ", "")
        target = citation.act or {"이법": act, "같은법": previous, "동법": previous}.get(back)
        if target is None:
            continue
        previous = target if citation.act is not None else previous
        yield target, citation.article, citation.article_branch or 0
    for match in _BARE_ARTICLE.finditer(text):
        if not any(start <= match.start() < end for start, end in named_spans):
            yield act, int(match.group(1)), int(match.group(2) or 0)


def _trees(folder: Path) -> Iterator[tuple[Path, Tree]]:
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".xml":
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as error:
                logger.warning("skipping %s: %s", path, error)
                continue
            yield path, {root.tag: _element_tree(root)}
        elif path.suffix == ".json" and path.name != "aliases.json":
            yield path, _read_json(path)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise TrainingDataError(f"expected UTF-8 JSON in {path}, got {error.reason} at byte {error.start}") from error
    except json.JSONDecodeError as error:
        raise TrainingDataError(f"expected JSON in {path}, got {error.msg} at line {error.lineno} "
                                f"column {error.colno}") from error
    except OSError as error:
        raise TrainingDataError(f"expected a readable file, got {path}: {error.strerror or error}") from error


def _element_tree(element: ET.Element) -> Any:
    """An element as JSON-like data: text for a leaf, else {child tag: value or list of values}."""
    children = list(element)
    if not children:
        return (element.text or "").strip()
    tree: Tree = {}
    for child in children:
        value = _element_tree(child)
        if child.tag in tree:
            previous = tree[child.tag]
            tree[child.tag] = (previous if isinstance(previous, list) else [previous]) + [value]
        else:
            tree[child.tag] = value
    return tree


def _walk(node: Any) -> Iterator[Tree]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return value if isinstance(value, list) else [value]


def _text(node: Tree, key: str) -> str:
    value = node.get(key, "")
    return value.strip() if isinstance(value, str) else ""


def _first_sentence(text: str, limit: int = 140) -> str:
    """Up to the first `다.`, or the words that fit in `limit` characters and `…` (never half a word)."""
    text = " ".join(text.split())
    end = text.find("다.")
    if 0 <= end < limit:
        return text[: end + 2].strip()
    if len(text) <= limit:
        return text.strip()
    return text[:limit].rsplit(" ", 1)[0].rstrip(",") + "…"


def _acts(tree: Tree) -> Iterator[Act]:
    for node in _walk(tree):
        body = node.get("법령")
        if not isinstance(body, dict) or not isinstance(body.get("기본정보"), dict):
            continue
        info = body["기본정보"]
        name = _text(info, "법령명_한글")
        units = _as_list((body.get("조문") or {}).get("조문단위")) if isinstance(body.get("조문"), dict) else []
        articles = [article for unit in units if (article := _article(unit)) is not None]
        numbers = [int(_text(unit, "조문번호")) for unit in units if _text(unit, "조문번호").isdigit()]
        if name and articles:
            yield Act(name, _text(info, "법령명약칭") or None, tuple(articles), max(numbers))


def _article(unit: Tree) -> Article | None:
    if _text(unit, "조문여부") != "조문" or not _text(unit, "조문번호").isdigit():
        return None
    content = _ARTICLE_HEADING.sub("", _text(unit, "조문내용"))  # `제900조 삭제 <2011. 3. 7.>`: deleted
    if _text(unit, "조문제개정유형") == "삭제" or _DELETED.match(content):
        return None
    branch = _text(unit, "조문가지번호")
    paragraphs = [p for p in _as_list(unit.get("항")) if isinstance(p, dict)]
    text = _first_in_force([written for p in paragraphs if (written := _text(p, "항내용"))] or [content])
    title = _text(unit, "조문제목")
    if text is None:
        return None
    return Article(
        int(_text(unit, "조문번호")),
        int(branch) if branch.isdigit() and int(branch) > 0 else None,
        title,
        _first_sentence(text),
        len(paragraphs),
    )


def _case_records(tree: Tree) -> Iterator[Tree]:
    for node in _walk(tree):
        if "사건번호" in node and ("선고일자" in node or "종국일자" in node):
            yield node


def _decision(record: Tree, finder: CitationFinder) -> Decision | str:
    """The record's decision, or why it cannot be one ("expected …, got …")."""
    number = _case_number(_text(record, "사건번호"), finder)
    if number is None:
        return f"expected a 사건번호, got {_text(record, '사건번호')!r}"
    raw_date = _text(record, "선고일자") or _text(record, "종국일자")
    date = _date(raw_date)
    if date is None:
        return f"expected a date YYYYMMDD for {number}, got {raw_date!r}"
    constitutional = number.code.startswith("헌")
    court = "헌법재판소" if constitutional else _COURT_NAMES.get(_text(record, "법원명"))
    if court is None:
        return f"expected a court for {number}, got {_text(record, '법원명')!r}"
    # 판결유형 says what was decided (판결, 결정, 전원합의체 판결); a 사건명 names what was disputed
    # (시정명령등취소 is a 판결 about a 명령), so it is read only when 판결유형 says nothing.
    kind = _text(record, "판결유형")
    written = _text(record, "선고")  # 선고, 자, or 고지 for a decision notified rather than pronounced
    disposition: Disposition = ("결정" if constitutional
                                else _disposition(kind) or _disposition(_text(record, "사건명")) or "판결")
    panel: Panel | None = None
    if "전원합의체" in kind + written:
        panel = "전원합의체"
    elif constitutional and _text(record, "재판부구분코드") in ("430201", "430202"):
        panel = "전원재판부" if _text(record, "재판부구분코드") == "430201" else "지정재판부"
    pronounced = constitutional or written == "선고" or (written != "자" and disposition == "판결")
    citation = CaseCitation(number, court, date, "선고" if pronounced else "자", disposition, panel)
    holding = _text(record, "판시사항") or _text(record, "판결요지") or _text(record, "결정요지")
    holding = _SAMPLE_MARK.sub("", re.sub(r"^\s*\[\d+\]\s*", "", holding))
    return Decision(citation, _text(record, "사건명"), _first_sentence(holding),
                    _referenced_statutes(_text(record, "참조조문"), finder))


def _disposition(text: str) -> Disposition | None:
    return next((word for word in ("판결", "결정", "명령") if word in text), None)  # as the verifier reads it


def _date(raw: str) -> dt.date | None:
    """`20240711`; None for anything else, `20201301` included."""
    if len(raw) != 8 or not raw.isdigit():
        return None
    try:
        return dt.date(int(raw[:4]), int(raw[4:6]), int(raw[6:]))
    except ValueError:
        return None


def _case_number(text: str, finder: CitationFinder) -> CaseNumber | None:
    found = finder.find(text, lenient=True)
    if len(found) != 1 or found[0].span != (0, len(text)) or not isinstance(found[0].citation, CaseCitation):
        return None
    return found[0].citation.case_number


def _referenced_statutes(text: str, finder: CitationFinder) -> tuple[StatuteCitation, ...]:
    """`민법 제750조, 제756조 / 형법 제250조`, at article level (the corpus cites articles)."""
    return tuple(
        StatuteCitation(found.citation.act, found.citation.article, found.citation.article_branch)
        for found in finder.find(text, lenient=True)
        if isinstance(found.citation, StatuteCitation) and found.citation.is_complete
    )
