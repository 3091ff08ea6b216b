"""Train the tiny Llama on the corpus: a plain torch loop (AdamW, warm-up then cosine decay) over
packed blocks of the chat-formatted corpus, in a data order fixed by the seed."""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import cast

import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from citegen.training.corpus import Sample
from citegen.training.errors import TrainingError
from citegen.training.tokenizer import END_OF_TEXT, TURN_END

logger = logging.getLogger(__name__)

MIN_BLOCK_SIZE = 2  # the loss predicts each token from those before it: a 1-token block teaches nothing


def _require_at_least(owner: object, **least: float) -> None:
    """Refuses a field of `owner` below its least value, before anything is built (NaN included)."""
    for name, bound in least.items():
        value = getattr(owner, name)
        if not value >= bound:
            raise TrainingError(f"expected {name} ≥ {bound}, got {value!r}")


@dataclass(frozen=True, slots=True)
class ModelShape:
    """head_dim 32: the smallest vLLM's CPU attention accepts (../shared/reference/vllm-cpu.md)."""

    hidden_size: int = 256
    layers: int = 4
    heads: int = 8
    head_dim: int = 32
    intermediate_size: int = 768
    max_positions: int = 1024

    def __post_init__(self) -> None:
        _require_at_least(self, hidden_size=1, layers=1, heads=1, head_dim=1, intermediate_size=1,
                          max_positions=MIN_BLOCK_SIZE)


@dataclass(frozen=True, slots=True)
class Schedule:
    steps: int = 1000
    batch_size: int = 16
    block_size: int = 256
    learning_rate: float = 3e-3
    warmup_steps: int = 40
    weight_decay: float = 0.1
    threads: int = 2

    def __post_init__(self) -> None:
        _require_at_least(self, steps=1, batch_size=1, block_size=MIN_BLOCK_SIZE, warmup_steps=0,
                          weight_decay=0.0, threads=1)
        if not self.learning_rate > 0:
            raise TrainingError(f"expected learning_rate > 0, got {self.learning_rate!r}")


def check_block_fits(block_size: int, max_positions: int) -> None:
    """A block longer than the model's positions would fail inside the first forward pass."""
    if block_size > max_positions:
        raise TrainingError(f"expected a block of at most the model's {max_positions} positions, "
                            f"got {block_size} tokens")


def build_model(shape: ModelShape, tokenizer: PreTrainedTokenizerFast, seed: int) -> LlamaForCausalLM:
    if shape.heads * shape.head_dim != shape.hidden_size or shape.head_dim < 32:
        raise TrainingError(
            f"expected heads × head_dim == hidden_size with head_dim ≥ 32, got {shape.heads} × "
            f"{shape.head_dim} for hidden {shape.hidden_size}"
        )
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=shape.hidden_size,
        intermediate_size=shape.intermediate_size,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.heads,
        head_dim=shape.head_dim,
        max_position_embeddings=shape.max_positions,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.convert_tokens_to_ids(TURN_END),
        pad_token_id=cast(int, tokenizer.convert_tokens_to_ids(END_OF_TEXT)),  # one token in, one id out
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config)


def pack_blocks(samples: list[Sample], tokenizer: PreTrainedTokenizerFast, block_size: int) -> torch.Tensor:
    """The chat-formatted samples, each closed by <|endoftext|>, as one stream cut into blocks."""
    if block_size < MIN_BLOCK_SIZE:
        raise TrainingError(f"expected block_size ≥ {MIN_BLOCK_SIZE}, got {block_size}")
    texts = [cast(str, tokenizer.apply_chat_template(s.messages(), tokenize=False)) + END_OF_TEXT for s in samples]
    stream = [token for ids in tokenizer(texts, add_special_tokens=False)["input_ids"] for token in ids]
    usable = len(stream) // block_size * block_size
    if usable == 0:
        raise TrainingError(f"expected at least {block_size} tokens of corpus, got {len(stream)}")
    return torch.tensor(stream[:usable], dtype=torch.long).view(-1, block_size)


def train(model: LlamaForCausalLM, blocks: torch.Tensor, schedule: Schedule, seed: int) -> dict[str, float]:
    """Train in place; returns the wall time, the tokens seen and the mean loss of the last 50 steps."""
    check_block_fits(blocks.shape[1], model.config.max_position_embeddings)
    threads = torch.get_num_threads()
    torch.set_num_threads(schedule.threads)
    try:
        return _train(model, blocks, schedule, seed)
    finally:
        torch.set_num_threads(threads)


def _train(model: LlamaForCausalLM, blocks: torch.Tensor, schedule: Schedule, seed: int) -> dict[str, float]:
    order = torch.Generator().manual_seed(seed)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": schedule.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=schedule.learning_rate, betas=(0.9, 0.95),
    )

    def learning_rate_factor(step: int) -> float:
        if step < schedule.warmup_steps:
            return (step + 1) / schedule.warmup_steps
        progress = (step - schedule.warmup_steps) / max(1, schedule.steps - schedule.warmup_steps)
        return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, learning_rate_factor)
    model.train()
    permutation = torch.randperm(len(blocks), generator=order)
    cursor, recent, tokens_seen = 0, list[float](), 0
    started = time.monotonic()
    for step in range(schedule.steps):
        if cursor + schedule.batch_size > len(permutation):
            permutation, cursor = torch.randperm(len(blocks), generator=order), 0
        batch = blocks[permutation[cursor:cursor + schedule.batch_size]]
        cursor += schedule.batch_size
        tokens_seen += batch.numel()  # a batch larger than the corpus holds every block once
        loss = model(input_ids=batch, labels=batch).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        recent = (recent + [loss.item()])[-50:]
        if step % 25 == 0 or step == schedule.steps - 1:
            logger.info("step %d/%d loss %.3f lr %.2e %.0fs", step, schedule.steps, loss.item(),
                        scheduler.get_last_lr()[0], time.monotonic() - started)
    model.eval()  # type: ignore[no-untyped-call]  # untyped in transformers
    return {
        "wall_seconds": round(time.monotonic() - started, 1),
        "tokens_seen": tokens_seen,
        "final_loss": round(sum(recent) / len(recent), 4),
    }


def save_model(model: LlamaForCausalLM, tokenizer: PreTrainedTokenizerFast, directory: Path,
               summary: dict[str, object]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    model.generation_config = GenerationConfig(  # type: ignore[no-untyped-call]  # untyped in transformers
        eos_token_id=[tokenizer.convert_tokens_to_ids(TURN_END), tokenizer.convert_tokens_to_ids(END_OF_TEXT)],
        pad_token_id=tokenizer.convert_tokens_to_ids(END_OF_TEXT),
        do_sample=False,
        max_new_tokens=256,
    )
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    _write_portable_tokenizer_config(tokenizer, directory)
    (directory / "training_summary.json").write_text(
        json.dumps(summary, ensure_ascii=False, indent=2, default=_jsonable) + "\n", encoding="utf-8"
    )


def _write_portable_tokenizer_config(tokenizer: PreTrainedTokenizerFast, directory: Path) -> None:
    """Make the folder load with the transformers 4.x/5.x that vLLM and the GPU machines pin, not only
    the one that wrote it: the class name every version knows, the chat template inside
    tokenizer_config.json as well as in chat_template.jinja, and a special_tokens_map.json."""
    config_path = directory / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.update(tokenizer_class="PreTrainedTokenizerFast", chat_template=tokenizer.chat_template)
    config_path.write_text(json.dumps(config, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    special = {"eos_token": TURN_END, "pad_token": END_OF_TEXT}
    (directory / "special_tokens_map.json").write_text(json.dumps(special, indent=2) + "\n", encoding="utf-8")


def _jsonable(value: object) -> object:
    return asdict(value) if is_dataclass(value) and not isinstance(value, type) else str(value)
