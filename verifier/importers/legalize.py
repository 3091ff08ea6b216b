r"""Reading one legalize-kr file (law.go.kr as Markdown) into an `ActVersion`.

    ---
    제목: 민법               법령ID: '001706'   법령MST: 284415   법령구분: 법률
    공포일자: 2026-03-17     공포번호: '21454'   시행일자: 2026-03-17   상태: 시행
    출처: https://www.law.go.kr/법령/민법
    ---
    # 민법
    ##### 제750조 (불법행위의 내용)          an article; `##### 제436조` with body `삭제 <2015.2.3>`
    **①** …                                  a 항
      1\. …   /   2의2\. …                  a 호 (가지번호 after 의)
        가\. …                               a 목
    ## 부칙
    부칙 <제5305호,1997.3.13>                one supplementary block per amendment

The front matter is a small, flat YAML subset (scalars, quoted scalars, `- item` lists); it is
read here rather than with a YAML library so that a malformed header is named precisely. Dates
`9999-01-01` (no date fixed) read as None. Articles numbered 0 (a repealed act's last version
holds only `제0조` and the repeal) are kept out: the act has no citable article then.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import Annotated

from pydantic import Field

from verifier.errors import MalformedFileError, UnsupportedShapeError
from verifier.importers.records import ActName, LawId, ProvisionKey, Serial, checked, record_kind

_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_KEY = re.compile(r"^([^\s:#-][^:]*):(?: (.*))?$")
_ARTICLE = re.compile(r"^##### 제(\d+)조(?:의(\d+))?(?: *\((.*)\))?[ \t]*$", re.M)
_HEADING = re.compile(r"^#{1,4} ", re.M)
_SUPPLEMENT = re.compile(r"^## 부칙[ \t]*$", re.M)
_SUPPLEMENT_BLOCK = re.compile(r"^부칙 *<([^>]*)>", re.M)
# Another act's 부칙 (`부칙(양식산업발전법) <제16568호,2019.8.27>`) stays in the text of the block before it, where
# the verifier splits it off (supplements.blocks_of); with no block before it, it is the first block.
_FIRST_SUPPLEMENT_BLOCK = re.compile(r"^부칙[ \t]*(?:\([^)\n]*\))?[ \t]*<([^>\n]*)>", re.M)
_MARKS = re.compile(r"^(?:\*\*([①-⑳㉑-㉟㊱-㊿])\*\*|  (\d+)(?:의(\d+))?\\\.|    ([가-힣])\\\.)", re.M)
_DELETED = re.compile(r"\A삭제\s*(?:<[^>]*>)?\s*\Z")
_CIRCLED = {chr(code): index + 1 for index, code in enumerate(range(0x2460, 0x2474))}  # ①-⑳
_CIRCLED.update({chr(code): index + 21 for index, code in enumerate(range(0x3251, 0x3260))})  # ㉑-㉟
_CIRCLED.update({chr(code): index + 36 for index, code in enumerate(range(0x32B1, 0x32C0))})  # ㊱-㊿
_REQUIRED = ("제목", "법령ID", "법령MST", "법령구분")
_NO_DATE = dt.date(9999, 1, 1)


@record_kind
class ArticleText:
    """One 조 as a version has it; `provisions` are its 항/호/목 keys in order of appearance."""

    number: Annotated[int, Field(ge=1, le=9999)]
    branch: Annotated[int, Field(ge=0, le=99)]
    title: Annotated[str, Field(max_length=300)] | None
    deleted: bool
    text: str
    provisions: tuple[ProvisionKey, ...]

    @property
    def label(self) -> str:
        return f"{self.number}의{self.branch}" if self.branch else str(self.number)


@record_kind
class ActVersion:
    """One version of an act, as one legalize-kr file holds it; `origin` says where it came
    from (`commit:path`, or a file path), so a re-import can skip what it has seen."""

    law_id: LawId
    mst: Serial
    name: ActName
    kind: Annotated[str, Field(max_length=40)]
    promulgated_on: dt.date | None
    promulgation_number: Serial | None
    effective_on: dt.date | None
    status: Annotated[str, Field(max_length=20)]
    change: Annotated[str, Field(max_length=20)] | None
    origin: Annotated[str, Field(max_length=400)]
    articles: tuple[ArticleText, ...]
    supplements: tuple[tuple[str, str | None], ...]  # (heading, text) of each 부칙 block; the bundle may drop text


def _scalar(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1].replace("''", "'") if raw[0] == "'" else raw[1:-1]
    return raw


def read_front_matter(text: str, origin: str) -> dict[str, str | list[str]]:
    match = _FRONT.match(text)
    if match is None:
        raise MalformedFileError(origin, "line 1", "expected YAML front matter between '---' lines, got none")
    fields: dict[str, str | list[str]] = {}
    last: str | None = None
    for number, line in enumerate(match.group(1).split("\n"), start=2):
        if not line.strip() or line.startswith((" ", "\t")):  # blank, or inside a list item's mapping
            continue
        if line.startswith("- ") and last is not None:
            current = fields[last]
            fields[last] = ([] if isinstance(current, str) else current) + [_scalar(line[2:])]
            continue
        key = _KEY.match(line)
        if key is None:
            raise MalformedFileError(origin, f"line {number}", f"expected 'key: value' in the front matter, "
                                                               f"got {line[:60]!r}")
        last = key.group(1).strip()
        value = _scalar(key.group(2) or "")
        fields[last] = [] if value == "[]" else value
    return fields


def _date(fields: dict[str, str | list[str]], key: str, origin: str) -> dt.date | None:
    raw = fields.get(key)
    if not raw:
        return None
    try:
        value = dt.date.fromisoformat(str(raw))
    except ValueError:
        raise MalformedFileError(origin, key, f"expected a YYYY-MM-DD date, got {raw!r}") from None
    return None if value == _NO_DATE else value


@functools.lru_cache(maxsize=1 << 16)  # an article unchanged over versions is read once
def _provisions(body: str) -> tuple[ProvisionKey, ...]:
    keys: list[ProvisionKey] = []
    paragraph = item = item_branch = 0
    for match in _MARKS.finditer(body):
        circled, item_text, branch_text, subitem = match.groups()
        if circled:
            paragraph, item, item_branch = _CIRCLED[circled], 0, 0
            keys.append(ProvisionKey(paragraph))
        elif item_text:
            item, item_branch = int(item_text), int(branch_text or 0)
            keys.append(ProvisionKey(paragraph, item, item_branch))
        elif item:
            keys.append(ProvisionKey(paragraph, item, item_branch, subitem))
    return tuple(dict.fromkeys(keys))


def _articles(body: str) -> tuple[ArticleText, ...]:
    heads = list(_ARTICLE.finditer(body))
    articles: list[ArticleText] = []
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(body)
        heading = _HEADING.search(body, head.end(), end)
        text = body[head.end():heading.start() if heading else end].strip()
        number = int(head.group(1))
        if number == 0:
            continue
        articles.append(ArticleText(number, int(head.group(2) or 0), (head.group(3) or "").strip() or None,
                                    bool(_DELETED.match(text)), text, _provisions(text)))
    return tuple(articles)


def _supplements(tail: str) -> tuple[tuple[str, str], ...]:
    first = _FIRST_SUPPLEMENT_BLOCK.search(tail)
    if first is None:
        return ()
    blocks = [first, *_SUPPLEMENT_BLOCK.finditer(tail, first.end())]
    return tuple((f"부칙 <{block.group(1)}>",
                  tail[block.end():blocks[index + 1].start() if index + 1 < len(blocks) else len(tail)].strip())
                 for index, block in enumerate(blocks))


def parse_act(text: str, origin: str, change: str | None = None) -> ActVersion:
    """One file's text as an `ActVersion`; raises MalformedFileError (bad header) or
    UnsupportedShapeError (a file that is not an act, e.g. a 별표's form) naming `origin`."""
    fields = read_front_matter(text, origin)
    missing = [key for key in _REQUIRED if not fields.get(key)]
    if missing:
        raise UnsupportedShapeError(origin, "front matter", f"expected an act's {', '.join(missing)}, got none")
    law_id, mst, number = (str(fields["법령ID"]), str(fields["법령MST"]), str(fields.get("공포번호") or ""))
    if not law_id.isdigit() or not mst.isdigit() or (number and not number.isdigit()):
        raise MalformedFileError(origin, "front matter", f"expected numeric 법령ID, 법령MST and 공포번호, got "
                                                         f"{law_id!r}, {mst!r}, {number!r}")
    body_start = _FRONT.match(text).end()  # type: ignore[union-attr]  # read_front_matter checked it
    supplement = _SUPPLEMENT.search(text, body_start)
    body = text[body_start:supplement.start() if supplement else len(text)]
    with checked(origin, "front matter"):
        articles = _articles(body)
    if not articles and "##### 제" not in body and not body.strip().startswith("#"):
        raise UnsupportedShapeError(origin, "body", "expected an act's articles (##### 제N조), got none")
    with checked(origin, "front matter"):
        return ActVersion(
            law_id=law_id.zfill(6), mst=int(mst), name=str(fields["제목"]).strip(), kind=str(fields["법령구분"]),
            promulgated_on=_date(fields, "공포일자", origin), promulgation_number=int(number) if number else None,
            effective_on=_date(fields, "시행일자", origin), status=str(fields.get("상태") or ""), change=change,
            origin=origin, articles=articles,
            supplements=_supplements(text[supplement.end():]) if supplement else ())
