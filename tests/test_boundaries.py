"""The package boundaries of ../shared/DESIGN.md, checked in a fresh interpreter each."""

import subprocess
import sys

import pytest

FORBIDDEN = {
    "grammars": {"torch", "transformers", "triton", "sqlalchemy", "fastapi", "citegen", "verifier", "streaming"},
    "verifier": {"torch", "transformers", "triton", "fastapi", "citegen", "streaming"},
    "streaming": {"torch", "transformers", "triton", "sqlalchemy", "citegen", "verifier"},
}


def _modules_after_import(package: str) -> set[str]:
    code = (
        f"import sys, pkgutil, importlib, {package}\n"
        f"for m in pkgutil.walk_packages({package}.__path__, '{package}.'):\n"
        "    if not m.name.split('.')[-1].startswith('test'): importlib.import_module(m.name)\n"
        "print('\\n'.join(sorted({n.split('.')[0] for n in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("package", sorted(FORBIDDEN), ids=sorted(FORBIDDEN))
def test_package_imports_none_of_its_forbidden_neighbours(package: str) -> None:
    crossed = FORBIDDEN[package] & _modules_after_import(package)
    assert not crossed, f"{package} imports {sorted(crossed)} (see ../shared/STYLE.md, Boundaries)"
