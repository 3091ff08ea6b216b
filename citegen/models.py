"""Loading a Hugging Face causal LM directory and what the engine needs to know about it."""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from citegen.errors import ModelLoadError, VocabularyMismatchError

logger = logging.getLogger(__name__)

_WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "tokenizer_config.json")


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A model in eval mode with its tokenizer, and the facts the decode loop reads every step."""

    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    device: torch.device
    token_bytes: tuple[bytes, ...]  # token id -> the bytes it adds to the text
    eos_ids: frozenset[int]
    context_length: int
    cache_keyword: str  # transformers 5.x calls the forward's KV-cache argument `cache`, 4.x `past_key_values`

    @property
    def vocab_size(self) -> int:
        """The tokenizer's vocabulary; logits may be wider (padded embeddings), never narrower."""
        return len(self.token_bytes)


def choose_device(device: str = "auto") -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        return torch.device(device)
    except RuntimeError as error:
        raise ModelLoadError(f"expected a torch device such as 'cpu', 'cuda' or 'cuda:1', got {device!r}") from error


def load_model(path: str | Path, device: str = "auto") -> LoadedModel:
    """Load `path` (a local directory; nothing is downloaded): CUDA in bf16 when available, CPU in fp32."""
    directory = Path(path)
    if not directory.is_dir():
        raise ModelLoadError(f"expected a model directory at {directory}, got no such directory")
    missing = [
        what
        for what, names in (("config.json", ("config.json",)), ("weights", _WEIGHT_FILES), ("tokenizer", _TOKENIZER_FILES))
        if not any((directory / name).exists() for name in names)
    ]
    if missing:
        raise ModelLoadError(f"expected config.json, weights and tokenizer files in {directory}, got no {', '.join(missing)}")
    target = choose_device(device)
    dtype = torch.bfloat16 if target.type == "cuda" else torch.float32
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(directory, dtype=dtype, local_files_only=True)
    except (OSError, ValueError) as error:
        raise ModelLoadError(f"expected a loadable causal LM in {directory}, got {error}") from error
    model.to(target).eval()
    return wrap_model(model, tokenizer)


def wrap_model(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> LoadedModel:
    """Check that model and tokenizer agree, and gather what the engine needs."""
    logits_width = model.get_output_embeddings().weight.shape[0]
    token_bytes = token_byte_table(tokenizer)
    if logits_width < len(token_bytes):
        raise VocabularyMismatchError(
            f"expected a model with at least the tokenizer's {len(token_bytes)} logits, got {logits_width}"
        )
    eos = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
    configured = getattr(model.generation_config, "eos_token_id", None)
    eos.update(configured if isinstance(configured, list) else [configured] if configured is not None else [])
    context = getattr(model.config, "max_position_embeddings", None) or 2048
    keyword = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    return LoadedModel(model, tokenizer, model.device, token_bytes, frozenset(eos), int(context), keyword)


@cache
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level BPE alphabet back to bytes."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    codes = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {chr(code): byte for byte, code in zip(printable, codes, strict=True)}


def token_byte_table(tokenizer: PreTrainedTokenizerBase) -> tuple[bytes, ...]:
    """Token id -> bytes, for byte-level BPE (GPT-2 alphabet) and SentencePiece (`▁`, `<0xXX>`);
    added tokens (specials, `<think>`) stand for their own text."""
    decoder = _byte_decoder()
    added = {token_id: token.content for token_id, token in tokenizer.added_tokens_decoder.items()}
    table = []
    for token_id, piece in enumerate(tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))):
        if token_id in added:
            table.append(added[token_id].encode())
        elif piece is None:
            table.append(b"")
        elif len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
            table.append(bytes([int(piece[3:5], 16)]))
        elif all(char in decoder for char in piece):
            table.append(bytes(decoder[char] for char in piece))
        else:
            table.append(piece.replace("\u2581", " ").encode())
    return tuple(table)
