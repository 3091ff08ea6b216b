"""Compiled regular expressions kept on disk across processes, for the finder's one huge pattern.

Python's `re` parses and compiles a pattern in Python: for the statute book's 5,600 act names the
finder's statute pattern (a trie of the names, 130,000 characters) takes about 2 s, in every
process, while the C matcher it feeds takes its compiled code as a list of integers. `load_or_compile`
stores that code (`re._compiler`'s output for the pattern, with its group names) in `cache_dir` and
hands it back to `_sre.compile` next time, which checks it as it would any code. The entry is keyed
by what it was made from (`key`, which must name everything the pattern depends on), by the grammars
package's sources (`compiler_digest`) and by the interpreter's regex engine, so an entry is never
read by other code or another Python. A file that cannot be read is logged and ignored: the pattern
is compiled again and stored anew. Without a `cache_dir`, or on an interpreter whose `re` internals
differ, it is a plain `re.compile`.
"""

from __future__ import annotations

import array
import contextlib
import functools
import glob
import hashlib
import logging
import marshal
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

log = logging.getLogger(__name__)

PACKAGE_DIR = Path(__file__).resolve().parent
_FORMAT = 1  # of a cache entry's contents
# A temporary cache file this old was left by a writer killed mid-write (the statute book's answer index,
# 28 MiB, is written in seconds)
STALE_TEMPORARY_S = 600


def compiler_digest(package_dir: Path = PACKAGE_DIR) -> str:
    """A hash of every Python source file of the grammars package (the compiler, the languages and the
    caches' own formats), so that an entry stored by other code is never loaded: no version to bump by
    hand. Any edit to the package rebuilds the cached entries once."""
    digest = hashlib.sha256()
    for path in sorted(Path(package_dir).rglob("*.py")):
        digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


COMPILER = functools.cache(compiler_digest)


def _engine() -> tuple[Any, Any, Any] | None:
    """`re`'s parser, code generator and C module, where they are as this module expects (CPython 3.11+)."""
    try:
        import _sre  # type: ignore[import-not-found]  # noqa: PLC0415
        from re import _compiler, _parser  # type: ignore[attr-defined]  # noqa: PLC0415
    except ImportError:
        return None
    if not (hasattr(_compiler, "_code") and hasattr(_parser, "parse") and hasattr(_sre, "compile")):
        return None
    return _parser, _compiler, _sre


def load_or_compile(key: str, source: Callable[[], str], cache_dir: Path | None) -> re.Pattern[str]:
    """The compiled pattern `source()` stands for, from `cache_dir` when an entry for `key` is there
    (then `source` is not called), else compiled and stored there."""
    engine = _engine()
    if cache_dir is None or engine is None:
        return re.compile(source())
    parser, compiler, sre = engine
    identity = f"{_FORMAT}\0{COMPILER()}\0{sys.implementation.cache_tag}\0{sre.MAGIC}\0{sre.CODESIZE}\0{key}"
    path = Path(cache_dir) / f"pattern-{hashlib.sha256(identity.encode()).hexdigest()[:32]}.marshal"
    stored = _read(path, sre)
    if stored is not None:
        return stored
    pattern = source()
    parsed = parser.parse(pattern, 0)
    code = compiler._code(parsed, 0)
    state = parsed.state
    indexgroup = [None] * state.groups
    for name, index in state.groupdict.items():
        indexgroup[index] = name
    entry = (pattern, state.flags, state.groups - 1, dict(state.groupdict), tuple(indexgroup),
             array.array("I", code).tobytes())
    compiled = sre.compile(*entry[:2], code, *entry[2:5])
    data = marshal.dumps(entry)
    try:
        write_atomically(path, lambda stream: stream.write(data))
    except OSError as error:  # a read-only or full cache folder costs the next process a compile, nothing more
        log.warning("could not store the %s in %s: %s", key, path.parent, error)
    return compiled  # type: ignore[no-any-return]


def _read(path: Path, sre: Any) -> re.Pattern[str] | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        log.warning("ignoring unreadable pattern cache file %s: %s", path, error)
        return None
    try:
        pattern, flags, groups, groupindex, indexgroup, code_bytes = marshal.loads(data)
        code = array.array("I")
        code.frombytes(code_bytes)
        return sre.compile(pattern, flags, code.tolist(), groups, groupindex, indexgroup)  # type: ignore[no-any-return]
    except (EOFError, ValueError, TypeError, RuntimeError) as error:  # RuntimeError: _sre refused the code
        log.warning("ignoring unreadable pattern cache file %s: %s", path, error)
        return None


@functools.cache
def _umask() -> int:
    """This process's umask, read where Linux shows it (setting it to read it would race other threads)."""
    try:
        found = re.search(r"^Umask:\s+([0-7]+)$", Path("/proc/self/status").read_text(), re.MULTILINE)
    except OSError:
        found = None
    return 0o022 if found is None else int(found.group(1), 8)


def write_atomically(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """A cache file appears whole or not at all: `write` fills a temporary file, then it is renamed. The
    temporaries of `path` a killed writer left (an index build's child killed while it stored) go first,
    once older than any write takes: a cache folder does not fill with them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stale = time.time() - STALE_TEMPORARY_S
    for left in path.parent.glob(f"{glob.escape(path.name)}*.tmp"):
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours to remove
            if left.stat().st_mtime < stale:
                left.unlink()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        os.fchmod(handle, 0o666 & ~_umask())  # as any file it writes: mkstemp's 0600 locks out a shared folder's users
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())  # on disk before its name is: a crash leaves the old file or the whole new one
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
