"""Token id → bytes for the tokenizer families, each built in code, and the index over them."""

from __future__ import annotations

import pytest
import tiktoken
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

from grammars import TokenizerError
from grammars.compile import compile_index
from grammars.expr import Literals, Regex, seq
from grammars.grammar import CitationGrammar
from grammars.vocabulary import Vocabulary, gpt2_unicode_to_byte

CITATION = CitationGrammar("toy", seq(Literals(("대법원", "민법")), " 제", Regex("[1-9][0-9]?"), "조"),
                           seq(Literals(("대법원", "민법")), " 제", Regex("[0-9]")))
TO_UNICODE = {byte: char for char, byte in gpt2_unicode_to_byte().items()}


def _byte_level_tokenizer() -> Tokenizer:
    pieces = [TO_UNICODE[b] for b in range(256)]
    merges = [(TO_UNICODE[0x20], TO_UNICODE[0xEB]), (TO_UNICODE[0x20] + TO_UNICODE[0xEB], TO_UNICODE[0xAF])]
    pieces += [a + b for a, b in merges]
    tokenizer = Tokenizer(models.BPE({p: i for i, p in enumerate(pieces)}, merges))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_tokens([AddedToken("<think>", special=False)])
    tokenizer.add_special_tokens(["</s>"])
    return tokenizer


def test_byte_level_bpe_pieces_become_their_bytes() -> None:
    tokenizer = _byte_level_tokenizer()
    vocabulary = Vocabulary.from_tokenizer(tokenizer)
    vocab = tokenizer.get_vocab()
    assert vocabulary.tokens[vocab[TO_UNICODE[0x20] + TO_UNICODE[0xEB]]] == b" \xeb"  # part of a character
    assert vocabulary.tokens[vocab[TO_UNICODE[0x20] + TO_UNICODE[0xEB] + TO_UNICODE[0xAF]]] == b" \xeb\xaf"
    assert vocabulary.tokens[vocab["<think>"]] == b"<think>"  # markup stays text
    assert vocabulary.tokens[vocab["</s>"]] is None and vocabulary.eos_ids == {vocab["</s>"]}
    assert [vocabulary.tokens[i] for i in range(256)] == [bytes((b,)) for b in range(256)]


def test_index_over_a_byte_level_tokenizer_walks_its_own_encoding() -> None:
    tokenizer = _byte_level_tokenizer()
    index = compile_index(CITATION, tokenizer)
    state = index.initial_state
    for token in tokenizer.encode("민법 제75조").ids:
        assert token in set(index.allowed_tokens(state).tolist())
        state = index.advance(state, token)
    assert index.is_accepting(state)


def test_sentencepiece_byte_fallback_pieces() -> None:
    pieces = ["<unk>", "</s>", "▁", "▁대법원", "제", *[f"<0x{b:02X}>" for b in range(256)]]
    tokenizer = Tokenizer(models.BPE({p: i for i, p in enumerate(pieces)}, [], byte_fallback=True, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    tokenizer.add_special_tokens(["</s>"])
    vocabulary = Vocabulary.from_tokenizer(tokenizer)
    assert vocabulary.tokens[3] == " 대법원".encode()
    assert vocabulary.tokens[5 + 0xEB] == b"\xeb"
    assert vocabulary.eos_ids == {1}


def test_tiktoken_ranks_are_bytes_and_specials_are_control_unless_named() -> None:
    ranks = {bytes((b,)): b for b in range(256)} | {" 제".encode(): 256}
    encoding = tiktoken.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks,
                                 special_tokens={"<|endoftext|>": 257, "<tool_call>": 258})
    vocabulary = Vocabulary.from_tiktoken(encoding, eos_ids=[257], text_specials=("<tool_call>",))
    assert vocabulary.tokens[256] == " 제".encode()
    assert vocabulary.tokens[257] is None and vocabulary.tokens[258] == b"<tool_call>"


def test_tokenizer_without_a_byte_mapping_is_refused() -> None:
    tokenizer = Tokenizer(models.WordPiece({"[UNK]": 0, "법": 1, "##원": 2}, unk_token="[UNK]"))
    with pytest.raises(TokenizerError, match="without a byte mapping"):
        Vocabulary.from_tokenizer(tokenizer)


def test_byte_level_piece_outside_the_byte_table_is_refused() -> None:
    pieces = {TO_UNICODE[b]: b for b in range(256)} | {"법": 256}
    tokenizer = Tokenizer(models.BPE(pieces, []))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    with pytest.raises(TokenizerError, match="token 256 '법'"):
        Vocabulary.from_tokenizer(tokenizer)


def test_not_a_tokenizer_is_refused() -> None:
    with pytest.raises(TokenizerError, match="expected a fast Hugging Face tokenizer"):
        compile_index(CITATION, object())


@pytest.mark.parametrize(
    ("eos_ids", "size", "message"),
    [([], 0, "at least one EOS"), ([9], 3, "inside the vocabulary"), ([0], 1, "at least the tokenizer's 2 ids")],
    ids=["no-eos", "eos-outside", "model-smaller"],
)
def test_inconsistent_vocabularies_are_refused(eos_ids: list[int], size: int, message: str) -> None:
    with pytest.raises(TokenizerError, match=message):
        Vocabulary((None, b"a"), frozenset(eos_ids), size)
