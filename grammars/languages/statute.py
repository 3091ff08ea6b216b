"""The statute-citation language: `민법 제750조`, `근로기준법 제23조의2 제1항 제2호 가목`.

name · ` 제N조` (`의M`)? · (` 제K항`)? · (` 제J호` (`의I`)? (` 가목`)?)?

A 목 exists only under a 호, so the sub-item hangs off the item. With a database lexicon only the
articles an act has can be produced: acts are grouped by their article set (acts that admit any
article share one group), and each group is its names each followed by ` 제` (`민법 제`: so that the end of
a name is inside a word, and what follows the name is known without making anything) then its article
numbers as one literal set, made only once a citation reads a digit after ` 제` (`Deferred`,
grammars.languages.articles), so the size of the expression grows with the data, never as names × articles,
and a first mask needs only the names. Which act a citation names and which article it cites are read back
from the captured head `민법 제750조` (split at its last ` 제`), since a regex cannot repeat a named group
across the groups.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from grammars.act_names import ACT_ENDINGS
from grammars.collector import collector_paused
from grammars.expr import Alt, Capture, Expr, Literals, Opt, Regex, Seq, seq
from grammars.grammar import CitationGrammar, made_by
from grammars.languages.articles import HEAD_SEPARATOR, ArticleWords, article_word
from grammars.languages.case import ANY_DIGIT
from grammars.languages.drafts import (
    LINE_GAP,
    LIST_JOINERS,
    LOOSE_GAP,
    PROVISION_PART,
    RANGE_FROM,
    RANGE_JOINERS,
    loose_article_head,
)
from grammars.languages.lexicon import ArticleLabels, Lexicon, as_lexicon

# Numbers up to 99 as Literals (the compiler's cheap path); articles up to 9999 stay a small regex.
BRANCH = Literals(tuple(str(n) for n in range(1, 100)))
PARAGRAPH = BRANCH
ITEM = Regex("[1-9][0-9]{0,2}")
ANY_ARTICLE_NUMBER = Regex("[1-9][0-9]{0,3}")
ANY_ARTICLE = seq(ANY_ARTICLE_NUMBER, "조", Opt(seq("의", BRANCH)))
# The acts a back-reference cites are the resolver's business; generation names every act in full.
BACK_REFERENCES = ("같은 법", "동법", "이 법")
# 목 are lettered in 가나다 order; 14 letters are the most any item has.
SUBITEM_LETTERS = tuple("가나다라마바사아자차카타파하")
# How the title of an act or a treaty ends (grammars.act_names), 법률 included; in Hanja, 法, 令, 規則, 法律.
TITLE_ENDINGS = (*ACT_ENDINGS, "법률")
HANJA_TITLE_ENDINGS = ("法", "令", "規則", "法律")


def provision_tail() -> Expr:
    """` 제1항 제2호의3 가목`, each part optional, as it follows `제N조(의M)`."""
    subitem = seq(" ", Capture("subitem", Literals(SUBITEM_LETTERS)), "목")
    item = seq(
        " 제", Capture("item", ITEM), "호", Opt(seq("의", Capture("item_branch", BRANCH))), Opt(subitem)
    )
    return seq(Opt(seq(" 제", Capture("paragraph", PARAGRAPH), "항")), Opt(item))


def _groups(lexicon: Lexicon) -> dict[ArticleLabels, list[str]]:
    # Sorted, so that the same data in another order gives an equal grammar (and the same cache key).
    articles = {**lexicon.acts, **{alias: lexicon.acts[name] for alias, name in lexicon.aliases.items()}}
    groups: dict[ArticleLabels, list[str]] = {}
    for name in sorted(articles):
        groups.setdefault(articles[name], []).append(name)
    return groups


# Every part of the provision tail, its numbers of one digit and of two (` 제1` and ` 제10` are two states)
WARM_TAIL = " 제10항 제10호의10 가목"
# An article of an act without an article set, of every length and with a branch: its number is a regex
WARM_ANY_ARTICLE = "1000조의10"


def _warm_citations(groups: dict[ArticleLabels, list[str]]) -> tuple[tuple[str, str], ...]:
    """What every citation's provision tail shares (`CitationGrammar.warm`), after an act with an article set
    and after the name of one without, whose article numbers are a regex (their states are shared too)."""
    with_set = next(((names[0], labels) for labels, names in groups.items() if labels), None)
    without = next((names[0] for labels, names in groups.items() if not labels), None)
    warm = [] if with_set is None else [(with_set[0] + article_word(min(with_set[1])), WARM_TAIL)]
    return (*warm, *([] if without is None else [(without, f"{HEAD_SEPARATOR}{WARM_ANY_ARTICLE}{WARM_TAIL}")]))


def malformed_heads(lexicon: Lexicon) -> tuple[Expr, ...]:
    """Heads that begin no canonical citation, as the lenient finder reads them: abbreviations and
    back-references (`민소법 제1`, `같은 법 제3`), a name glued to, loosely spaced or a line apart from 제
    (`형법제3`, `형법 제 3`, `형법⏎제3`), 제 left out (`형법 10조`, `형법10조`), a quoted name (`「형법」 제2`,
    `「형법」제2`, `「형법」 60조`).
    Not the bare `법 제`: it occurs inside every `민법 제…` and would cut those citations off."""
    names = Literals(tuple(sorted({*lexicon.grammar_names, *lexicon.informal})))
    # Quoted, the lexicon's names only: any text up to 」 would double the automaton's states (inside
    # quotes or not) and make the index build 15 times slower; an act outside the lexicon cannot be
    # cited canonically either.
    written = Alt((names, Literals(BACK_REFERENCES), seq("「", names, "」")))
    return (loose_article_head(written), seq(written, LINE_GAP, ANY_ARTICLE_NUMBER, "조"))


def glued_head() -> Expr:
    """The end of a title and an article, wherever it begins (`법 제3`, `령제5`, `법률 제766`, in Hanja
    `法 第250`): with `forbid_shorthand` an anchor that counts inside a word too, so no statute-shaped text
    is written outside a citation, whether its act is one no lexicon holds (`민법 시행령 제1조`, `…에 관한
    법률 제766조`), a name glued to the word before it (`…는형법제257조`, `근로기준법소득세법 제12조`), or
    a head in Hanja (`形法 第250條`, as older judgments write it). A lexicon's citation holds it and goes
    on; prose rarely does (`방법 제1안`)."""
    return Alt((loose_article_head(Literals(TITLE_ENDINGS)), loose_article_head(Literals(HANJA_TITLE_ENDINGS), "第")))


def title_then_je(lexicon: Lexicon) -> Expr:
    """`법 제`, `령제`, `법률 제`, `법」 제`: the end of a title (TITLE_ENDINGS, or a name of `lexicon` ending
    otherwise), maybe the 」 quoting it, a loose gap (a line break in it too) and 제. As a glued anchor of an
    answer narrowed to some acts, only a citation of those acts goes on from it: a model that began `민법 제…`,
    `「민법」 제…` or `민법 시행령 제…` and had its digit refused cannot leave the head half-written (`민법 제 있다`,
    `「특허법」 제 관계에`, `민법 시행령 제조는`). The name alone stays prose (`민법에 따르면`, `민법 규정`); `…법 제정`
    is not writable in such answers."""
    def make() -> Expr:
        others = (name for name in (*lexicon.grammar_names, *lexicon.informal) if not name.endswith(TITLE_ENDINGS))
        return seq(Literals(tuple(sorted({*TITLE_ENDINGS, *others}))), Opt(Literals(("」",))), LINE_GAP, "제")

    return _per_lexicon(lexicon, "title_then_je", make)


def names_then_je(names: Iterable[str]) -> Expr:
    """`형법 제`: where `title_then_je` completes inside a citation of one of `names`, the start of that
    citation, for an anchor that says where it begins."""
    return seq(Literals(tuple(sorted(names))), HEAD_SEPARATOR)


def continued_head() -> Expr:
    """What may not be written on as prose right after a citation closed, with `forbid_shorthand` an
    anchor there: a provision's continuation (`의3`, ` 제5`, on the next line too), so a branch or part the
    act lacks is not written (`민법 제81조` + `의3`, `민법 제750조` + `⏎제2항`); and a later provision of a
    list or range (`, 제751조`, `, 21조`, ` 및 제2항`, `ㆍ제5조`, `부터 제5조`, ` 내지 제5조`, also after
    ` 본문`), which a reader takes for the same act's and nobody would have checked: each is written as a
    citation of its own (`민법 제3조, 민법 제5조`). The list item anchors at its 조, 항 or 호, as the lenient
    finder reads it, so prose after a citation stays writable (`, 제3자`, `, 2명`, `와 제1심`)."""
    parts = Opt(seq(LOOSE_GAP, PROVISION_PART, Opt(seq(LOOSE_GAP, PROVISION_PART))))
    joiner = Alt(
        (
            seq(Alt((Literals((RANGE_FROM,)), seq(LOOSE_GAP, RANGE_JOINERS))), LINE_GAP),
            seq(LOOSE_GAP, LIST_JOINERS, LINE_GAP),
        )
    )
    later_item = seq(
        parts,
        Opt(seq(LOOSE_GAP, "까지")),
        joiner,
        Opt(seq("제", LOOSE_GAP)),
        ANY_ARTICLE_NUMBER,
        LOOSE_GAP,
        Literals(("조", "항", "호")),
    )
    return Alt((seq("의", ANY_DIGIT), seq(LINE_GAP, "제", LOOSE_GAP, ANY_DIGIT), later_item))


def statute_anchor(
    lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None = None, *, forbid_shorthand: bool = False
) -> Expr:
    """The anchor of `statute_grammar(lexicon, forbid_shorthand=…)` alone, without its citations' article
    sets (which cost a statute book 0.1–0.2 s to build): what a narrowed answer keeps of the whole one."""
    held = as_lexicon(lexicon)

    def make() -> Expr:
        anchor = seq(Literals(tuple(sorted(held.grammar_names))), HEAD_SEPARATOR, ANY_DIGIT)
        return Alt((anchor, *malformed_heads(held))) if forbid_shorthand else anchor

    return _per_lexicon(held, ("statute_anchor", forbid_shorthand), make)


_Part = TypeVar("_Part")
# What a whole lexicon's anchors are made of, once per Lexicon object (the one the service holds): every
# narrowing anchors on the whole lexicon's 11,000 names, sorted into three sets otherwise each time; and its
# article words.
_whole_lexicon_parts: weakref.WeakKeyDictionary[Lexicon, dict[object, Any]] = weakref.WeakKeyDictionary()


def _per_lexicon(lexicon: Lexicon, part: object, make: Callable[[], _Part]) -> _Part:
    parts = _whole_lexicon_parts.setdefault(lexicon, {})
    found: _Part | None = parts.get(part)
    if found is None:
        found = parts[part] = make()
    return found


def statute_grammar(
    lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None = None, *, forbid_shorthand: bool = False
) -> CitationGrammar:
    """Canonical statute citations over a lexicon: built-in by default, or the database's
    `{name: [article labels]}` so that only existing articles can be produced.

    The anchor is a name, ` 제` and any digit, whether or not the act has an article that begins
    with it: `형법 제9999` must die in the automaton, not pass as free text. With `forbid_shorthand`
    every malformed head anchors too (`malformed_heads`), so generation writes every statute head
    canonically.
    """
    lexicon = as_lexicon(lexicon)
    # An act's article numbers are made when a citation first reads one (the book's 5,000 groups' are not), but
    # for the lexicon's largest sets (`ArticleWords`). The heads live as long as the grammar: collections while they
    # are made (44 at the statute book, 20 ms of a 35 ms grammar) would only walk them again.
    with collector_paused():
        groups = _groups(lexicon)
        words = _per_lexicon(lexicon, "article_words", lambda: ArticleWords(labels for labels in groups if labels))
        heads = [
            Seq((Literals(tuple([name + HEAD_SEPARATOR for name in names])),
                 words.numbers_after(labels) if labels else ANY_ARTICLE))
            for labels, names in groups.items()
        ]
    head = heads[0] if len(heads) == 1 else Alt(tuple(heads))
    anchor = statute_anchor(lexicon, forbid_shorthand=forbid_shorthand)
    grammar = CitationGrammar(name="statute", expr=seq(Capture("head", head), provision_tail()), anchor=anchor,
                              warm=_warm_citations(groups))
    if not lexicon.digest:
        return grammar
    return made_by(grammar, f"statute_grammar(lexicon {lexicon.digest}, forbid_shorthand={forbid_shorthand})")
