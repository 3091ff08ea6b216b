"""C sources compiled by the machine's own compiler at first use: a CPython extension imported as a module
(`build_extension`: the token walk, the CPU mask kernel).

Built with -O3 -march=native in a temporary folder removed as soon as it is loaded (it stays mapped):
nothing is cached on disk or downloaded, and the instructions are the machine's own. Where no compiler
works (or this interpreter's headers are missing) the caller takes its Python or torch path;
`NativeBuildError` says why, in the compiler's words.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np

from grammars.errors import NativeBuildError

_BUILD_TIMEOUT_S = 120  # ~0.1 s of CPU; a compiler that takes minutes is not one to wait for on a request


def build_extension(source: Path, compiler: str = "cc") -> ModuleType:
    """`source`, a CPython extension defining the module named as its file (numpy's C API at hand),
    compiled with `compiler` against this interpreter's headers and imported, outside `sys.modules`
    (NativeBuildError where that fails)."""
    name = source.stem
    with tempfile.TemporaryDirectory(prefix="citegen-native-") as folder:
        path = Path(folder) / f"{name}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
        _compile(source, path, compiler, (f"-I{sysconfig.get_paths()['include']}", f"-I{np.get_include()}"))
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise NativeBuildError(f"could not import {source.name} once built (no loader for {path.name})")
        try:
            module = importlib.util.module_from_spec(spec)  # stays mapped once its file is removed
            spec.loader.exec_module(module)
        except ImportError as error:
            raise NativeBuildError(f"could not import {source.name} once built ({error})") from error
        return module


def _compile(source: Path, output: Path, compiler: str, flags: tuple[str, ...]) -> None:
    command = [compiler, "-O3", "-march=native", "-shared", "-fPIC", *flags, "-o", str(output), str(source)]
    try:
        subprocess.run(command, check=True, capture_output=True, text=True, timeout=_BUILD_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as error:  # no compiler, it failed or hung
        stderr = error.stderr if isinstance(error, subprocess.CalledProcessError) else None
        lines = (stderr or str(error)).strip().splitlines() or [str(error)]
        reason = next((line for line in lines if "error" in line), lines[0])  # gcc opens with "In function"
        raise NativeBuildError(f"`{compiler}` could not build {source.name} ({reason})") from error
