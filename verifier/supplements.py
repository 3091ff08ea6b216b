"""Verdicts on the provisions of a 부칙 (`국적법 부칙(법률 제10275호) 제2조 제1항`, `민법 부칙 제3항`)
against the act's 부칙 blocks (`supplements`).

Every version lists the blocks of the amendments made so far, each under its heading `부칙 <제N호,
YYYY.M.D>` (law.go.kr's); the shipped book keeps a block's text once, with the version in force. A
citation names its block by the amendment's number, its date, both, or neither (`부칙 제3조`, as
statutes cite their own 부칙 and those of 시행령s). The blocks checked are those of the versions up to
the one in force on the day (all of them where none is in force yet):

- no block of that number or date: `not_found`, naming the nearest amendment the act has;
- the block, with the number but another date: `mismatch`;
- a block whose text the database does not hold: `not_covered`;
- the block without the article, 항, 호 or 목 cited: `not_found`; with it: `verified`, the 부칙's
  provision as the source;
- a 부칙 named by neither number nor date: `verified` when one block has the provision, `ambiguous`
  (the blocks as candidates) when several do.

A 부칙's text numbers its articles `제N조 (제목)` at the start of a line (old ones number only their
paragraphs: `① …`), its 항 `①`, 호 `1.` and 목 `가.` as article texts do.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Connection, bindparam, select

from grammars import StatuteCitation, Supplement, format_date
from verifier.models import SUPPLEMENTS, VERSIONS, AnyRow, structure_code
from verifier.names import INLINE_SUPPLEMENT_HEADING
from verifier.verdict import Mismatch, ProvisionSource, Verdict
from verifier.versions import (
    ADDRESS,
    ActUnderTest,
    amendment_numbered,
    holds,
    in_force,
    provision_code,
    version_label,
)

_BLOCKS = (select(VERSIONS.c.sequence, SUPPLEMENTS.c.heading, SUPPLEMENTS.c.text)
           .join(VERSIONS, VERSIONS.c.id == SUPPLEMENTS.c.version_id)
           .where(VERSIONS.c.act_id == bindparam("act_id")).order_by(VERSIONS.c.sequence))
_HEADING = re.compile(r"<제([0-9]+)호,\s*([0-9]{4})\.\s*([0-9]{1,2})\.\s*([0-9]{1,2})\.?>")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_MARKS = re.compile(
    rf"^[ \t]*(?:제(?P<article>[0-9]+)조(?:의(?P<branch>[0-9]+))?(?=[ \t(])(?P<title>[ \t]*\([^)\n]*\))?[ \t]*"
    rf"(?P<first>[{_CIRCLED}])?|(?P<circled>[{_CIRCLED}])|(?P<item>[0-9]+)(?:의(?P<item_branch>[0-9]+))?\."
    rf"|(?P<subitem>[가-하])\.)", re.M)
# `제111조 중 "`, `제12조 단서중 "`, `제6조 내지 제9조 중 "`, `제3조 각호외의 부분 단서 및 제4조제1항 각호외의
# 부분 단서중 "`: a provision an amending article quotes, never a heading of the 부칙's own.
_QUOTED_PROVISION = re.compile(
    r'[ \t]*제[0-9]+조(?:의[0-9]+)?(?:[ \t]*(?:제[0-9]+(?:조|항|호)(?:의[0-9]+)?|[가-하]목|단서|본문|전단|후단'
    r'|각[ \t]*[호목][ \t]*외의[ \t]*부분|의[ \t]*제목|[,ㆍ·]|및|내지|부터|까지|같은[ \t]*(?:조|항|호)))*'
    r'[ \t]*중[ \t]*["“]')
# `제6조 생략`, `제10조 ①내지 ⑤생략`: articles of another act's 부칙 this act's text leaves out, its own.
_OMITTED = re.compile(r"[ \t]*제[0-9]+조[^\n\"“]{0,30}생략[ \t]*(?:\n|\Z)")
_NOTE = re.compile(r"<[^>\n]*>")  # `<개정 1960.6.15>` above a block's text
_Article = tuple[int, int]  # (number, branch); (0, 0) for a 부칙 that numbers its paragraphs only


@dataclass(frozen=True, slots=True)
class Block:
    """One 부칙 block: its heading, the amendment's number and date when the heading gives them, its
    text (None where the database holds the heading only) and the last version listing it."""

    heading: str
    number: int | None
    promulgated_on: dt.date | None
    text: str | None
    sequence: int

    def provisions(self) -> dict[_Article, tuple[list[str], str]]:
        """Each article's provision codes (as article_spans' `structure`) and text."""
        articles: dict[_Article, tuple[list[str], str]] = {}
        if not self.text:
            return articles
        current: _Article = (0, 0)
        starts: dict[_Article, int] = {current: 0}
        paragraph = item = item_branch = 0
        for mark in _MARKS.finditer(self.text):
            codes = articles.setdefault(current, ([], ""))[0]
            if mark["article"] and not _heads_article(mark, current):
                continue
            if mark["article"]:
                current = (int(mark["article"]), int(mark["branch"] or 0))
                starts.setdefault(current, mark.start())
                codes = articles.setdefault(current, ([], ""))[0]
                paragraph = item = item_branch = 0
                circled = mark["first"]
            else:
                circled = mark["circled"]
            if circled:
                paragraph, item, item_branch = _CIRCLED.index(circled) + 1, 0, 0
                codes.append(structure_code(paragraph))
            elif mark["item"]:
                item, item_branch = int(mark["item"]), int(mark["item_branch"] or 0)
                codes.append(structure_code(paragraph, item, item_branch))
            elif mark["subitem"] and item:
                codes.append(structure_code(paragraph, item, item_branch, mark["subitem"]))
        ordered = sorted(starts.items(), key=lambda pair: pair[1])
        for index, (article, start) in enumerate(ordered):
            end = ordered[index + 1][1] if index + 1 < len(ordered) else len(self.text)
            codes = articles.setdefault(article, ([], ""))[0]
            articles[article] = (codes, self.text[start:end].strip())
        if len(articles) > 1 and not articles[(0, 0)][1]:  # nothing before the first article
            del articles[(0, 0)]
        return articles


def _heads_article(mark: re.Match[str], current: _Article) -> bool:
    """Whether a line's `제N조` starts the 부칙's next article. A `다른 법률의 개정` article quotes the
    provisions it amends at the start of its lines (`제111조 중 "…"을 "…"으로 한다.`, `제5조를 삭제한다.`),
    which are none of the 부칙's. A heading has its title (`제2조(경과조치)`, whose text may well say
    `제48조의2의 개정규정 중 "…"은`); untitled, it is no quoted provision and is one left out (`제6조
    생략`), or opens the text, `<개정 …>` notes aside (old 부칙 go on from the act's last article:
    `제10조 본법은 공포일로부터 시행한다.`), or follows the article before it (`제2조 …` after 제1조,
    `제3조의2 …` after 제3조)."""
    if mark["title"]:
        return True
    if _QUOTED_PROVISION.match(mark.string, mark.start()):
        return False
    opens = current == (0, 0) and not _NOTE.sub("", mark.string[:mark.start()]).strip()
    if opens or _OMITTED.match(mark.string, mark.start()):
        return True
    number, branch = int(mark["article"]), int(mark["branch"] or 0)
    return (number, branch) in ((current[0] + 1, 0), (current[0], current[1] + 1))


def blocks_of(connection: Connection, act_id: int, upto: int | None) -> list[Block]:
    """The act's 부칙 blocks, once each (the text from whichever version holds it), listed by versions up
    to sequence `upto` (None: all). A block of another act's amendment headed `부칙(출입국관리법) <…>` is
    read into the text of the block before it: it is split off here, a block of its own."""
    blocks: dict[str, Block] = {}
    for row in connection.execute(_BLOCKS, {"act_id": act_id}):
        if upto is not None and row.sequence > upto:
            continue
        parts = INLINE_SUPPLEMENT_HEADING.split(row.text) if row.text else [None]
        headings = [row.heading, *(f"부칙 <{inside}>" for inside in parts[1::2])]
        for heading, text in zip(headings, [parts[0], *parts[2::2]], strict=True):
            held = blocks.get(heading)
            numbered = _HEADING.search(heading)
            number, day = (None, None) if numbered is None else (int(numbered[1]), _date(*numbered.groups()[1:]))
            text = (text or "").strip() or (held.text if held else None)
            blocks[heading] = Block(heading, number, day, text, row.sequence)
    return list(blocks.values())


def _date(year: str, month: str, day: str) -> dt.date | None:
    try:
        return dt.date(int(year), int(month), int(day))
    except ValueError:
        return None


class SupplementCheck:
    """The verdict on one 부칙 citation against one act's blocks."""

    def __init__(self, connection: Connection, act: ActUnderTest, citation: StatuteCitation, on: dt.date) -> None:
        assert citation.supplement is not None  # the caller routes only 부칙 citations here
        self.act = act
        self.citation = citation
        self.supplement: Supplement = citation.supplement
        current = in_force(act.versions, on)
        self.blocks = blocks_of(connection, act.row.id, current.sequence if current is not None else None)
        self.article: _Article = (citation.article or 0, citation.article_branch or 0)
        self.code = provision_code(citation)
        self.written = replace(citation, act=act.row.name, back_reference=None)

    def verify(self) -> Verdict:
        named = self.supplement.number is not None or self.supplement.promulgated_on is not None
        fitting = [block for block in self.blocks if self._names(block)]
        if named and not fitting:
            return self._no_block()
        if named and self.supplement.number is not None and self.supplement.promulgated_on is not None:
            day = self.supplement.promulgated_on
            wrong_day = [block for block in fitting if block.promulgated_on not in (None, day)]
            if wrong_day and len(wrong_day) == len(fitting):
                block = wrong_day[0]
                truth = format_date(block.promulgated_on) if block.promulgated_on else "?"
                return self._verdict("mismatch", f"{self.act.row.name}'s {block.heading} is of {truth}, not "
                                                 f"{format_date(self.supplement.promulgated_on)}", None,
                                     mismatches=(Mismatch("supplement date", format_date(
                                         self.supplement.promulgated_on), truth),))
        with_text = [block for block in fitting if block.text]
        if not with_text:
            return self._verdict("not_covered", f"the database holds the heading of {self._which(fitting)} of "
                                                f"{self.act.row.name}, not its text, so it cannot say", None)
        having = [block for block in with_text if self._holds(block)]
        provision = self._provision()
        if not having:
            return self._verdict("not_found", f"{self._which(with_text)} of {self.act.row.name} has no {provision}",
                                 None)
        if len(having) > 1:
            return self._verdict("ambiguous", f"{len(having)} 부칙 of {self.act.row.name} have {provision}; the "
                                              f"citation names none of them", None,
                                 candidates=tuple(block.heading for block in having))
        block = having[0]
        return self._verdict("verified", f"{self.act.row.name} {block.heading} {provision} exists", block)

    # --- helpers ------------------------------------------------------------------------------

    def _names(self, block: Block) -> bool:
        if self.supplement.number is not None:
            return block.number == self.supplement.number
        return self.supplement.promulgated_on is None or block.promulgated_on == self.supplement.promulgated_on

    def _holds(self, block: Block) -> bool:
        articles = block.provisions()
        if self.article not in articles:
            return False
        return holds(articles[self.article][0], self.code)

    def _which(self, blocks: Sequence[Block]) -> str:
        return blocks[0].heading if len(blocks) == 1 else f"each of its {len(blocks)} 부칙"

    def _provision(self) -> str:
        return self.citation.provision()

    def _no_block(self) -> Verdict:
        numbered = [v for v in self.act.versions if v.promulgation_number]
        target = self.supplement.promulgated_on
        near = sorted(numbered, key=lambda v: abs(v.promulgation_number - (self.supplement.number or 0))
                      if target is None or v.promulgated_on is None else abs((v.promulgated_on - target).days))
        nearest = f"; the nearest amendment it has is {version_label(near[0])}" if near else ""
        return self._verdict("not_found", f"{self.act.row.name} has no {self.supplement}{nearest}", None)

    def _version_of(self, block: Block) -> AnyRow:
        made = None if block.number is None else amendment_numbered(self.act.versions, block.number, None,
                                                                       block.promulgated_on)
        return made or self.act.versions[block.sequence - 1]

    def _verdict(self, status: str, detail: str, block: Block | None, *, mismatches: tuple[Mismatch, ...] = (),
                 candidates: tuple[str, ...] = ()) -> Verdict:
        source = f"법령ID {self.act.row.law_id}, {block.heading if block else self.supplement} {self._provision()}"
        provision = None
        if block is not None:
            version = self._version_of(block)
            article = block.provisions()[self.article][1]
            label = self._provision().split(" ")[0]
            provision = ProvisionSource(
                act=f"{version.name} {block.heading}", article=label, title=None, text=article,
                address=ADDRESS.format(mst=version.mst), mst=version.mst, kind=version.kind,
                promulgated_on=version.promulgated_on, promulgation_number=version.promulgation_number,
                effective_on=version.effective_on)
        return Verdict(status, self.citation, detail, self.written.canonical(), source, mismatches,  # type: ignore[arg-type]
                       candidates, provision=provision)
