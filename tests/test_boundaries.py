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


def test_only_citegens_entry_points_import_verifier_and_streaming() -> None:
    """citegen's engine, adapters, recite and training take what they need as arguments; only the
    composition root (citegen.commands, citegen.cli) wires in the verifier and the service."""
    code = (
        "import sys, pkgutil, importlib, importlib.util, citegen\n"
        "for m in pkgutil.walk_packages(citegen.__path__, 'citegen.'):\n"
        "    if m.name.startswith(('citegen.commands', 'citegen.cli')): continue\n"
        "    vllm_missing = importlib.util.find_spec('vllm') is None\n"
        "    if m.name.startswith('citegen.integrations.vllm') and vllm_missing: continue\n"
        "    importlib.import_module(m.name)\n"
        "print('\\n'.join(sorted({n.split('.')[0] for n in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    crossed = {"verifier", "streaming"} & set(out.stdout.split())
    assert not crossed, f"citegen outside its entry points imports {sorted(crossed)}"
