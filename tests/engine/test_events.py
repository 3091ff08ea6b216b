"""Events from text fed token by token through the real constraint (no model): exact citation
spans under the tokenizer's own split and under a split into single bytes (every token then
straddles anchors and splits Hangul characters)."""

from __future__ import annotations

import pytest

from citegen.commands.settings import REPO_DATA_DIR
from citegen.constraint import Constraint, Narrowing, compile_language
from citegen.events import CitationDelta, CitationEnd, CitationStart, FinishReason, ProseDelta, TextEventMachine
from citegen.models import load_model
from citegen.narrowings import Narrowings, narrowed_answer_grammar
from grammars import answer_grammar, parse_citation


def held_heads(events: list) -> int:
    """The tentative contract: a consumer that holds tentative prose until a prose delta that is not
    tentative (or a citation's start) holds every citation's head, so none is shown as prose.
    Returns how many citations had a head sent as prose (the contract had work to do)."""
    held, heads = "", 0
    for event in events:
        if isinstance(event, ProseDelta):
            held = held + event.text if event.tentative else ""
        elif isinstance(event, CitationStart):
            assert held.endswith(event.prefix), (held, event.prefix)
            heads += bool(event.prefix)
            held = ""
    return heads


SHIPPED_MODEL = REPO_DATA_DIR / "models" / "ko-legal-tiny"


def byte_tokens(tiny, text: str) -> list[int]:
    ids = {piece: token for token, piece in enumerate(tiny.token_bytes) if len(piece) == 1}
    return [ids[bytes([byte])] for byte in text.encode()]


def bpe_tokens(tiny, text: str) -> list[int]:
    return tiny.tokenizer(text, add_special_tokens=False).input_ids


def feed(tiny, constraint: Constraint, tokens: list[int], stop: tuple[str, ...] = (),
         ended: FinishReason = "stop") -> tuple[list, str]:
    """The events and text of `tokens` fed through one machine, then finished for `ended` (or its stop)."""
    events, final, _ = feed_to_end(tiny, constraint, tokens, stop, ended)
    return events, final


def feed_to_end(tiny, constraint: Constraint, tokens: list[int], stop: tuple[str, ...],
                ended: FinishReason) -> tuple[list, str, FinishReason]:
    """`feed`, with the reason the answer reports."""
    cursor = constraint.cursor()
    machine = TextEventMachine(anchor=constraint.anchor, parse=constraint.parse, stop=stop)
    events = []
    for token in tokens:
        events += machine.feed(tiny.token_bytes[token], cursor.advance(token))
        if machine.stopped:
            ended = "stop"
            break
    last, reason = machine.finish(ended, complete=cursor.accepting)
    return events + last, machine.text, reason


LANGUAGES = {
    "lenient": answer_grammar,
    # every anchor of generation: glued heads and a citation's continuation (` 제1항` after `제750조`)
    "strict": lambda: answer_grammar(forbid_shorthand=True),
    # `형법 제` opens the citation: 제 after a title goes on only into an act kept
    "narrowed": lambda: narrowed_answer_grammar(None, Narrowing(acts=("민법", "형법")), forbid_shorthand=True),
}


@pytest.fixture(scope="module", params=list(LANGUAGES), ids=list(LANGUAGES))
def constraint(tiny, request: pytest.FixtureRequest) -> Constraint:
    return Constraint.of(compile_language(LANGUAGES[request.param](), tiny.vocabulary), tiny.vocab_size)


TEXTS = {
    "case-then-prose": (
        "판례는 대법원 2024. 7. 1. 선고 2024도4202 판결에서 밝혔다.",
        ["대법원 2024. 7. 1. 선고 2024도4202 판결"],
    ),
    "statute-with-paragraph": ("민법 제750조 제1항에 따라 배상한다.", ["민법 제750조 제1항"]),
    "statute-then-another": ("민법 제750조 및 형법 제250조 제1항", ["민법 제750조", "형법 제250조 제1항"]),
    "citation-at-the-end": ("근거: 형법 제250조", ["형법 제250조"]),
    "think-block-is-bypassed": ("<think>대법원 2 무엇을</think> 답: 민법 제3조", ["민법 제3조"]),
    "no-citation": ("대법원은 여러 번 판단하였다.", []),
    "markup-stays-free": (
        '<tool_call>{"name": "search", "q": "형법"}</tool_call> 형법 제250조',
        ["형법 제250조"],
    ),
}


@pytest.mark.parametrize("split", [bpe_tokens, byte_tokens], ids=["bpe", "bytes"])
@pytest.mark.parametrize(("text", "citations"), list(TEXTS.values()), ids=list(TEXTS))
def test_citations_come_out_with_exact_spans(tiny, constraint, split, text, citations) -> None:
    events, final = feed(tiny, constraint, split(tiny, text))
    assert final == text
    assert "".join(e.text for e in events if isinstance(e, (ProseDelta, CitationDelta))) == text
    ends = [e for e in events if isinstance(e, CitationEnd)]
    assert [e.text for e in ends] == citations
    assert all(text[e.start : e.end] == e.text and e.citation.canonical() == e.text for e in ends)
    assert sum(isinstance(e, CitationStart) for e in events) == len(citations)
    assert all("\ufffd" not in getattr(e, "text", "") for e in events)


@pytest.mark.parametrize("split", [bpe_tokens, byte_tokens], ids=["bpe", "bytes"])
@pytest.mark.parametrize("text", [text for text, _ in TEXTS.values()], ids=list(TEXTS))
def test_the_head_of_every_citation_goes_out_as_tentative_prose(tiny, constraint, split, text) -> None:
    events, _ = feed(tiny, constraint, split(tiny, text))
    heads = held_heads(events)
    if split is byte_tokens:
        assert heads == sum(isinstance(e, CitationStart) for e in events)


@pytest.mark.parametrize(
    ("text", "confirmed"),
    [
        ("대법원은 여러 번", "대법원은 여러 번"),
        ("민법과 형법의 관계", "민법과 형법의 관계"),
        ("판례는 대법", "판례는 "),
    ],
    ids=["court-name-as-a-word", "act-names-as-words", "a-partial-anchor-at-the-end"],
)
def test_prose_is_tentative_only_while_it_may_still_begin_a_citation(
    tiny, constraint, text, confirmed
) -> None:
    cursor, events = constraint.cursor(), []
    machine = TextEventMachine(anchor=constraint.anchor, parse=constraint.parse)
    for token in byte_tokens(tiny, text):
        events += machine.feed(tiny.token_bytes[token], cursor.advance(token))
    last_confirmed = max((i for i, e in enumerate(events) if not e.tentative), default=-1)
    assert "".join(e.text for e in events[: last_confirmed + 1]) == confirmed
    assert all(e.tentative for e in events[last_confirmed + 1 :])


def test_a_split_character_is_sent_whole_once_complete(tiny, constraint) -> None:
    events, _ = feed(tiny, constraint, byte_tokens(tiny, "법"))
    assert [e.text for e in events] == ["법"]


def test_an_anchor_sent_as_prose_is_named_as_the_citation_prefix(tiny, constraint) -> None:
    events, _ = feed(tiny, constraint, byte_tokens(tiny, "형법 제1조"))
    start = next(e for e in events if isinstance(e, CitationStart))
    assert start.start == 0 and "형법 제".startswith(start.prefix) and start.prefix
    assert all(e.tentative for e in events[: events.index(start)])


def test_a_stop_string_split_across_tokens_is_never_sent(tiny, constraint) -> None:
    events, final = feed(tiny, constraint, byte_tokens(tiny, "손해배상 책임이 있다. 끝"), stop=("책임",))
    assert final == "손해배상 "
    assert "".join(e.text for e in events if isinstance(e, ProseDelta)) == "손해배상 "


def test_a_generation_cut_inside_a_citation_ends_it_unparsed(tiny, constraint) -> None:
    machine = TextEventMachine(anchor=constraint.anchor, parse=constraint.parse)
    cursor = constraint.cursor()
    for token in byte_tokens(tiny, "형법 제25"):
        machine.feed(tiny.token_bytes[token], cursor.advance(token))
    end = machine.finish("length", complete=cursor.accepting)[0][-1]
    assert isinstance(end, CitationEnd) and end.citation is None and end.text == "형법 제25"


@pytest.mark.parametrize("stop", [",", " 및 "])
def test_a_stop_string_between_two_citations_ends_the_text_after_the_first(tiny, constraint, stop: str) -> None:
    """The text between two citations is held (the first may go on) until the second begins; it went out
    unchecked, stop string and all."""
    text = f"민법 제750조{stop}민법 제751조가 있다. 끝"
    events, final = feed(tiny, constraint, byte_tokens(tiny, text), stop=(stop,))
    assert final == "민법 제750조"
    assert "".join(e.text for e in events if isinstance(e, ProseDelta | CitationDelta)) == "민법 제750조"
    assert [e.text for e in events if isinstance(e, CitationEnd)] == ["민법 제750조"]


def test_a_stop_string_reaching_into_the_next_citations_head_ends_the_text(tiny, constraint) -> None:
    """After prose `, 민` with stop `, 민` was honoured; after a citation only the text before the next one's
    start was searched, so the stop was missed and the rest of the answer went out (a review)."""
    for text, before in (("이다, 민법 제751조가 있다.", "이다"),
                         ("민법 제750조, 민법 제751조가 있다.", "민법 제750조")):
        events, final = feed(tiny, constraint, byte_tokens(tiny, text), stop=(", 민",))
        assert final == before
        assert "".join(e.text for e in events if isinstance(e, ProseDelta | CitationDelta)) == before


@pytest.mark.parametrize("text, stop, shown", [
    ("민법 제750조, 민법 제751조", ",", "민법 제750조"),  # the text after a citation, held: it may begin another
    ("민법 제750조, 민", ",", "민법 제750조"),
    ("민법 제750조 제1", " 제1", "민법 제750조"),  # the end of a citation cut short, prose once it closed
])
def test_a_stop_string_in_the_text_held_when_the_answer_ends_cuts_it(tiny, constraint, text, stop, shown) -> None:
    """The answer ends (its length, here) while the text after a citation is still held: it was sent
    whole, stop string and all, and the answer said `length` (a review)."""
    events, final, reason = feed_to_end(tiny, constraint, byte_tokens(tiny, text), (stop,), "length")
    assert (final, reason) == (shown, "stop")
    assert "".join(e.text for e in events if isinstance(e, ProseDelta | CitationDelta)) == shown


@pytest.mark.parametrize("text, stop", [("판례로 대법원 2024. 7.", "."), ("형법 제25", "25"), ("형법 제25", " 제")])
def test_a_stop_string_inside_a_citation_cut_short_does_not_count(tiny, constraint, text, stop) -> None:
    """A review: cut inside a citation, the answer searched the citation's text for a stop string at its
    end, reported `stop` for a truncated answer, and its text was shorter than what had been sent."""
    events, final, reason = feed_to_end(tiny, constraint, byte_tokens(tiny, text), (stop,), "length")
    sent = "".join(e.text for e in events if isinstance(e, ProseDelta | CitationDelta))
    if text.startswith("형법") and stop == " 제":  # before the citation opened, ` 제` was prose: honoured
        assert (final, reason) == ("형법", "stop")
        return
    assert (final, reason, sent) == (text, "length", text)


def test_of_several_stop_strings_the_earliest_in_the_text_ends_it() -> None:
    """One token completing two stop strings was cut at the one listed first (a review: `5. 선고 20` with
    stop `["20", "."]` sent `5. 선고 `)."""
    for stops in (("20", "."), (".", "20")):
        machine = TextEventMachine(anchor=None, parse=lambda _: None, stop=stops)
        events = machine.feed("판례5. 선고 20".encode(), None)
        events += machine.finish("length", complete=True)[0]
        assert "".join(e.text for e in events if isinstance(e, ProseDelta)) == "판례5"


def test_a_citation_entered_after_a_glued_anchor_begins_past_the_tokens_spaces() -> None:
    """Under an acts narrowing, `법 제` (a title glued to 제) enters a citation with no anchor of its own
    ending there; where the entering token is ` 제` (the shipped model's), `민법 제주지방법원 …` began the
    case citation at the space, which parsed as nothing: it went out unparsed and its 판결 as prose."""
    shipped = load_model(SHIPPED_MODEL, "cpu")
    # as the engine narrows (the anchors of its acts); a lexicon without 제주… acts, whose names would anchor
    narrowings = Narrowings({"민법": None, "형법": None}, forbid_shorthand=True)
    language = narrowings.language(Narrowing(acts=("형법",)), shipped.vocabulary, parse_citation)
    text = "민법 제주지방법원 2021. 6. 8. 선고 2020노3385 판결은 있다."
    tokens = bpe_tokens(shipped, text)
    assert " 제".encode() in {shipped.token_bytes[token] for token in tokens}
    events, _ = feed(shipped, Constraint.of(language, shipped.vocab_size), tokens)
    (end,) = [e for e in events if isinstance(e, CitationEnd)]
    assert (end.text, end.start) == ("제주지방법원 2021. 6. 8. 선고 2020노3385 판결", 3)
    assert end.citation is not None
