"""The corpus generator: seeded, grounded in the data, mostly canonical, sometimes messy or wrong."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from citegen.training.corpus import CANONICAL, CorpusGenerator, Sample, josa
from citegen.training.errors import TrainingDataError, TrainingError
from citegen.training.sources import LawData, read_law_data
from grammars import CaseCitation, StatuteCitation, parse_citation

from .conftest import ACTS, CONSTITUTIONAL, DECISIONS, _prec_xml, write_law_data

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


def _one_decision(root: Path, kind: str, delivery: str, name: str) -> CaseCitation:
    law_dir, case_dir = write_law_data(root)
    for old in case_dir.iterdir():
        old.unlink()
    (case_dir / "one.xml").write_text(_prec_xml("대법원", "2022두49944", "20240222", name, kind, "", delivery),
                                      encoding="utf-8")
    (decision,) = read_law_data(law_dir, case_dir).decisions
    return decision.citation


@pytest.mark.parametrize(
    ("kind", "delivery", "name", "expected"),
    [("판결", "선고", "시정명령등취소", "대법원 2024. 2. 22. 선고 2022두49944 판결"),
     ("판결", "선고", "거절결정(특)", "대법원 2024. 2. 22. 선고 2022두49944 판결"),
     ("전원합의체 판결", "선고", "손해배상(기)", "대법원 2024. 2. 22. 선고 2022두49944 전원합의체 판결"),
     ("결정", "고지", "부동산경매", "대법원 2024. 2. 22.자 2022두49944 결정"),
     ("결정", "선고", "위헌법률심판제청", "대법원 2024. 2. 22. 선고 2022두49944 결정"),
     ("", "", "재산명시명령", "대법원 2024. 2. 22.자 2022두49944 명령")],
    ids=["case-name-with-명령-is-a-판결", "case-name-with-결정-is-a-판결", "full-bench", "notified-decision",
         "pronounced-decision-keeps-its-선고", "no-판결유형-falls-back-to-사건명"],
)
def test_disposition_comes_from_판결유형_and_delivery_from_the_record(
        tmp_path: Path, kind: str, delivery: str, name: str, expected: str) -> None:
    assert _one_decision(tmp_path, kind, delivery, name).canonical() == expected


def test_two_courts_decisions_with_one_number_are_both_kept(tmp_path: Path) -> None:
    # case numbers are per court: 부산고등법원 and 서울고등법원 can each have a 2022나2034567
    law_dir, case_dir = write_law_data(tmp_path)
    (case_dir / "busan.xml").write_text(
        _prec_xml("부산고등법원", "2022나2034567", "20230601", "대여금", "판결", "민법 제750조"), encoding="utf-8")
    courts = [d.citation.court for d in read_law_data(law_dir, case_dir).decisions
              if str(d.citation.case_number) == "2022나2034567"]
    assert courts == ["부산고등법원", "서울고등법원"]


def test_an_article_whose_first_paragraph_is_deleted_keeps_the_next_one(tmp_path: Path) -> None:
    law_dir, case_dir = write_law_data(tmp_path)
    units = "".join(
        f"<조문단위><조문번호>{number}</조문번호><조문여부>조문</조문여부><조문제목>{title}</조문제목>"
        f"<조문내용>제{number}조({title})</조문내용>"
        + "".join(f"<항><항번호>{mark}</항번호><항내용>{mark} {text}</항내용></항>" for mark, text in paragraphs)
        + "</조문단위>"
        for number, title, paragraphs in [
            (2, "폭행 등", [("①", "삭제 &lt;2016. 1. 6.&gt;"),
                          ("②", "2명 이상이 공동하여 죄를 범한 사람은 가중한다.")]),
            (3, "집단적 폭행 등", [("①", "삭제 &lt;2006. 3. 24.&gt;"), ("②", "삭제 &lt;2016. 1. 6.&gt;")]),
            (5, "자료의 삭제", [("①", "삭제된 자료는 복구하지 아니한다.")]),
        ])
    (law_dir / "zz.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?><법령><기본정보><법령명_한글>폭력행위 등 처벌에 관한 법률</법령명_한글>'
        f"</기본정보><조문>{units}</조문></법령>", encoding="utf-8")
    act = next(a for a in read_law_data(law_dir, case_dir).acts if a.name == "폭력행위 등 처벌에 관한 법률")
    assert [(a.number, a.text, a.paragraphs) for a in act.articles] == [
        (2, "2명 이상이 공동하여 죄를 범한 사람은 가중한다.", 2),  # 제3조: every paragraph deleted
        (5, "삭제된 자료는 복구하지 아니한다.", 1),  # a title or text that mentions 삭제 is no deletion
    ]


def test_a_law_folder_without_acts_is_named(tmp_path: Path) -> None:
    law_dir, case_dir = write_law_data(tmp_path)
    for body in law_dir.glob("*.xml"):
        body.unlink()
    with pytest.raises(TrainingDataError, match=f"expected law.go.kr <법령> bodies .* in {law_dir}, got no act"):
        read_law_data(law_dir, case_dir)


def test_a_missing_case_folder_is_named_as_missing(tmp_path: Path) -> None:
    law_dir, _ = write_law_data(tmp_path)
    with pytest.raises(TrainingDataError, match=f"case bodies .*got {tmp_path / 'nowhere'}, which does not exist"):
        read_law_data(law_dir, tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("folder", "name", "content", "expected"),
    [("cases", "truncated.json", '{"PrecService": {"사건번호": "2020다1234"'.encode(), "expected JSON in"),
     ("cases", "korean.json", '{"사건명": "판례"}'.encode("euc-kr"), "expected UTF-8 JSON in"),
     ("law", "aliases.json", '["주임법", "주택임대차보호법"]'.encode(), "expected a JSON object of .*, got a list"),
     ("law", "aliases.json", '{"주임법": "주택임대차보호법",}'.encode(), "expected JSON in"),
     ("law", "aliases.json", '{"주임법": 3}'.encode(), "expected act names as strings in")],
    ids=["truncated-case-json", "euc-kr-case-json", "aliases-a-list", "aliases-trailing-comma", "aliases-not-strings"],
)
def test_a_bad_file_is_refused_with_its_path(tmp_path: Path, folder: str, name: str, content: bytes,
                                             expected: str) -> None:
    law_dir, case_dir = write_law_data(tmp_path)
    bad = (case_dir if folder == "cases" else law_dir) / name
    bad.write_bytes(content)
    with pytest.raises(TrainingDataError, match=expected) as refused:
        read_law_data(law_dir, case_dir)
    assert str(bad) in str(refused.value)


def test_a_record_with_an_impossible_date_is_skipped_with_a_warning(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    law_dir, case_dir = write_law_data(tmp_path)
    (case_dir / "bad.xml").write_text(_prec_xml("대법원", "2020다1234", "20201301", "대여금", "판결", ""),
                                      encoding="utf-8")
    data = read_law_data(law_dir, case_dir)
    assert "2020다1234" not in {str(d.citation.case_number) for d in data.decisions}
    assert len(data.decisions) == len(DECISIONS) + len(CONSTITUTIONAL)
    assert "bad.xml" in caplog.text and "'20201301'" in caplog.text


def test_a_reference_to_an_article_outside_the_corpus_is_refused_naming_both(data: LawData) -> None:
    civil = next(act for act in data.acts if act.name == "민법")
    dangling = dataclasses.replace(civil.articles[0], references=(StatuteCitation("민법", 751, 2),))
    broken = dataclasses.replace(data, acts=tuple(
        dataclasses.replace(act, articles=(dangling, *act.articles[1:])) if act is civil else act
        for act in data.acts))
    with pytest.raises(TrainingDataError, match=r"expected 민법 제750조 to refer .* got 민법 제751조의2"):
        list(CorpusGenerator(broken, seed=0).samples(200))


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [({"messy_rate": -1.0}, "expected messy_rate between 0 and 1, got -1.0"),
     ({"messy_rate": 7.0}, "expected messy_rate between 0 and 1, got 7.0"),
     ({"think_rate": float("nan")}, "expected think_rate between 0 and 1, got nan")],
    ids=["negative-messy-rate", "messy-rate-above-one", "nan-think-rate"],
)
def test_a_share_outside_0_to_1_is_refused(data: LawData, arguments: dict[str, float], expected: str) -> None:
    with pytest.raises(TrainingError, match=expected):
        CorpusGenerator(data, seed=0, **arguments)


def test_a_negative_number_of_samples_is_refused(data: LawData) -> None:
    with pytest.raises(TrainingError, match="expected a number of samples ≥ 0, got -5"):
        CorpusGenerator(data, seed=0).samples(-5)
