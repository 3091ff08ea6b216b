"""The corpus generator: seeded, grounded in the data, mostly canonical, sometimes messy or wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from citegen.training.corpus import CANONICAL, CorpusGenerator, Sample, josa
from citegen.training.errors import TrainingDataError
from citegen.training.sources import LawData, read_law_data
from grammars import CaseCitation, StatuteCitation, parse_citation

from .conftest import ACTS, CONSTITUTIONAL, DECISIONS

SAMPLES = 600


@pytest.fixture(scope="module")
def data(law_data_dirs: tuple[Path, Path]) -> LawData:
    return read_law_data(*law_data_dirs)


@pytest.fixture(scope="module")
def samples(data: LawData) -> list[Sample]:
    return list(CorpusGenerator(data, seed=7).samples(SAMPLES))


def test_reader_keeps_articles_and_drops_headings_and_deleted_articles(data: LawData) -> None:
    civil = next(act for act in data.acts if act.name == "민법")
    assert [(a.number, a.branch) for a in civil.articles] == [(750, None), (751, None), (312, 2)]
    assert civil.highest_article == 900
    assert next(act for act in data.acts if act.name == "주택임대차보호법").short_name == "주택임대차법"
    assert data.aliases == {"주임법": "주택임대차보호법"}


def test_reader_builds_case_citations_from_the_records(data: LawData) -> None:
    by_number = {str(d.citation.case_number): d for d in data.decisions}
    assert len(by_number) == len(DECISIONS) + len(CONSTITUTIONAL)
    assert by_number["95다38677"].citation.canonical() == "대법원 1996. 4. 12. 선고 95다38677 판결"
    assert by_number["2023마6489"].citation.canonical() == "대법원 2023. 1. 12.자 2023마6489 결정"
    assert by_number["2017헌마1281"].citation.canonical() == "헌법재판소 2020. 3. 26. 선고 2017헌마1281 전원재판부 결정"
    assert by_number["95다38677"].statutes == (StatuteCitation("민법", 750), StatuteCitation("민법", 751))
    assert by_number["2023마6489"].statutes == (StatuteCitation("민법", 312, 2),)


def test_reader_rejects_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(TrainingDataError, match="expected a folder"):
        read_law_data(tmp_path / "law", tmp_path / "cases")


def test_same_seed_gives_the_same_corpus_and_another_seed_does_not(data: LawData, samples: list[Sample]) -> None:
    assert list(CorpusGenerator(data, seed=7).samples(SAMPLES)) == samples
    assert list(CorpusGenerator(data, seed=8).samples(SAMPLES)) != samples


def test_canonical_citations_carry_the_field_values_of_the_data(samples: list[Sample]) -> None:
    cases = {(court, number, date) for court, number, date, *_ in DECISIONS}
    cases |= {("헌법재판소", number, date) for number, date, *_ in CONSTITUTIONAL}
    articles = {(name, number, branch) for name, (_, _, rows) in ACTS.items() for number, branch, *_ in rows}
    for sample in samples:
        for use in sample.citations:
            if use.form != CANONICAL:
                continue
            assert use.text == use.source.canonical() and use.text in sample.answer
            assert parse_citation(use.text) == use.source
            if isinstance(use.source, CaseCitation):
                date = use.source.date.strftime("%Y%m%d") if use.source.date else ""
                assert (use.source.court, str(use.source.case_number), date) in cases
            else:
                assert isinstance(use.source, StatuteCitation)
                assert (use.source.act, use.source.article, use.source.article_branch) in articles


def test_most_citations_are_canonical_and_the_rest_are_not(samples: list[Sample]) -> None:
    uses = [use for sample in samples for use in sample.citations]
    messy = [use for use in uses if use.form != CANONICAL]
    assert 0.12 <= len(messy) / len(uses) <= 0.28
    assert all(use.text != use.source.canonical() for use in messy)
    assert {"supreme_court_short", "no_final_dot", "wrong_day", "missing_article", "abbreviated_act"} <= {
        use.form for use in messy
    }


def test_some_answers_think_first(samples: list[Sample]) -> None:
    thinking = [s for s in samples if s.answer.startswith("<think>")]
    assert 0.15 <= len(thinking) / len(samples) <= 0.35
    assert all("</think>\n" in s.answer for s in thinking)


@pytest.mark.parametrize(
    ("word", "expected"),
    [("민법 제750조", "민법 제750조는"),
     ("대법원 2024. 7. 11. 선고 2024도4202 판결", "대법원 2024. 7. 11. 선고 2024도4202 판결은"),
     ("형법 제250조 제1항", "형법 제250조 제1항은"), ("대판 2024.7.11, 2024도4202", "대판 2024.7.11, 2024도4202는"),
     ("(2024도4203)", "(2024도4203)은")],
    ids=["vowel", "final-consonant", "hang", "digit-vowel", "digit-consonant-in-parentheses"],
)
def test_josa_follows_the_last_sound(word: str, expected: str) -> None:
    assert josa(word, "은", "는") == expected


def test_answers_often_echo_a_messy_citation_of_the_question(samples: list[Sample]) -> None:
    messy = [s for s in samples if s.asked is not None and s.asked.form != CANONICAL]
    echoed = [s for s in messy if s.asked is not None and s.asked.text in s.answer]
    assert len(messy) >= 20 and 0.4 <= len(echoed) / len(messy) <= 0.8
