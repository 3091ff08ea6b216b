"""The `citegen_*` extra_args, parsed without vLLM: what is accepted, what is refused and why."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from citegen.constraint import Narrowing
from citegen.errors import CitegenError
from citegen.integrations.options import CitationOptions, ExtraArgsError, WorkerConfig, engine_config
from grammars import DEAD
from grammars.compile import automaton_of
from grammars.grammar import AnswerGrammar, CitationGrammar

ACCEPTED = [
    ({}, None),
    ({"temperature_hint": 1}, None),  # keys of other processors are not ours
    ({"citegen_grammar": "answer"}, CitationOptions()),
    (
        {"citegen_grammar": "statute", "citegen_acts": ["민법"]},
        CitationOptions("statute", Narrowing(acts=("민법",))),
    ),
    (
        {"citegen_courts": ["대법원"], "citegen_think": 0},
        CitationOptions(narrowing=Narrowing(courts=("대법원",)), think=False),
    ),
    (
        {"citegen_acts": [], "citegen_shorthand": 1},
        CitationOptions(narrowing=Narrowing(acts=()), shorthand=True),
    ),
]
REFUSED = [
    ({"citegen_grammar": "regex"}, "citegen_grammar to be one of"),
    ({"citegen_acts": "민법"}, "non-empty list of names"),
    ({"citegen_grammar": "statute", "citegen_acts": []}, "non-empty list of names"),
    ({"citegen_acts": [], "citegen_courts": []}, "both empty"),
    ({"citegen_acts": ["없는법"]}, "없는법"),
    ({"citegen_courts": ["달나라법원"]}, "달나라법원"),
    ({"citegen_think": 2}, "citegen_think to be 0 or 1"),
    ({"citegen_think": 1.0}, "citegen_think to be 0 or 1"),
    ({"citegen_colour": 1}, "citegen_colour"),
    ({"citegen_grammar": "case", "citegen_acts": ["민법"]}, "cannot use"),
    ({"citegen_lexicon": "/nonexistent/lexicon.json"}, "readable lexicon file"),
]


@pytest.mark.parametrize(
    ("extra_args", "expected"), ACCEPTED, ids=[json.dumps(a, ensure_ascii=False) for a, _ in ACCEPTED]
)
def test_accepted_options(extra_args: dict[str, Any], expected: CitationOptions | None) -> None:
    options = CitationOptions.from_extra_args(extra_args)
    assert options == expected
    if options is not None:
        assert CitationOptions.from_extra_args(options.as_extra_args()) == options


@pytest.mark.parametrize(("extra_args", "needle"), REFUSED, ids=[needle for _, needle in REFUSED])
def test_refused_options_say_what_was_expected(extra_args: dict[str, Any], needle: str) -> None:
    with pytest.raises(ExtraArgsError, match="expected") as refused:
        CitationOptions.from_extra_args(extra_args)
    assert needle in str(refused.value)
    assert isinstance(
        refused.value, ValueError
    )  # vLLM answers a ValueError from validate_params with HTTP 400


def test_a_lexicon_file_narrows_statutes_to_the_database(tmp_path: Path) -> None:
    lexicon = tmp_path / "lexicon.json"
    lexicon.write_text(
        json.dumps({"민법": ["750", "751"], "형법": None}, ensure_ascii=False), encoding="utf-8"
    )
    options = CitationOptions.from_extra_args({"citegen_grammar": "statute", "citegen_lexicon": str(lexicon)})
    with pytest.raises(ExtraArgsError, match="근로기준법"):
        CitationOptions.from_extra_args({"citegen_lexicon": str(lexicon), "citegen_acts": ["근로기준법"]})
    grammar = options.grammar_object()
    assert isinstance(grammar, CitationGrammar)
    pattern = re.compile(grammar.expr.to_regex())
    assert pattern.fullmatch("민법 제750조") and pattern.fullmatch("형법 제250조 제1항")
    assert not pattern.fullmatch("민법 제752조")  # an article the database does not hold


@pytest.mark.parametrize(
    ("extra_args", "kinds"),
    [
        ({"citegen_grammar": "answer"}, 2),
        ({"citegen_acts": []}, 1),
        ({"citegen_courts": []}, 1),
    ],
    ids=["both", "cases only", "statutes only"],
)
def test_answer_grammar_keeps_the_kinds_asked_for(extra_args: dict[str, Any], kinds: int) -> None:
    grammar = CitationOptions.from_extra_args(extra_args).grammar_object()
    assert isinstance(grammar, AnswerGrammar) and len(grammar.citations) == kinds


def test_a_narrowed_answer_grammar_leaves_no_other_act_writable_as_free_text() -> None:
    grammar = CitationOptions.from_extra_args({"citegen_acts": ["민법"]}).grammar_object()
    automaton = automaton_of(grammar)
    assert automaton.walk(automaton.initial, "민법 제750조에 따라".encode()) != DEAD
    assert automaton.walk(automaton.initial, "형법 제250조에 따라".encode()) == DEAD


def test_the_engine_config_a_worker_reads_is_what_the_front_end_wrote(tmp_path: Path) -> None:
    """The service's options reach every worker through vLLM's additional_config and come back equal, so
    a worker readies the narrowings of the very lexicon file its requests name."""
    lexicon = tmp_path / "lexicon.json"
    lexicon.write_text(json.dumps({"민법": ["750"]}, ensure_ascii=False), encoding="utf-8")
    served = CitationOptions(lexicon=str(lexicon), shorthand=True)
    config = WorkerConfig.of(engine_config(tmp_path / "cache", served))
    assert config == WorkerConfig(tmp_path / "cache", served)
    assert WorkerConfig.of(engine_config(None)) == WorkerConfig()
    assert WorkerConfig.of({}) == WorkerConfig()


@pytest.mark.parametrize(
    "entry, error, needle",
    [
        (["/tmp/cache"], CitegenError, "'index_cache_dir': path or None"),
        ({"index_cache_dir": None, "lexicon": "x.json"}, CitegenError, "'lexicon': 'x.json'"),
        ({"served": {"citegen_grammar": "regex"}}, ExtraArgsError, "citegen_grammar to be one of"),
        ({"served": {"citegen_lexicon": "/nonexistent/lexicon.json"}}, ExtraArgsError, "/nonexistent/lexicon.json"),
    ],
    ids=["not-a-mapping", "unknown-key", "bad-served-grammar", "unreadable-lexicon"],
)
def test_a_worker_refuses_an_engine_config_it_cannot_use(entry: object, error: type[Exception], needle: str) -> None:
    """A worker that cannot read its settings stops at its start, saying what it got, rather than serve
    requests it would fail one by one."""
    with pytest.raises(error, match=re.escape(needle)):
        WorkerConfig.of({"citegen": entry})


@pytest.mark.parametrize(
    ("grammar", "written"),
    [("answer", "민소법"), ("statute", "민소법"), ("citation", "주택임대차법")],
    ids=["answer-informal", "statute-informal", "citation-official-short-name"],
)
def test_an_act_narrowed_to_by_another_of_its_names_is_cited_by_the_lexicons_name(
    grammar: str, written: str
) -> None:
    """`citegen_acts: ["민소법"]` once narrowed the language to citations of `민소법 제N조`, a form the
    design keeps out of every output, and left the canonical `민사소송법 제N조` unwritable."""
    options = CitationOptions.from_extra_args({"citegen_grammar": grammar, "citegen_acts": [written]})
    canonical = {"민소법": "민사소송법", "주택임대차법": "주택임대차보호법"}[written]
    assert options is not None and options.narrowing.acts == (canonical,)
    automaton = automaton_of(options.grammar_object())
    assert automaton.walk(automaton.initial, f"{canonical} 제1조".encode()) != DEAD
    assert automaton.walk(automaton.initial, f"{written} 제1조".encode()) == DEAD


def test_an_act_named_twice_narrows_once() -> None:
    options = CitationOptions.from_extra_args({"citegen_acts": ["민소법", "민사소송법", "형법"]})
    assert options is not None and options.narrowing.acts == ("민사소송법", "형법")


def test_an_abbreviation_the_lexicon_file_lacks_narrows_to_the_act_it_holds(tmp_path: Path) -> None:
    """A lexicon exported from the real statute book holds no `민소법`: narrowed by it, a request was refused
    though the finder reads it; an abbreviation of an act the file lacks stays refused."""
    lexicon = tmp_path / "lexicon.json"
    lexicon.write_text(json.dumps({"민사소송법": ["1"], "형법": None}, ensure_ascii=False), encoding="utf-8")
    options = CitationOptions.from_extra_args({"citegen_lexicon": str(lexicon), "citegen_acts": ["민소법"]})
    assert options is not None and options.narrowing.acts == ("민사소송법",)
    with pytest.raises(ExtraArgsError, match="근기법"):
        CitationOptions.from_extra_args({"citegen_lexicon": str(lexicon), "citegen_acts": ["근기법"]})
