"""Tokenizer and training loop on a tiny corpus: seeded runs repeat exactly, and bad shapes are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from transformers import PreTrainedTokenizerFast

from citegen.training.corpus import CorpusGenerator, Sample
from citegen.training.errors import TrainingError
from citegen.training.sources import read_law_data
from citegen.training.tokenizer import partial_utf8_tokens, train_tokenizer
from citegen.training.train import ModelShape, Schedule, build_model, pack_blocks, train

TINY = ModelShape(hidden_size=64, layers=1, heads=2, head_dim=32, intermediate_size=128, max_positions=64)
SHORT = Schedule(steps=3, batch_size=2, block_size=32, warmup_steps=1, threads=1)


@pytest.fixture(scope="module")
def samples(law_data_dirs: tuple[Path, Path]) -> list[Sample]:
    return list(CorpusGenerator(read_law_data(*law_data_dirs), seed=3).samples(200))


@pytest.fixture(scope="module")
def tokenizer(samples: list[Sample]) -> PreTrainedTokenizerFast:
    return train_tokenizer((m["content"] for s in samples for m in s.messages()), vocab_size=600)


def test_tokenizer_has_the_chat_tokens_and_splits_hangul(tokenizer: PreTrainedTokenizerFast) -> None:
    for token in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"):
        assert tokenizer.convert_tokens_to_ids(token) is not None
    assert partial_utf8_tokens(tokenizer)
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"


def test_same_seed_trains_the_same_weights(samples: list[Sample], tokenizer: PreTrainedTokenizerFast) -> None:
    blocks = pack_blocks(samples, tokenizer, SHORT.block_size)
    runs = []
    for _ in range(2):
        model = build_model(TINY, tokenizer, seed=5)
        train(model, blocks, SHORT, seed=5)
        runs.append(model.state_dict())
    assert all(torch.equal(runs[0][name], runs[1][name]) for name in runs[0])
    other = build_model(TINY, tokenizer, seed=6)
    assert not torch.equal(other.state_dict()["lm_head.weight"], runs[0]["lm_head.weight"])


@pytest.mark.parametrize(
    "shape",
    [ModelShape(hidden_size=64, heads=4, head_dim=16), ModelShape(hidden_size=256, heads=4, head_dim=32)],
    ids=["head-dim-16-unservable", "heads-times-head-dim-not-hidden"],
)
def test_build_model_refuses_a_bad_shape(shape: ModelShape, tokenizer: PreTrainedTokenizerFast) -> None:
    with pytest.raises(TrainingError, match="expected heads × head_dim"):
        build_model(shape, tokenizer, seed=0)


def test_pack_blocks_refuses_a_corpus_shorter_than_a_block(tokenizer: PreTrainedTokenizerFast,
                                                           samples: list[Sample]) -> None:
    with pytest.raises(TrainingError, match="expected at least 100000 tokens"):
        pack_blocks(samples[:1], tokenizer, 100_000)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [("steps", 0, "expected steps ≥ 1, got 0"), ("batch_size", 0, "expected batch_size ≥ 1, got 0"),
     ("threads", 0, "expected threads ≥ 1, got 0"), ("block_size", 1, "expected block_size ≥ 2, got 1"),
     ("warmup_steps", -1, "expected warmup_steps ≥ 0, got -1"),
     ("learning_rate", 0.0, "expected learning_rate > 0, got 0.0")],
    ids=["no-steps", "empty-batch", "no-threads", "one-token-block", "negative-warm-up", "no-learning-rate"],
)
def test_a_schedule_out_of_range_is_refused_when_made(field: str, value: float, expected: str) -> None:
    with pytest.raises(TrainingError, match=expected):
        Schedule(**{field: value})


def test_a_block_longer_than_the_model_positions_is_refused(samples: list[Sample],
                                                            tokenizer: PreTrainedTokenizerFast) -> None:
    blocks = pack_blocks(samples, tokenizer, TINY.max_positions * 2)
    with pytest.raises(TrainingError, match="expected a block of at most the model's 64 positions, got 128 tokens"):
        train(build_model(TINY, tokenizer, seed=0), blocks, SHORT, seed=0)


def test_a_vocabulary_smaller_than_the_bytes_and_added_tokens_is_refused(samples: list[Sample]) -> None:
    with pytest.raises(TrainingError, match=r"expected a vocabulary of at least 261 entries .* got 100"):
        train_tokenizer((m["content"] for s in samples for m in s.messages()), vocab_size=100)


def test_tokens_seen_counts_what_was_trained_on(samples: list[Sample], tokenizer: PreTrainedTokenizerFast) -> None:
    blocks = pack_blocks(samples[:20], tokenizer, SHORT.block_size)
    larger_than_the_corpus = Schedule(steps=2, batch_size=len(blocks) + 5, block_size=SHORT.block_size,
                                      warmup_steps=1, threads=1)
    result = train(build_model(TINY, tokenizer, seed=0), blocks, larger_than_the_corpus, seed=0)
    assert result["tokens_seen"] == 2 * blocks.numel()


def test_pack_blocks_refuses_a_block_shorter_than_two_tokens(tokenizer: PreTrainedTokenizerFast,
                                                             samples: list[Sample]) -> None:
    with pytest.raises(TrainingError, match="expected block_size ≥ 2, got 0"):
        pack_blocks(samples[:1], tokenizer, 0)
