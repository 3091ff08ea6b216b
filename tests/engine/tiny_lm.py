"""A tiny byte-level BPE tokenizer and Llama built in code, the Llama fitted for a few steps to
answers that cite cases, so that sampling writes near-citations the constraint must correct."""

from __future__ import annotations

import re

import torch
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from citegen.constraint import CitationLanguage, compile_language
from citegen.models import LoadedModel, wrap_model
from grammars import answer_grammar, parse_citation

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


def build_tokenizer(vocab_size: int = 400) -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[END, "<|user|>", "<|assistant|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS * 3, trainer)
    tokenizer.add_tokens(
        [AddedToken(mark, special=False) for mark in ("<think>", "</think>")]
    )  # text, not control
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
        tokenizer.apply_chat_template(
            [{"role": "user", "content": "판례?"}], tokenize=False, add_generation_prompt=True
        )
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


def build_tiny() -> LoadedModel:
    tokenizer = build_tokenizer()
    model = build_model(len(tokenizer) + 7, tokenizer.eos_token_id)  # logits wider than the vocabulary
    train_briefly(model, tokenizer)
    return wrap_model(model, tokenizer)


def citation_language(loaded: LoadedModel) -> CitationLanguage:
    """The real whole-output language (case and statute citations) over the tiny vocabulary."""
    return compile_language(answer_grammar(), loaded.vocabulary)


def outside_think(text: str) -> str:
    return re.sub(r"<think>.*?(</think>|$)", "", text, flags=re.S)


ANCHORS = re.compile("|".join(citation.anchor.to_regex() for citation in answer_grammar().citations))


def malformed_anchors(text: str) -> list[str]:
    """Anchors in free text that do not begin a well-formed citation."""
    free = outside_think(text)
    return [
        free[m.start() : m.start() + 40]
        for m in ANCHORS.finditer(free)
        if not any(
            parse_citation(free[m.start() : end])
            for end in range(m.end(), min(len(free), m.start() + 80) + 1)
        )
    ]
