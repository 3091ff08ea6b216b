"""The byte-level DFA against the regex that parsing uses: tables, Hypothesis, UTF-8 ranges, bad input."""

from __future__ import annotations

import re
import weakref

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammars import LexiconError, UnsupportedPatternError, case_grammar, statute_grammar
from grammars.dfa import DEAD, compile_dfa
from grammars.expr import Alt, Capture, Deferred, Expr, Literals, Opt, Regex, Seq, seq
from grammars.literals import sorted_union
from grammars.nfa import EMPTY, ByteNFA
from grammars.regex_leaf import utf8_byte_ranges

COURT = Literals(("대법원", "서울고등법원", "서울고등", "헌법재판소"))
SMALL_CASE = seq(
    Capture("court", COURT), " ", Regex("(19|20)[0-9]{2}"), ". ", Regex("[1-9]|1[0-2]"), ".",
    Alt((Literals((" 선고",)), Literals(("자",)))), " ", Regex("[0-9]{2,4}"), Literals(("도", "다", "헌마")),
    Regex("[1-9][0-9]{0,3}"), Opt(seq(" ", Literals(("전원합의체",)))), " ", Literals(("판결", "결정")),
)
SMALL_STATUTE = seq(
    Literals(("민법", "형법", "근로기준법", "근로기준법 시행령")), " 제", Regex("[1-9][0-9]{0,3}"), "조",
    Opt(seq("의", Regex("[1-9][0-9]?"))), Opt(seq(" 제", Regex("[1-9][0-9]?"), "항")),
    Opt(seq(" 제", Regex("[1-9][0-9]?"), "호")), Opt(Literals((" 가목", " 나목"))),
)

TABLES: dict[str, tuple[Expr, list[str], list[str]]] = {
    "small-case": (
        SMALL_CASE,
        ["대법원 2024. 7. 선고 2024도4202 판결", "서울고등 1999. 12.자 99다1 결정", "헌법재판소 2020. 3. 선고 2017헌마1281 결정",
         "대법원 2020. 6. 선고 2015도2004 전원합의체 판결"],
        ["대법원 2024. 0. 선고 2024도4202 판결", "대법원 2024. 7 선고 2024도4202 판결", "대법 2024. 7. 선고 2024도1 판결",
         "대법원 2024. 7. 선고 2024도0 판결", "대법원 2024. 7. 선고 2024도4202", ""],
    ),
    "small-statute": (
        SMALL_STATUTE,
        ["민법 제750조", "근로기준법 시행령 제30조의2 제1항 제2호 가목", "형법 제250조 제1항", "근로기준법 제23조"],
        ["민법 제0조", "민법 제750", "민법제750조", "근로기준 제1조", "민법 제750조 제", "민법 제750조 다목"],
    ),
    "nullable-pieces": (
        seq(Opt(Literals(("a",))), Regex("b*"), Literals(("", "c")), Regex("d?")),
        ["", "a", "abbb", "cd", "abcd", "bd", "d"],
        ["aa", "dc", "ca", "e"],
    ),
    "multibyte-classes": (
        Seq((Regex("[가-힣]+"), Regex("[^가-힣0-9]"), Regex("."))),
        ["법x가", "민법 ?", "가\U0001F600é"],
        ["법1가", "x가가", "법가\n", "가"],
    ),
    "case-grammar": (
        case_grammar().expr,
        ["대법원 2024. 7. 11. 선고 2024도4202 판결", "헌법재판소 2020. 3. 26. 선고 2017헌마1281 결정",
         "대법원 2024. 2. 29. 선고 2024도4202 판결", "대법원 1996. 2. 29. 선고 95다38677 판결"],
        ["대법원 2023. 2. 29. 선고 2023도4202 판결", "대법원 2024. 2. 30. 선고 2024도4202 판결",
         "대법원 2024. 7. 11. 선고 2024 도 4202 판결", "대법원 2024.7.11. 선고 2024도4202 판결"],
    ),
    "statute-grammar": (
        statute_grammar().expr,
        ["민법 제750조", "근로기준법 제23조 제1항", "형법 제250조 제1항"],
        ["민법 제750조제1항", "민법 750조", "민법 제 750조"],
    ),
}


@pytest.mark.parametrize("name", sorted(TABLES), ids=sorted(TABLES))
def test_dfa_accepts_exactly_the_table(name: str) -> None:
    expr, passing, failing = TABLES[name]
    dfa = compile_dfa(expr)
    pattern = re.compile(expr.to_regex())
    for text in passing:
        assert pattern.fullmatch(text), f"table error: {text!r} should match the regex"
        assert dfa.matches(text.encode()), f"{name}: DFA rejects {text!r}"
    for text in failing:
        assert not pattern.fullmatch(text), f"table error: {text!r} should not match the regex"
        assert not dfa.matches(text.encode()), f"{name}: DFA accepts {text!r}"


def _mutations(text: str, data) -> str:
    """The same text with a few characters deleted, doubled or replaced by neighbours of the language."""
    chars = list(text)
    for _ in range(data.draw(st.integers(0, 3))):
        if not chars:
            break
        at = data.draw(st.integers(0, len(chars) - 1))
        action = data.draw(st.sampled_from(["delete", "double", "replace"]))
        if action == "delete":
            del chars[at]
        elif action == "double":
            chars.insert(at, chars[at])
        else:
            chars[at] = data.draw(st.sampled_from(list("0123456789 .가법원조제항의호x\n")))
    return "".join(chars)


PROPERTY_EXPRS = ["small-case", "small-statute", "nullable-pieces", "multibyte-classes"]
_COMPILED = {name: compile_dfa(TABLES[name][0]) for name in PROPERTY_EXPRS}


@pytest.mark.parametrize("name", PROPERTY_EXPRS, ids=PROPERTY_EXPRS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_dfa_agrees_with_re_fullmatch(name: str, data) -> None:
    expr = TABLES[name][0]
    pattern = expr.to_regex()
    text = data.draw(st.from_regex(pattern, fullmatch=True))
    text = _mutations(text, data)
    assert _COMPILED[name].matches(text.encode()) == bool(re.fullmatch(pattern, text)), text


@settings(max_examples=300, deadline=None)
@given(low=st.integers(0, 0x10FFFF), span=st.integers(0, 0x3000), probe=st.integers(0, 0x10FFFF))
def test_utf8_byte_ranges_encode_exactly_the_code_points(low: int, span: int, probe: int) -> None:
    high = min(low + span, 0x10FFFF)
    sequences = utf8_byte_ranges(low, high)
    for point in {low, high, probe, (low + high) // 2}:
        if 0xD800 <= point <= 0xDFFF:
            continue
        encoded = chr(point).encode()
        covered = any(
            len(seq_) == len(encoded) and all(a <= b <= z for (a, z), b in zip(seq_, encoded, strict=True)) for seq_ in sequences
        )
        assert covered == (low <= point <= high), (hex(low), hex(high), hex(point))


BAD_PATTERNS = [
    (r"a\d", "Unicode shorthand", 1),
    (r"(?=a)b", "lookahead", 0),
    (r"(a)\1", "backreference", 3),
    (r"(?P<x>a)", "named group", 0),
    (r"(?i)a", "inline flag", 0),
    (r"a$", "anchor", 1),
    (r"\bword", "anchor", 0),
    (r"a++", "possessive", 1),
]


@pytest.mark.parametrize(("pattern", "feature", "position"), BAD_PATTERNS, ids=[p for p, _, _ in BAD_PATTERNS])
def test_unsupported_regex_features_are_named_with_their_position(pattern: str, feature: str, position: int) -> None:
    with pytest.raises(UnsupportedPatternError, match=rf"{feature}.*position {position}"):
        compile_dfa(Regex(pattern))


def test_caret_inside_a_class_is_a_negation_not_an_anchor() -> None:
    assert compile_dfa(Regex("[^$^]")).matches(b"a")


@pytest.mark.parametrize(
    ("words", "message"),
    [((), "at least one word"), (("민법", "형법", "민법"), "'민법' again at position 2")],
    ids=["empty", "duplicate"],
)
def test_bad_lexicons_raise_lexicon_error(words: tuple[str, ...], message: str) -> None:
    with pytest.raises(LexiconError, match=message):
        compile_dfa(Literals(words))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sets(st.text(alphabet="ab1가", min_size=1, max_size=3), min_size=1, max_size=6), min_size=2,
                max_size=6))
def test_the_union_of_literal_sets_is_their_words_sorted_as_utf8_with_the_sets_holding_each(
        sets: list[set[str]]) -> None:
    union = sorted_union(tuple(Literals(tuple(words)) for words in sets))
    words = sorted({word.encode() for held in sets for word in held})
    assert list(union.words) == words
    assert list(union.owners) == [tuple(i for i, held in enumerate(sets) if word.decode() in held) for word in words]


def test_a_word_twice_in_one_of_several_sets_is_named() -> None:
    with pytest.raises(LexiconError, match="'형법' again at position 2"):
        sorted_union((Literals(("민법",)), Literals(("민법", "형법", "형법"))))


def test_thousands_of_literals_compile_without_interegular_cost() -> None:
    names = tuple(f"가상법률{i}호법" for i in range(5000))
    dfa = compile_dfa(seq(Literals(names), " 제", Regex("[1-9]"), "조"))
    assert dfa.matches("가상법률4999호법 제3조".encode())
    assert not dfa.matches("가상법률5000호법 제3조".encode())
    assert dfa.state_count < 100  # states are made only along the strings walked


def test_literal_tries_merge_nodes_with_the_same_suffixes() -> None:
    """Numbers 1–99 as literals: after any of 1–9 the same suffixes follow, so one state, not nine."""
    dfa = compile_dfa(Literals(tuple(str(n) for n in range(1, 100))))
    after_one_digit = {dfa.step(dfa.initial, ord(d)) for d in "123456789"}
    assert len(after_one_digit) == 1
    assert all(dfa.matches(str(n).encode()) for n in range(1, 100))
    assert not dfa.matches(b"0") and not dfa.matches(b"100")


@settings(max_examples=200, deadline=None)
@given(st.sets(st.text(alphabet="ab1가", min_size=1, max_size=4), min_size=1, max_size=30))
def test_literal_prefixes_share_a_state_exactly_when_the_same_suffixes_follow(words: set[str]) -> None:
    """Nodes are grouped by word count, first and last suffix before they are compared: prefixes
    such as `a` in {a1, ab, a가} and `b` in {b1, ba, b가} share a group but not a state."""
    encoded = [w.encode() for w in words]
    dfa = compile_dfa(Literals(tuple(sorted(words))))
    prefixes = {w[:k] for w in encoded for k in range(len(w) + 1)}
    suffixes = {p: frozenset(w[len(p):] for w in encoded if w.startswith(p)) for p in prefixes}
    state = {p: dfa.walk(dfa.initial, p) for p in prefixes}
    for p in prefixes:
        for q in prefixes:
            assert (state[p] == state[q]) == (suffixes[p] == suffixes[q]), (p, q)


def test_bytes_that_reach_the_same_nodes_share_one_stored_closure() -> None:
    """Steps are cached per (node, byte); equal results are one object, so a first visit that steps
    ten digits keeps one set, not ten, and the garbage collector has less to walk."""
    nfa = ByteNFA({0: seq(Regex("[0-9]+"), "조")})
    (node,) = nfa.start(0)
    assert len({id(nfa.node_step(node, digit)) for digit in b"0123456789"}) == 1
    assert all(nfa.node_step(node, byte) is EMPTY for byte in b"a \xea")


def test_a_state_of_one_node_is_kept_as_a_one_tuple_and_found_again_by_its_set() -> None:
    """The statute book's build keeps 173,000 states of one node: as 1-tuples (48 bytes, not a
    frozenset's 216); interning the same node as a set finds the state it made."""
    dfa = compile_dfa(seq(Literals(("근로기준법", "민법")), " 제", Regex("[1-9]"), "조"))
    inside = dfa.walk(dfa.initial, "근로".encode())
    (node,) = dfa.sets[inside]
    assert dfa.sets[inside] == (node,)
    assert dfa.intern(frozenset({node})) == inside
    assert dfa.walk(inside, "기준법 제3조".encode()) != DEAD and dfa.is_accepting(dfa.walk(inside, "기준법 제3조".encode()))


def test_an_article_set_made_on_first_use_is_kept_as_utf8_alone() -> None:
    """An act's article labels as str (25 MiB for the statute book) are let go once its leaf has sorted
    them as UTF-8: the leaf matches from those alone."""
    made: list[weakref.ref[Literals]] = []

    def articles(labels: tuple[str, ...]) -> Literals:
        literals = Literals(tuple(f" 제{label}조" for label in labels))
        made.append(weakref.ref(literals))
        return literals

    dfa = compile_dfa(seq(Literals(("민법",)), Deferred(("1", "75", "750"), articles)))
    assert dfa.matches("민법 제750조".encode()) and not dfa.matches("민법 제751조".encode())
    assert len(made) == 1 and made[0]() is None


@pytest.mark.parametrize("grammar", ["statute", "case"])
def test_a_states_moves_at_once_are_its_steps_byte_by_byte(grammar: str) -> None:
    """`moves` (each node's bytes read in one pass, merged byte by byte where a state holds several nodes)
    reaches what stepping each live byte reaches: two automata of one grammar walked in lockstep, one by
    moves, one by steps, over every state."""
    expr = statute_grammar({"민법": ["1", "2", "3의2", "75", "750"], "민사소송법": ["1"], "형법": None}).expr \
        if grammar == "statute" else case_grammar().expr
    by_moves, by_steps = compile_dfa(expr), compile_dfa(expr)
    pairs, seen = [(by_moves.initial, by_steps.initial)], {(by_moves.initial, by_steps.initial)}
    while pairs:
        state, twin = pairs.pop()
        moved = dict(by_moves.moves(state))
        stepped = {b: target for b in by_steps.live_bytes(twin) if (target := by_steps.step(twin, b)) != DEAD}
        assert moved.keys() == stepped.keys()
        for byte, target in moved.items():
            twin_target = stepped[byte]
            assert by_moves.is_accepting(target) == by_steps.is_accepting(twin_target)
            if (target, twin_target) not in seen:
                seen.add((target, twin_target))
                pairs.append((target, twin_target))
    assert len(seen) == by_moves.state_count == by_steps.state_count > 50
    assert any(len(by_moves.sets[state]) > 1 for state in range(by_moves.state_count))  # merged moves were met


# Groups of a statute lexicon: a name in one group may be a prefix of a name in another, and a name may
# be in two groups (the grammar then allows both groups' articles after it).
GROUPED = Alt((
    seq(Literals(("근로기준법", "민법")), " 제", Literals(("1조", "2조"))),
    seq(Literals(("근로기준법 시행령", "형법")), " 제", Literals(("3조",))),
    seq(Literals(("민법", "민사소송법")), " 제", Literals(("4조", "40조"))),
    Literals(("근로", "민")),
))
GROUPED_TEXTS = [f"{name}{tail}" for name in ("근로기준법", "근로기준법 시행령", "민법", "형법", "민사소송법", "근로", "민", "민사")
                 for tail in ("", " 제", " 제1조", " 제2조", " 제3조", " 제4조", " 제40조", " 제41조")]


@pytest.mark.parametrize("text", GROUPED_TEXTS, ids=lambda text: text)
def test_alternatives_that_share_one_literal_head_leaf_keep_their_own_tails(text) -> None:
    assert compile_dfa(GROUPED).matches(text.encode()) == bool(re.fullmatch(GROUPED.to_regex(), text))


def test_a_state_inside_names_of_several_groups_is_one_node() -> None:
    dfa = compile_dfa(GROUPED)
    assert len(dfa.sets[dfa.walk(dfa.initial, "민".encode())]) == 2  # inside the names, and `민` ended
    assert len(dfa.sets[dfa.walk(dfa.initial, "근로기준".encode())]) == 1
    after = dfa.sets[dfa.walk(dfa.initial, "민법 제".encode())]
    assert len([node for node in after if node[1:] == (0, 0)]) == 2  # the articles of both groups begin


def test_article_numbers_of_different_article_sets_meet_where_the_rest_is_the_same() -> None:
    # As in statute_grammar: the groups' heads, then one tail that follows every group.
    grammar = seq(Alt((seq(Literals(("민법",)), " 제", Literals(("1조", "75조", "76조"))),
                       seq(Literals(("형법",)), " 제", Literals(("2조", "75조", "76조"))))), Opt(Literals((" 제1항",))))
    dfa = compile_dfa(grammar)
    assert dfa.walk(dfa.initial, "민법 제7".encode()) == dfa.walk(dfa.initial, "형법 제7".encode())
    assert dfa.walk(dfa.initial, "민법 제".encode()) != dfa.walk(dfa.initial, "형법 제".encode())
    for text in ("민법 제1조", "민법 제2조", "형법 제2조 제1항", "형법 제1조", "민법 제75조 제1항", "형법 제77조"):
        assert dfa.matches(text.encode()) == bool(re.fullmatch(grammar.to_regex(), text)), text
