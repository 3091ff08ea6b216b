"""The JSONL import format: one JSON object per line, tagged by "type". Blank lines are ignored.

    {"type": "act", "law_id": "001706", "name": "민법", "mst": 253527, "abbreviation": null,
     "kind": "법률", "promulgated_on": "2024-01-01", "effective_on": "2024-01-01", "status": "현행",
     "articles": [
        {"article": "750", "title": "불법행위의 내용"},
        {"article": "3의2", "status": "삭제", "amended_on": "2020-01-01"},
        {"article": "5", "status": "이동", "moved_to": "5의2"},
        {"article": "23", "provisions": [{"paragraph": 1}, {"paragraph": 1, "item": 2},
                                         {"paragraph": 1, "item": 3, "item_branch": 2, "subitem": "가"}]}]}
    {"type": "case", "court": "대법원", "date": "2024-07-11", "case_number": "2024도4202",
     "delivery": "선고", "disposition": "판결", "panel": null, "title": "사기", "source_id": "123456"}
    {"type": "alias", "alias": "민소법", "act": "민사소송법", "official": false}
    {"type": "coverage", "kind": "case", "court": "대법원", "from": "1990-01-01", "to": "2025-12-31"}
    {"type": "coverage", "kind": "statute"}

Only "type" plus, per type, law_id+name / court+date+case_number+disposition / alias+act / kind
are required. An act line with "articles" replaces the act's articles; without, it updates the
act only. Dates are ISO (YYYY-MM-DD) or law.go.kr's YYYYMMDD. `delivery` defaults to 선고 for a
판결 and for any decision of the 헌법재판소 (which pronounces them all), else 자. 헌법재판소
decisions are cases with court "헌법재판소" and date = 종국일자.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from verifier.errors import MalformedFileError, UnsupportedShapeError
from verifier.importers.jsontext import decode_utf8, load_json
from verifier.importers.records import (
    ActRecord,
    AliasRecord,
    ArticleRecord,
    CaseRecord,
    CoverageRecord,
    ProvisionKey,
    Record,
    SkippedRow,
    checked,
)
from verifier.names import normalise_act_name, normalise_court, parse_case_number, parse_date
from verifier.rules import CONSTITUTIONAL

MAX_LINE_BYTES = 16 * 1024 * 1024
_ARTICLE_LABEL = re.compile(r"[1-9][0-9]{0,3}(?:의[1-9][0-9]?)?")


class _LineError(ValueError):
    """A line that parsed as JSON but does not fit the format; becomes UnsupportedShapeError."""


def _required(line: dict[str, Any], key: str) -> Any:
    value = line.get(key)
    if value is None or value == "":
        raise _LineError(f"expected a {key!r} field in a {line.get('type')!r} line, got none")
    return value


def _optional_text(line: dict[str, Any], key: str) -> str | None:
    value = line.get(key)
    if value is not None and not isinstance(value, str):
        raise _LineError(f"expected {key!r} as text, got {value!r}")
    return value or None


def _optional_date(line: dict[str, Any], key: str) -> date | None:
    text = line.get(key)
    if text is None:
        return None
    parsed = parse_date(str(text))
    if parsed is None:
        raise _LineError(f"expected {key!r} as a date (YYYY-MM-DD), got {text!r}")
    return parsed


def _provision(entry: Any) -> ProvisionKey:
    if not isinstance(entry, dict):
        raise _LineError(f"expected each provision as an object, got {entry!r}")
    numbers = [entry.get(key, 0) for key in ("paragraph", "item", "item_branch")]
    if not all(isinstance(n, int) and 0 <= n <= 999 for n in numbers):
        raise _LineError(f"expected paragraph, item and item_branch as numbers 0–999, got {entry!r}")
    subitem = entry.get("subitem", "")
    if not isinstance(subitem, str) or len(subitem) > 1:
        raise _LineError(f"expected subitem as one letter such as '가', got {subitem!r}")
    paragraph, item, item_branch = numbers
    return ProvisionKey(paragraph=paragraph, item=item, item_branch=item_branch, subitem=subitem)


def _article(entry: Any) -> ArticleRecord:
    if not isinstance(entry, dict):
        raise _LineError(f"expected each article as an object, got {entry!r}")
    label = str(_required(entry, "article"))
    if _ARTICLE_LABEL.fullmatch(label) is None:
        raise _LineError(f"expected an article label such as '750' or '3의2' (1–9999, 가지 1–99), got {label!r}")
    number, _, branch = label.partition("의")
    provisions = tuple(_provision(p) for p in entry.get("provisions") or ())
    status = entry.get("status", "현행")
    if status not in ("현행", "삭제", "이동"):
        raise _LineError(f"expected an article status 현행, 삭제 or 이동, got {status!r}")
    return ArticleRecord(int(number), int(branch or 0), _optional_text(entry, "title"), status,
                         _optional_text(entry, "moved_to"),
                         _optional_date(entry, "effective_on"), _optional_date(entry, "amended_on"), provisions)


def _records_of_line(line: dict[str, Any], position: str) -> Iterator[Record]:
    kind = line.get("type")
    if kind == "act":
        law_id = str(_required(line, "law_id"))
        articles = line.get("articles")
        mst, name = line.get("mst"), _required(line, "name")
        if not (mst is None or (isinstance(mst, int) and 0 < mst < 2**31)) or not isinstance(name, str):
            raise _LineError(f"expected name as text and mst as a number or null, got {name!r} and {mst!r}")
        if not isinstance(articles, list | None):
            raise _LineError(f"expected articles as a list, got {type(articles).__name__}")
        yield ActRecord(law_id.zfill(6) if law_id.isdigit() else law_id, normalise_act_name(name), mst,
                        _optional_text(line, "abbreviation"), _optional_text(line, "kind"),
                        _optional_date(line, "promulgated_on"), _optional_date(line, "effective_on"),
                        _optional_text(line, "status"), replaces_articles=articles is not None)
        for entry in articles or ():
            yield _article(entry)
    elif kind == "case":
        number = parse_case_number(str(_required(line, "case_number")))
        if number is None:
            yield SkippedRow(position, f"expected a 사건번호 such as 2024도4202, got {line['case_number']!r}")
            return
        disposition = _required(line, "disposition")
        if disposition not in ("판결", "결정", "명령"):
            raise _LineError(f"expected disposition 판결, 결정 or 명령, got {disposition!r}")
        court = _required(line, "court")
        if not isinstance(court, str):
            raise _LineError(f"expected 'court' as text, got {court!r}")
        court = normalise_court(court)
        delivery = line.get("delivery") or ("선고" if disposition == "판결" or court == CONSTITUTIONAL else "자")
        if delivery not in ("선고", "자"):
            raise _LineError(f"expected delivery 선고 or 자, got {delivery!r}")
        panel = _optional_text(line, "panel")
        if panel not in (None, "전원합의체", "전원재판부", "지정재판부"):
            raise _LineError(f"expected panel 전원합의체, 전원재판부, 지정재판부 or null, got {panel!r}")
        yield CaseRecord(court, _optional_date(line, "date")
                         or _required(line, "date"), number, delivery, disposition, panel,
                         _optional_text(line, "title"), _optional_text(line, "source_id"))
    elif kind == "alias":
        official = line.get("official", False)
        if not isinstance(official, bool):  # "false" is a true value: a 약칭 marked official by a quoted false
            raise _LineError(f"expected 'official' as true or false, got {official!r}")
        yield AliasRecord(str(_required(line, "alias")), normalise_act_name(str(_required(line, "act"))), official)
    elif kind == "coverage":
        scope = _required(line, "kind")
        if scope not in ("case", "statute"):
            raise _LineError(f"expected coverage kind 'case' or 'statute', got {scope!r}")
        yield CoverageRecord(scope, normalise_court(line.get("court") or ""), _optional_date(line, "from"),
                             _optional_date(line, "to"))
    else:
        raise _LineError(f"expected type act, case, alias or coverage, got {kind!r}")


def read_jsonl(path: Path) -> Iterator[Record]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            position = f"line {number}"
            if len(raw) > MAX_LINE_BYTES:
                raise MalformedFileError(path, position, f"expected a line under {MAX_LINE_BYTES} bytes, "
                                                         f"got {len(raw)}")
            text = decode_utf8(path, raw, number).strip()
            if not text:
                continue
            line = load_json(path, text, number)
            if not isinstance(line, dict):
                raise UnsupportedShapeError(path, position, f"expected a JSON object, got {type(line).__name__}")
            try:
                with checked(path, position):
                    yield from _records_of_line(line, position)
            except (_LineError, TypeError, ValueError) as error:
                raise UnsupportedShapeError(path, position, str(error)) from error
