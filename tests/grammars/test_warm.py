"""Warm citations (`CitationGrammar.warm`): an index computes the rows along their shared part when it is
compiled, so the provision tail every statute citation goes through costs no first visit."""

from __future__ import annotations

import dataclasses

import pytest

from grammars import GrammarError, case_grammar, statute_grammar
from grammars.cache import grammar_key
from grammars.compile import compile_index, warm_citations, warm_up
from grammars.grammar import AnswerGrammar
from grammars.languages.articles import HEAD_SEPARATOR
from grammars.languages.statute import WARM_ANY_ARTICLE, WARM_TAIL
from grammars.vocabulary import Vocabulary

LEXICON = {"민법": ["1", "2", "3의2", "750"], "형법": ["1", "250"], "민법 시행령": None}
# Every byte alone, and some pieces a tokenizer would have: a first visit may meet any of them
PIECES = (" 제", "항", "호", "10", "가목")
VOCABULARY = Vocabulary((None, *(bytes((b,)) for b in range(256)), *(p.encode() for p in PIECES)), frozenset({0}))


def _computed_along(index, lead: str, shared: str) -> list[bool]:
    """Per character of `shared` after `lead`, whether the index holds the state's row (no walk computes it here:
    `advance_bytes` only steps the automaton)."""
    state, computed = index.advance_bytes(index.initial_state, lead.encode()), []
    for char in shared:
        state = index.advance_bytes(state, char.encode())
        computed.append(state < len(index._states) and index._states[state] is not None)
    return computed


def _tabled_along(index, lead: str, shared: str) -> list[bool]:
    """Per character of `shared` after `lead`, whether a step from the state finds its next states made (a state
    that no token leaves, or one of the C walk's rows, has no table to make)."""
    state, tabled = index.advance_bytes(index.initial_state, lead.encode()), []
    for char in shared:
        state = index.advance_bytes(state, char.encode())
        masks = index._states[state]
        tabled.append(masks.next is not None or masks.literal is not None or not len(masks.next_tokens))
    return tabled


def test_a_statute_grammar_warms_its_provision_tail_after_an_article_set_and_after_any_article() -> None:
    grammar = statute_grammar(LEXICON)
    without = ("민법 시행령", f"{HEAD_SEPARATOR}{WARM_ANY_ARTICLE}{WARM_TAIL}")
    assert grammar.warm == (("민법 제1조", WARM_TAIL), without)
    index = compile_index(grammar, VOCABULARY)
    for lead, shared in grammar.warm:
        assert all(_computed_along(index, lead, shared)) and all(_tabled_along(index, lead, shared))
    # another act's tail, past its article: the same states, computed already
    assert all(_computed_along(index, "형법 제250조", WARM_TAIL))


def test_a_case_grammar_warms_what_follows_the_year_of_its_number() -> None:
    grammar = case_grammar()
    index = compile_index(grammar, VOCABULARY)
    for lead, shared in grammar.warm:
        assert all(_computed_along(index, lead, shared)) and all(_tabled_along(index, lead, shared))
    # other courts, dates, deliveries and years: the same states where a month and a day begin, where the number
    # begins, after its year and along its serial (after a 사건부호 that begins a longer one, `다` of `다카`, a state
    # of its own)
    for lead, shared in (("서울고등법원 2023. 5", ". "), ("서울고등법원 2023. 5. 4. 선고", " 2022도2034567 "),
                         ("대법원 2024. 2", ". "), ("대법원 1995. 2", ". "), ("대법원 2023. 1. 12.자", " 95도6489 ")):
        assert all(_computed_along(index, lead, shared)), lead + shared
    assert not any(_computed_along(compile_index(dataclasses.replace(grammar, warm=()), VOCABULARY), lead, shared))


def _computed_by_tokens(index, vocabulary: Vocabulary, pieces: tuple[str, ...]) -> bool:
    """Whether the index holds the row of the state `pieces`, taken as tokens, lead to."""
    state = index.initial_state
    for piece in pieces:
        state = index.advance(state, vocabulary.tokens.index(piece.encode()))
    return state >= 0 and index._states[state] is not None


def test_a_case_grammar_warms_the_states_tokens_reach_inside_a_year_and_after_a_code_that_begins_longer_ones(
) -> None:
    """A token inside a literal word reaches a state of its own (the C walk does not merge its node with an
    equal one), which a warm-up byte by byte never met: `202` of `2024`, walked bytewise as `209` of `2099`."""
    pieces = (*PIECES, "202", "201", "199", "95", "다", "대법원", " 선고", ". ", "1.")
    vocabulary = Vocabulary((None, *(bytes((b,)) for b in range(256)), *(p.encode() for p in pieces)), frozenset({0}))
    index = compile_index(case_grammar(), vocabulary)
    for year in ("202", "201", "199"):
        assert _computed_by_tokens(index, vocabulary, ("대법원", " ", year)), year
    decided = ("대법원", " ", "202", "4", ". ", "1.", " ", "1.", " 선고", " ")
    assert _computed_by_tokens(index, vocabulary, (*decided, "202"))
    assert _computed_by_tokens(index, vocabulary, (*decided, "95", "다"))


def test_a_lazily_grown_index_without_warm_citations_computes_the_tail_on_a_first_visit() -> None:
    index = compile_index(dataclasses.replace(statute_grammar(LEXICON), warm=()), VOCABULARY)
    assert not any(_computed_along(index, "형법 제250조", WARM_TAIL))


def test_an_answer_grammar_is_not_warmed() -> None:
    """A narrowing's compile has 20 ms; the warm-up of its answer language's tail took more than that."""
    grammar = statute_grammar(LEXICON)
    assert grammar.warm and warm_citations(grammar) == grammar.warm
    assert warm_citations(AnswerGrammar((grammar,))) == ()


def test_warm_citations_leave_the_cache_key_as_it_is() -> None:
    grammar = statute_grammar({"민법": ["1", "2"]})
    assert grammar_key(dataclasses.replace(grammar, warm=())) == grammar_key(dataclasses.replace(grammar))


def test_a_warm_citation_outside_the_language_is_named_with_where_it_dies() -> None:
    index = compile_index(dataclasses.replace(statute_grammar(LEXICON), warm=()), VOCABULARY)
    with pytest.raises(GrammarError, match=r"'형법 제250조 제100항', which dies at 13"):
        warm_up(index, (("형법 제250조", " 제100항"),))
