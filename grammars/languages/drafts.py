"""How drafts space a citation's head and run a list of provisions on: the loose spacing and the list
and range joiners that the lenient finder (grammars.find) reads and that `forbid_shorthand` makes
unwritable (grammars.languages.case, grammars.languages.statute), defined once for both."""

from __future__ import annotations

from grammars.expr import Alt, Expr, Literals, Opt, Regex, Seq, seq

# Spaces, tabs, no-break and ideographic spaces (HWP and PDF exports); never a line break: only LINE_GAP
# below takes one, where a wrapped line may part a citation, and never two.
LOOSE_SPACE = "[ \t\u00a0\u3000]"
LOOSE_GAP = Regex(LOOSE_SPACE + "*")
# A loose gap holding at most one line break (`\r\n` in a Windows draft), never a blank line: where a
# wrapped line may part a citation's pieces (a name at a line's end and `제750조` on the next, a list's
# comma, `제750조` and `제2항`), so the finder reads them as one and generation cannot write them apart.
LINE_GAP = Regex(LOOSE_SPACE + "*(?:\r?\n)?" + LOOSE_SPACE + "*")


def loose_article_head(name: Expr, je: str = "제") -> Seq:
    """`name 제3`, `name제3`, `name 제 3`, `name⏎제3`: a name, a loose gap (a line break in it too), 제 (or
    the Hanja 第), any loose gap and a digit. (Full-width digits and Hanja numerals are left to the strict
    screen: as anchors' last characters they made a narrowing compile 30 times slower.)"""
    return seq(name, LINE_GAP, je, LOOSE_GAP, Regex("[0-9]"))


# How drafts run on from a provision to later ones of the same act: a list (`민법 제750조, 제751조`,
# `제1항 및 제2항`, `제3조ㆍ제5조`, a comma at a line's end) or a range (`제329조부터 제331조까지`,
# `제667조 내지 제671조`, `제667조~제672조`), after words naming a part of the provision (`본문`, `각 호 외의
# 부분`). The lenient finder reads the later items as the first act's provisions (grammars.find); with
# `forbid_shorthand` they cannot be written after a citation (statute.continued_head).
LIST_JOINERS = Literals((",", "및", "과", "와", "ㆍ", "·", "또는", "이나", "나"))
RANGE_JOINERS = Literals(("내지", "~", "∼", "〜"))  # after a loose gap; `부터` is glued to the provision
RANGE_FROM = "부터"
# Parts may come in pairs (`본문ㆍ단서`, `전단과 후단`), and an aside in parentheses may follow the provision
# before the list goes on (`제6조제2항(… 한정한다), 제22조제1항`): the finder keeps the list's act across both.
PART_JOINERS = Literals(("ㆍ", "·", "및", "과", "와", "또는"))
ASIDE = r"\((?:[^()\n]|\([^()\n]*\))*\)"
PROVISION_PART = Alt(
    (
        Literals(("본문", "단서", "전단", "후단", "전문", "후문")),
        seq("각", LOOSE_GAP, Literals(("목", "호")), Opt(seq(LOOSE_GAP, "외의", LOOSE_GAP, "부분"))),
    )
)
