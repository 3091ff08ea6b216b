"""Fixtures of the engine tests: the tiny model and its constraint library (see tiny_lm.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))  # tiny_lm (and test_engine helpers) beside this file

from tiny_lm import build_tiny, citation_language

from citegen.constraint import ConstraintLibrary
from citegen.models import LoadedModel


@pytest.fixture(scope="session")
def tiny() -> LoadedModel:
    return build_tiny()


@pytest.fixture(scope="session")
def tiny_dir(tiny: LoadedModel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model saved as a Hugging Face model directory."""
    directory = tmp_path_factory.mktemp("tiny-model")
    tiny.model.save_pretrained(directory)
    tiny.tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def library(tiny: LoadedModel) -> ConstraintLibrary:
    return ConstraintLibrary(lambda narrowing: citation_language(tiny), tiny.vocab_size)


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Models this small run many times faster on one thread of a shared 2-core machine (torch's
    thread pool spins against the other processes); restored after each module."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
