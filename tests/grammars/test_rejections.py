"""Which tokens die from a free state (grammars.rejections), against the automaton itself token by token,
over a vocabulary built in code whose tokens run from free text through a completed anchor into a
citation (`법 제1가` dies there, `법 제1조` lives), carry a partial shorthand head beside free text (`법 12`
after `민법`), or leave a partial anchor behind and die where free text would too (`제 민법 제0`)."""

from __future__ import annotations

import pytest

from grammars.compile import compile_index
from grammars.dfa import DEAD
from grammars.expr import Alt, Literals, Regex, seq
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.vocabulary import Vocabulary

ACTS = Literals(("민법", "형법", "난민법"))
# the service's shape with shorthand forbidden: `민법 1조` is a head that must not complete
HEADS = Alt((seq(ACTS, " 제", Regex("[0-9]")), seq(ACTS, " ", Regex("[1-9]"), "조")))
STATUTE = CitationGrammar("statute", seq(ACTS, " 제", Regex("[1-9][0-9]?"), "조"), HEADS)
GRAMMAR = AnswerGrammar((STATUTE,), bypass=())
_PIECES = [
    "민법", "형법", "난", "민", "법", " ", "제", " 제", "제1", "제12", "제1가", "제1조", "제0", "제 ", "1", "12", "123",
    "1조", "1가", "0", "05", "가", "조", "조 ", "제 민법 제0", "제 민법 제1", "제 형법 제12가", " 민법 제0", " 1",
    " 12", " 1조", " 12조", "법 제1", "법 제1가", "법 제12조", "법 제0", "법 1조", "법 12", "법 1가", "1조 민법 제0",
    "3", "31", "12조", "123조", "3조", "31조", "4조", "129",
]
TOKENS: tuple[bytes | None, ...] = (None, *sorted({piece.encode() for piece in _PIECES}))
VOCABULARY = Vocabulary(TOKENS, frozenset({0}))
# a shorthand head held to the acts' real article numbers: after `민법 ` each digit string is a state of its own,
# beside free text's, so the number tokens part ways (`12조` completes the head and dies, `13` and `4조` live)
NUMBERED_HEADS = Alt((seq(ACTS, " 제", Regex("[0-9]")), seq(ACTS, " ", Literals(("1", "12", "123", "3")), "조")))
NUMBERED = AnswerGrammar((CitationGrammar("statute", STATUTE.expr, NUMBERED_HEADS),), bypass=())
TEXTS = [
    "민법 제12조 형법 제1조 난민법 제1조",
    "민법 1 형법 12 민법 제 민법 제1조",
    "형법 제 형법 제12조 민법 05 난민법 12",
]


def _brute_force(index, state: int) -> set[int]:
    walked = {i for i, token in enumerate(TOKENS) if token and index.automaton.walk(state, token) != DEAD}
    return walked | ({0} if index.is_accepting(state) else set())


def _allowed(index, state: int) -> set[int]:
    return set(index.allowed_tokens(state).tolist())


def _assert_exact_along(index, text: str) -> None:
    """At every byte of `text`, the tokens allowed are exactly those the automaton reads without dying."""
    data = text.encode()
    for end in range(len(data) + 1):
        state = index.advance_bytes(index.initial_state, data[:end])
        assert state != DEAD
        assert _allowed(index, state) == _brute_force(index, state), data[:end].decode(errors="replace")


@pytest.mark.parametrize("text", TEXTS)
def test_free_states_along_a_text_reject_what_their_automaton_kills(text: str) -> None:
    """States computed as reached (a narrowing's way): at every byte of the text, the tokens allowed are
    exactly those the automaton reads without dying."""
    _assert_exact_along(compile_index(GRAMMAR, VOCABULARY), text)


@pytest.mark.parametrize("text", ["민법 12 형법 3 난민법 123", "민법 1 민법 31 형법 129", "형법 제1조 민법 4"])
def test_free_states_whose_digits_part_ways_reject_what_their_automaton_kills(text: str) -> None:
    """After `NAME ` every article number of the head is a state of its own: the number tokens are walked a
    depth at a time by the states their digits reach (grammars.rejections `_numbers`), dying, meeting free
    text's state or going on beside it."""
    index = compile_index(NUMBERED, VOCABULARY)
    _assert_exact_along(index, text)
    rejected = set(range(len(TOKENS))) - _allowed(index, index.advance_bytes(index.initial_state, "민법 ".encode()))
    assert {TOKENS[i] for i in rejected} >= {f"{number}조".encode() for number in ("1", "12", "123", "3")}


def test_a_whole_build_gives_every_free_state_its_brute_force_row() -> None:
    """States computed by a whole build (the disk cache's way), where free states met one after another
    share what lies below their first byte (every `NAME ` reaching the same partial head on a digit)."""
    index = compile_index(GRAMMAR, VOCABULARY)
    index.build_all()
    rejecting = set()
    for state in range(index.state_count):
        if not index.in_citation(state):
            allowed = _allowed(index, state)
            assert allowed == _brute_force(index, state)
            if set(range(1, len(TOKENS))) - allowed:
                rejecting.add(state)
    assert len(rejecting) > 30  # the vocabulary reaches what it was built for: 36 free states that reject
