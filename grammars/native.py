"""C sources compiled by the machine's own compiler at first use, and loaded with ctypes.

The library is built with -O3 -march=native in a temporary folder removed as soon as it is loaded (it
stays mapped): nothing is cached on disk or downloaded, and the instructions are the machine's own. Where
no compiler works the caller takes its Python or torch path; `NativeBuildError` says why, in the
compiler's words.
"""

from __future__ import annotations

import ctypes
import subprocess
import tempfile
from pathlib import Path

from grammars.errors import NativeBuildError

_BUILD_TIMEOUT_S = 120  # ~0.1 s of CPU; a compiler that takes minutes is not one to wait for on a request


def build_library(source: Path, compiler: str = "cc") -> ctypes.CDLL:
    """`source` compiled with `compiler` into a shared library and loaded (NativeBuildError where that fails)."""
    with tempfile.TemporaryDirectory(prefix="citegen-native-") as folder:
        library = Path(folder) / source.with_suffix(".so").name
        command = [compiler, "-O3", "-march=native", "-shared", "-fPIC", "-o", str(library), str(source)]
        try:
            subprocess.run(command, check=True, capture_output=True, text=True, timeout=_BUILD_TIMEOUT_S)
            return ctypes.CDLL(str(library))  # stays mapped once its file is removed with the folder
        except (OSError, subprocess.SubprocessError) as error:  # no compiler, it failed or hung, no dlopen
            stderr = error.stderr if isinstance(error, subprocess.CalledProcessError) else None
            lines = (stderr or str(error)).strip().splitlines() or [str(error)]
            reason = next((line for line in lines if "error" in line), lines[0])  # gcc opens with "In function"
            raise NativeBuildError(f"`{compiler}` could not build {source.name} ({reason})") from error
