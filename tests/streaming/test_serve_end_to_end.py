"""`citegen serve`'s parts end to end: the shipped model on CPU in the continuous-batching engine,
the verifier on the sample database, the answer service over a real socket. In strict mode every
citation a reader sees is a verified one, in canonical form, whatever the model wrote (every
canonical citation in the text came through as a verified citation event). A narrowed answer cites
only the courts and acts it allows, on both endpoints; an unknown name is refused with a problem
naming it before any stream starts; the same narrowing, however spelled, compiles once."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import httpx
import pytest
from streaming_kit import (
    answer,
    answer_concurrently,
    assert_only_verified_citations_visible,
    engine_service_parts,
)

from citegen.commands.serve_wiring import citable_names
from grammars import CaseCitation, as_lexicon, find_citations
from grammars.boundary import NOT_AFTER_WORD
from streaming import create_app
from streaming.config import StreamingSettings
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lexicon import build_lexicon

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "data" / "models" / "ko-legal-tiny"
QUESTIONS = [
    "불법행위로 인한 손해배상책임의 요건은 무엇인가요?",
    "근로자를 해고하려면 어떤 요건이 필요한가요?",
    "계약을 해제하면 어떤 효과가 있나요?",
    "사기죄는 언제 성립하나요?",
]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (MODEL / "config.json").exists(), reason="the shipped model is not in this checkout yet"
    ),
]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory):
    database = Database.open(f"sqlite:///{tmp_path_factory.mktemp('e2e') / 'citegen.sqlite3'}")
    import_paths(database, [ROOT / "data" / "synthetic_law", ROOT / "data" / "cases"])
    yield database
    database.close()


@pytest.fixture(scope="module")
def parts(database: Database):
    from citegen.models import load_model

    yield from engine_service_parts(database, load_model(MODEL, "cpu"), max_batch=len(QUESTIONS))


@pytest.fixture
def base(serve, database: Database, parts) -> str:
    """The service as `citegen serve` builds it, narrowable to the database's names."""
    source, verifier, _ = parts
    config = StreamingSettings(max_active=len(QUESTIONS))
    citable = citable_names(build_lexicon(database))
    return serve(create_app(config, source, verifier, citable=citable))  # the engine marks tentative prose


def test_concurrent_answers_show_only_verified_citations(base: str, parts) -> None:
    lexicon = parts[2]
    bodies = [{"question": question, "max_tokens": 48, "seed": i} for i, question in enumerate(QUESTIONS)]
    for events in answer_concurrently(base, bodies):
        assert_only_verified_citations_visible(events, lexicon)


# ---- narrowing ------------------------------------------------------------------------------

# Unnarrowed, the shipped model answers this (seed 0) citing 근로기준법 제43조.
QUESTION = "근로기준법상 해고 등의 제한에 대해 설명해 주세요."
ASKED = {"max_tokens": 48, "seed": 0, "policy": "annotate"}
ALLOWED = {"courts": ["대법원"], "acts": ["형법"]}
# Sampled answers to a question on what the narrowing allows: QUESTION's answer may, narrowed, cite
# nothing (its 근로기준법 refused, the model need not turn to 형법 or 대법원).
NARROWED_SAMPLES = [
    {"question": "사기죄는 언제 성립하나요?", "max_tokens": 48, "seed": seed, "temperature": 0.8,
     "policy": "annotate", **ALLOWED}
    for seed in range(3)
]
THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)  # never constrained


def cited(text: str, lexicon: dict) -> list[str]:
    """The court or act of every citation in `text`, however written (lenient finding)."""
    return [
        found.citation.court if isinstance(found.citation, CaseCitation) else found.citation.act
        for found in find_citations(text, lenient=True, lexicon=lexicon)
    ]


def answer_text(events: list[tuple[str, dict]]) -> str:
    assert events[-1][0] == "done", events[-1]
    return "".join(data["text"] for name, data in events if name in ("prose", "citation"))


def test_a_narrowed_answer_cites_only_the_allowed_courts_and_acts(base: str, parts) -> None:
    lexicon = parts[2]
    unnarrowed = cited(answer_text(answer(base, {"question": QUESTION, **ASKED}, timeout_s=120)), lexicon)
    assert "근로기준법" in unnarrowed  # what the narrowing has to keep out
    bodies = [{"question": QUESTION, **ASKED, **ALLOWED}, *NARROWED_SAMPLES]
    narrowed = []
    for events in answer_concurrently(base, bodies, timeout_s=120):
        found = cited(answer_text(events), lexicon)
        assert set(found) <= {"대법원", "형법"}, found
        assert [name for name, _ in events].count("citation") == len(found)
        narrowed += found
    assert narrowed  # the answers cite at all: the check above is not vacuous


def test_a_narrowed_answer_leaves_no_head_of_an_act_left_out_half_written(base: str, parts) -> None:
    """Narrowed to 근기법 (no cases), sampled answers never hold an act left out followed by 제 outside
    a <think> block: the model began `민법 제…` and, its digit refused, left `민법 제 있다` behind."""
    known = as_lexicon(parts[2])
    left_out = sorted(
        (name for name in (*known.grammar_names, *known.informal) if known.canonical_name(name) != "근로기준법"),
        key=len, reverse=True,
    )
    head = re.compile(NOT_AFTER_WORD + "(?:" + "|".join(map(re.escape, left_out)) + r")[ \t]*제")
    bodies = [
        {"question": question, "max_tokens": 48, "seed": seed, "temperature": 1.0, "policy": "annotate",
         "courts": [], "acts": ["근기법"]}
        for seed in range(2) for question in QUESTIONS
    ]
    for events in answer_concurrently(base, bodies):
        prose = THINKING.sub("", answer_text(events))
        assert not head.search(prose), prose


def test_the_chat_endpoint_narrows_by_its_extension_fields(base: str, parts) -> None:
    lexicon = parts[2]
    narrowed = []
    for asked in NARROWED_SAMPLES:
        body = {
            "model": "ko-legal-tiny",
            "messages": [{"role": "user", "content": asked["question"]}],
            "max_tokens": asked["max_tokens"],
            "seed": asked["seed"],
            "temperature": asked["temperature"],
            "citation_policy": "annotate",
            "citegen_courts": ALLOWED["courts"],
            "citegen_acts": ALLOWED["acts"],
        }
        response = httpx.post(f"{base}/v1/chat/completions", json=body, timeout=120)
        assert response.status_code == 200, response.text
        completion = response.json()
        found = cited(completion["choices"][0]["message"]["content"], lexicon)
        assert set(found) <= {"대법원", "형법"}, found
        assert len(completion["citations"]) == len(found)
        narrowed += found
    assert narrowed


REFUSED = [
    ("/v1/answers", {"question": QUESTION, "acts": ["형법", "없는법"]}, "acts", ["없는법"]),
    ("/v1/answers", {"question": QUESTION, "courts": ["대법원", "서울법원", "대판"]}, "courts", ["서울법원", "대판"]),
    (
        "/v1/chat/completions",
        {"model": "m", "messages": [{"role": "user", "content": QUESTION}], "citegen_acts": ["민볍"]},
        "citegen_acts",
        ["민볍"],
    ),
    (
        "/v1/chat/completions",
        {"model": "m", "messages": [{"role": "user", "content": QUESTION}], "citegen_courts": ["대법"]},
        "citegen_courts",
        ["대법"],
    ),
]


@pytest.mark.parametrize(
    ("path", "body", "field", "unknown"), REFUSED, ids=[f"{p}-{f}" for p, _, f, _ in REFUSED]
)
def test_unknown_names_are_refused_with_a_problem_naming_them(
    base: str, path: str, body: dict, field: str, unknown: list[str]
) -> None:
    response = httpx.post(f"{base}{path}", json=body, timeout=10)
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert [error["loc"] for error in problem["errors"]] == [["body", field]]
    assert f"got unknown {unknown}" in problem["errors"][0]["msg"]
    assert field in problem["detail"] and all(name in problem["detail"] for name in unknown)


def test_narrowing_out_every_citation_kind_is_refused(base: str) -> None:
    body = {"question": QUESTION, "courts": [], "acts": []}
    response = httpx.post(f"{base}/v1/answers", json=body, timeout=10)
    assert response.status_code == 422
    assert "courts or acts to leave a citation kind" in response.json()["detail"]


def test_the_same_narrowing_compiles_once_however_spelled(
    base: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="citegen.constraint")
    for acts in (["근로기준법", "형법"], ["형법", "근기법", "근로기준법"]):  # 근기법: informal for 근로기준법
        events = answer(base, {"question": QUESTION, "max_tokens": 4, "courts": [], "acts": acts})
        assert events[-1][0] == "done"
    compiled = [record.getMessage() for record in caplog.records if "compiled" in record.getMessage()]
    assert len(compiled) == 1 and "Narrowing(courts=(), acts=('근로기준법', '형법'))" in compiled[0], compiled
