"""A cursor reading a request's output ids as vLLM keeps them (citegen.integrations.output_ids): ids
appended, placeholders, and ids taken back or replaced, through the real answer constraint."""

from __future__ import annotations

import pytest

from citegen.constraint import Constraint, compile_language
from citegen.errors import CitegenError
from citegen.integrations.output_ids import RECHECKED, OutputReader
from grammars import answer_grammar


@pytest.fixture(scope="module")
def constraint(tiny) -> Constraint:
    return Constraint.of(compile_language(answer_grammar(forbid_shorthand=True), tiny.vocabulary), tiny.vocab_size)


def tokens(tiny, text: str) -> list[int]:
    return tiny.tokenizer(text, add_special_tokens=False).input_ids


def state_after(constraint: Constraint, ids: list[int]) -> int:
    cursor = constraint.cursor()
    for token in ids:
        cursor.advance(token)
    return cursor.state


def test_ids_appended_between_steps_are_read_up_to_a_placeholder(tiny, constraint) -> None:
    text = tokens(tiny, "불법행위는 민법 제750조에 따른다.")
    output: list[int] = []
    reader = OutputReader(constraint.cursor(), output)
    for token in text[:5]:
        output.append(token)
        reader.catch_up()
    output.extend([text[5], -1, -1])  # asynchronous scheduling: not sampled yet
    reader.catch_up()
    assert reader.read == 6 and reader.cursor.state == state_after(constraint, text[:6])
    output[6:] = text[6:]
    reader.catch_up()
    assert reader.cursor.state == state_after(constraint, text)


@pytest.mark.parametrize("taken_back", [1, 3, 8])
def test_ids_taken_back_and_others_written_put_the_cursor_where_the_text_is(tiny, constraint, taken_back) -> None:
    """vLLM deletes ids it had appended (a KV load that failed; an optimistic extend of asynchronous
    speculative decoding) and samples others: the cursor stayed ahead, and masked the request's next rows
    by a text that no longer was (or rejected the ids written in their place)."""
    read = tokens(tiny, "근거는 민법 제750조이다.")
    written = tokens(tiny, "근거는 형법 제250조와 민법 제3조이다.")
    output = list(read)
    reader = OutputReader(constraint.cursor(), output)
    reader.catch_up()
    keep = len(read) - taken_back
    del output[keep:]  # taken back ...
    reader.catch_up()
    assert reader.read == keep and reader.cursor.state == state_after(constraint, read[:keep])
    output.extend(written[keep:])  # ... and others sampled
    reader.catch_up()
    assert reader.cursor.state == state_after(constraint, written)


def test_ids_replaced_in_place_are_read_again(tiny, constraint) -> None:
    """The list as long as before, its end replaced (taken back and extended between two steps)."""
    first = tokens(tiny, "근거는 민법 제750조이다.")
    output = list(first)
    reader = OutputReader(constraint.cursor(), output)
    reader.catch_up()
    second = tokens(tiny, "근거는 형법 제250조이다. 끝으로")[: len(first)]
    assert second != first and first[:2] == second[:2] and len(first) <= RECHECKED
    output[:] = second
    reader.catch_up()
    assert reader.cursor.state == state_after(constraint, second)


def test_a_rejected_token_raises_and_keeps_what_was_read(tiny, constraint) -> None:
    good = tokens(tiny, "근거는 민법 제750")  # inside the citation: it must go on to 조
    output = [*good, *tokens(tiny, "가나다")]
    reader = OutputReader(constraint.cursor(), output)
    with pytest.raises(CitegenError):
        reader.catch_up()
    assert reader.read == len(good) and reader.cursor.state == state_after(constraint, good)
