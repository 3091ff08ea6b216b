"""Fixtures of the engine tests: the tiny model and its constraint library (see tiny_lm.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tiny_lm beside this file

from tiny_lm import build_tiny, citation_language  # noqa: E402

from citegen.constraint import ConstraintLibrary  # noqa: E402
from citegen.models import LoadedModel  # noqa: E402


@pytest.fixture(scope="session")
def tiny() -> LoadedModel:
    return build_tiny()


@pytest.fixture(scope="session")
def library(tiny: LoadedModel) -> ConstraintLibrary:
    return ConstraintLibrary(lambda narrowing: citation_language(tiny), tiny.vocab_size)
