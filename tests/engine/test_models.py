"""Loading a model directory: what is missing is named; a model narrower than its tokenizer is refused."""

from __future__ import annotations

import pytest
from tiny_lm import build_model

from citegen.errors import ModelLoadError, VocabularyMismatchError
from citegen.models import choose_device, load_model, wrap_model


def test_a_saved_model_loads_on_the_cpu_in_float32(tiny_dir, tiny) -> None:
    loaded = load_model(tiny_dir, "cpu")
    assert loaded.device.type == "cpu" and next(loaded.model.parameters()).dtype.is_floating_point
    assert loaded.token_bytes == tiny.token_bytes and loaded.eos_ids == tiny.eos_ids


@pytest.mark.parametrize(
    "removed", ["config.json", "model.safetensors", "tokenizer.json"], ids=["config", "weights", "tokenizer"]
)
def test_a_directory_missing_a_part_names_it(tiny_dir, tmp_path, removed) -> None:
    for part in tiny_dir.iterdir():
        if part.name != removed and not (removed == "tokenizer.json" and part.name.startswith("tokenizer")):
            (tmp_path / part.name).write_bytes(part.read_bytes())
    expected = {"config.json": "config.json", "model.safetensors": "weights", "tokenizer.json": "tokenizer"}[
        removed
    ]
    with pytest.raises(ModelLoadError, match=f"got no {expected}"):
        load_model(tmp_path, "cpu")


def test_an_unknown_path_is_named(tmp_path) -> None:
    with pytest.raises(ModelLoadError, match="no such directory"):
        load_model(tmp_path / "nowhere", "cpu")


def test_a_model_with_fewer_logits_than_tokens_is_refused(tiny) -> None:
    narrow = build_model(tiny.vocab_size - 10, tiny.tokenizer.eos_token_id)
    with pytest.raises(VocabularyMismatchError, match=f"tokenizer's {tiny.vocab_size} logits"):
        wrap_model(narrow, tiny.tokenizer)


def test_an_unknown_device_is_a_typed_error() -> None:
    with pytest.raises(ModelLoadError, match="torch device"):
        choose_device("tpu:9")


def test_the_default_settings_point_at_the_shipped_model_and_data() -> None:
    """With nothing configured (what `make demo` runs), the model and data directories are the repo's."""
    from citegen.commands.settings import Settings

    settings = Settings()
    assert (settings.model_path / "config.json").is_file(), settings.model_path
    assert (settings.data_dir / "law").is_dir(), settings.data_dir
