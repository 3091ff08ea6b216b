"""Helpers of the sample-data generator whose mistakes would not show in a byte-for-byte comparison."""

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from grammars import CaseNumber

Loader = Callable[[str], ModuleType]


@pytest.mark.parametrize(
    ("previous", "text", "expected"),
    [
        ("동조 제2항", "가 금지한다", "이 금지한다"),
        ("제76조의2", "이 적용된다", "가 적용된다"),
        ("판결", "는 같다", "은 같다"),
        ("2009다17417", "를 본다", "을 본다"),
        ("2005스219", "과 같다", "와 같다"),
        ("민법 제750조", "이러한", "이러한"),  # a word, not a particle
        ("민법 제750조", "에 따라", "에 따라"),
    ],
    ids=["항+가", "의2+이", "결+는", "7+를", "9+과", "word", "invariant"],
)
def test_particles_agree_with_the_citation_before_them(sample_data: Loader, previous: str, text: str,
                                                       expected: str) -> None:
    assert sample_data("drafts").attach_particle(previous, text) == expected


def test_json_folding_follows_law_go_kr(sample_data: Loader) -> None:
    nodes = sample_data("nodes")
    root = nodes.Node("법령", attrs={"법령키": "1"})
    root.add("법종구분", "법률", 법종구분코드="A0002")
    articles = root.add("조문")
    articles.add("조문단위").add("조문번호", 1)
    lone = root.add("별표")
    lone.add("별표단위").add("별표번호", "0001")
    assert nodes.json_document(root) == {"법령": {
        "법령키": "1",
        "법종구분": {"content": "법률", "법종구분코드": "A0002"},
        "조문": {"조문단위": {"조문번호": "1"}},
        "별표": {"별표단위": {"별표번호": "0001"}},
    }}
    articles.add("조문단위").add("조문번호", 2)
    assert nodes.json_document(root)["법령"]["조문"] == {"조문단위": [{"조문번호": "1"}, {"조문번호": "2"}]}


@pytest.mark.parametrize(
    ("written", "number"),
    [("95다55245", CaseNumber(1995, "다", 55245)), ("2024도4202", CaseNumber(2024, "도", 4202)),
     ("(춘천)2019나1289", CaseNumber(2019, "나", 1289, "춘천")), ("2008재도11", CaseNumber(2008, "재도", 11))],
    ids=["two-digit year", "four-digit year", "원외재판부", "재심 code"],
)
def test_case_numbers_round_trip(sample_data: Loader, written: str, number: CaseNumber) -> None:
    assert sample_data("cases").parse_number(written) == number
    assert str(number) == written


def test_reference_statutes_name_each_act_once_per_run(sample_data: Loader) -> None:
    provisions = (("민법", 750, 0), ("민법", 756, 0), ("근로기준법", 76, 2), ("민법", 3, 0))
    written = sample_data("cases").reference_statutes(provisions)
    assert written == "민법 제750조, 제756조, 근로기준법 제76조의2, 민법 제3조"


def test_cp949_drafts_are_not_utf8_and_decode_as_cp949(sample_data: Loader) -> None:
    build = sample_data("build")
    drafts = Path(build.DATA_DIR) / "drafts"
    for name in build.CP949_DRAFTS:
        raw = (drafts / name).read_bytes()
        with pytest.raises(UnicodeDecodeError):
            raw.decode("utf-8")
        assert "의견" in raw.decode("cp949")


def test_draft_labels_read_같은_법_after_a_decree_as_its_법률_and_같은_영_as_the_decree(sample_data: Loader) -> None:
    drafts = sample_data("drafts")
    acts = {act.spec.name: act for act in sample_data("statutes").build_acts(0)}
    builder = drafts.DraftBuilder("x.txt", acts)
    builder.statute("canonical", "근로기준법 시행령", 30).statute("같은 법", article=23)
    builder.statute("같은 영", article=31).statute("동조")
    assert [(label.original, label.expected_canonical) for label in builder.labels] == [
        ("근로기준법 시행령 제30조", "근로기준법 시행령 제30조"), ("같은 법 제23조", "근로기준법 제23조"),
        ("같은 영 제31조", "근로기준법 시행령 제31조"), ("동조", "근로기준법 시행령 제31조")]
    with pytest.raises(drafts.LabelError, match="같은 법"):  # a template may not name the decree for 같은 법
        builder.statute("같은 법", "근로기준법 시행령", 30)
