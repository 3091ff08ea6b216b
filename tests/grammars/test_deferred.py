"""Deferred expressions: made when a string first reaches them, the language unchanged."""

from __future__ import annotations

import functools
import re
import threading

import pytest

from grammars import GrammarError, statute_grammar
from grammars.cache import grammar_key
from grammars.dfa import DEAD, compile_dfa
from grammars.expr import Alt, Deferred, Expr, Literals, Opt, Regex, seq
from grammars.nfa import ByteNFA


def _made(log: list[str], name: str, words: tuple[str, ...]) -> Literals:
    log.append(name)
    return Literals(words)


def grouped(log: list[str], opens_with: frozenset[int] | None = None) -> Alt:
    """Statute-shaped groups whose ` 제` + article sets are Deferred; `log` records which are made."""
    def tail(name: str, *words: str) -> Deferred:
        return Deferred(words, functools.partial(_made, log, name), opens_with=opens_with)

    return Alt((
        seq(Literals(("근로기준법", "민법")), tail("a", " 제1조", " 제2조")),
        seq(Literals(("근로기준법 시행령", "형법")), tail("b", " 제3조")),
        seq(Literals(("민법", "민사소송법")), tail("c", " 제4조", " 제40조")),
        Literals(("근로", "민")),
    ))


NAMES = ("근로기준법", "근로기준법 시행령", "민법", "형법", "민사소송법", "근로", "민", "민사")
TEXTS = [f"{name}{tail}" for name in NAMES
         for tail in ("", " 제", " 제1조", " 제2조", " 제3조", " 제4조", " 제40조", " 제41조")]


# what the tails open with: not said, exactly their first byte, more than that
OPENINGS = [None, frozenset(b" "), frozenset(range(256))]


@pytest.mark.parametrize("opens_with", OPENINGS, ids=["eager", "exact", "superset"])
@pytest.mark.parametrize("text", TEXTS, ids=lambda text: text)
def test_a_deferred_tail_accepts_what_its_expression_does(text: str, opens_with: frozenset[int] | None) -> None:
    expr = grouped([], opens_with)
    assert compile_dfa(expr).matches(text.encode()) == bool(re.fullmatch(expr.to_regex(), text))


def test_a_deferred_that_says_what_it_opens_with_is_made_when_a_string_reads_into_it() -> None:
    log: list[str] = []
    dfa = compile_dfa(grouped(log, frozenset(b" ")))
    at_name_end = dfa.walk(dfa.initial, "형법".encode())
    assert at_name_end >= 0 and log == []  # reached, not read into
    assert dfa.walk(at_name_end, "의".encode()) == DEAD and log == []  # a byte none of its strings opens with
    assert dfa.walk(at_name_end, " 제3조".encode()) >= 0 and log == ["b"]
    # a root's last characters: every Deferred that may end it made, as where each was made when reached
    assert dfa.nfa.final_chars(0) == ByteNFA({0: grouped([])}).final_chars(0) and sorted(log) == ["a", "b", "c"]


def test_a_deferred_is_made_only_when_a_string_reaches_it() -> None:
    log: list[str] = []
    dfa = compile_dfa(grouped(log))
    assert dfa.walk(dfa.initial, "민사소송".encode()) >= 0 and log == []
    dfa.walk(dfa.initial, "형법".encode())
    assert log == ["b"]
    dfa.walk(dfa.initial, "민법 제4".encode())  # 민법 is in two groups: both tails are made
    assert sorted(log) == ["a", "b", "c"]


def test_article_numbers_of_deferred_groups_meet_where_the_rest_is_the_same() -> None:
    # As statute_grammar builds it: each group's ` 제` + articles Deferred, one tail after every group.
    def articles(*words: str) -> Deferred:
        return Deferred(words, Literals)

    grammar = seq(Alt((seq(Literals(("민법",)), articles(" 제1조", " 제75조", " 제76조")),
                       seq(Literals(("형법",)), articles(" 제2조", " 제75조", " 제76조")))), Opt(Literals((" 제1항",))))
    dfa = compile_dfa(grammar)
    assert dfa.walk(dfa.initial, "민법 제7".encode()) == dfa.walk(dfa.initial, "형법 제7".encode())
    assert dfa.walk(dfa.initial, "민법 제".encode()) != dfa.walk(dfa.initial, "형법 제".encode())
    for text in ("민법 제1조", "민법 제2조", "형법 제2조 제1항", "형법 제1조", "민법 제75조 제1항", "형법 제77조"):
        assert dfa.matches(text.encode()) == bool(re.fullmatch(grammar.to_regex(), text)), text


def test_the_last_characters_of_a_root_include_those_of_a_deferred_not_yet_made() -> None:
    log: list[str] = []
    nfa = ByteNFA({0: seq(Literals(("가",)), Deferred(("나", "다국"), functools.partial(_made, log, "k")))})
    assert nfa.final_chars(0) == frozenset({"나".encode(), "국".encode()})


def test_a_deferred_that_makes_the_empty_string_is_refused_when_made() -> None:
    expr = seq(Literals(("가",)), Deferred(("나",), lambda words: Opt(Literals(words))))
    dfa = compile_dfa(expr)
    with pytest.raises(GrammarError, match=r"without the empty string, got one for \('나',\)"):
        dfa.walk(dfa.initial, "가".encode())


@pytest.mark.parametrize(
    "made", [Literals(("1조", "2조")), Alt((Regex("[1-9]조"), Literals(("10조",))))], ids=["literals", "alternation"]
)
def test_a_deferred_keys_the_index_cache_as_the_expression_it_makes(made: Expr) -> None:
    deferred = Deferred(frozenset({"1", "2"}), lambda _: made)
    assert grammar_key(seq(Literals(("민법",)), deferred)) == grammar_key(seq(Literals(("민법",)), made))


def test_the_statute_grammar_makes_only_the_article_numbers_a_citation_reads() -> None:
    lexicon = {f"시험{n}법": [str(a) for a in range(1, 2 + n)] for n in range(50)}
    dfa = compile_dfa(statute_grammar(lexicon).expr)
    head = dfa.walk(dfa.initial, "시험7법 제".encode())
    assert head >= 0 and not dfa.nfa._opened  # the name and ` 제` read: no article number made
    assert dfa.walk(head, "공".encode()) == DEAD and not dfa.nfa._opened  # `제공` opens no number
    assert dfa.matches("시험7법 제8조 제1항".encode()) and not dfa.matches("시험7법 제9조".encode())
    assert len(dfa.nfa._opened) == 1 and len(dfa.nfa._deferred) == 49  # the other 49 acts' heads: not made


def test_a_deferred_entered_by_two_threads_at_once_is_made_once() -> None:
    made: list[threading.Thread] = []

    def make(words: tuple[str, ...]) -> Literals:
        made.append(threading.current_thread())
        if len(made) == 1:  # a second thread enters while this one makes it: it must wait, not make its own
            other = threading.Thread(target=lambda: entries.append(nfa._entries(deferred)))
            other.start()
            other.join(timeout=0.2)
            waiting.append(other)
        return Literals(words)

    entries: list[tuple] = []
    waiting: list[threading.Thread] = []
    nfa = ByteNFA({0: seq(Literals(("가",)), Deferred(("나",), make))})
    (deferred,) = nfa._deferred
    entries.append(nfa._entries(deferred))
    waiting[0].join()
    assert made == [threading.main_thread()] and entries[0] == entries[1]
