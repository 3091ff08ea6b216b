"""The citation languages as (grammar, passing, failing) tables, checked through the regex that
parsing uses (the compiler's DFA is held to the same regex by its own tests)."""

from __future__ import annotations

import calendar
import gc
import re

import pytest

from grammars import (
    COURTS,
    CitationForm,
    GrammarError,
    Lexicon,
    LexiconError,
    answer_anchors,
    answer_grammar,
    case_grammar,
    find_citations,
    statute_grammar,
)
from grammars.compile import compile_index
from grammars.dfa import DEAD
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.index import TokenIndex
from grammars.languages.case import default_codes
from grammars.languages.dates import date_expr
from grammars.vocabulary import Vocabulary

DB_LEXICON = {"민법": ["750", "751", "3의2"], "형법": ["250"], "근로기준법 시행령": ["30"]}

TABLES: dict[str, tuple[CitationGrammar, list[str], list[str]]] = {
    "case": (
        case_grammar(),
        [
            "대법원 2024. 7. 11. 선고 2024도4202 판결",
            "대법원 2023. 1. 12.자 2022마6489 결정",
            "대법원 2020. 6. 18. 선고 2015도2004 전원합의체 판결",
            "헌법재판소 2020. 3. 26. 선고 2017헌마1281 결정",
            "헌법재판소 2012. 8. 23. 선고 2011헌바97 전원재판부 결정",
            "서울고등법원 2023. 5. 4. 선고 2022나2034567 판결",
            "수원지방법원 안산지원 2019. 1. 2. 선고 2018고단1234 판결",
            "서울고등법원(춘천재판부) 2013. 1. 2. 선고 (춘천)2012노368 판결",
            "대법원 1996. 2. 29. 선고 95다38677 판결",
            "대법원 1989. 3. 28. 선고 88다카21219 판결",
            "서울중앙지방법원 2014. 1. 3.자 2013카합536 명령",
        ],
        [
            "대법원 2024. 7. 11 선고 2024도4202 판결",  # missing final dot
            "대법원 2024.7.11. 선고 2024도4202 판결",  # missing spaces
            "대법원 2024. 07. 11. 선고 2024도4202 판결",  # zero padding
            "대법원 2024. 7. 11. 선고 2024 도 4202 판결",  # spaced number
            "대법원 2024. 7. 11. 선고 2024도4202",  # no disposition
            "대법원 2024. 7. 11.자 2024도4202",
            "대판 2024. 7. 11. 선고 2024도4202 판결",  # abbreviation
            "서울고법 2023. 5. 4. 선고 2022나2034567 판결",
            "대법원 2023. 2. 29. 선고 2022도1 판결",  # not a leap year
            "대법원 2024. 4. 31. 선고 2024도1 판결",  # April has 30 days
            "대법원 2024. 7. 11. 선고 2024도0420 판결",  # serial with a leading zero
            "대법원 2024. 7. 11. 선고 2024도12345678 판결",  # eight-digit serial
            "대법원 2024. 7. 11. 선고 2024누가4202 판결",  # no such code
            "대법원 2024. 7. 11. 선고 24도4202 판결",  # two-digit year after 2000
            "대법원 1996. 2. 29. 선고 1995다38677 판결",  # four-digit year before 2000
            "대법원 2024. 7. 11. 선고 (대구)2024나1 판결",  # no 대구 원외재판부
            "대법원 2024. 7. 11. 선고 2024도4202 합의체 판결",
            "부천지방법원 2024. 7. 11. 선고 2024고단1 판결",  # no such court
        ],
    ),
    "statute": (
        statute_grammar(),
        [
            "민법 제750조",
            "형법 제250조 제1항",
            "근로기준법 제23조의2 제1항 제2호",
            "근로기준법 시행령 제30조 제1항 제2호의3 가목",
            "개인정보 보호법 제15조 제1항 제2호 하목",
            "주택임대차법 제3조",  # an official 약칭
            "헌법 제27조",
            "대한민국헌법 제27조",
            "민사소송규칙 제1조",
        ],
        [
            "민법 제0조",
            "민법 제750조의0",
            "민법 제10000조",
            "민법제750조",
            "민법 제3조제1항",  # compact
            "민법 제3조 가목",  # a 목 needs its 호
            "민법 제3조 제1호 거목",
            "민법 제750조 제1항 제2항",
            "민소법 제1조",  # informal abbreviations are lenient-only
            "동법 제3조",
            "「민법」 제750조",
            "없는법 제1조",
        ],
    ),
    "statute-db": (
        statute_grammar(DB_LEXICON),
        ["민법 제750조", "민법 제751조 제2항", "민법 제3조의2", "형법 제250조 제1항 제1호", "근로기준법 시행령 제30조"],
        ["민법 제752조", "민법 제3조", "형법 제750조", "민법 제250조", "근로기준법 제30조", "헌법 제1조"],
    ),
}


@pytest.mark.parametrize(
    ("table", "text", "accepted"),
    [(name, text, True) for name, (_, passing, _) in TABLES.items() for text in passing]
    + [(name, text, False) for name, (_, _, failing) in TABLES.items() for text in failing],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_grammar_accepts_exactly_its_citations(table: str, text: str, accepted: bool) -> None:
    grammar = TABLES[table][0]
    assert (re.fullmatch(grammar.expr.to_regex(), text) is not None) == accepted


@pytest.mark.parametrize("year", [1948, 1900 + 96, 2000, 2023, 2024, 2099], ids=str)
def test_dates_are_exactly_the_real_calendar_dates(year: int) -> None:
    pattern = re.compile(date_expr(1896, 2099).to_regex())
    for month in range(1, 13):
        for day in range(1, 32):
            real = day <= calendar.monthrange(year, month)[1]
            assert (pattern.fullmatch(f"{year}. {month}. {day}.") is not None) == real, (year, month, day)


@pytest.mark.parametrize(
    ("text", "accepted"),
    [("1900. 2. 29.", False), ("1904. 2. 29.", True), ("2000. 2. 29.", True)],
    ids=["century", "leap", "400-year"],
)
def test_leap_years_follow_the_gregorian_rule(text: str, accepted: bool) -> None:
    assert (re.fullmatch(date_expr(1896, 2099).to_regex(), text) is not None) == accepted


def test_every_case_code_is_accepted() -> None:
    pattern = re.compile(case_grammar().expr.to_regex())
    codes = default_codes()
    assert len(codes) == 325 + 8 + 1  # the 대법원 list, the 헌재 codes, legacy 다카
    rejected = [code for code in codes if not pattern.fullmatch(f"대법원 2024. 7. 11. 선고 2024{code}123 판결")]
    assert rejected == []


def test_every_court_is_accepted() -> None:
    pattern = re.compile(case_grammar().expr.to_regex())
    rejected = [c.name for c in COURTS if not pattern.fullmatch(f"{c.name} 2024. 7. 11. 선고 2024노1 판결")]
    assert rejected == []


@pytest.mark.parametrize(
    ("grammar", "text", "is_anchor"),
    [
        (case_grammar(), "대법원 2", True),
        (case_grammar(), "수원지방법원 안산지원 1", True),
        (case_grammar(), "대법원 9", True),  # begins no citation: a bare `대법원 95다1` must not pass as prose
        (case_grammar(), "대법원은", False),
        (case_grammar(), "대판 2", False),
        (case_grammar(forbid_shorthand=True), "대판 2", True),
        (case_grammar(forbid_shorthand=True), "대판(전) 2", True),
        (case_grammar(forbid_shorthand=True), "서울고법 2", True),
        (case_grammar(courts=["서울고등법원"], forbid_shorthand=True), "대판 2", False),
        (statute_grammar(), "민법 제7", True),
        (statute_grammar(), "주택임대차법 제3", True),
        (statute_grammar(), "민법학", False),
        (statute_grammar(), "민소법 제1", False),
        (statute_grammar(forbid_shorthand=True), "민소법 제1", True),
        (statute_grammar(forbid_shorthand=True), "같은 법 제3", True),
        (statute_grammar(forbid_shorthand=True), "법 제3", False),  # would cut every `민법 제3…` off
        (statute_grammar(DB_LEXICON), "형법 제3", True),  # no such article: the automaton must reject it
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_anchors_mark_where_a_citation_must_begin(
    grammar: CitationGrammar, text: str, is_anchor: bool
) -> None:
    assert (re.fullmatch(grammar.anchor.to_regex(), text) is not None) == is_anchor


@pytest.mark.parametrize("grammar", [case_grammar(), statute_grammar(), statute_grammar(DB_LEXICON)],
                         ids=["case", "statute", "statute-db"])
def test_every_citation_begins_with_an_anchor(grammar: CitationGrammar) -> None:
    anchor = re.compile(grammar.anchor.to_regex())
    table = next(passing for g, passing, _ in TABLES.values() if g == grammar)
    assert all(anchor.match(citation) for citation in table)


@pytest.mark.parametrize(
    ("courts", "codes", "text", "accepted"),
    [
        (["대법원"], None, "대법원 2024. 7. 11. 선고 2024도4202 판결", True),
        (["대법원"], None, "서울고등법원 2024. 7. 11. 선고 2024나1 판결", False),
        (None, ["도", "다"], "대법원 2024. 7. 11. 선고 2024다1 판결", True),
        (None, ["도", "다"], "대법원 2024. 7. 11. 선고 2024마1 결정", False),
        (["서울고등법원"], None, "서울고등법원 2024. 7. 11. 선고 (춘천)2024나1 판결", False),
    ],
    ids=["supreme-only", "supreme-only-rejects-high", "codes", "codes-reject",
         "no-seat-without-out-of-seat-court"],
)
def test_case_grammar_narrows(
    courts: list[str] | None, codes: list[str] | None, text: str, accepted: bool
) -> None:
    grammar = case_grammar(courts=courts, codes=codes)
    assert (re.fullmatch(grammar.expr.to_regex(), text) is not None) == accepted


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"courts": ["부천지방법원"]}, "unknown"), ({"codes": ["없음"]}, "unknown"), ({"courts": []}, "at least one"),
     ({"courts": "대법원"}, "single string"), ({"first_year": 2100, "last_year": 2000}, "year range")],
    ids=["unknown-court", "unknown-code", "no-court", "string-not-list", "reversed-years"],
)
def test_case_grammar_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(GrammarError, match=message):
        case_grammar(**kwargs)


@pytest.mark.parametrize(
    ("acts", "aliases", "message"),
    [
        ({}, None, "at least one statute name"),
        ([("민법", None), ("민법", ["1"])], None, "again at act #1"),
        ({"민법": ["제750조"]}, None, "got '제750조' at position 0"),
        ({"민법": ["1", "1"]}, None, "duplicates"),
        ({"민법": []}, None, "at least one article label"),
        ({"민법": "750"}, None, "got the string"),
        ({" 민법": None}, None, "outer or doubled spaces"),
        ({"「민법」": None}, None, "brackets"),
        ({"민법": None}, {"민": "형법"}, "to name an act of the lexicon"),
        ({"민법": None, "형법": None}, {"형법": "민법"}, "differ from every other name"),
    ],
    ids=["empty", "duplicate-name", "bad-label", "duplicate-label", "no-labels", "string-labels", "spaces",
         "brackets", "alias-to-unknown", "alias-clash"],
)
def test_lexicon_rejects_malformed_data(acts, aliases, message: str) -> None:
    with pytest.raises(LexiconError, match=message):
        Lexicon.build(acts, aliases)


@pytest.mark.parametrize(
    ("base", "other"),
    [
        (Lexicon.build({"민법": None, "형법": ["250"]}, {"민": "민법"}, {"형": "형법"}),
         Lexicon.build({"형법": ["250", "251"], "민": ["1"]}, {"형": "형법"})),
        (Lexicon.build({"헌법": None, "민법": None}, {"대한민국헌법": "헌법"}),
         Lexicon.build({"대한민국헌법": ["10"], "민법": ["750"]}, None, {"민소법": "민법"})),
    ],
    ids=["other-wins-and-acts-shadow-abbreviations", "constitution-by-its-cited-name"],
)
def test_joined_lexicon_is_what_build_makes_of_both(base: Lexicon, other: Lexicon) -> None:
    acts = {**base.acts, **other.acts}
    aliases = {a: t for a, t in {**base.aliases, **other.aliases}.items() if a not in acts}
    informal = {a: t for a, t in {**base.informal, **other.informal}.items() if a not in acts and a not in aliases}
    built, joined = Lexicon.build(acts, aliases, informal), base.joined(other)
    for part in ("acts", "aliases", "informal"):
        assert list(getattr(joined, part).items()) == list(getattr(built, part).items()), part
    assert joined.digest == base.joined(other).digest != built.digest
    assert joined.digest != other.joined(base).digest


def test_every_way_to_make_a_lexicon_shares_equal_article_sets() -> None:
    """The statute grammar groups names by their set (as one object each): a `구` form with the same
    articles as its act, made by build, rebuilt or joined, holds its act's set itself."""
    acts = {"민법": ["750", "3의2"], "구 민법": ["3의2", "750"], "형법": ["250"], "구 형법": ["250", "1"]}
    built = Lexicon.build(acts)
    made = (built, Lexicon.rebuilt(acts, {}, {}, built.digest), Lexicon.build({"민법": ["1"]}).joined(built))
    for lexicon in made:
        assert lexicon.acts["구 민법"] is lexicon.acts["민법"] == frozenset({"750", "3의2"})
        assert lexicon.acts["구 형법"] is not lexicon.acts["형법"]
    grammar = statute_grammar(built)
    assert grammar.expr == statute_grammar(Lexicon.build(dict(reversed(acts.items())))).expr


@pytest.mark.parametrize(
    ("acts", "aliases", "informal"),
    [
        ({"민법": ["750", "3의2"], "형법": None}, {"민": "민법"}, {"형": "형법"}),
        ({"대한민국헌법": ["10"], "민법": ["750"]}, {}, {"민소법": "민법"}),  # renamed as build renames it
    ],
    ids=["labels-and-abbreviations", "constitution-by-its-cited-name"],
)
def test_a_rebuilt_lexicon_is_what_build_made(acts, aliases, informal) -> None:
    built = Lexicon.build(acts, aliases, informal)
    rebuilt = Lexicon.rebuilt(acts, aliases, informal, built.digest)
    for part in ("acts", "aliases", "informal"):
        assert list(getattr(rebuilt, part).items()) == list(getattr(built, part).items()), part
    assert rebuilt.digest == built.digest
    with pytest.raises(LexiconError, match="digest of an earlier build"):
        Lexicon.rebuilt(acts, aliases, informal, "")
    with pytest.raises(LexiconError, match="informal abbreviation"):  # abbreviations are checked still
        Lexicon.rebuilt(acts, aliases, {"민소법": "민사소송법"}, built.digest)


def test_the_statute_grammar_makes_its_heads_without_collections() -> None:
    """A lexicon's thousands of heads live as long as the grammar: no collection walks them while they are made
    (one may see them once made, as the collector goes on)."""
    lexicon = Lexicon.build({f"시험{n}법": [str(a) for a in range(1, 2 + n)] for n in range(3000)})
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(count)
    try:
        grammar = statute_grammar(lexicon)
    finally:
        gc.callbacks.remove(count)
    assert len(collections) <= 1 and gc.isenabled(), collections
    assert len(grammar.expr.parts[0].inner.options) == 3000


def test_statute_grammar_scales_to_a_database_lexicon() -> None:
    # 5,600 acts with their own article sets: the expression holds one group per distinct set,
    # and the names and articles stay Literals the compiler turns into tries.
    lexicon = {f"시험{n}법": [str(a) for a in range(1, 2 + n % 97)] + ["3의2"] for n in range(5600)}
    grammar = statute_grammar(lexicon)
    heads = grammar.expr.parts[0].inner.options
    assert len(heads) == 97
    pattern = re.compile(grammar.expr.to_regex())
    assert pattern.fullmatch("시험96법 제97조 제1항") and not pattern.fullmatch("시험96법 제98조")


def test_answer_grammar_holds_the_chosen_languages() -> None:
    answer = answer_grammar(lexicon=DB_LEXICON, courts=["대법원"])
    assert [c.name for c in answer.citations] == ["case", "statute"]
    assert answer.bypass == (("<think>", "</think>"),)
    assert [c.name for c in answer_grammar(case=False, bypass=()).citations] == ["statute"]


@pytest.mark.parametrize("forbid_shorthand", [False, True], ids=["shorthand", "canonical"])
def test_answer_anchors_are_the_answer_grammars_anchors(forbid_shorthand: bool) -> None:
    whole = answer_grammar(lexicon=DB_LEXICON, forbid_shorthand=forbid_shorthand)
    assert answer_anchors(DB_LEXICON, forbid_shorthand=forbid_shorthand) == tuple(c.anchor for c in whole.citations)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"case": False, "statute": False}, "neither"), ({"bypass": [("<think>", "")]}, "non-empty"),
     ({"bypass": [("<a>",)]}, "two non-empty")],
    ids=["no-language", "empty-mark", "one-mark"],
)
def test_answer_grammar_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(GrammarError, match=message):
        answer_grammar(**kwargs)


def test_grammars_are_hashable_and_equal_when_built_twice() -> None:
    # The compiler caches compiled indexes by grammar: equal inputs must give equal, hashable grammars.
    assert hash(case_grammar()) == hash(case_grammar()) and case_grammar() == case_grammar()
    assert statute_grammar(DB_LEXICON) == statute_grammar(dict(reversed(DB_LEXICON.items())))



# A vocabulary built in code: every single byte, so any text has a tokenization, plus pieces that
# straddle the fields of a citation (`원 2`, `조 제`, `결정`) the way BPE merges do, and one EOS.
PIECES = ("대법원", "법원 ", "원 2", "20", "24", ". ", "7. ", "11.", " 선고", "고 2", "도4", "42", " 판결", "결정",
          "자 ", "민법", " 제", "조 제", "750", "조", "항", "호 ", "가목", "헌법재판소", "재판부", "(춘천)", "서울",
          "<think>")
VOCABULARY = Vocabulary(tuple(bytes([b]) for b in range(256)) + tuple(p.encode() for p in PIECES) + (None,),
                        eos_ids=frozenset({256 + len(PIECES)}))
_TOKEN_IDS = {token: i for i, token in enumerate(VOCABULARY.tokens) if token is not None}


def _tokens(text: str) -> list[int]:
    """Greedy longest match over VOCABULARY: merged pieces wherever they fit, bytes elsewhere."""
    data, ids, at = text.encode(), [], 0
    while at < len(data):
        size = next(n for n in range(min(8, len(data) - at), 0, -1) if data[at:at + n] in _TOKEN_IDS)
        ids.append(_TOKEN_IDS[data[at:at + size]])
        at += size
    return ids


def _index_accepts(index: TokenIndex, text: str) -> bool:
    state = index.initial_state
    for token in _tokens(text) + sorted(VOCABULARY.eos_ids):
        allowed = bool(index.bitmask(state)[token // 32] >> (token % 32) & 1) if state >= 0 else False
        state = index.advance(state, token)
        assert allowed == (state != DEAD), f"mask and advance disagree on token {token} in {text!r}"
        if state == DEAD:
            return False
    return True


@pytest.mark.parametrize("table", sorted(TABLES), ids=sorted(TABLES))
def test_compiled_index_agrees_with_the_regex(table: str) -> None:
    grammar, passing, failing = TABLES[table]
    index = compile_index(grammar, VOCABULARY)
    assert [text for text in passing if not _index_accepts(index, text)] == []
    assert [text for text in failing if _index_accepts(index, text)] == []


ANSWERS: list[tuple[AnswerGrammar, str, bool]] = [
    (answer_grammar(), "원고는 대법원 2024. 7. 11. 선고 2024도4202 판결을 들었다.", True),
    (answer_grammar(), "민법 제750조의 규정과 군형법 제3조, 대한민국헌법 제27조", True),
    (answer_grammar(), "대법원은 민법학을 존중했다.", True),
    (answer_grammar(), "<think>대법원 95다1</think> 끝", True),
    (answer_grammar(), "대법원 95다1 판결", False),  # an anchor must begin a citation
    (answer_grammar(), "민법 제0조", False),
    (answer_grammar(lexicon=DB_LEXICON), "민법 제752조", False),  # no such article in the database
    (answer_grammar(), "대판 2024.7.11, 2024도4202", True),
    (answer_grammar(forbid_shorthand=True), "대판 2024.7.11, 2024도4202", False),
    (answer_grammar(forbid_shorthand=True), "같은 법 제3조", False),
    # Citations begin at a word boundary: a name inside a longer word is prose, not an anchor.
    (answer_grammar(lexicon=DB_LEXICON), "군형법 제100조", True),
    (answer_grammar(lexicon={**DB_LEXICON, "군형법": ["1"]}), "군형법 제100조", False),  # a known name anchors
    (answer_grammar(lexicon=DB_LEXICON), "구민법 제752조", True),
    (answer_grammar(lexicon=DB_LEXICON), "구 민법 제752조", False),
    (answer_grammar(lexicon=DB_LEXICON), "(민법 제752조)", False),
    (answer_grammar(lexicon=DB_LEXICON), "「민법」 제750조와 민법 제750조에 따르면", True),
    (answer_grammar(courts=["대법원"]), "서울대법원 95다1 판결", True),
    (answer_grammar(courts=["대법원"]), "서울 대법원 95다1 판결", False),
]


@pytest.mark.parametrize(("answer", "text", "accepted"), ANSWERS, ids=[text for _, text, _ in ANSWERS])
def test_compiled_answer_language(answer: AnswerGrammar, text: str, accepted: bool) -> None:
    assert _index_accepts(compile_index(answer, VOCABULARY), text) == accepted


# Heads the lenient finder reads as a citation written otherwise than canonically: with
# forbid_shorthand none of them can be written, while the prose around such heads stays writable.
MALFORMED_HEADS = [
    "형법제355조", "형법 제 250조", "형법\u3000제250조", "「형법」 제250조", "「형법」제250조",
    "「개인정보 보호법」 제2조", "같은 법 제3조", "민소법 제1조", "대판 2024. 7. 11. 선고 2024도4202 판결",
    "대판(전) 2024도4202", "서울고법 2024. 1. 1. 선고 2023나1 판결", "서울고법2024나1", "대법원  2024도4202",
    "대법원 2012. 6. 28., 선고, 2012도1 판결", "(2024도4202)", "판례 2024도4202 참조", "2024 도 4202",
    "2025-구단-10915", "95다38677", "2023. 1. 1. 선고 2022도1 판결", "(서울)2024나1",
    # a wrapped line between name and provision, or inside the provision; 제 and the space left out
    "형법\n제250조", "「형법」\n제250조", "형법 제250조\n제1항", "형법 제250조\r\n제1항 제2호", "형법250조",
    "「형법」 60조", "「형법」60조",  # a sampled narrowed answer wrote `「민법」 60조` as prose
]
PROSE_NEAR_HEADS = [
    "2024년 7월에 10조 원, 제3자에게 2024가 1000만 원", "형법 제정 이후 「별표 1」 제2항과 「형법」의 규정",
    "근로기준법 52시간", "대법원은 2024년에", "대판결", "민법 제750조 제1항과 대법원 2024. 7. 11. 선고 2024도4202 판결",
    "형법\n\n제1장 총칙", "형법 제250조\n\n제2장", "형법\n2024년 개정",
]
FORBIDDING = answer_grammar(forbid_shorthand=True)


@pytest.mark.parametrize("text", MALFORMED_HEADS, ids=MALFORMED_HEADS)
def test_malformed_heads_the_finder_reads_cannot_be_written(text: str) -> None:
    forms = [found.form for found in find_citations(text)]
    assert forms and CitationForm.CANONICAL not in forms
    assert not _index_accepts(compile_index(FORBIDDING, VOCABULARY), text)


@pytest.mark.parametrize("text", PROSE_NEAR_HEADS, ids=PROSE_NEAR_HEADS)
def test_prose_near_malformed_heads_stays_writable(text: str) -> None:
    assert all(found.form == CitationForm.CANONICAL for found in find_citations(text))
    assert _index_accepts(compile_index(FORBIDDING, VOCABULARY), text)


# A later provision of a list or range right after a citation: the finder reads it as the first act's
# (a list item, a range's end) though nobody checked it, so with forbid_shorthand it cannot be written;
# each provision is then cited whole. Prose after a citation stays writable.
LIST_CONTINUATIONS = [
    "민법 제750조, 제751조", "민법 제750조, 21조에 따라", "민법 제750조 및 제2항", "민법 제750조와 3호",
    "민법 제3조 내지 제5조", "민법 제3조부터 제5조까지", "민법 제3조ㆍ제5조", "민법 제3조~제5조",
    "민법 제3조 본문, 제5조", "민법 제3조 각 호 외의 부분 및 제5조", "민법 제476조,\n제477조",
]
PROSE_AFTER_CITATIONS = [
    "민법 제750조, 제3자에게", "민법 제750조, 2명이", "민법 제750조와 제1심", "민법 제750조와 민법 제751조",
    "민법 제750조 제1항 및 민법 제751조", "민법 제750조에 따라 21조 원", "민법 제750조의 요건과 2개의 조항",
]


@pytest.mark.parametrize("text", LIST_CONTINUATIONS, ids=LIST_CONTINUATIONS)
def test_later_provisions_of_a_list_cannot_be_written_after_a_citation(text: str) -> None:
    forms = [found.form for found in find_citations(text)]
    assert forms[0] == CitationForm.CANONICAL
    assert set(forms[1:]) & {CitationForm.LIST_CONTINUATION, CitationForm.RANGE}
    assert not _index_accepts(compile_index(FORBIDDING, VOCABULARY), text)
    assert _index_accepts(compile_index(answer_grammar(), VOCABULARY), text)  # canonical anchors only


@pytest.mark.parametrize("text", PROSE_AFTER_CITATIONS, ids=PROSE_AFTER_CITATIONS)
def test_prose_after_a_citation_stays_writable(text: str) -> None:
    assert all(found.form == CitationForm.CANONICAL for found in find_citations(text))
    assert _index_accepts(compile_index(FORBIDDING, VOCABULARY), text)


@pytest.mark.parametrize(
    "defective",
    ["", " ", " 민법", "민법 ", "민\n법", "민\t법", "민법  시행령", "「민법」", 7],
    ids=["empty", "blank", "leading-space", "trailing-space", "line-break", "tab", "doubled-space", "brackets",
         "not-a-string"],
)
def test_lexicon_names_a_defective_name_among_many(defective: object) -> None:
    """The names are checked all at once, then one by one to name the culprit: a defect in the middle of
    a long list is found and named by its position."""
    acts = [(f"법{i}", None) for i in range(50)]
    acts.insert(25, (defective, None))
    with pytest.raises(LexiconError, match="at act #25"):
        Lexicon.build(acts)
