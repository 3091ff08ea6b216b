"""The package boundaries of ../shared/DESIGN.md, checked in a fresh interpreter each, and the
public surfaces: a package uses another only through the names its `__init__` exports."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
PACKAGES = ("citegen", "grammars", "streaming", "verifier")
WITH_PUBLIC_SURFACE = ("grammars", "streaming", "verifier")  # each pins its __all__ in tests/<package>
MOST_LINES = 600  # a module past this has grown a second concept: split it (../shared/STYLE.md)

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


def test_reading_the_database_loads_no_importer() -> None:
    """The verifier's readers (resolver, verify, lexicon, admin queries) and a recite worker take their
    tables from verifier.models: the importers' pydantic records cost every process a tenth of a second."""
    code = (
        "import sys, citegen.commands.recite_wiring, verifier.resolver, verifier.verify, verifier.lexicon, "
        "verifier.admin, verifier.supplements, verifier.versions, verifier.former_names, verifier.lookups\n"
        "print('\\n'.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPOSITORY)
    loaded = set(out.stdout.split())
    assert "verifier.resolver" in loaded
    assert not {"pydantic", "verifier.importers"} & loaded


def _internal_imports(package: str) -> list[str]:
    """`path:line module` for each import of another package's inner module (`grammars.find`)."""
    found = []
    for path in sorted((REPOSITORY / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            for module in modules:
                top, _, inner = module.partition(".")
                if inner and top in WITH_PUBLIC_SURFACE and top != package:
                    found.append(f"{path.relative_to(REPOSITORY)}:{node.lineno} {module}")
    return found


@pytest.mark.parametrize("package", PACKAGES, ids=PACKAGES)
def test_packages_use_each_other_through_public_names_only(package: str) -> None:
    internal = _internal_imports(package)
    assert not internal, f"{package} imports inner modules (export the name from the package instead): {internal}"


@pytest.mark.parametrize("package", PACKAGES, ids=PACKAGES)
def test_no_module_passes_the_line_cap(package: str) -> None:
    modules = (REPOSITORY / package).rglob("*.py")
    lengths = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in modules}
    long = sorted(f"{path.relative_to(REPOSITORY)}: {count}" for path, count in lengths.items() if count > MOST_LINES)
    assert not long, f"modules past {MOST_LINES} lines: {long}"
