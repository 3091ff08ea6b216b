"""Narrowings over one lexicon (citegen.narrowings.Narrowings): every narrowing of a kind shares one
free-text automaton (grammars' AnswerAnchors), compiles only its citations, and masks exactly as its
grammar compiled alone; its grammar is the language the narrowing always had, and its citations are
found to begin where they always were."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citegen.constraint import AnchorFinder, ConstraintLibrary, Narrowing
from citegen.errors import RequestError
from citegen.narrowings import Narrowings, narrowed_lexicon
from grammars import (
    DEAD,
    Alt,
    AnswerAnchors,
    AnswerGrammar,
    GrammarError,
    Vocabulary,
    answer_anchors,
    answer_grammar,
    as_lexicon,
    names_then_je,
    parse_citation,
    title_then_je,
)
from grammars.compile import automaton_of, compile_index
from grammars.dfa import FREE

LEXICON = as_lexicon({"형법": ["250", "355"], "민법": ["750", "3의2"], "군형법": ["1"], "민법 시행령": None})
NARROWINGS = [
    Narrowing(acts=("민법",)),
    Narrowing(courts=("대법원",), acts=("형법", "민법")),
    Narrowing(courts=(), acts=("형법",)),
    Narrowing(courts=("대법원",), acts=()),
    Narrowing(courts=("대법원",)),
    Narrowing(courts=("서울고등법원", "대법원")),
    Narrowing(acts=("군형법", "민법 시행령")),
]
IDS = [f"{n.courts}-{n.acts}" for n in NARROWINGS]
PIECES = [
    "민법", "형법", "군형법", "민법 시행령", " 제", "제", "750", "355", "250", "3", "1", "조", "조의2", "의", "2", " ",
    "에", "법", "대법원", "서울고등법원", " 2024. 7. 11. 선고 ", "2024도4202", " 판결", "시행령", ",", " 및 ", "항",
    " 제1항", "내지", "정", "<think>", "</think>", "는", "\n",
]  # fmt: skip


def _as_before(narrowing: Narrowing) -> AnswerGrammar:
    """The narrowed grammar as it was made before narrowings shared their anchors: the narrowed
    citations' own anchors beside the whole answer's, `names_then_je` over the acts kept alone."""
    narrowed = answer_grammar(
        case=narrowing.courts != (),
        statute=narrowing.acts != (),
        lexicon=narrowed_lexicon(LEXICON, narrowing.acts),
        courts=narrowing.courts or None,
        forbid_shorthand=True,
    )
    first, *rest = narrowed.citations
    heads = [first.anchor, *answer_anchors(LEXICON, forbid_shorthand=True)]
    glued = narrowed.glued
    if narrowing.acts:
        heads.append(names_then_je(as_lexicon(narrowed_lexicon(LEXICON, narrowing.acts)).grammar_names))
    if narrowing.acts is not None:
        glued = (*glued, title_then_je(LEXICON))
    return replace(narrowed, citations=(replace(first, anchor=Alt(tuple(heads))), *rest), glued=glued)


BEFORE = [automaton_of(_as_before(narrowing)) for narrowing in NARROWINGS]
NOW = Narrowings(LEXICON, forbid_shorthand=True)


@pytest.mark.parametrize("which", range(len(NARROWINGS)), ids=IDS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=10))
def test_a_narrowed_grammar_is_the_language_it_was(which: int, pieces: list[str]) -> None:
    """Byte by byte, the same prefixes live, the same ends, the same flags (in a citation, one may
    close, pending) as the grammar made the old way; NOW's automata share their anchors (NARROWINGS
    are compiled one after the other over them)."""
    before = BEFORE[which]
    now = NOW.language(NARROWINGS[which], Vocabulary((None, b"x"), frozenset({0})), parse_citation).index.automaton
    old, new = before.initial, now.initial
    for byte in "".join(pieces).encode():
        old, new = before.step(old, byte), now.step(new, byte)
        assert (old == DEAD) == (new == DEAD)
        if old == DEAD:
            break
        assert (before.is_accepting(old), before.flags(old)) == (now.is_accepting(new), now.flags(new))


FINDERS_BEFORE = [AnchorFinder.of(_as_before(narrowing)) for narrowing in NARROWINGS]


@pytest.mark.parametrize("which", range(len(NARROWINGS)), ids=IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=10))
@example(pieces=["는", " ", "형법", " 제", "250", "조"])
@example(pieces=["민법", " 제", "3", "조의2"])
@example(pieces=[" ", "군형법", " 제", "1"])
@example(pieces=["민법 시행령", " 제", "3"])
@example(pieces=["대법원", " 2024. 7. 11. 선고 ", "2024도4202"])
def test_a_citation_entered_begins_where_it_began_before(which: int, pieces: list[str]) -> None:
    """Where a written text enters a citation (the engine's question, citegen.events), the narrowing's
    shared anchor finder says it begins where the old grammar's finder did (`형법 제` at 형)."""
    language = NOW.language(NARROWINGS[which], Vocabulary((None, b"x"), frozenset({0})), parse_citation)
    automaton, finder = language.index.automaton, language.anchor
    assert finder is not None
    text, state = "", automaton.initial
    for char in "".join(pieces):
        following = automaton.walk(state, char.encode())
        if following == DEAD:
            break
        if automaton.flags(state) & FREE and not automaton.flags(following) & FREE:
            before = len(text)
            expected = FINDERS_BEFORE[which].start_ending_after(text + char, 0, before)
            assert finder.start_ending_after(text + char, 0, before) == expected
        text, state = text + char, following


VOCAB = Vocabulary((None, *sorted({piece.encode() for piece in PIECES} | {b"\xec", b"\xa0\x9c"})), frozenset({0}))
TEXTS = ["", "민법", "민법 제", "형법 제250조", "형법 제250조 제1항", "대법원 2024. 7. 11. 선고 ", "법 제",
         "민법 시행령 제", "<think>민법 제", "군형법 제1조", "민법 제3조의2"]  # fmt: skip


@pytest.mark.parametrize("narrowing", NARROWINGS, ids=IDS)
def test_a_narrowing_over_shared_anchors_masks_like_its_grammar_alone(narrowing: Narrowing) -> None:
    """Every token walked through the grammar's own automaton (compiled without sharing) byte by byte:
    allowed exactly when it does not die, EOS where the text may end; after the other narrowings filled
    the shared anchors' steps."""
    for other in NARROWINGS:
        NOW.language(other, VOCAB, parse_citation).index.masks(0)
    index = NOW.language(narrowing, VOCAB, parse_citation).index
    alone = automaton_of(NOW.grammar(narrowing))
    for text in TEXTS:
        state = index.advance_bytes(index.initial_state, text.encode())
        reference = alone.walk(alone.initial, text.encode())
        assert (state == DEAD) == (reference == DEAD)
        if state == DEAD:
            continue
        walked = {i for i, token in enumerate(VOCAB.tokens) if token and alone.walk(reference, token) != DEAD}
        assert set(index.allowed_tokens(state).tolist()) == walked | ({0} if alone.is_accepting(reference) else set())


def test_narrowings_of_a_kind_share_one_free_text_automaton() -> None:
    narrowings = Narrowings(LEXICON, forbid_shorthand=True)
    by_acts = [narrowings.language(Narrowing(acts=acts), VOCAB, parse_citation) for acts in (("민법",), ("형법",))]
    by_courts = [narrowings.language(Narrowing(courts=(court,)), VOCAB, parse_citation)
                 for court in ("대법원", "서울고등법원")]  # fmt: skip
    for pair in (by_acts, by_courts):
        first, second = pair
        assert first.index.automaton.free is second.index.automaton.free
    assert by_acts[0].index.automaton.free is not by_courts[0].index.automaton.free


def test_answer_anchors_made_for_other_anchors_are_refused() -> None:
    courts_only = NOW.grammar(Narrowing(courts=("대법원",)))
    with pytest.raises(GrammarError, match="expected AnswerAnchors made for the grammar's anchors"):
        compile_index(NOW.grammar(Narrowing(acts=("민법",))), VOCAB, anchors=AnswerAnchors(courts_only))
    with pytest.raises(GrammarError, match="expected AnswerAnchors only with an AnswerGrammar"):
        automaton_of(courts_only.citations[0], AnswerAnchors(courts_only))


def test_a_library_prepares_after_compiling_the_whole_language() -> None:
    calls: list[str] = []
    whole = NOW.language(Narrowing(), VOCAB, parse_citation)

    def build(narrowing: Narrowing):
        calls.append(f"build {narrowing}")
        return whole

    library = ConstraintLibrary(build, VOCAB.size, prepare=lambda: calls.append("prepare"))
    assert library.prepare() is library.get()
    assert calls == [f"build {Narrowing()}", "prepare"]


@pytest.mark.parametrize(("narrowing", "says"), [
    (Narrowing(acts=("없는법",)), "unknown 없는법"),
    (Narrowing(courts=("없는법원",), acts=("형법",)), "unknown 없는법원"),
    (Narrowing(courts=(), acts=()), "leaves a court or an act to cite"),
], ids=["unknown-act", "unknown-court", "nothing-left"])
def test_a_narrowing_the_lexicon_cannot_make_is_a_request_error(narrowing: Narrowing, says: str) -> None:
    """`Engine.submit` promises a RequestError for a bad request: an unknown act raised a bare KeyError."""
    with pytest.raises(RequestError, match=says):
        Narrowings(LEXICON, forbid_shorthand=True).grammar(narrowing)


@pytest.mark.parametrize("written", ["근로기준법", "근기법"])
def test_a_narrowing_by_an_abbreviation_the_lexicon_lacks_cites_the_act_by_its_name(written: str) -> None:
    """A database that stores no `근기법` (the real statute book's) still narrows by it, as the finder reads
    it: to 근로기준법, written by that name; an abbreviation of an act the lexicon lacks stays unknown."""
    lexicon = as_lexicon({"근로기준법": ["23"], "형법": ["250"]})
    automaton = automaton_of(Narrowings(lexicon, forbid_shorthand=True).grammar(Narrowing(acts=(written,))))
    assert automaton.walk(automaton.initial, "근로기준법 제23조".encode()) != DEAD
    assert automaton.walk(automaton.initial, "근기법 제23조".encode()) == DEAD
    assert automaton.walk(automaton.initial, "형법 제250조".encode()) == DEAD
    with pytest.raises(RequestError, match="unknown 민소법"):
        Narrowings(lexicon, forbid_shorthand=True).grammar(Narrowing(acts=("민소법",)))
