"""A package's public names, each imported from its home module on first use (PEP 562), so that
importing the package costs nothing until a name is used: `citegen-admin --help` starts without
SQLAlchemy or alembic, and a finder without the index compiler (numpy). grammars and verifier both
use it (grammars exports it for verifier). The package keeps its literal `__all__`, and imports the names
under TYPE_CHECKING for type checkers; tests/test_public_api.py checks that each name loads."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_exports(
    package: str, homes: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, whose names `homes[module]` live in `module`."""
    home_of = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> object:
        home = home_of.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)  # loaded once: the next lookup finds it
        return value

    def __dir__() -> list[str]:
        return sorted({*home_of, *vars(sys.modules[package])})

    return __getattr__, __dir__
