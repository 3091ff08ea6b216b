"""What a batch reads: the files given, and the drafts found in the folders given, each kept
inside the folder it was found in.

A folder is walked without following links. A link inside it is a document when it points at a
file inside the same folder (and its name has a supported suffix); a link that leaves the folder,
to a file or a folder, is never read: it is reported as a document of its own, refused with
`OutsideInputError`. A link to a folder inside the tree is not walked (its files are reached where
they are). Files and folders whose names start with "." are skipped. A file named on the command
line is read wherever it is: the user chose it. A folder that cannot be listed, and a link that
loops, are reported as documents of their own, refused with `UnreadableError`: never silently left
out. Two inputs of the same name are both kept, the later one numbered before its suffix
(`memo~2.docx`).

Confinement is checked twice: when inputs are collected, and again just before a document is
read (`InputFile.open_path`), so a file replaced by a link in between is still refused.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citegen.recite.documents import SUPPORTED_SUFFIXES
from citegen.recite.errors import OutsideInputError, UnreadableError, UsageError


@dataclass(frozen=True, slots=True)
class InputFile:
    path: Path  # as found: inside a folder input, possibly a link
    name: str  # relative name in reports and under DIR/documents: "drafts/a.txt"
    root: Path  # the resolved folder it must stay inside (the resolved file itself when named directly)
    unreadable: str | None = None  # why the entry could not even be listed (a folder): reported, never read

    def open_path(self) -> Path:
        """The file to read, resolved; refused when it is (now) outside its input folder, or cannot be
        resolved (a link loop)."""
        if self.unreadable is not None:
            raise UnreadableError(self.unreadable)
        real = _resolved(self.path)
        if real is None:
            raise UnreadableError(f"expected a file at {self.path}, got a link that loops; not read")
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
        path = _resolved(given)
        if path is None or not path.exists():
            raise UsageError(f"expected an existing file or folder, got {given}")
        if out == path or path in out.parents or out in path.parents:
            raise UsageError(f"expected --out outside the inputs (nothing in them is modified), got {out} and {given}")
        if path.is_dir():
            entries = [(p, f"{path.name}/{p.relative_to(path).as_posix()}", why) for p, why in _walk(path)]
        else:
            entries = [(path, path.name, None)]
        for file, name, unreadable in entries:
            unique, n = name, 1
            stem, suffix = posixpath.splitext(name)
            while unique in taken:  # two inputs of the same name: keep both, deterministically
                n += 1
                unique = f"{stem}~{n}{suffix}"  # the suffix last: the output is still a .docx
            taken.add(unique)
            collected.append(InputFile(file, unique, path, unreadable))
    return collected


def _resolved(path: Path) -> Path | None:
    """`path` with its links followed; None for a link that loops (Python 3.11's `resolve` raises
    RuntimeError for one; later ones leave it unresolved, and reading it fails with ELOOP)."""
    try:
        return path.resolve()
    except RuntimeError:
        return None


def _walk(root: Path) -> list[tuple[Path, str | None]]:
    """Supported drafts under `root` in sorted order, with the links that leave it (to be refused) and
    the folders that cannot be listed, each with why it cannot be read (None for a draft)."""
    found: list[tuple[Path, str | None]] = []

    def unlistable(error: OSError) -> None:  # os.walk would skip the folder and its drafts in silence
        found.append((Path(error.filename or root), f"expected a readable folder at {error.filename}, got "
                                                      f"{error.strerror or error}; the drafts in it were not read"))

    for folder, folders, files in os.walk(root, onerror=unlistable, followlinks=False):
        here = Path(folder)
        folders[:] = [name for name in folders if not name.startswith(".")]
        for path in [here / name for name in files if not name.startswith(".")]:
            if path.suffix.lower() in SUPPORTED_SUFFIXES:
                found.append((path, None))  # a link among them is read only if it stays inside (open_path)
        for path in [here / name for name in folders if (here / name).is_symlink()]:  # not walked
            real = _resolved(path)
            if real is None or not real.is_relative_to(root):
                found.append((path, None))  # a folder outside the input: reported, never read
    return sorted(found, key=lambda entry: entry[0])
