"""A tiny tokenizer and Llama built in code, and a brute-force token index over them.

The index is a test double of `grammars.compile_index` for the whole-output language "free
text in which `대법원 <digit>` must begin a citation": it walks each token's characters with a
hand-written state machine around interegular's FSM of the citation. It is exact but slow, which
is fine over a vocabulary of a few hundred tokens.
"""

from __future__ import annotations

import codecs
import re

import numpy as np
import interegular
import torch
from interegular.fsm import anything_else
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from citegen.constraint import CitationLanguage
from citegen.models import LoadedModel, wrap_model
from grammars import parse_citation

CITATION = r"대법원 20[0-9]{2}\. [1-9]\. [1-9]\. 선고 20[0-9]{2}도[1-9][0-9]{0,3} 판결"
ANCHOR = r"대법원 [0-9]"
CORPUS = [
    "불법행위의 요건은 대법원 2024. 7. 1. 선고 2024도4202 판결에서 밝혔다.",
    "판례는 대법원 2019. 3. 5. 선고 2018도77 판결 참조. 손해배상 책임이 있다.",
    "대법원은 여러 번 판단하였다. 계약 해제와 손해배상, 민법과 형법의 관계를 본다.",
    "<think>대법원 2 무엇을 인용할까</think> 답: 대법원 2020. 1. 2. 선고 2020도12 판결",
    "The court held that damages are due. 법원은 원고의 청구를 받아들였다.",
]
END = "<|end|>"
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
DEAD = -1


def build_tokenizer(vocab_size: int = 400) -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[END, "<|user|>", "<|assistant|>", "<think>", "</think>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS * 3, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token=END, pad_token=END, chat_template=CHAT_TEMPLATE
    )


def build_model(vocab_size: int, eos_id: int, seed: int = 0) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab_size,
        bos_token_id=eos_id,
        eos_token_id=eos_id,
        pad_token_id=eos_id,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=128,
    )
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = eos_id
    return model.eval()


def train_briefly(model: LlamaForCausalLM, tokenizer: PreTrainedTokenizerFast, steps: int = 60) -> None:
    """Fit the corpus (as chat answers) a little, so sampling at temperature 1 writes
    near-citations often: the constraint then has real work to do."""
    texts = [
        tokenizer.apply_chat_template([{"role": "user", "content": "판례?"}], tokenize=False, add_generation_prompt=True)
        + answer
        + END
        for answer in CORPUS
    ]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    labels = batch.input_ids.masked_fill(batch.attention_mask == 0, -100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small trains 20x faster on one thread of a shared machine
    model.train()
    for _ in range(steps):
        loss = model(**batch, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    torch.set_num_threads(threads)


class BruteForceIndex:
    """States are interned (mode, watched tail or citation FSM state, pending bytes, in_think)."""

    WATCHED = ("대법원 ", "<think>", "</think>")

    def __init__(self, token_bytes: tuple[bytes, ...], eos_ids: frozenset[int]) -> None:
        self.token_bytes = token_bytes
        self.eos_ids = eos_ids
        self.vocab_size = len(token_bytes)
        self._fsm = interegular.parse_pattern(CITATION).to_fsm()
        self._states: list[tuple] = [("free", "", b"", False)]
        self._ids = {self._states[0]: 0}
        self._next: dict[tuple[int, int], int] = {}
        self._bitmasks: dict[int, np.ndarray] = {}
        self.initial_state = 0

    def _intern(self, state: tuple) -> int:
        if state not in self._ids:
            self._ids[state] = len(self._states)
            self._states.append(state)
        return self._ids[state]

    def _watched_suffix(self, text: str) -> str:
        for length in range(len(text), 0, -1):
            if any(watched.startswith(text[-length:]) for watched in self.WATCHED):
                return text[-length:]
        return ""

    def _citation_step(self, fsm_state: int, char: str) -> int | None:
        alphabet = self._fsm.alphabet
        symbol = alphabet[char] if char in alphabet else alphabet[anything_else]
        return self._fsm.map.get(fsm_state, {}).get(symbol)

    def _char(self, state: tuple, char: str) -> tuple | None:
        mode, where, pending, thinking = state
        if mode == "citation":
            following = self._citation_step(where, char)
            if following is not None:
                return ("citation", following, pending, thinking)
            if where not in self._fsm.finals:
                return None
            where = ""
        if not thinking and where == "대법원 " and char in "0123456789":
            fsm_state = self._fsm.initial
            for seen in where + char:
                fsm_state = self._citation_step(fsm_state, seen)
            return ("citation", fsm_state, pending, False)
        text = where + char
        if text == ("</think>" if thinking else "<think>"):
            return ("free", "", pending, not thinking)
        return ("free", self._watched_suffix(text), pending, thinking)

    def _walk(self, state: tuple, data: bytes) -> tuple | None:
        pending = state[2] + data
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            text = decoder.decode(pending)
        except UnicodeDecodeError:
            return None
        state = (*state[:2], b"", state[3])
        for char in text:
            state = self._char(state, char)
            if state is None:
                return None
        pending = decoder.getstate()[0]
        if pending and state[0] == "citation" and state[1] not in self._fsm.finals:
            # an unfinished character must be able to become one the citation accepts
            chars = (char for char in self._fsm.alphabet if isinstance(char, str))
            if not any(char.encode().startswith(pending) and self._citation_step(state[1], char) is not None for char in chars):
                return None
        return (*state[:2], pending, state[3])

    def advance(self, state: int, token_id: int) -> int:
        key = (state, token_id)
        if key not in self._next:
            if token_id in self.eos_ids:
                self._next[key] = state if self.is_accepting(state) else DEAD
            else:
                following = self._walk(self._states[state], self.token_bytes[token_id])
                self._next[key] = DEAD if following is None else self._intern(following)
        return self._next[key]

    def bitmask(self, state: int) -> np.ndarray:
        if state not in self._bitmasks:
            allowed = np.zeros(((self.vocab_size + 31) // 32) * 32, dtype=np.uint8)
            for token in range(self.vocab_size):
                allowed[token] = self.advance(state, token) != DEAD
            self._bitmasks[state] = np.packbits(allowed, bitorder="little").view(np.int32)
        return self._bitmasks[state]

    def fill_bitmask(self, state: int, out: np.ndarray) -> None:
        out[:] = self.bitmask(state)

    def is_accepting(self, state: int) -> bool:
        mode, where, pending, _ = self._states[state]
        return not pending and (mode == "free" or where in self._fsm.finals)

    def is_unconstrained(self, state: int) -> bool:
        return bool(np.all(self.bitmask(state) == -1)) if self.vocab_size % 32 == 0 else False

    def in_citation(self, state: int) -> bool:
        return self._states[state][0] == "citation"

    def is_dead(self, state: int) -> bool:
        return state == DEAD


def build_tiny() -> LoadedModel:
    tokenizer = build_tokenizer()
    model = build_model(len(tokenizer) + 7, tokenizer.eos_token_id)  # logits wider than the vocabulary
    train_briefly(model, tokenizer)
    return wrap_model(model, tokenizer)


def citation_language(loaded: LoadedModel) -> CitationLanguage:
    return CitationLanguage(BruteForceIndex(loaded.token_bytes, loaded.eos_ids), re.compile(ANCHOR), parse_citation)
