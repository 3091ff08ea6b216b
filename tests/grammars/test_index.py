"""TokenIndex against brute force over a small vocabulary built in code (partial UTF-8 tokens included).

Reference semantics, written independently of the automaton over finite citation and anchor sets:
- a citation grammar allows a token when prefix + token is a prefix of some citation;
- the answer grammar follows free text position by position: free text is alive at q if it was alive
  at q-1 and no anchor begun in free text at a word boundary (or bypass opener begun anywhere in free
  text) ends at q, or a citation begun in free text at a word boundary ends at q, or a bypass span
  closes at q. A position is a word boundary when it is the start or the character before it is no
  word character (decoded with errors="replace"). The text is a valid prefix while free text, a
  bypass span or a citation begun in free text at a boundary is alive; it may end where free text or
  a bypass span is alive.
"""

from __future__ import annotations

import functools
import gc
import itertools
import re
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import grammars.index
import grammars.sweep
from grammars import GrammarError, TokenizerError
from grammars.array_file import read_arrays
from grammars.boundary import is_word_char
from grammars.cache import save_index
from grammars.compile import compile_index
from grammars.dfa import DEAD
from grammars.expr import Alt, Capture, Expr, Literals, Opt, Regex, Seq, seq
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.index import FINISHED, collector_paused
from grammars.literal_walk import literal_walker
from grammars.vocabulary import Vocabulary

COURT = Literals(("대법원", "서울고법원"))
CASE = CitationGrammar(
    "case",
    seq(COURT, " ", Regex("202[34]"), ". ", Regex("[1-9]|1[0-2]"), ". 선고 ", Literals(("도", "다")),
        Regex("[1-9][0-9]?"), " 판결"),
    seq(COURT, " ", Regex("[0-9]")),
)
ACT = Literals(("민법", "형법"))
STATUTE = CitationGrammar(
    "statute",
    seq(ACT, " 제", Regex("[1-9][0-9]?"), "조", Opt(seq(" 제", Regex("[1-9]"), "항"))),
    seq(ACT, " 제", Regex("[0-9]")),
)
ANSWER = AnswerGrammar((CASE, STATUTE), bypass=(("<think>", "</think>"),))
# Anchors shaped like the service's with shorthand forbidden (grammars.answer_anchors): options that begin
# with an alternation, one object begun twice, so the NFA spreads them and shares the names' leaf.
NAMED = Alt((ACT, Literals(("같은 법",))))
SHORTHAND_HEADS = Alt((
    seq(ACT, " 제", Regex("[0-9]")),
    seq(NAMED, Opt(Literals((" ",))), "제", Regex("[0-9]")),
    seq(NAMED, " ", Regex("[1-9]"), "조"),
))
ANSWER_SHORTHAND = AnswerGrammar((CASE, replace(STATUTE, anchor=SHORTHAND_HEADS)), bypass=ANSWER.bypass)

_PIECES = [
    "대", "법", "원", "대법원", "대법원 2", "원 20", "서울", "고법원", "법원", " ", " 2", *"0123456789",
    "20", "24", "202", "10", "12", ".", ". ", ".선", " 선고", "선고 ", "선고", " 선", "고 ", "도", "다", "도1",
    " 판결", "판결", "판결은", "결", "은", "민법", "형법", "민", "형", " 제", "제", "제1", "조", "조 제", "조에", "항",
    " 제1항", "<think>", "</think>", "<", "/", "think", ">", "x", "\n", "。", "의", "(", ")", "에", " 따른", "따",
    "군", "ㅋ", "같은 법", "같은", "법제", "법 1", "형법 1조",
]
_PARTIAL = [
    piece
    for char in "대법원제조판결선고"
    for piece in (char.encode()[:1], char.encode()[:2], char.encode()[1:], char.encode()[2:])
]
TOKENS: tuple[bytes | None, ...] = (None, *sorted({p.encode() for p in _PIECES} | set(_PARTIAL)))
EOS = 0
VOCAB = Vocabulary(TOKENS, frozenset({EOS}), size=len(TOKENS) + 7)  # padded past the tokenizer, as models do
UNIVERSE = ["".join(p) for n in range(5) for p in itertools.product("0123456789", repeat=n)]


def language(expr: Expr) -> set[str]:
    """The finite language of a test expression (regex leaves over digit strings of length ≤ 4)."""
    if isinstance(expr, Literals):
        return set(expr.words)
    if isinstance(expr, Regex):
        return {s for s in UNIVERSE if re.fullmatch(expr.pattern, s)}
    if isinstance(expr, Capture):
        return language(expr.inner)
    if isinstance(expr, Opt):
        return {""} | language(expr.inner)
    if isinstance(expr, Alt):
        return set().union(*(language(o) for o in expr.options))
    assert isinstance(expr, Seq)
    out = {""}
    for part in expr.parts:
        out = {a + b for a in out for b in language(part)}
    return out


def _prefixes(strings: set[bytes]) -> set[bytes]:
    return {s[:i] for s in strings for i in range(len(s) + 1)}


CASE_STRINGS = {s.encode() for s in language(CASE.expr)}
CITES = CASE_STRINGS | {s.encode() for s in language(STATUTE.expr)}
CITE_PREFIXES = _prefixes(CITES)
CASE_PREFIXES = _prefixes(CASE_STRINGS)
ANCHORS = {s.encode() for g in ANSWER.citations for s in language(g.anchor)}
SHORTHAND_ANCHORS = {s.encode() for g in ANSWER_SHORTHAND.citations for s in language(g.anchor)}
OPENER, CLOSER = (mark.encode() for mark in ANSWER.bypass[0])


def citation_status(text: bytes) -> tuple[bool, bool]:
    return text in CASE_PREFIXES, text in CASE_STRINGS


def answer_status(text: bytes, anchors: set[bytes] = ANCHORS) -> tuple[bool, bool]:
    """(valid prefix, may end here) under the reference semantics of the module docstring."""
    free = [True]
    kept = [True]  # free text carried on from the previous position (partial anchors survive)
    skips: list[int] = []  # positions where a bypass span began
    boundary = [p == 0 or not is_word_char(text[:p].decode(errors="replace")[-1]) for p in range(len(text) + 1)]

    def begun_in_free(start: int, end: int) -> bool:
        return free[start] and all(kept[j] for j in range(start + 1, end))

    for q in range(1, len(text) + 1):
        anchor_end = any(text[p:q] in anchors and boundary[p] and begun_in_free(p, q) for p in range(q))
        opener_end = q >= len(OPENER) and text[q - len(OPENER):q] == OPENER and begun_in_free(q - len(OPENER), q)
        carried = free[q - 1] and not anchor_end and not opener_end
        if free[q - 1] and opener_end:
            skips.append(q)
        citation_end = any(free[p] and boundary[p] and text[p:q] in CITES for p in range(q))
        closed = [s for s in skips if q - len(CLOSER) >= s and text[q - len(CLOSER):q] == CLOSER]
        skips = [s for s in skips if s not in closed]
        kept.append(carried)
        free.append(carried or citation_end or bool(closed))
    n = len(text)
    citation_alive = any(free[p] and boundary[p] and text[p:n] in CITE_PREFIXES for p in range(n + 1))
    return free[n] or bool(skips) or citation_alive, free[n] or bool(skips)


def reference_allowed(status, text: bytes) -> set[int]:
    allowed = {i for i, t in enumerate(TOKENS) if t and status(text + t)[0]}
    if status(text)[1]:
        allowed.add(EOS)
    return allowed


INDEXES = {"case": compile_index(CASE, VOCAB), "answer": compile_index(ANSWER, VOCAB),
           "answer, shorthand anchors": compile_index(ANSWER_SHORTHAND, VOCAB)}
STATUS = {"case": citation_status, "answer": answer_status,
          "answer, shorthand anchors": functools.partial(answer_status, anchors=SHORTHAND_ANCHORS)}


def _allowed(index, state: int) -> set[int]:
    return set(index.allowed_tokens(state).tolist())


@pytest.mark.parametrize("name", sorted(INDEXES), ids=sorted(INDEXES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 10_000), max_size=14), wild=st.lists(st.booleans(), max_size=14))
def test_mask_equals_brute_force_along_random_walks(name: str, choices: list[int], wild: list[bool]) -> None:
    """At every step the mask is exactly the reference set; a step may also take a rejected token."""
    index, status = INDEXES[name], STATUS[name]
    state, text = index.initial_state, b""
    for choice, go_wild in zip(choices, wild + [False] * len(choices), strict=False):
        expected = reference_allowed(status, text)
        assert _allowed(index, state) == expected, text.decode(errors="replace")
        if not expected:  # a byte-alive prefix this toy vocabulary cannot continue (it lacks single bytes)
            return
        token = choice % len(TOKENS) if go_wild else sorted(expected)[choice % len(expected)]
        following = index.advance(state, token)
        if token not in expected:
            assert following == DEAD
            return
        if token == EOS:
            assert following == FINISHED and index.is_accepting(following)
            return
        state, text = following, text + TOKENS[token]
        assert index.is_accepting(state) == status(text)[1]


def _token_edges(text: bytes) -> list[tuple[int, int, int]]:
    """Every (start, end, token) used by at least one tokenization of the whole text."""
    ids_of = {t: i for i, t in enumerate(TOKENS) if t}
    edges = [
        (i, j, ids_of[text[i:j]]) for i in range(len(text)) for j in range(i + 1, len(text) + 1) if text[i:j] in ids_of
    ]
    reach, finish = {0}, {len(text)}
    for i, j, _ in sorted(edges):
        if i in reach:
            reach.add(j)
    for i, j, _ in sorted(edges, reverse=True):
        if j in finish:
            finish.add(i)
    return [(i, j, t) for i, j, t in edges if i in reach and j in finish]


REACHABLE = [
    ("case", "대법원 2024. 7. 선고 도12 판결"),
    ("answer", "판결은(대법원 2023. 12. 선고 다9 판결)에 따른 민법 제3조 제1항에 따른다。"),
    ("answer", "<think>대법원 20 형법 제0</think>형법 제12조에"),
    ("answer", "서울대법원 2024에 형법 제1조형법 제0"),  # glued anchors are prose
]


@pytest.mark.parametrize(("name", "text"), REACHABLE, ids=[f"{n}-{i}" for i, (n, _) in enumerate(REACHABLE)])
def test_every_tokenization_of_a_valid_text_is_allowed_step_by_step(name: str, text: str) -> None:
    """The state after a prefix depends only on its bytes, so checking every token edge of every
    tokenization (allowed there, and landing on the state of the longer prefix) covers all paths."""
    index = INDEXES[name]
    data = text.encode()
    edges = _token_edges(data)
    assert len({i for i, _, _ in edges}) > len(data) // 2, "the vocabulary should split this text in many ways"
    state_at = {}
    for position in {i for i, _, _ in edges} | {len(data)}:
        state_at[position] = index.advance_bytes(index.initial_state, data[:position])
        assert state_at[position] >= 0, data[:position].decode(errors="replace")
    for start, end, token in edges:
        assert token in _allowed(index, state_at[start]), (data[:start].decode(errors="replace"), TOKENS[token])
        assert index.advance(state_at[start], token) == state_at[end]
    assert index.advance(state_at[len(data)], EOS) == FINISHED


ANSWER_CASES = [
    ("prose", "법원의 판단은 2024년에 나왔다", True, True),
    ("anchor then citation", "대법원 2023. 1. 선고 도1 판결", True, True),
    ("anchor then prose dies", "대법원 2x", False, False),
    ("partial anchor at the end", "민법 제", True, True),
    ("citation in progress", "민법 제1", True, False),
    ("citation may continue or close", "형법 제12조 제", True, True),
    ("citation closes into prose", "형법 제12조에 따라", True, True),
    ("bad article", "민법 제0", False, False),
    ("bypass hides anchors", "<think>대법원 2x</think>", True, True),
    ("unclosed bypass", "<think>대법원 2x", True, True),
    ("after bypass anchors count", "<think></think>대법원 2x", False, False),
    ("token ends mid character", "대법원 2023. 1. 선고 도1 판".encode()[:-1].decode(errors="ignore"), True, False),
    ("court glued to a word is prose", "서울대법원 2x", True, True),
    ("act glued to a word is prose", "군형법 제0", True, True),
    ("act glued to a Latin letter or digit is prose", "x형법 제0 1민법 제0", True, True),
    ("act glued to a jamo is prose", "ㅋ형법 제0", True, True),
    ("act after punctuation counts", "(형법 제0", False, False),
    ("act after a line break counts", "\n형법 제0", False, False),
    ("act after a non-word symbol counts", "×형법 제0", False, False),
    ("citation right after a citation is prose", "형법 제1조형법 제0", True, True),
    ("a particle follows a citation", "형법 제12조의", True, True),
    ("bypass opens after a word", "x<think>대법원 2x", True, True),
]


@pytest.mark.parametrize(("label", "text", "valid", "may_end"), ANSWER_CASES, ids=[c[0] for c in ANSWER_CASES])
def test_answer_language_table(label: str, text: str, valid: bool, may_end: bool) -> None:
    assert answer_status(text.encode()) == (valid, may_end), "reference disagrees with the table"
    state = INDEXES["answer"].advance_bytes(INDEXES["answer"].initial_state, text.encode())
    assert (state != DEAD) == valid
    if valid:
        assert INDEXES["answer"].is_accepting(state) == may_end


def test_free_text_states_store_no_mask_and_say_so() -> None:
    index = INDEXES["answer"]
    state = index.advance_bytes(index.initial_state, "법원의 판단은 ".encode())
    assert index.is_unconstrained(state) and not index.in_citation(state)
    np.testing.assert_array_equal(index.bitmask(state), index.free_row)
    inside = index.advance_bytes(index.initial_state, "민법 제1".encode())
    assert index.in_citation(inside) and not index.is_unconstrained(inside)
    closed = index.advance_bytes(inside, "조".encode())
    assert index.citation_may_close(closed) and not index.in_citation(closed)
    thinking = index.advance_bytes(index.initial_state, b"<think>")
    assert index.in_bypass(thinking)
    assert index.is_pending(index.advance_bytes(index.initial_state, "대법".encode()))


def test_a_state_inside_an_anchor_differs_from_its_base_only_where_the_anchor_goes_on() -> None:
    """Each word class has its own plain free-text base, so the states along the thousands of names
    of a statute lexicon store a byte or two each, not every byte a name could begin with."""
    automaton = INDEXES["answer"].automaton
    inside = automaton.walk(automaton.initial, "민".encode())  # after a syllable, 법 may follow
    assert automaton.base_of(inside) == automaton.walk(automaton.initial, "가".encode())
    assert automaton.divergence(inside) == {"법".encode()[0]}
    mid_character = automaton.walk(automaton.initial, "민".encode()[:2])
    assert automaton.divergence(mid_character) == {"민".encode()[2]}


def test_anchor_options_that_begin_with_the_same_names_are_one_node_inside_a_name() -> None:
    """The shorthand anchors begin three options with the act names (twice through one alternation):
    inside `민법` a state holds one anchor node for all of them, not one per option, and the names'
    anchors still end where each option ends (`형법제1` and `형법 1조` complete one, so free text ends)."""
    automaton = INDEXES["answer, shorthand anchors"].automaton
    inside = automaton.sets[automaton.walk(automaton.initial, "민".encode())]
    assert sum(node[0] == "A" for node in inside) == 1
    for text in ("형법제1", "형법 1조", "같은 법 제1"):
        assert automaton.walk(automaton.initial, text.encode()) == DEAD, text
    assert automaton.walk(automaton.initial, "형법 제1".encode()) != DEAD


def test_states_that_reject_what_their_base_rejects_share_its_arrays_and_divergence_sets() -> None:
    """Most of a statute book's 250,000 answer states are inside names and reject no more than their
    base: one pair of arrays, and one object per distinct divergence, serves them all."""
    index = compile_index(ANSWER, VOCAB)
    automaton = index.automaton
    texts = [text.encode() for text in ("민", "형", "그 민", "그 형")] + ["민".encode()[:2]]
    inside = [automaton.walk(automaton.initial, text) for text in texts]
    for state in inside:
        assert index.masks(state).packed is index.masks(automaton.base_of(state)).packed
    assert len({id(automaton.divergence(state)) for state in inside}) == len(
        {frozenset(automaton.divergence(state)) for state in inside})
    rejecting_more = 0  # states where an anchor may complete inside a token: their own arrays
    for text in ("형법", "형법 ", "대법원", "대법원 2023", "서울고법원 "):
        state = automaton.walk(automaton.initial, text.encode())
        base = automaton.base_of(state)
        if index.masks(state).free and not np.array_equal(index.bitmask(state), index.bitmask(base)):
            rejecting_more += 1
            assert index.masks(state).packed is not index.masks(base).packed
    assert rejecting_more


def test_bitmask_layout_is_xgrammars() -> None:
    """Bit j of word i is token 32·i + j; padding ids past the tokenizer and control tokens stay 0."""
    index = INDEXES["answer"]
    row = index.bitmask(index.initial_state)
    assert row.dtype == np.int32 and row.shape == ((VOCAB.size + 31) // 32,)
    for token in range(VOCAB.size):
        bit = (int(row[token // 32]) >> (token % 32)) & 1
        expected = token == EOS or (token < len(TOKENS) and TOKENS[token] is not None)
        assert bit == expected, token
    out = index.allocate_bitmask(2)
    index.fill_bitmask(index.initial_state, out[1])
    np.testing.assert_array_equal(out[1], row)


def test_cache_round_trip_gives_the_same_masks(tmp_path) -> None:
    built = compile_index(ANSWER, VOCAB, cache_dir=tmp_path, build=False)  # built here, in memory
    save_index(built, tmp_path)
    loaded = compile_index(ANSWER, VOCAB, cache_dir=tmp_path)
    assert loaded.stored is not None and built.stored is None and loaded.state_count == built.state_count
    texts = ["", "대법원 2023. ", "형법 제1", "형법 제12조", "<think>", "판결", "대법", "군형법 제", "서울대법원 2"]
    for text in texts:
        state = loaded.advance_bytes(loaded.initial_state, text.encode())
        assert state == built.advance_bytes(built.initial_state, text.encode())
        np.testing.assert_array_equal(loaded.bitmask(state), built.bitmask(state))
        tokens = range(VOCAB.size)
        assert [loaded.advance(state, t) for t in tokens] == [built.advance(state, t) for t in tokens]
        assert loaded.is_accepting(state) == built.is_accepting(state)
    assert save_index(loaded, tmp_path).exists()


def test_a_stored_answer_index_gives_every_state_as_built_and_each_distinct_row_once(tmp_path) -> None:
    """A free state stores no row of its own where an earlier state or its base holds the same one
    (`mask_row`; the statute book's answer language: 2,071 distinct rows among 361,462 states): it reads
    back as built all the same."""
    built = compile_index(ANSWER_SHORTHAND, VOCAB, cache_dir=tmp_path, build=False)
    path = save_index(built, tmp_path)
    arrays = read_arrays(path)
    mask_row = arrays["mask_row"]
    shared = np.flatnonzero(mask_row != np.arange(len(mask_row)))
    assert len(shared) and not arrays["mask_count"][shared].any()
    assert (mask_row[mask_row] == mask_row).all()  # a row is read where it is stored
    loaded = compile_index(ANSWER_SHORTHAND, VOCAB, cache_dir=tmp_path)
    assert loaded.stored is not None and loaded.state_count == built.state_count
    for state in range(built.state_count):
        np.testing.assert_array_equal(loaded.bitmask(state), built.bitmask(state))
        assert loaded.automaton.base_of(state) == built.automaton.base_of(state)
        assert loaded.automaton.divergence(state) == built.automaton.divergence(state)


@pytest.mark.parametrize("grammar", [STATUTE, CASE], ids=["statute", "case"])
def test_a_stored_citation_index_gives_every_state_as_built(tmp_path, grammar) -> None:
    """Without free text the file holds no bitmask for a state, only its allowed tokens (EOS added back
    where the state accepts), no base and no map of shared rows: every state reads back as built."""
    built = compile_index(grammar, VOCAB, cache_dir=tmp_path, build=False)  # built here, in memory
    assert not len(read_arrays(save_index(built, tmp_path))["mask_row"])
    loaded = compile_index(grammar, VOCAB, cache_dir=tmp_path)
    assert loaded.stored is not None and built.stored is None and loaded.state_count == built.state_count
    for state in range(built.state_count):
        np.testing.assert_array_equal(loaded.bitmask(state), built.bitmask(state))
        tokens = range(VOCAB.size)
        assert [loaded.advance(state, t) for t in tokens] == [built.advance(state, t) for t in tokens]
        assert loaded.is_accepting(state) == built.is_accepting(state)
        assert loaded.automaton.base_of(state) is None and loaded.automaton.divergence(state) is None


@pytest.mark.parametrize("sweep_in", ["numpy, one batch", "numpy, batches of 3", "C"])
@pytest.mark.parametrize("grammar", [STATUTE, CASE, ANSWER, ANSWER_SHORTHAND],
                         ids=["statute", "case", "answer", "answer, shorthand anchors"])
def test_a_whole_build_gives_every_state_its_brute_force_row(grammar, sweep_in: str, monkeypatch) -> None:
    """`build_all` sweeps the constrained states' rows together (grammars.sweep: in C where the process built
    literal_walk's extension, else in numpy, in batches; those whose tokens run on into free text are walked
    one by one): every state allows exactly the tokens whose bytes the automaton can read from it, and each
    leads where reading them leads."""
    if sweep_in == "C":
        if literal_walker(VOCAB.trie) is None:
            pytest.skip("no C compiler works here")
    else:
        monkeypatch.setattr(grammars.index, "built_extension", lambda: None)
        monkeypatch.setattr(grammars.sweep, "_BATCH", 3 if sweep_in.endswith("of 3") else 16_384)
    swept_in: list[str] = []

    def sweep(trie, origins, moves, walkable, native=None):
        swept_in.append("numpy" if native is None else "C")
        return grammars.sweep.sweep(trie, origins, moves, walkable, native)

    monkeypatch.setattr(grammars.index, "sweep", sweep)
    index = compile_index(grammar, VOCAB)
    index.build_all()
    assert swept_in == ["C" if sweep_in == "C" else "numpy"]
    automaton = index.automaton
    for state in range(index.state_count):
        walked = {token: automaton.walk(state, data) for token, data in enumerate(TOKENS) if data}
        expected = {token for token, target in walked.items() if target != DEAD}
        assert _allowed(index, state) == expected | ({EOS} if index.is_accepting(state) else set())
        assert {token: index.advance(state, token) for token in expected} == {t: walked[t] for t in expected}


def test_a_whole_build_fills_each_base_free_state_table_with_where_every_token_leads() -> None:
    """The free-text states between two characters get every text token's next state at once (a walk of
    the whole trie, a depth per round, grammars.sweep.walk_every_token): each is where reading the token
    leads, DEAD where it dies (`민법 제0`, and `민법 제0조` below it); ids that are no text token stay unknown."""
    dying = {"민법 제0".encode(), "민법 제0조".encode()}
    tokens = (None, *sorted({data for data in TOKENS if data} | dying))
    index = compile_index(ANSWER, Vocabulary(tokens, frozenset({EOS}), size=len(tokens) + 3))
    index.build_all()
    died: set[bytes] = set()
    for base in index.automaton.between_characters():
        table = index.base_next[base]
        for token, data in enumerate(tokens):
            if data:
                assert table[token] == index.automaton.walk(base, data), (base, data)
        died |= {data for token, data in enumerate(tokens) if data and table[token] == DEAD}
        assert set(table[len(tokens):]) | {table[t] for t, data in enumerate(tokens) if not data} == {-3}
    assert died == dying  # from the state at a word's start; inside a word, 민법 is no act's name


def test_a_build_pauses_the_collector_and_leaves_it_as_it_was() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            pass
        assert not gc.isenabled()  # an inner pause does not end the outer one
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # a collector paused by the caller stays paused
    finally:
        gc.enable()


def test_saving_needs_a_cache_key(tmp_path) -> None:
    with pytest.raises(GrammarError, match="cache_dir"):
        save_index(INDEXES["case"], tmp_path)


def test_model_vocabulary_smaller_than_the_tokenizer_is_refused() -> None:
    with pytest.raises(TokenizerError, match=f"at least the tokenizer's {len(TOKENS)} ids, got 5"):
        compile_index(CASE, VOCAB, vocab_size=5)


_NUMBER_PIECES = [
    *"0123456789", "00", "05", "10", "12", "20", "23", "24", "99", "120", "202", "2024",
    "1.", "12.", "7. ", "2024.", "9 ", "12 판결", "3항", "9조", "12조 제", "0조",  # digits, then more
    "대법원", "서울고법원", " ", ". ", ".", "선고", " 선고 ", "도", "다", " 판결", "판결", "민법", "형법", " 제", "제",
    "조", "항",
]
NUMBER_TOKENS: tuple[bytes | None, ...] = (None, *sorted({p.encode() for p in _NUMBER_PIECES}))
NUMBER_VOCAB = Vocabulary(NUMBER_TOKENS, frozenset({EOS}))


def _citation_status(grammar: CitationGrammar):
    whole = {s.encode() for s in language(grammar.expr)}
    prefixes = _prefixes(whole)
    return lambda text: (text in prefixes, text in whole)


@pytest.mark.parametrize(
    ("grammar", "status", "text"),
    [(CASE, _citation_status(CASE), "대법원 2024. 7. 선고 도12 판결"),
     (CASE, _citation_status(CASE), "서울고법원 2023. 12. 선고 다9 판결"),
     (STATUTE, _citation_status(STATUTE), "민법 제12조 제3항"),
     (STATUTE, _citation_status(STATUTE), "형법 제90조"),
     (ANSWER, answer_status, "판결은 민법 제12조 제3항에 따른 2024. 12 형법 제9조 제0 민법 제5"),
     (ANSWER, answer_status, "대법원 2024. 7. 선고 도12 판결 형법 제12조 120 민법 제99")],
    ids=["case-2024", "case-2023", "statute-article-paragraph", "statute-two-digits", "answer-articles",
         "answer-case-and-numbers"],
)
@pytest.mark.parametrize("rows", ["sparse", "whole"])
def test_number_tokens_are_masked_like_brute_force(grammar, status, text: str, rows: str, monkeypatch) -> None:
    """Runs of digit tokens (`2024`, `12.`, `12조 제`) are masked by their digits' steps, not a trie walk
    per token (inside a citation and in free text): at every byte, the mask and each token's next state
    match brute force, with constrained rows kept as words or whole (`_DENSE_SHARE`: 0 keeps every row
    as words; a share past the row's width keeps every row with an allowed token whole)."""
    monkeypatch.setattr(grammars.index, "_DENSE_SHARE", 0 if rows == "sparse" else 1 << 20)
    index = compile_index(grammar, NUMBER_VOCAB)
    data = text.encode()
    for end in range(len(data) + 1):
        state = index.advance_bytes(index.initial_state, data[:end])
        expected = {i for i, t in enumerate(NUMBER_TOKENS) if t and status(data[:end] + t)[0]}
        expected |= {EOS} if status(data[:end])[1] else set()
        assert _allowed(index, state) == expected, data[:end].decode(errors="replace")
        for token in expected - {EOS}:
            assert index.advance(state, token) == index.advance_bytes(state, NUMBER_TOKENS[token])
    whole = [m for m in index._states if m is not None and m.dense is not None]
    assert bool(whole) == (rows == "whole")


ITEM_LAW = CitationGrammar(
    "law", seq(Literals(("형법",)), " ", Regex("[1-9]"), "조"), seq(Literals(("형법",)), " ", Regex("[1-9]"))
)
ITEM = CitationGrammar("item", seq(Regex("[1-9]"), "호 가목"), seq(Regex("[0-9]"), "호"))
ITEM_TOKENS: tuple[bytes | None, ...] = (
    None,
    *sorted({p.encode() for p in [*_NUMBER_PIECES, "0호 나", "05호", "0호", "9호 가목", "호", " 가목", "가", "나"]}),
)


@pytest.mark.parametrize(
    "text", ["형법 05호 형법 0호 나 형법 1조 9호 가목", "형법 0 형법 3조"], ids=["items", "articles"]
)
def test_digits_that_lead_where_the_base_goes_reuse_its_rejections(text: str) -> None:
    """After `형법 ` a digit 1-9 begins an article but 0 is free text, where it may begin an item
    anchor (`0호` then dies): below that 0 the index reuses, and must keep, what free text rejects.
    The reference is the automaton itself, token by token."""
    index = compile_index(AnswerGrammar((ITEM_LAW, ITEM)), Vocabulary(ITEM_TOKENS, frozenset({EOS})))
    data = text.encode()
    for end in range(len(data) + 1):
        state = index.advance_bytes(index.initial_state, data[:end])
        expected = {i for i, t in enumerate(ITEM_TOKENS) if t and index.automaton.walk(state, t) != DEAD}
        expected |= {EOS} if index.automaton.is_accepting(state) else set()
        assert _allowed(index, state) == expected, data[:end].decode(errors="replace")


# An anchor ending in a Hangul character (`민법 제`): its last byte 0x9C ends other syllables too (개 is
# EA B0 9C), and a token may begin inside the character (A0 9C, 9C).
JE_ANCHORED = AnswerGrammar((CitationGrammar("statute", STATUTE.expr, seq(ACT, " 제")),), bypass=())
_JE_HITS = {"개제", b"\xa0\x9c", b"\x9c", b"\x9c1", b"\x9c\xea\xb0\x9c", "제개", "제", " 제", " 제1", "민법 제"}
_JE_PIECES = [*_JE_HITS, b"\xea\xb0\x9c", b"\xec\xa0", b"\xec", "민법", " ", "1", "12", "조", "개 ", "법", "민"]
JE_VOCAB = Vocabulary((None, *sorted({p.encode() if isinstance(p, str) else p for p in _JE_PIECES})), frozenset({0}))


def test_tokens_holding_a_final_byte_inside_another_character_are_no_hits() -> None:
    hits = JE_VOCAB.hit_prefix(frozenset({"제".encode()}))
    order = JE_VOCAB.trie.arrays["order"].tolist()
    hit = {JE_VOCAB.tokens[order[p]] for p in range(len(order)) if hits[p + 1] > hits[p]}
    assert hit == {p.encode() if isinstance(p, str) else p for p in _JE_HITS}


@pytest.mark.parametrize(
    "text",
    [b"", "개".encode(), "민법".encode(), "민법 ".encode(), "민법 ".encode() + b"\xec", "민법 ".encode() + b"\xec\xa0",
     "민법 제".encode(), "민법 제1".encode(), "민법 제12조".encode(), "개 민법".encode()],
    ids=lambda text: text.decode(errors="backslashreplace"),
)
def test_a_state_after_an_anchor_ending_in_hangul_masks_like_its_automaton(text: bytes) -> None:
    """Every token walked through the automaton byte by byte: allowed exactly when it does not die."""
    index = compile_index(JE_ANCHORED, JE_VOCAB)
    state = index.advance_bytes(index.initial_state, text)
    assert state != DEAD
    walked = {i for i, token in enumerate(JE_VOCAB.tokens) if token and index.automaton.walk(state, token) != DEAD}
    assert _allowed(index, state) == walked | ({0} if index.is_accepting(state) else set())
