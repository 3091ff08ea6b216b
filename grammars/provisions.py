"""The provision of a statute citation as drafts write it (article, paragraph, item, subitem), and the
later provisions of its list or range: the lenient finder's (grammars.find) patterns for them. Each regex
comment says which false positive it blocks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from grammars.citation import StatuteCitation
from grammars.found import CitationForm, FoundCitation
from grammars.languages.drafts import (
    ASIDE,
    LINE_GAP,
    LIST_JOINERS,
    LOOSE_SPACE,
    PART_JOINERS,
    PROVISION_PART,
    RANGE_FROM,
    RANGE_JOINERS,
)
from grammars.languages.statute import SUBITEM_LETTERS
from grammars.parse import build_statute

_SPACE = LOOSE_SPACE
_GAP = _SPACE + "*"
NUMBER = r"[1-9][0-9]{0,3}"
# `제1호 내지 제3호의 1` (older statutes: one of them), `제2호의 1급`: no branch 1 is written after a space.
_NOT_ONE_OF = rf"(?!{_SPACE}+1(?![0-9]))"
_LINE_GAP = LINE_GAP.to_regex()
# `제1항`, and `1항` as lawyers' notes write it (`근기법 23조 1항`), on the next line too (a wrapped line).
LOWER_LEVELS = (
    rf"(?:{_LINE_GAP}(?:제{_GAP})?(?P<paragraph>[1-9][0-9]?){_GAP}항)?"
    rf"(?:{_LINE_GAP}(?:제{_GAP})?(?P<item>[1-9][0-9]{{0,2}}){_GAP}호(?:{_GAP}의{_NOT_ONE_OF}{_GAP}(?P<item_branch>[1-9][0-9]?))?"
    # `가목`, and `(나)목` as older judgments write it.
    rf"(?:{_GAP}(?P<subitem_open>\()?(?P<subitem>[{''.join(SUBITEM_LETTERS)}])(?(subitem_open)\)){_GAP}목)?)?"
)
# `제3조의 규정`: the branch needs digits after 의, so a possessive 의 is left out of the citation.
# `제5조4` is a typo (for 제5조의4 or 제5조 제4항): digits right after 조 that begin no 항/호 make it no
# citation at all, never `제5조`, another article. `민법 750조` leaves out 제 (`je` says whether it was written).
# `형법 제269조(낙태) 제1항`: the article's title, written between it and the paragraph or item cited, is inside
# the citation; only then (after `민법 제750조(불법행위의 내용)` the citation ends at 조). A bracket holding a
# provision, a date, a version note or a case is none (`제750조(민법 제751조 참조) 제1항`, `(2010. 4. 15. 개정된 것)`,
# `(법률 제12169호로 개정되기 전의 것)`), nor a declaration (`(이하 ‘법’이라 한다)`); `(제3자를 위한 계약)` is one.
_NOT_A_TITLE = (
    rf"(?![^()\n]*(?:제{_GAP}[0-9]+{_GAP}[조항호]|[0-9]{_GAP}\.|개정{_GAP}되|개정된|전의{_GAP}것|이하{_SPACE}"
    # nor a case (`(대법원 91다8018 판결 참조)`, `(대판 2019다1234)`); `(다른 법률의 개정)`, `(미공개정보 …)` are titles
    rf"|판결|결정|법원|대판|대결|헌재|[0-9]{{2}}{_GAP}[가-힣]{{1,3}}{_GAP}[0-9]))"
)
_TITLE_BEFORE_LOWER = (
    rf"(?:{_GAP}\({_NOT_A_TITLE}[^()\n]{{1,60}}\)"
    rf"(?={_LINE_GAP}(?:제{_GAP})?[1-9][0-9]{{0,2}}{_GAP}[항호]))?"
)
ARTICLE = (
    rf"(?P<je>제{_GAP})?(?P<article>{NUMBER}){_GAP}조(?:{_GAP}의{_NOT_ONE_OF}{_GAP}(?P<article_branch>[1-9][0-9]?))?"
    rf"(?![0-9]+(?![0-9])(?!{_GAP}[항호])){_TITLE_BEFORE_LOWER}"
)
# After a 부칙, whose short ones number paragraphs only (`부칙(2005. 5. 26.) 제3항`), the article may be left
# out; elsewhere a paragraph alone is no provision of a named act.
SUPPLEMENT_PROVISION = rf"(?P<provision>(?:{ARTICLE})?(?(article)|(?(supplement)(?=제)|(?!))){LOWER_LEVELS})"

# `민법 제750조, 제751조`, `… 제1항 및 제2항`, `「민법」 제575조제1항ㆍ제3항`, `제12조 제1항 후문과 제3항`: later
# provisions of a list belong to the act (and, when they start below the article, to the article) cited first, and
# so do both ends of a range (`제329조부터 제331조까지`, `제667조 내지 제671조`, `제667조~제672조`). The separator is
# required, so a citation followed by prose (`민법 제750조 제3자`) gains nothing; a comma may end a line (`민법
# 제476조,⏎제477조`). Joiners, parts and asides: grammars.languages.drafts, shared with the grammar.
# A part of the provision before the separator: `본문`, `각 호 외의 부분 전단`, and `중 제288조제1항에 대한 부분`
# (the words of 제290조제2항 that cite 제288조제1항: part of the text cited, not a citation of its own).
_PART_OF_PROVISION = (
    rf"(?:{PROVISION_PART.to_regex()}"
    rf"|중{_GAP}제{_GAP}{NUMBER}{_GAP}조(?:{_GAP}의{_GAP}[1-9][0-9]?)?(?:{_GAP}제{_GAP}[1-9][0-9]{{0,2}}{_GAP}[항호])*"
    rf"{_GAP}(?:에{_GAP}(?:대한|관한){_GAP})?부분)"
)
_LIST_ITEM = re.compile(
    rf"(?:{_GAP}(?:{PART_JOINERS.to_regex()}{_GAP})?{_PART_OF_PROVISION}){{0,4}}(?:{_GAP}까지)?(?:{_GAP}{ASIDE})?"
    rf"(?:(?P<range>{RANGE_FROM}|{_GAP}{RANGE_JOINERS.to_regex()}){_LINE_GAP}"
    rf"|{_GAP}{LIST_JOINERS.to_regex()}{_LINE_GAP})"
    rf"(?P<provision>(?:{ARTICLE})?{LOWER_LEVELS})"
)

_SAME_ARTICLE = ("같은 조", "동조", "같은 항", "동항")


def list_items(text: str, end: int, first: StatuteCitation) -> Iterator[FoundCitation]:
    previous = first
    while (item := _LIST_ITEM.match(text, end)) and item.group("provision"):
        fields = item.groupdict()
        is_range = fields.pop("range") is not None
        for written_only in ("provision", "je", "subitem_open"):
            del fields[written_only]
        if fields["article"] is None:
            fields["article"] = _str_or_none(previous.article)
            fields["article_branch"] = _str_or_none(previous.article_branch)
            if fields["paragraph"] is None:
                fields["paragraph"] = _str_or_none(previous.paragraph)
        # After `같은 조 제2항 본문`, a later article is of the same act: `같은 법`.
        reference = first.back_reference
        if reference in _SAME_ARTICLE and item["article"] is not None:
            reference = "동법" if reference.startswith("동") else "같은 법"
        before = previous
        previous = build_statute(act=first.act, back_reference=reference, former=first.former,
                                 amendment=first.amendment, supplement=first.supplement, **fields)
        if is_range:
            yield FoundCitation(item.span("provision"), previous, CitationForm.RANGE,
                                through=_between(before, previous))
        else:
            yield FoundCitation(item.span("provision"), previous, CitationForm.LIST_CONTINUATION)
        end = item.end()

_MOST_BETWEEN = 300  # a longer range is a typo or a page range, not a run of provisions to check


def _between(first: StatuteCitation, last: StatuteCitation) -> tuple[StatuteCitation, ...]:
    """The provisions a range cites strictly between its ends, at the level where the ends differ
    (articles, or the paragraphs or items of one article); none where a branch (`제331조의2`) or a
    lower level makes the run uncertain."""
    levels = ("article", "paragraph", "item")
    for depth, level in enumerate(levels):
        low, high = getattr(first, level), getattr(last, level)
        if low == high:
            continue
        deeper = levels[depth + 1:]
        plain = all(getattr(c, name) is None for c in (first, last) for name in (*deeper, "subitem"))
        branches = (first.article_branch, last.article_branch, first.item_branch, last.item_branch)
        if low is None or high is None or not plain or any(branches) or not 0 < high - low <= _MOST_BETWEEN:
            return ()
        between: list[dict[str, Any]] = [{level: number} for number in range(low + 1, high)]
        return tuple(replace(first, **fields) for fields in between)
    return ()


def _str_or_none(number: int | None) -> str | None:
    return None if number is None else str(number)
