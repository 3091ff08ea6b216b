"""Read the sample law data (law.go.kr shapes, ../shared/reference/legal-citations.md §2.4) into the
few facts the corpus needs: acts with their articles, and decisions with their citation fields.

This is a reader for corpus generation only. The verifier owns the real importers (validation,
hostile input, the database); this module never imports it (STYLE.md: citegen's library code sees
grammars only), so it reads the same files leniently: any XML or JSON file under a folder, any
`<법령>` body, and any record with a 사건번호 and a date, whatever its wrapper
(PrecService, PrecSearch rows, 헌재 detc bodies).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


@dataclass(frozen=True, slots=True)
class Article:
    number: int
    branch: int | None
    title: str  # empty for acts without article titles (대한민국헌법)
    text: str  # the first sentence of its first paragraph, numbering marks removed
    paragraphs: int

    @property
    def is_placeholder(self) -> bool:
        """Sample data marks text not copied from the act with a bracketed tag (`[표본 문안] …`)."""
        return self.text.startswith("[")


@dataclass(frozen=True, slots=True)
class Act:
    name: str
    short_name: str | None  # the official 약칭 (법령명약칭), when the act has one
    articles: tuple[Article, ...]  # in force, not deleted, in the order of the body
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
    """Read every act under `law_dir` and every decision under `case_dir`, sorted for reproducibility."""
    for folder in (law_dir, case_dir):
        if not folder.is_dir():
            raise TrainingDataError(f"expected a folder of law.go.kr XML/JSON files, got {folder}")
    acts = {act.name: act for tree in _trees(law_dir) for act in _acts(tree)}
    # The grammars' own finder reads 사건번호 and 참조조문: "a citation" is defined once.
    finder = CitationFinder(CitationParser.for_lexicon({name: None for name in acts}))
    decisions: dict[str, Decision] = {}
    for tree in _trees(case_dir):
        for record in _case_records(tree):
            decision = _decision(record, finder)
            if decision is None:
                continue
            key = str(decision.citation.case_number)
            if key not in decisions or len(decision.holding) > len(decisions[key].holding):
                decisions[key] = decision
    if not acts or not decisions:
        raise TrainingDataError(
            f"expected acts in {law_dir} and decisions in {case_dir}, got {len(acts)} acts and "
            f"{len(decisions)} decisions"
        )
    aliases_file = law_dir / "aliases.json"
    aliases = json.loads(aliases_file.read_text(encoding="utf-8")) if aliases_file.is_file() else {}
    aliases = {alias: name for alias, name in sorted(aliases.items()) if name in acts}
    logger.info("read %d acts and %d decisions", len(acts), len(decisions))
    return LawData(
        tuple(acts[name] for name in sorted(acts)),
        tuple(decisions[number] for number in sorted(decisions)),
        aliases,
    )


def _trees(folder: Path) -> Iterator[Tree]:
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".xml":
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as error:
                logger.warning("skipping %s: %s", path, error)
                continue
            yield {root.tag: _element_tree(root)}
        elif path.suffix == ".json" and path.name != "aliases.json":
            yield json.loads(path.read_text(encoding="utf-8"))


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
    text = " ".join(text.split())
    end = text.find("다.")
    sentence = text[: end + 2] if 0 <= end < limit else text[:limit]
    return sentence.strip()


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
    content = _text(unit, "조문내용")
    if _text(unit, "조문제개정유형") == "삭제" or "삭제" in content[:20]:
        return None
    branch = _text(unit, "조문가지번호")
    paragraphs = [p for p in _as_list(unit.get("항")) if isinstance(p, dict)]
    first = _text(paragraphs[0], "항내용") if paragraphs else ""
    text = _LEADING_MARK.sub("", first or _ARTICLE_HEADING.sub("", content))
    title = _text(unit, "조문제목")
    if not text:
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


def _decision(record: Tree, finder: CitationFinder) -> Decision | None:
    number = _case_number(_text(record, "사건번호"), finder)
    raw_date = _text(record, "선고일자") or _text(record, "종국일자")
    if number is None or not (len(raw_date) == 8 and raw_date.isdigit()):
        return None
    constitutional = number.code.startswith("헌")
    court = "헌법재판소" if constitutional else _COURT_NAMES.get(_text(record, "법원명"))
    if court is None:
        return None
    kind = _text(record, "판결유형") + " " + _text(record, "사건명")
    disposition: Disposition = "결정" if constitutional or "결정" in kind else "명령" if "명령" in kind else "판결"
    panel: Panel | None = None
    if "전원합의체" in kind:
        panel = "전원합의체"
    elif constitutional and _text(record, "재판부구분코드") in ("430201", "430202"):
        panel = "전원재판부" if _text(record, "재판부구분코드") == "430201" else "지정재판부"
    citation = CaseCitation(
        number,
        court,
        dt.date(int(raw_date[:4]), int(raw_date[4:6]), int(raw_date[6:])),
        "선고" if disposition == "판결" or constitutional else "자",
        disposition,
        panel,
    )
    holding = _text(record, "판시사항") or _text(record, "판결요지") or _text(record, "결정요지")
    holding = _SAMPLE_MARK.sub("", re.sub(r"^\s*\[\d+\]\s*", "", holding))
    return Decision(citation, _text(record, "사건명"), _first_sentence(holding),
                    _referenced_statutes(_text(record, "참조조문"), finder))


def _case_number(text: str, finder: CitationFinder) -> CaseNumber | None:
    found = finder.find(text, lenient=True)
    whole = len(found) == 1 and found[0].span == (0, len(text)) and isinstance(found[0].citation, CaseCitation)
    return found[0].citation.case_number if whole else None  # type: ignore[union-attr]


def _referenced_statutes(text: str, finder: CitationFinder) -> tuple[StatuteCitation, ...]:
    """`민법 제750조, 제756조 / 형법 제250조`, at article level (the corpus cites articles)."""
    return tuple(
        StatuteCitation(found.citation.act, found.citation.article, found.citation.article_branch)
        for found in finder.find(text, lenient=True)
        if isinstance(found.citation, StatuteCitation) and found.citation.is_complete
    )
