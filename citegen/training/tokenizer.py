"""A byte-level BPE tokenizer trained on the corpus, saved in Hugging Face format.

Byte-level, as in the vocabularies of real models (GPT-2, Llama 3, Qwen, DeepSeek): the 256 byte
tokens are always present, so any text is encodable, and merges are learnt on bytes, so many
tokens hold the first one or two bytes of a three-byte Hangul syllable. The constrained decoder
has to cope with exactly that (a token may end mid-character), which is why a tiny vocabulary of a
few thousand tokens is still a faithful test.

`<think>` and `</think>` are added tokens that are *not* special, as in Qwen3 and DeepSeek-R1:
one id each, kept by `decode(..., skip_special_tokens=True)`, and stored as plain text in the
vocabulary rather than in the byte-to-unicode alphabet, so the token index meets the same
mixed vocabulary it meets on real reasoning models.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from citegen.training.errors import TrainingError

END_OF_TEXT = "<|endoftext|>"
TURN_START = "<|im_start|>"
TURN_END = "<|im_end|>"
SPECIAL_TOKENS = (END_OF_TEXT, TURN_START, TURN_END)
THINK_TOKENS = ("<think>", "</think>")
MIN_VOCAB_SIZE = 256 + len(SPECIAL_TOKENS) + len(THINK_TOKENS)  # the bytes and the added tokens, no merge

# ChatML. No default system message: a prompt is as short as the caller makes it.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)


def train_tokenizer(texts: Iterable[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """Byte-level BPE with `vocab_size` entries in all (bytes, merges, special and think tokens)."""
    if vocab_size < MIN_VOCAB_SIZE:  # the trainer would silently keep the bytes and return more entries
        raise TrainingError(f"expected a vocabulary of at least {MIN_VOCAB_SIZE} entries (256 bytes, "
                            f"{len(SPECIAL_TOKENS) + len(THINK_TOKENS)} added tokens), got {vocab_size}")
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(THINK_TOKENS),
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=2,
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    tokenizer.add_tokens([AddedToken(token, normalized=False, special=False) for token in THINK_TOKENS])
    return PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]  # untyped in transformers
        tokenizer_object=tokenizer,
        eos_token=TURN_END,
        pad_token=END_OF_TEXT,
        unk_token=None,
        bos_token=None,
        chat_template=CHAT_TEMPLATE,
        model_max_length=1024,
        clean_up_tokenization_spaces=False,
    )


def partial_utf8_tokens(tokenizer: PreTrainedTokenizerFast) -> list[int]:
    """Ids of tokens whose bytes are not a whole UTF-8 string (they split a character).

    The byte-level decoder replaces an incomplete sequence with U+FFFD, which no corpus text holds.
    """
    decoder = tokenizer.backend_tokenizer.decoder
    return sorted(token_id for token, token_id in tokenizer.get_vocab().items()
                  if token not in SPECIAL_TOKENS + THINK_TOKENS and "\ufffd" in decoder.decode([token]))


def save_tokenizer(tokenizer: PreTrainedTokenizerFast, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(directory)
