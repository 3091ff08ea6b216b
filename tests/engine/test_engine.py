"""The decode loop on a tiny Llama trained in code for a few steps: batching, seeds, budgets,
stops, cancellation and the citation invariants of ../shared/DESIGN.md."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from test_events import held_heads
from tiny_lm import citation_language, malformed_anchors

from citegen.constraint import CitationLanguage, ConstraintLibrary, Narrowing, compile_language
from citegen.engine import Engine, Request
from citegen.errors import EmptyMaskError, PromptTooLongError, RequestError
from citegen.events import CitationDelta, CitationEnd, CitationStart, Failed, Finished, ProseDelta
from citegen.sampling import SamplingParams
from grammars import answer_grammar

QUESTION = (("user", "판례?"),)


def run_all(engine: Engine, requests: list[Request]) -> list[list]:
    handles = [engine.submit(request) for request in requests]
    while engine.has_work():
        engine.step()
    results = []
    for handle in handles:
        events = []
        while not handle.events.empty():
            events.append(handle.events.get())
        results.append(events)
    return results


def sampled(seed: int, max_new_tokens: int = 60, constrain: bool = True, **sampling) -> Request:
    params = SamplingParams(max_new_tokens=max_new_tokens, temperature=1.0, seed=seed, **sampling)
    return Request(messages=QUESTION, sampling=params, constrain=constrain)


def check_events(events: list) -> str:
    """The stream's shape and text invariants; returns the final text."""
    assert isinstance(events[-1], Finished) and not any(
        isinstance(e, (Finished, Failed)) for e in events[:-1]
    )
    text = events[-1].text
    assert "".join(e.text for e in events if isinstance(e, (ProseDelta, CitationDelta))) == text
    assert "\ufffd" not in text
    open_start = None
    for event in events:
        if isinstance(event, CitationStart):
            assert open_start is None
            open_start = event.start
            assert text[event.start :].startswith(event.prefix)
        elif isinstance(event, CitationEnd):
            assert event.start == open_start and text[event.start : event.end] == event.text
            assert event.citation is not None and event.citation.canonical() == event.text
            open_start = None
    assert open_start is None
    held_heads(events)
    return text


@pytest.fixture(scope="module")
def engine(tiny, library) -> Engine:
    return Engine(tiny, library, max_batch=8)


def test_constrained_answers_hold_only_well_formed_citations(engine) -> None:
    results = run_all(engine, [sampled(seed) for seed in range(12)])
    texts = [check_events(events) for events in results]
    assert all(not malformed_anchors(text) for text in texts)
    assert sum(isinstance(e, CitationEnd) for events in results for e in events) >= 6


def test_the_same_seeds_unconstrained_write_malformed_citations(engine) -> None:
    """The check above can fail: without the constraint this model botches citations."""
    results = run_all(engine, [sampled(seed, constrain=False) for seed in range(12)])
    assert any(malformed_anchors(events[-1].text) for events in results)


def test_the_same_request_and_seed_give_the_same_events(engine) -> None:
    first, second = run_all(engine, [sampled(7), sampled(7)])
    assert first == second
    assert run_all(engine, [sampled(7)])[0] == first


def test_a_sequence_decodes_the_same_alone_and_joining_a_running_batch(tiny, library) -> None:
    greedy = [
        Request(messages=QUESTION, sampling=SamplingParams(max_new_tokens=30)),
        Request(prompt="손해배상 책임이", sampling=SamplingParams(max_new_tokens=20)),
        Request(
            messages=(("user", "불법행위의 요건은 무엇인가?"),), sampling=SamplingParams(max_new_tokens=25)
        ),
    ]
    alone = [run_all(Engine(tiny, library), [request])[0][-1].text for request in greedy]
    engine = Engine(tiny, library)
    handles = [engine.submit(greedy[0])]
    engine.step()
    engine.step()
    handles += [engine.submit(request) for request in greedy[1:]]
    while engine.has_work():
        engine.step()
    together = []
    for handle in handles:
        while not isinstance(event := handle.events.get(), Finished):
            pass
        together.append(event.text)
    assert together == alone


BUDGETS = range(1, 41)  # from 1 to past the longest citation the tiny model writes


def test_a_citation_in_progress_always_closes_within_the_budget(engine) -> None:
    """Every budget from 1 up, six sampled answers each: every citation begun is finished and
    parses, and some end exactly on the last token (the budget rule had work to do)."""
    budgets = [budget for budget in BUDGETS for _ in range(6)]
    results = run_all(engine, [sampled(seed, max_new_tokens=budget) for seed, budget in enumerate(budgets)])
    closing_on_the_last_token = 0
    for budget, events in zip(budgets, results, strict=True):
        check_events(events)  # every CitationStart has a parsed CitationEnd
        assert events[-1].completion_tokens <= budget
        ends = [e for e in events if isinstance(e, CitationEnd)]
        closing_on_the_last_token += bool(
            ends and ends[-1].end == len(events[-1].text) and events[-1].reason == "length"
        )
    assert closing_on_the_last_token >= 3


def test_a_stop_string_ends_the_answer_before_it(engine) -> None:
    results = run_all(engine, [sampled(seed, stop=("손해",)) for seed in range(8)])
    stopped = [
        events for events in results if "손해" in "".join(getattr(e, "text", "") for e in events[:-1]) or True
    ]
    for events in stopped:
        text = check_events(events)
        assert "손해" not in text
    assert any(events[-1].reason == "stop" and events[-1].completion_tokens < 60 for events in results)


def test_a_cancelled_request_finishes_as_cancelled(engine) -> None:
    handle = engine.submit(sampled(1))
    engine.step()
    handle.cancel()
    while engine.has_work():
        engine.step()
    events = []
    while not handle.events.empty():
        events.append(handle.events.get())
    assert events[-1].reason == "cancelled"


class _AllowingNothing:
    """A broken index: a real one whose masks allow no token at all."""

    def __init__(self, index) -> None:
        self._index = index

    def __getattr__(self, name):
        return getattr(self._index, name)

    def fill_bitmask(self, state, out_row) -> None:
        out_row.fill(0)

    def bitmask(self, state):
        return self._index.bitmask(state) * 0

    def is_unconstrained(self, state) -> bool:
        return False


def test_an_empty_mask_fails_the_request_instead_of_sampling_garbage(tiny) -> None:
    real = citation_language(tiny)
    broken = ConstraintLibrary(
        lambda _: CitationLanguage(_AllowingNothing(real.index), real.anchor, real.parse), tiny.vocab_size
    )
    events = run_all(Engine(tiny, broken), [sampled(0)])[0]
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, EmptyMaskError)
    assert not any(isinstance(e, Finished) for e in events)


@pytest.mark.parametrize(
    ("request_factory", "error"),
    [
        (lambda: Request(prompt=""), RequestError),
        (lambda: Request(prompt="   \n"), RequestError),
        (lambda: Request(messages=(("user", ""),)), RequestError),
        (lambda: Request(prompt="대법원 " * 200), PromptTooLongError),
        (lambda: Request(prompt="질문", sampling=SamplingParams(max_new_tokens=0)), RequestError),
        (lambda: Request(prompt="질문", sampling=SamplingParams(temperature=-1.0)), RequestError),
        (lambda: Request(prompt="질문", sampling=SamplingParams(top_p=0.0)), RequestError),
        (lambda: Request(prompt="질문", sampling=SamplingParams(stop=("",))), RequestError),
    ],
    ids=[
        "empty",
        "blank",
        "empty-message",
        "too-long",
        "no-tokens",
        "negative-temperature",
        "top-p-0",
        "empty-stop",
    ],
)
def test_bad_requests_raise_typed_errors_on_submit(engine, request_factory, error) -> None:
    with pytest.raises(error, match="expected"):
        engine.submit(request_factory())
    assert not engine.has_work()


def test_a_constrained_request_needs_an_engine_with_constraints(tiny) -> None:
    with pytest.raises(RequestError, match="citation constraints"):
        Engine(tiny).submit(Request(prompt="질문"))


def test_an_index_over_another_vocabulary_is_refused(tiny) -> None:
    wider = tiny.vocabulary.with_size(tiny.vocab_size + 64)
    library = ConstraintLibrary(lambda _: compile_language(answer_grammar(), wider), tiny.vocab_size)
    with pytest.raises(Exception, match=f"tokenizer's {tiny.vocab_size} tokens"):
        library.get()


def test_the_library_caches_a_narrowed_constraint(tiny) -> None:
    built = []

    def build(narrowing):
        built.append(narrowing)
        return citation_language(tiny)

    library = ConstraintLibrary(build, tiny.vocab_size, capacity=1)
    narrow = Narrowing(courts=("대법원",))
    assert library.get(narrow) is library.get(narrow)
    library.get(Narrowing())
    library.get(narrow)
    assert built == [narrow, Narrowing(), narrow]


def test_callers_of_a_narrowing_being_compiled_share_that_one_compile(tiny) -> None:
    built, release = [], threading.Event()

    def build(narrowing):
        built.append(narrowing)
        release.wait(timeout=30)  # held until the test has seen a compile begin
        if narrowing.acts == ("없는법",):
            raise KeyError("없는법")
        return citation_language(tiny)

    library = ConstraintLibrary(build, tiny.vocab_size)
    narrow, broken = Narrowing(courts=("대법원",)), Narrowing(acts=("없는법",))
    together = threading.Barrier(7)

    def ask(narrowing):
        together.wait(timeout=30)
        return library.get(narrowing)

    with ThreadPoolExecutor(max_workers=6) as pool:
        got = [pool.submit(ask, narrowing) for narrowing in (narrow, broken) * 3]
        together.wait(timeout=30)  # all six callers go at once
        deadline = time.monotonic() + 30
        while not built and time.monotonic() < deadline:
            time.sleep(0.01)
        release.set()
        constraints = [future.result() for future in got[::2]]
        errors = [future.exception() for future in got[1::2]]
    # A caller arriving after a compile ended finds the constraint cached, or for the failing
    # narrowing compiles anew; neither starts a second compile of one in progress.
    assert built.count(narrow) == 1
    assert all(constraint is constraints[0] for constraint in constraints)
    assert all(isinstance(error, KeyError) for error in errors)
    failed_compiles = built.count(broken)
    with pytest.raises(KeyError):  # a failed compile is not cached: the next caller compiles again
        library.get(broken)
    assert built.count(broken) == failed_compiles + 1


def test_compiles_for_the_event_loop_leave_its_default_threads_free(tiny) -> None:
    """Many new narrowings at once wait on the library's own compile thread: the loop's default
    pool (health checks, database reads) stays free, and a constraint fetched beforehand lets
    submit skip the library."""
    release = threading.Event()

    def build(narrowing):
        release.wait(timeout=30)
        return citation_language(tiny)

    library = ConstraintLibrary(build, tiny.vocab_size)

    async def scenario():
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=2))
        compiles = [
            asyncio.ensure_future(library.get_async(Narrowing(acts=(f"법{i}",)))) for i in range(8)
        ]
        await asyncio.sleep(0)
        assert await asyncio.wait_for(asyncio.to_thread(lambda: "free"), timeout=10) == "free"
        release.set()
        return await asyncio.gather(*compiles)

    constraints = asyncio.run(scenario())
    assert len({id(constraint) for constraint in constraints}) == 8
    engine = Engine(tiny, ConstraintLibrary(lambda _: pytest.fail("submit compiled"), tiny.vocab_size))
    engine.submit(sampled(0), constraint=constraints[0])
    assert engine.has_work()


def test_a_failing_step_fails_its_requests_and_the_serving_loop_goes_on(tiny) -> None:
    def parse_that_breaks(text):
        raise ValueError(f"parser bug on {text!r}")

    real = citation_language(tiny)
    broken = ConstraintLibrary(
        lambda _: CitationLanguage(real.index, real.anchor, parse_that_breaks), tiny.vocab_size
    )
    engine = Engine(tiny, broken)
    stop = threading.Event()
    loop = threading.Thread(target=engine.run_forever, args=(stop,))
    loop.start()
    try:
        handles = [engine.submit(sampled(seed)) for seed in range(4)]
        last = [_last_event(handle) for handle in handles]
        assert any(isinstance(event, Failed) for event in last)
        again = engine.submit(
            Request(prompt="손해배상", sampling=SamplingParams(max_new_tokens=3), constrain=False)
        )
        assert isinstance(_last_event(again), Finished)
    finally:
        stop.set()
        engine.wake()
        loop.join(timeout=30)


def _last_event(handle):
    while not isinstance(event := handle.events.get(timeout=60), (Finished, Failed)):
        pass
    return event
