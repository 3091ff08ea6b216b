"""The citation processor inside vLLM (CPU build): one engine per module, every scenario one batch."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from citegen.constraint import ConstraintLibrary, compile_language
from citegen.engine import Engine, Request
from citegen.events import Finished
from citegen.integrations.options import CitationOptions
from citegen.models import LoadedModel, load_model
from citegen.sampling import SamplingParams
from grammars import CaseCitation, StatuteCitation, answer_grammar, find_citations, parse_citation
from grammars.compile import vocabulary_of

pytestmark = pytest.mark.vllm

SEEDS = range(1, 5)
BUDGETS = range(1, 41)  # from 1 to past the longest citation the model writes
ANSWER = {"citegen_grammar": "answer"}
# Requests of one mixed batch: options, n, max_tokens. Twelve rows through an engine of eight seats,
# leaving at different lengths, so rows join, leave and are moved while others decode.
MIXED = [
    ({"citegen_grammar": "statute", "citegen_acts": ["민법"]}, 3, 40),
    ({"citegen_grammar": "case", "citegen_courts": ["대법원"]}, 3, 60),
    (ANSWER, 2, 24),
    ({}, 2, 16),
    ({"citegen_grammar": "citation"}, 2, 50),
]
ANCHORS = re.compile("|".join(citation.anchor.to_regex() for citation in answer_grammar().citations))
THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
REFUSED = [
    ({"citegen_grammar": "regex"}, "citegen_grammar"),
    ({"citegen_acts": "민법"}, "citegen_acts"),
    ({"citegen_acts": ["없는법"]}, "없는법"),
    ({"citegen_color": 1}, "citegen_color"),
    ({"citegen_lexicon": "/nonexistent/lexicon.json"}, "/nonexistent/lexicon.json"),
]


def _request(prompt_ids: list[int], extra_args: dict[str, Any], **sampling: Any) -> dict[str, Any]:
    return {
        "prompt_token_ids": prompt_ids,
        "sampling": {"max_tokens": 64, **sampling},
        "extra_args": extra_args,
    }


@pytest.fixture(scope="module")
def results(
    model_dir: Path,
    prompts: list[list[int]],
    vllm: Callable[..., dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    first = prompts[0]
    batches = [
        {"name": "greedy", "requests": [_request(p, ANSWER, temperature=0.0) for p in prompts]},
        {
            "name": "sampled",
            "requests": [_request(p, ANSWER, temperature=1.0, seed=s) for p in prompts for s in SEEDS],
        },
        {
            "name": "sampled-free",
            "requests": [_request(p, {}, temperature=1.0, seed=s) for p in prompts for s in SEEDS],
        },
        {
            "name": "mixed",
            "requests": [
                _request(first, args, temperature=1.0, seed=7, n=n, max_tokens=length)
                for args, n, length in MIXED
            ],
        },
        *(
            {"name": f"refused-{i}", "requests": [_request(first, ANSWER), _request(first, args)]}
            for i, (args, _) in enumerate(REFUSED)
        ),
        {"name": "after-refusals", "requests": [_request(first, ANSWER, temperature=1.0, seed=3)]},
        {
            "name": "budgets",
            "requests": [
                _request(p, ANSWER, temperature=1.0, seed=budget, max_tokens=budget)
                for budget in BUDGETS
                for p in prompts[:4]
            ],
        },
    ]
    return vllm(model_dir, batches, tmp_path_factory.mktemp("vllm-processor"))


def _texts(batch: dict[str, Any]) -> list[str]:
    assert batch["error"] is None, batch["error"]
    return [completion["text"] for request in batch["outputs"] for completion in request]


def _anchored_non_canonical(text: str) -> list[str]:
    """Text at each anchor (outside `<think>`) that does not begin a canonical citation: what the
    processor promises never to let through. Citations written without an anchor (a date and case
    number with no court) are free text to the grammar, and not counted."""
    visible = THINK.sub(lambda block: " " * len(block.group()), text)
    canonical = {
        f.span[0]
        for f in find_citations(visible, lenient=False)
        if visible[f.span[0] : f.span[1]] == f.citation.canonical()
    }
    return [
        visible[m.start() : m.start() + 40] for m in ANCHORS.finditer(visible) if m.start() not in canonical
    ]


@pytest.mark.parametrize("name", ["greedy", "sampled"], ids=["greedy", "sampled"])
def test_every_citation_is_canonical_under_the_processor(results: dict[str, Any], name: str) -> None:
    texts = _texts(results[name])
    assert [bad for text in texts for bad in _anchored_non_canonical(text)] == []
    assert sum(len(find_citations(text)) for text in texts) > 0, "expected the model to cite at all"


def test_the_same_model_writes_malformed_citations_without_the_processor(results: dict[str, Any]) -> None:
    """The check above can fail: unconstrained, the same sampling writes anchors that begin no citation."""
    assert any(_anchored_non_canonical(text) for text in _texts(results["sampled-free"]))


def test_per_request_options_reach_their_rows_as_the_batch_changes(results: dict[str, Any]) -> None:
    batch = results["mixed"]
    assert batch["error"] is None, batch["error"]
    statutes, cases, answers, free, citations = batch["outputs"]
    assert [len(r) for r in batch["outputs"]] == [n for _, n, _ in MIXED]
    for completion in statutes:
        parsed = parse_citation(completion["text"])
        assert isinstance(parsed, StatuteCitation) and parsed.act == "민법", completion
    for completion in cases:
        parsed = parse_citation(completion["text"])
        assert isinstance(parsed, CaseCitation) and parsed.court == "대법원", completion
    for completion in citations:
        assert parse_citation(completion["text"]) is not None, completion
    for completion in answers:
        assert _anchored_non_canonical(completion["text"]) == []
    assert all(completion["token_ids"] for completion in free)


@pytest.mark.parametrize("position", range(len(REFUSED)), ids=[needle for _, needle in REFUSED])
def test_malformed_options_are_refused_with_a_message(results: dict[str, Any], position: int) -> None:
    error = results[f"refused-{position}"]["error"]
    assert error is not None and REFUSED[position][1] in error and "expected" in error


def test_a_citation_in_progress_always_closes_within_the_budget(
    results: dict[str, Any], loaded: LoadedModel
) -> None:
    """Every max_tokens from 1 up, four sampled answers each: replayed through the answer language's
    automaton, no completion ends inside a citation, and some end with a citation closed on the
    last token (the budget rule had work to do)."""
    batch = results["budgets"]
    assert batch["error"] is None, batch["error"]
    index = compile_language(CitationOptions().grammar_object(), loaded.vocabulary).index
    inside, closed_on_the_last_token = [], 0
    for request in batch["outputs"]:
        for completion in request:
            state, was_in_citation = index.initial_state, False
            for token in completion["token_ids"]:
                was_in_citation = index.in_citation(state)
                state = index.advance(state, token)
            if index.in_citation(state) and not index.is_accepting(state):
                inside.append(completion["text"])
            closed_on_the_last_token += completion["finish_reason"] == "length" and (
                was_in_citation and not index.in_citation(state)
            )
    assert inside == []
    assert closed_on_the_last_token >= 1


def test_the_engine_serves_on_after_refusals(results: dict[str, Any]) -> None:
    assert _texts(results["after-refusals"])[0]


@pytest.fixture(scope="module")
def loaded(model_dir: Path) -> LoadedModel:
    return load_model(model_dir, "cpu")


@pytest.fixture(scope="module")
def engine_texts(loaded: LoadedModel, questions: list[str]) -> list[str]:
    """citegen's own engine, greedy, on the same model, prompts and answer language."""
    vocabulary = vocabulary_of(loaded.tokenizer, loaded.vocab_size)
    language = CitationOptions().grammar_object()  # what the processor compiles for default options
    library = ConstraintLibrary(lambda _: compile_language(language, vocabulary), loaded.vocab_size)
    engine = Engine(loaded, library, max_batch=8)
    sampling = SamplingParams(max_new_tokens=64)
    requests = [Request(messages=(("user", q),), sampling=sampling) for q in questions]
    return [next(e for e in engine.stream(r) if isinstance(e, Finished)).text for r in requests]


def test_greedy_outputs_agree_with_citegens_engine(
    results: dict[str, Any], engine_texts: list[str], loaded: LoadedModel
) -> None:
    """Same model, prompts and language: greedy vLLM equals the built-in loop token for token (both
    float32 on CPU; a difference would be an argmax near-tie under another attention kernel). Texts
    are compared as the engine writes them: EOS is no text, an unfinished character is dropped."""
    vllm_texts = [
        b"".join(loaded.token_bytes[t] for t in c["token_ids"] if t not in loaded.eos_ids).decode(
            "utf-8", "ignore"
        )
        for r in results["greedy"]["outputs"]
        for c in r
    ]
    differing = [(i, a, b) for i, (a, b) in enumerate(zip(vllm_texts, engine_texts, strict=True)) if a != b]
    assert differing == [], (
        f"{len(vllm_texts) - len(differing)}/{len(vllm_texts)} agree; first differences {differing[:2]}"
    )
