"""Readers for law.go.kr Open API responses, XML and JSON, lists and bodies.

Shapes (../shared/reference/legal-citations.md §2.4):

    root / top key   what                      rows
    LawSearch        statute list (law, eflaw)  law
    법령             statute body               기본정보, then 조문/조문단위
    PrecSearch       case list                  prec
    PrecService      case body                  the root itself
    DetcSearch       헌재 list                  Detc (XML may write detc)
    DetcService      헌재 body                  the root itself
    Law, or {}       "no record" answer         none

plus one shape of ours: a JSON object of strings only, `{"민소법": "민사소송법", …}`, is a table of
informal abbreviations (AliasRecords).

Gotchas handled here: 조문여부=전문 rows are chapter headings, not articles; 헌재 dates are
종국일자; an empty body means no record; a JSON single hit is an object, not a list; 법령ID keeps
its leading zeros (`1747` and `001747` are one act); 단기 years in old 선고일자.

A statute body replaces its act's articles, so a body is read all or nothing: 기본정보 must name
the act, 조문 must hold 조문단위 rows, and every row must be an article (or a 전문 heading) with a
조문번호 1–9999; anything else is refused with the path to the node (`법령/조문/조문단위[3]`),
never skipped, since a row skipped would be an article deleted. A list row that cannot be used is
skipped and reported.

XML is parsed as a stream (one row in memory at a time) by the C parser, after a check of the
prolog that refuses any DTD: without one no entity can be declared, which rules out entity
expansion (billion laughs) and external references; a DOCTYPE is only allowed in the prolog.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError, iterparse

from verifier.errors import MalformedFileError, UnsafeXmlError, UnsupportedShapeError
from verifier.importers.jsontext import decode_utf8, load_json
from verifier.importers.records import (
    ActRecord,
    AliasRecord,
    ArticleRecord,
    CaseRecord,
    ProvisionKey,
    Record,
    SkippedRow,
    checked,
)
from verifier.names import normalise_act_name, normalise_court, parse_case_number, parse_date

MAX_TEXT_CHARS = 4 * 1024 * 1024  # a node longer than this is hostile, not a judgment
MAX_JSON_BYTES = 512 * 1024 * 1024

_LIST_ROOTS = {"LawSearch": ("law",), "PrecSearch": ("prec",), "DetcSearch": ("Detc", "detc")}
_CASE_BODY_ROOTS = ("PrecService", "DetcService")
_BODY_ROOTS = ("법령", *_CASE_BODY_ROOTS)
_NO_RECORD_ROOTS = ("Law",)
_PANELS = {"430201": "전원재판부", "430202": "지정재판부"}
_DELETED = re.compile(r"^\s*제\d+조(?:의\d+)?\s*(?:\([^)]*\))?\s*삭제\s*(?:<(?P<date>[^>]*)>)?")
_LABEL = re.compile(r"(?P<number>\d+)\s*(?:조)?\s*(?:의\s*(?P<branch>\d+))?")


# --- values as law.go.kr writes them -------------------------------------------------------

def _text(value: Any) -> str:
    """A field's text whether it came as a string, a number, {"content": …} or a one-item list."""
    if value is None:
        return ""
    if isinstance(value, list):
        return _text(value[0]) if value else ""
    if isinstance(value, dict):
        return _text(value.get("content", value.get("#text")))
    return unicodedata.normalize("NFC", str(value)).strip()


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return value if isinstance(value, list) else [value]


def _fields(value: Any) -> dict[str, Any]:
    """A row's fields; a row that came as text or a list (an empty element, a broken file) has none."""
    return value if isinstance(value, dict) else {}


_MAX_PROVISION = 999


def _int(value: Any, default: int = 0) -> int:
    """The first number in a field; `default` when there is none or it is longer than 9 digits
    (no law.go.kr number is; the INTEGER columns of both databases stop at 2**31 - 1)."""
    digits = re.search(r"\d+", _text(value))
    return int(digits.group()) if digits and len(digits.group()) <= 9 else default


def _law_id(value: Any) -> str:
    text = _text(value)
    return text.zfill(6) if text.isdigit() else text


def _paragraph_number(value: Any) -> int:
    text = _text(value)
    if not text:
        return 0
    if text[0] in "0123456789":
        return _int(text)
    try:
        return int(unicodedata.numeric(text[0]))  # ① -> 1, ㉑ -> 21
    except (TypeError, ValueError):
        return 0


# --- rows -> records ----------------------------------------------------------------------

# A statute list row and a body's 기본정보 carry the same facts under different names.
_LIST_ROW_NAMES = {"name": "법령명한글", "abbreviation": "법령약칭명", "kind": "법령구분명"}
_BASIC_INFO_NAMES = {"name": "법령명_한글", "abbreviation": "법령명약칭", "kind": "법종구분"}


def _act(fields: Any, names: dict[str, str], *, replaces_articles: bool) -> ActRecord:
    row = _fields(fields)
    return ActRecord(
        law_id=_law_id(row.get("법령ID")), name=normalise_act_name(_text(row.get(names["name"]))),
        mst=_int(row.get("법령일련번호")) or None, abbreviation=_text(row.get(names["abbreviation"])) or None,
        kind=_text(row.get(names["kind"])) or None, promulgated_on=parse_date(_text(row.get("공포일자"))),
        effective_on=parse_date(_text(row.get("시행일자"))), status=_text(row.get("현행연혁코드")) or None,
        replaces_articles=replaces_articles)


def act_from_list_row(row: Any, position: str) -> ActRecord | SkippedRow:
    fields = _fields(row)
    if not _text(fields.get("법령ID")) or not _text(fields.get(_LIST_ROW_NAMES["name"])):
        return SkippedRow(position, "expected an act with 법령ID and 법령명한글, got one missing")
    return _act(fields, _LIST_ROW_NAMES, replaces_articles=False)


def act_from_basic_info(path: Path, info: Any) -> ActRecord:
    """The act a body replaces the articles of: refused unless 기본정보 names it."""
    _require_object(path, "법령/기본정보", info, ("법령ID", _BASIC_INFO_NAMES["name"]))
    with checked(path, "법령/기본정보"):
        return _act(info, _BASIC_INFO_NAMES, replaces_articles=True)


def _kind(value: Any) -> str:
    """How a node that is not the expected object reads in an error: "a string", "none" …"""
    if value is None:
        return "none"
    if isinstance(value, bool | int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "a list" if isinstance(value, list) else "an object"


def _require_object(path: Path, node: str, value: Any, keys: tuple[str, ...]) -> None:
    """A body whose node is not an object holding `keys` is not a body: refused, the node named."""
    wanted = " and ".join(keys)
    if not isinstance(value, dict):
        raise UnsupportedShapeError(path, node, f"expected an object with {wanted}, got {_kind(value)}")
    missing = [key for key in keys if not _text(value.get(key))]
    if missing:
        raise UnsupportedShapeError(path, node, f"expected an object with {wanted}, got an object without "
                                                f"{' and '.join(missing)}")


def article_of_body(path: Path, node: str, unit: Any) -> ArticleRecord | None:
    """The article a body's 조문단위 holds (None for a 전문 heading); a row that is not one is refused,
    since the body replaces the act's articles and a row dropped is an article deleted."""
    _require_object(path, node, unit, ("조문번호",))
    with checked(path, node):
        article = article_from_unit(unit)
    if isinstance(article, SkippedRow):
        raise UnsupportedShapeError(path, f"{node}/조문번호", article.reason + f", got {article.position}")
    return article


def _provisions(unit: dict[str, Any]) -> tuple[ProvisionKey, ...]:
    keys: list[ProvisionKey] = []
    for paragraph in _as_list(unit.get("항")):
        if not isinstance(paragraph, dict):
            continue
        number = _paragraph_number(paragraph.get("항번호"))
        if number:
            keys.append(ProvisionKey(number))
        for item in _as_list(paragraph.get("호")):
            if not isinstance(item, dict):
                continue
            label = _LABEL.match(_text(item.get("호번호")))
            if label is None:
                continue
            item_number = _int(label["number"])
            item_branch = _int(item.get("호가지번호")) or _int(label["branch"])
            if max(number, item_number, item_branch) > _MAX_PROVISION:
                continue
            keys.append(ProvisionKey(number, item_number, item_branch))
            for subitem in _as_list(item.get("목")):
                letter = _text(subitem.get("목번호") if isinstance(subitem, dict) else None).rstrip(".")
                if letter:
                    keys.append(ProvisionKey(number, item_number, item_branch, letter[0]))
    return tuple(dict.fromkeys(keys))


def article_from_unit(unit: dict[str, Any]) -> ArticleRecord | SkippedRow | None:
    """None for a 전문 (chapter heading) row."""
    unit = _fields(unit)
    if _text(unit.get("조문여부")) == "전문":
        return None
    number, branch = _int(unit.get("조문번호")), _int(unit.get("조문가지번호"))
    if not 1 <= number <= 9999 or branch > 99:
        return SkippedRow(f"조문번호 {_text(unit.get('조문번호'))[:20]!r}",
                          "expected an article numbered 1–9999 with a 가지번호 up to 99")
    status, moved_to, amended_on = "현행", None, None
    deleted = _DELETED.match(_text(unit.get("조문내용")))
    if _text(unit.get("조문제개정유형")) == "삭제" or deleted:
        status = "삭제"
        amended_on = parse_date(deleted["date"] or "") if deleted and deleted["date"] else None
    after = _text(unit.get("조문이동이후"))
    if after.isdigit() and len(after) == 6 and int(after):  # JO code AAAABB
        status, moved_to = "이동", f"{int(after[:4])}" + (f"의{int(after[4:])}" if int(after[4:]) else "")
    elif (label := _LABEL.search(after)) and int(label["number"]):  # "제0조"/"0" are sentinels
        status, moved_to = "이동", label["number"] + (f"의{label['branch']}" if label["branch"] else "")
    return ArticleRecord(
        number=number, branch=branch,
        title=_text(unit.get("조문제목")) or None, status=status, moved_to=moved_to,
        effective_on=parse_date(_text(unit.get("조문시행일자"))), amended_on=amended_on,
        provisions=_provisions(unit))


def _disposition(text: str) -> str | None:
    return next((word for word in ("판결", "결정", "명령") if word in text), None)


def case_from_prec(row: dict[str, Any], position: str) -> CaseRecord | SkippedRow:
    row = _fields(row)
    number_text = _text(row.get("사건번호"))
    number = parse_case_number(number_text)
    decided_on = parse_date(_text(row.get("선고일자")))
    court = normalise_court(_text(row.get("법원명")))
    kind = _text(row.get("판결유형"))
    disposition = _disposition(kind)
    if number is None or decided_on is None or not court or disposition is None:
        return SkippedRow(position, f"expected 사건번호, 선고일자, 법원명 and 판결유형, got "
                                    f"{number_text!r}, {_text(row.get('선고일자'))!r}, {court!r}, {kind!r}")
    delivery = _text(row.get("선고"))
    if delivery not in ("선고", "자"):
        delivery = "선고" if disposition == "판결" else "자"
    panel = "전원합의체" if "전원합의체" in kind + _text(row.get("선고")) else None
    source_id = _text(row.get("판례일련번호") or row.get("판례정보일련번호")) or None
    return CaseRecord(court, decided_on, number, delivery, disposition, panel,
                      _text(row.get("사건명")) or None, source_id)


def case_from_detc(row: dict[str, Any], position: str) -> CaseRecord | SkippedRow:
    row = _fields(row)
    number_text = _text(row.get("사건번호"))
    number = parse_case_number(number_text)
    decided_on = parse_date(_text(row.get("종국일자")))
    if number is None or decided_on is None:
        return SkippedRow(position, f"expected 사건번호 and 종국일자, got {number_text!r}, "
                                    f"{_text(row.get('종국일자'))!r}")
    panel = _PANELS.get(_text(row.get("재판부구분코드"))) or _text(row.get("재판부구분명")) or None
    return CaseRecord("헌법재판소", decided_on, number, "선고", "결정", panel,
                      _text(row.get("사건명")) or None, _text(row.get("헌재결정례일련번호")) or None)


_CASE_CONVERTERS: dict[str, Callable[[dict[str, Any], str], CaseRecord | SkippedRow]] = {
    "PrecSearch": case_from_prec, "PrecService": case_from_prec,
    "DetcSearch": case_from_detc, "DetcService": case_from_detc,
}


def _record_of_list(path: Path, root: str, row: dict[str, Any], position: str) -> Record:
    with checked(path, position):
        return act_from_list_row(row, position) if root == "LawSearch" else _CASE_CONVERTERS[root](row, position)


_UNITS = "법령/조문/조문단위"


def _no_articles(path: Path) -> UnsupportedShapeError:
    return UnsupportedShapeError(path, _UNITS, "expected at least one article, got none: a body replaces the "
                                               "act's articles, so an empty one would delete them")


def _records_of_law_body(path: Path, body: dict[str, Any]) -> Iterator[Record]:
    yield act_from_basic_info(path, body.get("기본정보"))
    section = body.get("조문")
    if not isinstance(section, dict) or "조문단위" not in section:
        shown = "an object without 조문단위" if isinstance(section, dict) else _kind(section)
        raise UnsupportedShapeError(path, "법령/조문", f"expected an object with 조문단위, got {shown}")
    units = _as_list(section["조문단위"])
    if not units:
        raise _no_articles(path)
    for index, unit in enumerate(units, start=1):
        if (article := article_of_body(path, f"{_UNITS}[{index}]", unit)) is not None:
            yield article


# --- XML ------------------------------------------------------------------------------------

def _element_to_value(element: Element) -> Any:
    children = list(element)
    if not children:
        return element.text or ""
    value: dict[str, Any] = {}
    for child in children:
        converted = _element_to_value(child)
        if child.tag in value:
            previous = value[child.tag]
            value[child.tag] = [*previous, converted] if isinstance(previous, list) else [previous, converted]
        else:
            value[child.tag] = converted
    return value


_PROLOG_BYTES = 64 * 1024
_PROLOG = re.compile(rb"(?:\xef\xbb\xbf)?(?:\s+|<\?.*?\?>|<!--.*?-->)*", re.DOTALL)
_ROOT_TAG = re.compile(rb"<([^\s/>!?]+)")
_DECLARED_ENCODING = re.compile(rb"""<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _line_column(head: bytes, offset: int) -> str:
    line = head.count(b"\n", 0, offset) + 1
    column = offset - (head.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def _root_tag(path: Path) -> tuple[str, str]:
    """The root element's name and position, after checking the prolog holds no DTD and the file is UTF-8."""
    with path.open("rb") as handle:
        head = handle.read(_PROLOG_BYTES)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise MalformedFileError(path, "byte 1", "expected UTF-8 XML, got a UTF-16 byte order mark")
    declared = _DECLARED_ENCODING.match(head.removeprefix(b"\xef\xbb\xbf"))
    if declared and declared.group(1).lower() not in (b"utf-8", b"utf8", b"us-ascii", b"ascii"):
        raise MalformedFileError(path, "the XML declaration", "expected UTF-8 XML (as law.go.kr serves it), got "
                                 f"encoding {declared.group(1).decode('ascii')!r}; convert the file to UTF-8")
    prolog = _PROLOG.match(head)
    end = prolog.end() if prolog else 0  # it always matches: the pattern matches the empty string
    if head.startswith(b"<!DOCTYPE", end):
        raise UnsafeXmlError(path, _line_column(head, end), "expected XML without a DTD (entity declarations and "
                                                           "external references are refused), got <!DOCTYPE")
    root = _ROOT_TAG.match(head, end)
    if root is None:
        problem = "a prolog longer than 64 KiB" if len(head) == _PROLOG_BYTES else f"{head[end:end + 20]!r}"
        raise MalformedFileError(path, _line_column(head, end), f"expected a root element, got {problem}")
    return root.group(1).decode("utf-8", errors="replace"), _line_column(head, end)


def read_xml(path: Path) -> Iterator[Record]:
    root_tag, where = _root_tag(path)
    if root_tag not in _LIST_ROOTS and root_tag not in _BODY_ROOTS and root_tag not in _NO_RECORD_ROOTS:
        raise UnsupportedShapeError(path, where, "expected a law.go.kr root (LawSearch, 법령, "
                                    f"PrecSearch, PrecService, DetcSearch, DetcService), got <{root_tag}>")
    try:
        yield from _read_xml_events(path, root_tag)
    except ParseError as error:
        line, column = error.position
        reason = str(error).split(": line")[0]
        raise MalformedFileError(path, f"line {line}, column {column + 1}",
                                 f"expected well-formed UTF-8 XML, got: {reason}") from error


# Sections of a statute body that are not read, dropped as they end to keep memory flat.
_UNREAD_SECTIONS = frozenset({"부칙단위", "별표단위", "개정문", "제개정이유"})


def _read_xml_events(path: Path, root_tag: str) -> Iterator[Record]:
    # Only "end" events: every row kind has a tag of its own, so no depth needs tracking.
    row_tags = _LIST_ROOTS.get(root_tag, ())
    rows = 0
    have_basic_info = False
    for _event, element in iterparse(str(path), events=("end",)):
        tag = element.tag
        if element.text is not None and len(element.text) > MAX_TEXT_CHARS:
            raise MalformedFileError(path, f"<{tag}> of row {rows + 1}", f"expected a text node under "
                                     f"{MAX_TEXT_CHARS} characters, got {len(element.text)}")
        if tag in row_tags:
            rows += 1
            yield _record_of_list(path, root_tag, _element_to_value(element), f"row {rows}")
        elif tag == "조문단위" and root_tag == "법령":
            rows += 1
            if not have_basic_info:
                raise UnsupportedShapeError(path, f"{_UNITS}[{rows}]", "expected <기본정보> before the "
                                                                        "articles, got an article first")
            if (article := article_of_body(path, f"{_UNITS}[{rows}]", _element_to_value(element))) is not None:
                yield article
        elif tag == "기본정보" and root_tag == "법령":
            have_basic_info = True
            yield act_from_basic_info(path, _element_to_value(element))
        elif tag == root_tag and root_tag in _CASE_BODY_ROOTS and len(element):
            with checked(path, "the body"):
                yield _CASE_CONVERTERS[root_tag](_element_to_value(element), "the body")
        elif tag not in _UNREAD_SECTIONS:
            continue
        element.clear()
    if root_tag == "법령" and not rows:
        raise _no_articles(path)


# --- JSON -----------------------------------------------------------------------------------

def read_json(path: Path) -> Iterator[Record]:
    if path.stat().st_size > MAX_JSON_BYTES:
        raise MalformedFileError(path, None, f"expected a JSON file under {MAX_JSON_BYTES} bytes, "
                                             f"got {path.stat().st_size}")
    document = load_json(path, decode_utf8(path, path.read_bytes()))
    if not isinstance(document, dict):
        raise UnsupportedShapeError(path, "line 1", f"expected a JSON object, got {type(document).__name__}")
    if not document or set(document) <= set(_NO_RECORD_ROOTS):
        return  # {} or {"Law": "일치하는 …가 없습니다"}: no record
    top = next(iter(document))
    body = document[top]
    if all(isinstance(key, str) and isinstance(value, str) for key, value in document.items()) \
            and top not in _NO_RECORD_ROOTS:
        for alias, name in document.items():
            with checked(path, f"key {alias[:40]!r}"):
                yield AliasRecord(normalise_act_name(alias), normalise_act_name(name))
    elif top in _LIST_ROOTS and isinstance(body, dict):
        row_key = next((key for key in _LIST_ROOTS[top] if key in body), _LIST_ROOTS[top][0])
        for index, row in enumerate(_as_list(body.get(row_key)), start=1):
            if isinstance(row, dict):
                yield _record_of_list(path, top, row, f"row {index}")
    elif top == "법령" and isinstance(body, dict):
        yield from _records_of_law_body(path, body)
    elif top in _CASE_CONVERTERS and isinstance(body, dict):
        if body:
            with checked(path, "the body"):
                yield _CASE_CONVERTERS[top](body, "the body")
    else:
        raise UnsupportedShapeError(path, "line 1", "expected a law.go.kr top key (LawSearch, 법령, PrecSearch, "
                                                    f"PrecService, DetcSearch, DetcService), got {top!r}")
