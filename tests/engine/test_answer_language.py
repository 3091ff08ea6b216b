"""The language the service constrains answers with (serve_wiring.answer_grammar_for, used by ask
and serve): by default a citation head written otherwise than canonically cannot be written."""

from __future__ import annotations

import pytest

from citegen.commands.serve_wiring import answer_grammar_for
from citegen.constraint import Narrowing
from grammars import DEAD
from grammars.compile import automaton_of

LEXICON = {"형법": ["250", "355"], "민법": ["750"]}

TEXTS = [
    ("형법 제355조에 따라", True, True),
    ("대법원 2024. 7. 11. 선고 2024도4202 판결", True, True),
    ("형법제355조", False, True),
    ("「형법」 제250조", False, True),
    ("형법 10조", False, True),
    ("대판 2024도4202", False, True),
    ("(2024도4202)", False, True),
    ("2024년 7월, 10조 원", True, True),
]


@pytest.mark.parametrize(("text", "writable", "writable_when_allowed"), TEXTS, ids=[t for t, _, _ in TEXTS])
def test_malformed_heads_are_unwritable_unless_shorthand_is_allowed(
    text: str, writable: bool, writable_when_allowed: bool
) -> None:
    for forbid, expected in ((True, writable), (False, writable_when_allowed)):
        automaton = automaton_of(answer_grammar_for(LEXICON, forbid_shorthand=forbid))
        assert (automaton.walk(automaton.initial, text.encode()) != DEAD) == expected, forbid


def test_narrowing_keeps_the_forbidden_heads_of_the_acts_left() -> None:
    automaton = automaton_of(answer_grammar_for(LEXICON, Narrowing(acts=("민법",))))
    assert automaton.walk(automaton.initial, "민법제750조".encode()) == DEAD
    assert automaton.walk(automaton.initial, "민법 제750조".encode()) != DEAD


NARROWED = [
    (Narrowing(acts=("민법",)), "민법 제750조에 따라", True),
    (Narrowing(acts=("민법",)), "형법 제355조에 따라", False),
    (Narrowing(acts=("민법",)), "대법원 2024. 7. 11. 선고 2024도4202 판결", True),
    (Narrowing(courts=(), acts=("민법",)), "대법원 2024. 7. 11. 선고 2024도4202 판결", False),
    (Narrowing(courts=("대법원",), acts=()), "대법원 2024. 7. 11. 선고 2024도4202 판결", True),
    (Narrowing(courts=("대법원",), acts=()), "서울고등법원 2023. 5. 4. 선고 2022나2034567 판결", False),
    (Narrowing(courts=("대법원",), acts=()), "민법 제750조", False),
    (Narrowing(courts=("대법원",), acts=()), "민법은 1958년에", True),
]


@pytest.mark.parametrize(
    ("narrowing", "text", "writable"), NARROWED, ids=[f"{n.courts}-{n.acts}-{t}" for n, t, _ in NARROWED]
)
def test_a_citation_the_narrowing_leaves_out_cannot_be_written_as_free_text(
    narrowing: Narrowing, text: str, writable: bool
) -> None:
    automaton = automaton_of(answer_grammar_for(LEXICON, narrowing))
    assert (automaton.walk(automaton.initial, text.encode()) != DEAD) == writable


HALF_WRITTEN = [
    ("민법 제 있다", False),
    ("민법 제조의", False),
    ("민법제도", False),
    ("민법 규정에 따르면", True),
    ("민법에 따라", True),
    ("형법 제250조", True),
    ("형법 제정 당시", False),  # 제 after a title goes on only as a citation of the acts kept
    ("민법 시행령 제 있다", False),
    ("형법 제250조 제1항", True),
    ("「민법」 제 관계에", False),  # a quoted title's 제, as the title's own
    ("민법\n제도", False),  # a wrapped line: the name at its end, 제 on the next
    ("민법\n\n제도", True),  # a blank line parts them
]


@pytest.mark.parametrize(("text", "writable"), HALF_WRITTEN, ids=[t for t, _ in HALF_WRITTEN])
def test_no_head_of_an_act_left_out_can_be_begun(text: str, writable: bool) -> None:
    automaton = automaton_of(answer_grammar_for(LEXICON, Narrowing(courts=(), acts=("형법",))))
    assert (automaton.walk(automaton.initial, text.encode()) != DEAD) == writable


UNANCHORED = [  # statute-shaped text the strict last check used to withhold: now unwritable
    ("그는형법제355조를", False),
    ("근로기준법소득세법 제12조", False),
    ("민법 시행령 제1조", False),
    ("손해배상청구권의 소멸시효에 관한 법률 제766조", False),
    ("민법 제750조의3", False),
    ("민법 제750조 제100항", False),
    ("민법 제750조, 21조", False),  # a list's later article: the finder reads 민법 제21조
    ("형법 제250조 내지 제355조", False),
    ("형법 제250조ㆍ제355조", False),
    ("형법 제250조, 형법 제355조", True),  # each provision cited whole
    ("민법 제750조의 요건", True),
    ("민법 제750조 제1항", True),
    ("방법 제시", True),
    ("민법534조", False),  # 제 and the space left out
    ("민법\n제999조", False),  # a wrapped line between name and provision
    ("민법 제750조\n제2항", False),  # a provision's continuation on the next line
    ("민법 제750조\n\n제2장", True),  # after a blank line, a heading of its own
    ("판례는2024도4202 판결이다.", False),  # a case number glued to the word before (a review)
    ("총2024개", True),
    # heads in Hanja, as older judgments write them, which the screen's finder does not read
    ("근거는 形法 第250條이다.", False),
    ("근거는 民法 第750條이다.", False),
    ("第一 원칙과 방법 제시", True),
    ("<think>민법 시행령 제1조</think>", True),
]


@pytest.mark.parametrize(("text", "writable"), UNANCHORED, ids=[t for t, _ in UNANCHORED])
def test_no_statute_shaped_text_is_written_outside_a_citation(text: str, writable: bool) -> None:
    for forbid, expected in ((True, writable), (False, True)):
        automaton = automaton_of(answer_grammar_for(LEXICON, forbid_shorthand=forbid))
        assert (automaton.walk(automaton.initial, text.encode()) != DEAD) == expected, forbid
