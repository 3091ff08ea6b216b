"""What find_citations costs on hostile text: no backtracking blow-up, time in proportion to the
length, and the trie of act names (the statute pattern's hot part) equal to the flat alternation."""

from __future__ import annotations

import re
import time

import pytest

from grammars import find_citations
from grammars.act_names import official_dots
from grammars.find import _statute_pattern as statute_pattern
from grammars.find import default_finder
from grammars.index import collector_paused
from grammars.name_pattern import lenient_names as trie_of_names

LONG_RUNS = [
    ("대법원 2024. 7. 11." + " " * 3000 + "x", 0), ("대법원 2024. 7. 11., " + " " * 3000 + "선고 x", 0),
    ("민법 제3조" + " " * 3000 + ",", 1), ("제 " * 3000, 0), ("2024" + " " * 3000 + "도", 0),
    ("동조" + " " * 3000 + "제", 1), ("같은 법" + " " * 3000 + "시행령 제", 0),
    ("민법(이하" + " " * 3000 + "'법'" + " " * 3000 + "이라" + " " * 3000 + ")", 0),
    ("대법원 2024. 7. 11. 선고 2024도1," + " " * 3000 + "2", 1), ("민법 제" + "O" * 3000 + "1", 0),
    ("민법 제3조 중" + " " * 3000 + "제1조" + " " * 3000 + "제2항" + " " * 3000 + "에", 1),
]


@pytest.mark.parametrize(("text", "count"), LONG_RUNS,
                         ids=["after-date", "after-comma", "after-statute", "repeated-je", "year-then-code",
                              "after-same-article", "decree-back-reference", "declaration", "case-list",
                              "lookalike-letters", "part-of-provision"])
def test_long_runs_of_spaces_do_not_backtrack(text: str, count: int) -> None:
    # Regression: adjacent optional space runs once made a failing match cost O(n^4) (28 s at n=200).
    # Each case returns at once now; a hang here is that bug back.
    assert len(find_citations(text)) == count


HOSTILE = {
    "long line of one syllable": "법" * 20_000,
    "long run of articles": "제1조 " * 4_000,
    "long list after an act": "민법 제1조" + ", 제2조" * 3_000,
    "long run of spaces": "민법" + " " * 20_000 + "제750조",
    "unclosed quotes": "「" * 5_000 + "‘" * 5_000 + "(" * 5_000,
    "구 over and over": "구 " * 8_000 + "법률 제1조",
    "html and markdown": "<p>**민법** 제750조</p><br/>" * 1_000 + "[링크](http://x) `code` | 표 |" * 500,
    "mixed scripts and ocr": "民法 第750條 Civil Act Art. 750 민볍 제75O조 대법윈 2O24도42O2 " * 800,
    "many notes": "국가보안법(1980. 12. 31. 법률 제3318호로 전문개정되고 " * 2_000,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_input_costs_time_in_proportion_to_its_length(text: str) -> None:
    """No crash and no blow-up: four times the text costs at most about four times the CPU (a bound on
    work per byte, read off the ratio, never off the wall clock)."""
    find_citations(text)  # patterns (and caches a run of earlier tests may have emptied) outside the measurement

    def cost(sample: str) -> float:
        with collector_paused():  # a full collection over earlier tests' objects is not the finder's work
            started = time.process_time()
            for _ in range(3):
                find_citations(sample)
            return time.process_time() - started

    quarter = text[: len(text) // 4]
    assert cost(text) <= 8 * cost(quarter) + 0.05


def _flat_names(names: tuple[str, ...]) -> str:
    """The alternation the trie stands for: every name, longest first, spaces optional, any middle dot."""
    return "(?:" + "|".join(re.escape(name).replace("\\ ", "[ \t\u00a0\u3000]?").replace("ㆍ", "[ㆍ·・‧]")
                            for name in sorted(set(names), key=len, reverse=True)) + ")"


def test_the_trie_of_act_names_finds_what_the_flat_longest_first_alternation_finds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lexicon = default_finder().lexicon
    names = lexicon.grammar_names + tuple(lexicon.informal)
    variants = [variant for name in names for variant in
                (name, name.replace(" ", ""), name.replace("ㆍ", "·"), f"{name} 시행령", f"{name.replace(' ', '')}시행규칙")]
    text = "\n".join(f"{variant} 제3조 제1항, {variant}제4조의2 및 구 {variant} 부칙 제2조" for variant in variants)
    trie = re.compile(statute_pattern(names))
    monkeypatch.setattr("grammars.find.lenient_names", _flat_names)
    flat = re.compile(statute_pattern(names))

    found = [(match.span(), match.groupdict()) for match in trie.finditer(text)]

    assert found == [(match.span(), match.groupdict()) for match in flat.finditer(text)]
    assert len(found) > len(variants)  # each line has a head with a name
    # Shared prefixes share a branch; the longer branch first, a name ending at a node last.
    assert (trie_of_names(["민법", "민법 시행규칙", "민사소송법", "민사 집행법"])
            == "민(?:법(?:[ \t\u00a0\u3000]?시행규칙|)|사(?:[ \t\u00a0\u3000]?집행법|소송법))")


@pytest.mark.parametrize("text", ["민법", "국가유공자 등 예우 및 지원에 관한 법률", "10·27법난", "국가보훈・보훈처ㆍ‧", "·", ""],
                         ids=["no-dot", "long-no-dot", "middle-dot", "every-dot", "dot-alone", "empty"])
def test_official_dots_is_the_translation_it_skips_where_no_dot_is(text: str) -> None:
    assert official_dots(text) == text.translate(str.maketrans({"·": "ㆍ", "・": "ㆍ", "‧": "ㆍ"}))
