"""SegmentMachine against a from-scratch oracle, over every interleaving of source events and
verdict arrivals for small scripts (and random larger ones with Hypothesis).

The oracle recomputes, after each step, what a reader may have seen: the rendering of the answer
up to the first citation that is open or unresolved, minus a held prose tail (tentative, or a
prefix of an anchor, found by brute force over the expanded anchor strings).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammars import StatuteCitation, answer_grammar
from grammars.expr import Literals, Regex, seq
from streaming.anchors import AnchorPrefixes
from streaming.errors import SegmentProtocolError
from streaming.protocols import (
    CitationDelta,
    CitationEnd,
    CitationStart,
    Finished,
    ProseDelta,
    Usage,
    Verdict,
)
from streaming.segments import (
    AnswerFinished,
    CitationReleased,
    CitationWithheld,
    ProseReleased,
    SegmentMachine,
    VerificationNeeded,
)

HEADS = ("대법원 ", "민법 제")
ANCHORS = AnchorPrefixes([seq(Literals(HEADS), Regex("[0-9]"))])
EXPANDED_ANCHORS = tuple(head + digit for head in HEADS for digit in "0123456789")
MARKER = "[X]"


@dataclass(frozen=True)
class Prose:
    chunks: tuple[str, ...]
    tentative: bool = False


@dataclass(frozen=True)
class Cite:
    prefix: str  # carried over from the preceding prose (the anchor)
    deltas: tuple[str, ...]
    status: str = "verified"  # a verdict status, "fail" (verifier down) or "unparsed"

    @property
    def text(self) -> str:
        return self.prefix + "".join(self.deltas)


def canonical_of(text: str) -> str:
    return f"C({text})"


def source_events(script: list[Prose | Cite]) -> list:
    events: list = []
    for part in script:
        if isinstance(part, Prose):
            events.extend(ProseDelta(chunk, part.tentative) for chunk in part.chunks)
        else:
            events.append(CitationStart(part.prefix))
            events.extend(CitationDelta(delta) for delta in part.deltas)
            parsed = None if part.status == "unparsed" else StatuteCitation("민법", len(events))
            events.append(CitationEnd(part.text, parsed))
    events.append(Finished(Usage(3, len(events))))
    return events


def shown(part: Cite, policy: str) -> str:
    if part.status == "verified":
        return f"⟦{canonical_of(part.text)}⟧"
    if policy == "annotate":
        return f"⟦{part.text}⟧"
    return f"⟪{MARKER if policy == 'strict' else ''}⟫"


def brute_held(prose: str) -> int:
    for start in range(len(prose)):
        if any(anchor.startswith(prose[start:]) for anchor in EXPANDED_ANCHORS):
            return len(prose) - start
    return 0


def oracle(script: list[Prose | Cite], events_fed: int, resolved: set[int], policy: str) -> str:
    """What a reader may have seen after `events_fed` source events and the verdicts `resolved`."""
    out, fed, citation_id, prose_run, tentative = "", 0, 0, "", 0
    for part in script:
        if isinstance(part, Prose):
            for chunk in part.chunks:
                if fed == events_fed:
                    return out + prose_run[: len(prose_run) - max(tentative, brute_held(prose_run))]
                fed += 1
                prose_run += chunk
                tentative = tentative + len(chunk) if part.tentative else 0
            continue
        if fed == events_fed:  # CitationStart not fed yet
            return out + prose_run[: len(prose_run) - max(tentative, brute_held(prose_run))]
        out += prose_run[: len(prose_run) - len(part.prefix)]
        fed += 2 + len(part.deltas)  # start, deltas, end
        closed = fed <= events_fed
        if not closed or (part.status != "unparsed" and citation_id not in resolved):
            return out
        out += shown(part, policy)
        prose_run, tentative, citation_id = "", 0, citation_id + 1
    if events_fed <= fed:  # Finished not fed yet: the tail may still become an anchor
        return out + prose_run[: len(prose_run) - max(tentative, brute_held(prose_run))]
    return out + prose_run


def render(outputs: list) -> str:
    text = ""
    for output in outputs:
        match output:
            case ProseReleased(text=prose):
                text += prose
            case CitationReleased(text=shown_text):
                text += f"⟦{shown_text}⟧"
            case CitationWithheld(marker=marker):
                text += f"⟪{marker}⟫"
    return text


def interleavings(events: list, ends: list[int]):
    """Every order of the source events with verdict i placed anywhere after event ends[i]."""

    def walk(position: int, open_verdicts: tuple[int, ...], done: frozenset[int], prefix: list):
        if position == len(events) and not open_verdicts:
            yield list(prefix)
            return
        if position < len(events):
            newly = tuple(i for i, end in enumerate(ends) if end == position)
            yield from walk(position + 1, open_verdicts + newly, done, prefix + [("event", position)])
        for verdict in open_verdicts:
            rest = tuple(v for v in open_verdicts if v != verdict)
            yield from walk(position, rest, done | {verdict}, prefix + [("verdict", verdict)])

    yield from walk(0, (), frozenset(), [])


def run_and_check(script: list[Prose | Cite], policy: str) -> int:
    events = source_events(script)
    cites = [part for part in script if isinstance(part, Cite)]
    end_positions = [i for i, event in enumerate(events) if isinstance(event, CitationEnd)]
    verified_ends = [end for end, cite in zip(end_positions, cites, strict=True) if cite.status != "unparsed"]
    verifiable = [i for i, cite in enumerate(cites) if cite.status != "unparsed"]
    orders = 0
    for order in interleavings(events, verified_ends):
        orders += 1
        machine = SegmentMachine(policy, anchors=ANCHORS, marker=MARKER)
        outputs: list = []
        requested: set[int] = set()  # citation ids are indexes into cites
        fed, resolved = 0, set()
        for kind, index in order:
            if kind == "event":
                step = machine.feed(events[index])
                fed += 1
            else:
                citation_id = verifiable[index]
                assert citation_id in requested
                status = cites[citation_id].status
                if status == "fail":
                    step = machine.fail(citation_id, "database unreachable")
                else:
                    text = cites[citation_id].text
                    step = machine.resolve(citation_id, Verdict(status, canonical_of(text), "src"))
                resolved.add(citation_id)
            requested.update(o.citation_id for o in step if isinstance(o, VerificationNeeded))
            outputs.extend(o for o in step if not isinstance(o, VerificationNeeded))
            assert render(outputs) == oracle(script, fed, resolved, policy), (order, outputs)
            assert not any(isinstance(o, AnswerFinished) for o in outputs[:-1])
        assert machine.finished and isinstance(outputs[-1], AnswerFinished)
        assert sum(outputs[-1].outcomes.values()) == len(cites)
        assert requested == set(verifiable)
        if policy == "strict":
            assert all(o.status == "verified" for o in outputs if isinstance(o, CitationReleased))
    return orders


SCRIPTS = {
    "prose-only": [Prose(("판례에 ", "따르면 ", "그렇다."))],
    "one-citation": [Prose(("근거는 ", "대법원 ")), Cite("대법원 ", ("2024. ", "판결")), Prose(("이다.",))],
    "two-citations-back-to-back": [
        Prose(("민법 제",)),
        Cite("민법 제", ("750조",)),
        Cite("", ("민법 ", "제751조")),
        Prose(("참조.",)),
    ],
    "tentative-then-prose": [Prose(("대법",), tentative=True), Prose(("관은 ", "말했다")), Cite("", ("x",))],
    "tentative-prefix": [Prose(("보라 ",)), Prose(("대법",), tentative=True), Cite("대법", ("원 2024",))],
    "anchor-never-completes": [Prose(("대법원 ", "판례 ", "민법 제")), Cite("", ("c",)), Prose(("민법 ",))],
}
STATUS_PAIRS = [
    ("verified", "not_found"),
    ("mismatch", "verified"),
    ("fail", "unparsed"),
    ("ambiguous", "not_covered"),
]


def with_statuses(script: list[Prose | Cite], statuses: tuple[str, str]) -> list[Prose | Cite]:
    out, count = [], 0
    for part in script:
        if isinstance(part, Cite):
            part = Cite(part.prefix, part.deltas, statuses[count % 2])
            count += 1
        out.append(part)
    return out


@pytest.mark.parametrize("policy", ["strict", "annotate", "drop"], ids=str)
@pytest.mark.parametrize("statuses", STATUS_PAIRS, ids="+".join)
@pytest.mark.parametrize("name", sorted(SCRIPTS), ids=str)
def test_every_interleaving_matches_the_oracle(name: str, statuses: tuple[str, str], policy: str) -> None:
    assert run_and_check(with_statuses(SCRIPTS[name], statuses), policy) >= 1


chunk = st.text(alphabet="대법원민제 2조.가", min_size=1, max_size=4)
cite_part = st.builds(
    Cite,
    prefix=st.just(""),
    deltas=st.lists(chunk, min_size=1, max_size=2).map(tuple),
    status=st.sampled_from(["verified", "mismatch", "not_found", "fail", "unparsed"]),
)
prose_part = st.builds(
    Prose, chunks=st.lists(chunk, min_size=1, max_size=3).map(tuple), tentative=st.booleans()
)


@settings(max_examples=60, deadline=None)
@given(
    script=st.lists(st.one_of(prose_part, cite_part), max_size=4),
    policy=st.sampled_from(["strict", "annotate", "drop"]),
)
def test_random_scripts_match_the_oracle(script: list[Prose | Cite], policy: str) -> None:
    run_and_check(script, policy)


def test_verified_citation_is_released_in_canonical_form_with_its_source() -> None:
    machine = SegmentMachine("strict")
    machine.feed(CitationStart())
    (needed,) = machine.feed(CitationEnd("대판 2024.7.11, 2024도4202", StatuteCitation("민법", 750)))
    (released,) = machine.resolve(needed.citation_id, Verdict("verified", "민법 제750조", "법령ID 001706"))
    assert released == CitationReleased(
        0, "민법 제750조", "대판 2024.7.11, 2024도4202", "verified", "민법 제750조", "법령ID 001706", None
    )


@pytest.mark.parametrize(
    "events, message",
    [
        ([CitationDelta("x")], "expected CitationStart"),
        ([CitationEnd("x", None)], "expected CitationStart"),
        ([CitationStart(), ProseDelta("x")], "expected CitationDelta or CitationEnd"),
        ([CitationStart(), CitationStart()], "expected CitationDelta or CitationEnd"),
        ([ProseDelta("abc"), CitationStart("bc")], "expected the held prose to end with"),
        ([CitationStart("q")], "expected the held prose to end with"),
        ([CitationStart(), CitationDelta("ab"), CitationEnd("ax", None)], "to continue 'ab'"),
        ([Finished(Usage(1, 1)), ProseDelta("x")], "expected no event after Finished"),
    ],
    ids=[
        "delta-outside",
        "end-outside",
        "prose-inside",
        "nested-start",
        "released-prefix",
        "missing-prefix",
        "end-disagrees",
        "after-finished",
    ],
)
def test_protocol_violations_are_typed_errors(events: list, message: str) -> None:
    machine = SegmentMachine("strict")
    with pytest.raises(SegmentProtocolError, match=message):
        for event in events:
            machine.feed(event)


@pytest.mark.parametrize("call", ["resolve-unknown", "resolve-twice"], ids=str)
def test_a_verdict_for_no_pending_citation_is_a_typed_error(call: str) -> None:
    machine = SegmentMachine("strict")
    machine.feed(CitationStart())
    (needed,) = machine.feed(CitationEnd("민법 제750조", StatuteCitation("민법", 750)))
    if call == "resolve-twice":
        machine.resolve(needed.citation_id, Verdict("not_found"))
    with pytest.raises(SegmentProtocolError, match="expected a verdict for one of"):
        machine.resolve(needed.citation_id + (call == "resolve-unknown"), Verdict("verified"))


def test_finished_inside_a_citation_withholds_it_in_strict_mode() -> None:
    machine = SegmentMachine("strict", marker=MARKER)
    machine.feed(ProseDelta("앞 "))
    machine.feed(CitationStart())
    machine.feed(CitationDelta("대법원 2024"))
    outputs = machine.feed(Finished(Usage(1, 2), "length"))
    assert outputs == [
        CitationWithheld(0, "unparsed", MARKER, "the answer ended inside the citation"),
        AnswerFinished(Usage(1, 2), "length", {"unparsed": 1}),
    ]


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(SegmentProtocolError, match="expected policy strict, annotate or drop, got 'lenient'"):
        SegmentMachine("lenient")  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="대법원민제 2x", max_size=12))
def test_anchor_set_holds_exactly_the_longest_anchor_prefix(text: str) -> None:
    assert ANCHORS.held_suffix_length(text) == brute_held(text)


@pytest.mark.parametrize(
    "text, held",
    [
        ("대법원은", 0),
        ("그 대법원", 3),
        ("대법원 2", 5),
        ("대법원 20", 0),
        ("서울고등법원 ", 7),
        ("민법 제", 4),
        ("민법 제3조", 0),
        ("의 민", 1),
    ],
    ids=[
        "word-continues",
        "court-name",
        "complete-anchor",
        "past-anchor",
        "high-court",
        "act-and-je",
        "past-act-anchor",
        "act-prefix",
    ],
)
def test_anchor_prefixes_of_the_answer_grammar(text: str, held: int) -> None:
    anchors = AnchorPrefixes.of(answer_grammar(lexicon={"민법": ["750"], "형법": None}))
    assert anchors.held_suffix_length(text) == held


def without_reasoning(text: str) -> str:
    return re.sub(r"<think>.*?(</think>|$)", "", text, flags=re.S)


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.sampled_from(["<think>", "</think>", "<", "</", "think", ">", "가", " 민법 제750조 "]), max_size=10
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=6),
)
def test_reasoning_spans_never_reach_the_reader_however_the_text_is_split(
    pieces: list[str], cuts: list[int]
) -> None:
    whole = "".join(pieces)
    bounds = sorted({0, len(whole), *(c for c in cuts if c < len(whole))})
    machine = SegmentMachine("strict", bypass=(("<think>", "</think>"),))
    outputs = [
        o for a, b in itertools.pairwise(bounds) for o in machine.feed(ProseDelta(whole[a:b]))
    ]
    outputs += machine.feed(Finished(Usage(1, 1)))
    assert render(outputs) == without_reasoning(whole)
    assert outputs[-1].reasoning_chars == len(whole) - len(without_reasoning(whole))


def test_a_held_angle_bracket_before_a_citation_is_plain_text() -> None:
    machine = SegmentMachine("annotate", bypass=(("<think>", "</think>"),))
    assert machine.feed(ProseDelta("a <")) == [ProseReleased("a ")]
    assert machine.feed(CitationStart()) == [ProseReleased("<")]


# ---- a source that marks tentative prose needs no anchor detector -----------------------------

ENGINE_TEXTS = {
    "case": "판례는 대법원 2024. 7. 1. 선고 2024도4202 판결에서 밝혔다.",
    "statutes": "근거는 민법 제750조 및 형법 제250조 제1항이다.",
    "court-name-as-prose": "대법원은 여러 번 판단하였다. 민법 제3조",
}


@pytest.fixture(scope="module")
def engine_constraint():
    """citegen's real answer constraint over a small byte-level tokenizer (no model)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
    from tiny_lm import build_tokenizer

    from citegen.constraint import Constraint, compile_language
    from grammars.compile import vocabulary_of

    vocabulary = vocabulary_of(build_tokenizer(), None)
    return Constraint.of(compile_language(answer_grammar(), vocabulary), vocabulary.size), vocabulary


@pytest.mark.parametrize("text", list(ENGINE_TEXTS.values()), ids=list(ENGINE_TEXTS))
def test_the_engines_tentative_marks_hold_every_citation_head_without_anchors(
    engine_constraint, text
) -> None:
    """The engine's events, fed a byte per token (every anchor straddles tokens) and converted as
    `citegen serve` converts them, through a machine with no anchor detector: no protocol error, the
    reader sees the text in order, and the heads sent as prose were held (prefix non-empty)."""
    from citegen.commands.serve_wiring import stream_event
    from citegen.events import CitationStart as EngineCitationStart
    from citegen.events import Finished as EngineFinished
    from citegen.events import TextEventMachine

    constraint, vocabulary = engine_constraint
    single = {piece: token for token, piece in enumerate(vocabulary.tokens) if piece and len(piece) == 1}
    cursor = constraint.cursor()
    source = TextEventMachine(anchor=constraint.anchor, parse=constraint.parse)
    events = []
    for byte in text.encode():
        token = single[bytes([byte])]
        events += source.feed(vocabulary.tokens[token], cursor.advance(token))
    events += source.finish("stop", complete=cursor.accepting)[0]
    events.append(EngineFinished("stop", 0, len(text.encode()), source.text))
    assert any(isinstance(e, EngineCitationStart) and e.prefix for e in events)
    machine = SegmentMachine("annotate", anchors=None, marker=MARKER)
    shown = []
    for event in events:
        outputs = machine.feed(stream_event(event))
        while outputs:
            output = outputs.pop(0)
            if isinstance(output, VerificationNeeded):
                canonical = output.citation.canonical()
                outputs += machine.resolve(output.citation_id, Verdict("verified", canonical, "src"))
            elif isinstance(output, ProseReleased | CitationReleased):
                shown.append(output.text)
    assert machine.finished and "".join(shown) == text
