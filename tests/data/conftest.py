"""The generator package lives in data/tools (it is not installed): tests import it from there."""

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "data" / "tools"


@pytest.fixture
def sample_data(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], ModuleType]:
    """`sample_data("cases")` imports data/tools/sample_data/cases.py in this process."""
    monkeypatch.syspath_prepend(str(TOOLS))
    return lambda name: importlib.import_module(f"sample_data.{name}")
