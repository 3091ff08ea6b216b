"""citegen has one error root: every error class its modules define derives from CitegenError,
and the errors module's docstring draws each of them."""

from __future__ import annotations

import importlib
import inspect

import pytest

import citegen.errors
from citegen.errors import CitegenError

MODULES = [
    "citegen.errors",
    "citegen.recite.errors",
    "citegen.training.errors",
    "citegen.integrations.options",
]


def error_classes(module_name: str) -> list[type]:
    module = importlib.import_module(module_name)
    return [
        value
        for _, value in inspect.getmembers(module, inspect.isclass)
        if issubclass(value, BaseException) and value.__module__ == module_name
    ]


@pytest.mark.parametrize("module_name", MODULES)
def test_every_error_derives_from_the_one_root(module_name) -> None:
    classes = error_classes(module_name)
    assert classes
    assert [cls.__name__ for cls in classes if not issubclass(cls, CitegenError)] == []


def test_the_tree_in_the_docstring_names_every_error_of_the_module_and_each_package_root() -> None:
    drawn = citegen.errors.__doc__
    for cls in error_classes("citegen.errors") + [
        importlib.import_module("citegen.recite.errors").ReciteError,
        importlib.import_module("citegen.training.errors").TrainingError,
        importlib.import_module("citegen.integrations.options").ExtraArgsError,
    ]:
        assert cls.__name__ in drawn
