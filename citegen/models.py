"""Loading a Hugging Face causal LM directory and what the engine needs to know about it."""

from __future__ import annotations

import gc
import inspect
import logging
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from citegen.errors import ModelLoadError, VocabularyMismatchError
from grammars import GrammarError, Vocabulary

logger = logging.getLogger(__name__)

_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "tokenizer_config.json")


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A model in eval mode with its tokenizer, and the facts the decode loop reads every step."""

    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    device: torch.device
    vocabulary: Vocabulary  # grammars' view of the tokenizer: token id -> bytes (None: a control token)
    token_bytes: tuple[bytes, ...]  # token id -> the bytes it adds to the text (b"" for control tokens)
    eos_ids: frozenset[int]
    context_length: int
    cache_keyword: (
        str  # transformers 5.x calls the forward's KV-cache argument `cache`, 4.x `past_key_values`
    )

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
        raise ModelLoadError(
            f"expected a torch device such as 'cpu', 'cuda' or 'cuda:1', got {device!r}"
        ) from error


def load_model(path: str | Path, device: str = "auto") -> LoadedModel:
    """Load `path` (a local directory; nothing is downloaded): CUDA in bf16 when available, CPU in fp32."""
    directory = Path(path)
    if not directory.is_dir():
        raise ModelLoadError(f"expected a model directory at {directory}, got no such directory")
    missing = [
        what
        for what, names in (
            ("config.json", ("config.json",)),
            ("weights", _WEIGHT_FILES),
            ("tokenizer", _TOKENIZER_FILES),
        )
        if not any((directory / name).exists() for name in names)
    ]
    if missing:
        raise ModelLoadError(
            f"expected config.json, weights and tokenizer files in {directory}, got no {', '.join(missing)}"
        )
    target = choose_device(device)
    dtype = torch.bfloat16 if target.type == "cuda" else torch.float32
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(directory, dtype=dtype, local_files_only=True)
    except (OSError, ValueError) as error:
        raise ModelLoadError(f"expected a loadable causal LM in {directory}, got {error}") from error
    model.to(target).eval()  # type: ignore[arg-type]  # transformers wraps `to` in a decorator typed as taking the model
    return wrap_model(model, tokenizer)


def freeze_loaded() -> None:
    """Leave every object alive now out of the collector's passes (`gc.freeze`), for a process that
    serves: called once its model is loaded and its answer language prepared, so that neither the
    tokenizer's ~370,000 Python objects (the DeepSeek vocabulary's) nor the prepared library's (30,000
    for the statute book's answer language) are walked by each full collection: 250-300 ms of CPU for
    the tokenizer's alone, landing in whatever compiles or decodes when it comes (full collections then
    come more often, each over what is not frozen; compiles pause the collector, `collector_paused`).
    A frozen object is still freed when nothing refers to it; only a cycle among frozen objects is
    never collected, so only what lives as long as the process (or until a reload) should be alive
    when this is called."""
    gc.freeze()


def wrap_model(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> LoadedModel:
    """Check that model and tokenizer agree, and gather what the engine needs."""
    logits_width = model.get_output_embeddings().weight.shape[0]  # type: ignore[no-untyped-call]  # untyped upstream
    try:
        vocabulary = Vocabulary.from_tokenizer(tokenizer)
    except GrammarError as error:
        raise ModelLoadError(f"expected a tokenizer with a byte mapping, got {error}") from error
    token_bytes = tuple(piece or b"" for piece in vocabulary.tokens)
    if logits_width < len(token_bytes):
        raise VocabularyMismatchError(
            f"expected a model with at least the tokenizer's {len(token_bytes)} logits, got {logits_width}"
        )
    eos = set(vocabulary.eos_ids)
    configured = getattr(model.generation_config, "eos_token_id", None)
    eos.update(configured if isinstance(configured, list) else [configured] if configured is not None else [])
    context = getattr(model.config, "max_position_embeddings", None) or 2048
    keyword = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    return LoadedModel(
        model, tokenizer, model.device, vocabulary, token_bytes, frozenset(eos), int(context), keyword
    )
