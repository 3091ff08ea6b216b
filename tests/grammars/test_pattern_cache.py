"""The finder's statute pattern, kept on disk across processes (grammars.patterns): what comes back
from the cache is the pattern `re.compile` makes, and nothing else is ever served."""

from __future__ import annotations

import marshal
import re

import pytest

from grammars import CitationFinder, CitationParser, default_lexicon
from grammars.patterns import load_or_compile

TEXT = ("민법 제750조, 제751조 및 같은 법 제3조에 따르고 "
        "구 근로기준법(2007. 4. 11. 법률 제8372호로 전부개정되기 전의 것) 제30조 제1항, "
        "형법제250조제1항 및 민소법 제1조, 「개인정보 보호법」 제2조 제1호 가목")


def _finds(finder: CitationFinder) -> list[tuple[tuple[int, int], str, object]]:
    return [(f.span, f.form.value, f.citation) for f in finder.find(TEXT)]


def test_a_finder_with_a_cache_finds_what_one_without_finds(tmp_path) -> None:
    plain = CitationFinder(CitationParser.for_lexicon(default_lexicon()))
    stored = CitationFinder(CitationParser.for_lexicon(default_lexicon()), tmp_path)
    loaded = CitationFinder(CitationParser.for_lexicon(default_lexicon()), tmp_path)
    # the statute pattern (of these names), the case pattern, law.go.kr's two header patterns, a shaped
    # statute's tail and a 부칙 written without its act
    assert len(list(tmp_path.glob("pattern-*"))) == 6
    assert _finds(plain) == _finds(stored) == _finds(loaded) != []
    for finder in (stored, loaded):
        patterns = (finder.statute_pattern, finder.case_pattern, *finder.header_patterns, finder.shaped_tail,
                    finder.supplement_alone)
        expected = (plain.statute_pattern, plain.case_pattern, *plain.header_patterns, plain.shaped_tail,
                    plain.supplement_alone)
        for pattern, made in zip(patterns, expected, strict=True):
            assert (pattern.pattern, pattern.groupindex, pattern.groups, pattern.flags) == (
                made.pattern, made.groupindex, made.groups, made.flags)


def test_a_stored_pattern_is_served_for_its_key_only(tmp_path) -> None:
    calls: list[str] = []

    def source(text: str):
        return lambda: calls.append(text) or text

    first = load_or_compile("a", source("(?P<x>민법|형법) 제[0-9]+조"), tmp_path)
    again = load_or_compile("a", source("never compiled"), tmp_path)  # the key names what it stands for
    other = load_or_compile("b", source("(?P<y>헌법)"), tmp_path)
    assert calls == ["(?P<x>민법|형법) 제[0-9]+조", "(?P<y>헌법)"]
    assert again.pattern == first.pattern and again.fullmatch("형법 제250조")["x"] == "형법"
    assert other.fullmatch("헌법")["y"] == "헌법" and other.fullmatch("민법") is None


@pytest.mark.parametrize("spoiled", [b"", b"\x00 not marshal", None], ids=["empty", "garbage", "bad code"])
def test_an_unreadable_or_refused_entry_is_compiled_again(tmp_path, spoiled: bytes | None) -> None:
    load_or_compile("a", lambda: "민법 제([0-9]+)조", tmp_path)
    (stored,) = tmp_path.glob("pattern-*")
    if spoiled is None:  # well-formed, but code the C matcher refuses
        pattern, flags, groups, groupindex, indexgroup, _ = marshal.loads(stored.read_bytes())
        spoiled = marshal.dumps((pattern, flags, groups, groupindex, indexgroup, b"\xff\xff\x00\x00" * 3))
    stored.write_bytes(spoiled)
    again = load_or_compile("a", lambda: "민법 제([0-9]+)조", tmp_path)
    assert again.fullmatch("민법 제750조")[1] == "750"
    assert stored.read_bytes() != spoiled  # stored anew


def test_without_a_cache_dir_it_is_re_compile(tmp_path) -> None:
    assert load_or_compile("a", lambda: "민법", None) == re.compile("민법")


def test_a_cache_folder_that_cannot_be_written_costs_a_warning(tmp_path, caplog) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert load_or_compile("blocked", lambda: "a+b", blocked / "cache").pattern == "a+b"
    assert "could not store the blocked" in caplog.text
