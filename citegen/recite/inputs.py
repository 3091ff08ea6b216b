"""What a batch reads: the files given, and the drafts found in the folders given, each kept
inside the folder it was found in.

A folder is walked without following links. A link inside it is a document when it points at a
file inside the same folder (and its name has a supported suffix); a link that leaves the folder,
to a file or a folder, is never read: it is reported as a document of its own, refused with
`OutsideInputError`. A link to a folder inside the tree is not walked (its files are reached where
they are). Files and folders whose names start with "." are skipped. A file named on the command
line is read wherever it is: the user chose it.

Confinement is checked twice: when inputs are collected, and again just before a document is
read (`InputFile.open_path`), so a file replaced by a link in between is still refused.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citegen.recite.documents import SUPPORTED_SUFFIXES
from citegen.recite.errors import OutsideInputError, UsageError


@dataclass(frozen=True, slots=True)
class InputFile:
    path: Path  # as found: inside a folder input, possibly a link
    name: str  # relative name in reports and under DIR/documents: "drafts/a.txt"
    root: Path  # the resolved folder it must stay inside (the resolved file itself when named directly)

    def open_path(self) -> Path:
        """The file to read, resolved; refused when it is (now) outside its input folder."""
        real = self.path.resolve()
        if real != self.root and not real.is_relative_to(self.root):
            target = os.readlink(self.path) if self.path.is_symlink() else str(real)
            raise OutsideInputError(f"expected a file inside the input folder {self.root}, got {self.path} "
                                    f"linking to {target} outside it; not read")
        return real


def collect_inputs(inputs: Sequence[Path], out: Path) -> list[InputFile]:
    """Files as given, folders searched for supported drafts; the out folder kept apart from all of them."""
    if not inputs:
        raise UsageError("expected at least one input file or folder, got none")
    out = out.resolve()
    collected: list[InputFile] = []
    taken: set[str] = set()
    for given in inputs:
        path = given.resolve()
        if not path.exists():
            raise UsageError(f"expected an existing file or folder, got {given}")
        if out == path or path in out.parents or out in path.parents:
            raise UsageError(f"expected --out outside the inputs (nothing in them is modified), got {out} and {given}")
        if path.is_dir():
            pairs = [(p, f"{path.name}/{p.relative_to(path).as_posix()}") for p in _walk(path)]
        else:
            pairs = [(path, path.name)]
        for file, name in pairs:
            unique, n = name, 1
            while unique in taken:  # two inputs of the same name: keep both, deterministically
                n += 1
                unique = f"{name}~{n}"
            taken.add(unique)
            collected.append(InputFile(file, unique, path))
    return collected


def _walk(root: Path) -> list[Path]:
    """Supported drafts under `root` in sorted order, with the links that leave it (to be refused)."""
    found = []
    for folder, folders, files in os.walk(root, followlinks=False):
        here = Path(folder)
        folders[:] = [name for name in folders if not name.startswith(".")]
        for path in [here / name for name in files if not name.startswith(".")]:
            if path.suffix.lower() in SUPPORTED_SUFFIXES:
                found.append(path)  # a link among them is read only if it stays inside (InputFile.open_path)
        for path in [here / name for name in folders if (here / name).is_symlink()]:  # not walked
            if not path.resolve().is_relative_to(root):
                found.append(path)  # a folder outside the input: reported, never read
    return sorted(found)
