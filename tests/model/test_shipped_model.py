"""The shipped model data/models/ko-legal-tiny: loads offline, small, servable, tokenizes like a real
byte-level vocabulary, and answers a legal question in Korean with citations."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from citegen.training.tokenizer import THINK_TOKENS, partial_utf8_tokens

MODEL_DIR = Path(__file__).resolve().parents[2] / "data" / "models" / "ko-legal-tiny"
QUESTION = "불법행위로 인한 손해배상책임의 요건은 무엇인가요?"  # the README's demo question
# Loose on purpose: the model may write a citation messily; the grammars decide what is canonical.
CITATION_LIKE = re.compile(r"제\d+조|(?:19|20)?\d{2}\s?[가-힣]{1,3}\s?\d{2,7}")


@pytest.fixture(scope="module")
def tokenizer() -> PreTrainedTokenizerBase:
    return AutoTokenizer.from_pretrained(MODEL_DIR, local_files_only=True)


@pytest.fixture(scope="module")
def model() -> PreTrainedModel:
    return AutoModelForCausalLM.from_pretrained(MODEL_DIR, local_files_only=True).eval()


def test_loads_with_the_hub_offline_and_an_empty_cache(tmp_path: Path) -> None:
    code = (
        "import sys; from transformers import AutoModelForCausalLM, AutoTokenizer\n"
        "t = AutoTokenizer.from_pretrained(sys.argv[1]); m = AutoModelForCausalLM.from_pretrained(sys.argv[1])\n"
        "print(len(t), m.config.vocab_size)"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code, str(MODEL_DIR)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    tokens, vocab = map(int, done.stdout.split())
    assert tokens == vocab


def test_is_at_most_30_mb_on_disk_in_safetensors() -> None:
    files = {path.name: path.stat().st_size for path in MODEL_DIR.iterdir()}
    assert "model.safetensors" in files and not any(name.endswith(".bin") for name in files)
    assert sum(files.values()) <= 30 * 2**20


def test_shape_is_servable_by_vllm_cpu(model: PreTrainedModel) -> None:
    config = model.config
    assert config.model_type == "llama" and config.tie_word_embeddings
    assert config.head_dim >= 32 and config.head_dim * config.num_attention_heads == config.hidden_size
    assert config.max_position_embeddings >= 1024


def test_vocabulary_is_byte_level_bpe_that_splits_hangul(tokenizer: PreTrainedTokenizerBase) -> None:
    assert 2048 <= len(tokenizer) <= 8192
    assert len(partial_utf8_tokens(tokenizer)) >= 50
    text = "대법원 2024. 7. 11. 선고 2024도4202 판결, 𝔘 emoji 🙂"
    assert tokenizer.decode(tokenizer(text, add_special_tokens=False)["input_ids"]) == text


def test_think_tags_are_single_tokens_that_decoding_keeps(tokenizer: PreTrainedTokenizerBase) -> None:
    ids = tokenizer("<think>검토</think>답", add_special_tokens=False)["input_ids"]
    opening, closing = (tokenizer.convert_tokens_to_ids(tag) for tag in THINK_TOKENS)
    assert ids[0] == opening and ids.count(closing) == 1 and ids.index(closing) < len(ids) - 1
    assert tokenizer.decode(ids, skip_special_tokens=True) == "<think>검토</think>답"


def test_chat_template_renders_chatml(tokenizer: PreTrainedTokenizerBase) -> None:
    messages = [{"role": "system", "content": "법률 도우미"}, {"role": "user", "content": "질문"}]
    rendered = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    assert rendered == (
        "<|im_start|>system\n법률 도우미<|im_end|>\n<|im_start|>user\n질문<|im_end|>\n<|im_start|>assistant\n"
    )
    config = json.loads((MODEL_DIR / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["chat_template"] == tokenizer.chat_template and config["eos_token"] == "<|im_end|>"


def test_generation_stops_at_the_end_of_the_turn(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> None:
    assert tokenizer.convert_tokens_to_ids("<|im_end|>") in model.generation_config.eos_token_id


def test_greedy_answer_is_korean_legal_prose_with_a_citation(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase
) -> None:
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": QUESTION}], add_generation_prompt=True,
                                           return_tensors="pt", return_dict=True)
    output = model.generate(**prompt, max_new_tokens=80, do_sample=False)
    answer = tokenizer.decode(output[0, prompt["input_ids"].shape[1]:], skip_special_tokens=True)
    hangul = sum("가" <= char <= "힣" for char in answer)
    assert hangul >= 30 and hangul / max(1, len(answer.replace(" ", ""))) >= 0.5, answer
    assert CITATION_LIKE.search(answer), answer
