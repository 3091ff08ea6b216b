"""Pausing Python's cyclic garbage collector while long-lived structures are made, and handing back to the
operating system the heap that a build's transient objects leave once they are gone."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while something is made whose objects nearly all live as
    long as it does (an index built whole: node sets, rows, masks; a Lexicon's 400,000 article labels in
    their sets), so each collection would only walk them again (a fifth of the build time at the full
    statute book). Restored as it was, nesting included; the one collection that then sees the new
    objects costs about a tenth of the build."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def release_freed_heap() -> bool:
    """Hand back to the operating system the heap pages freed objects left (glibc's `malloc_trim`), after
    a build whose transient objects are gone: the allocator otherwise keeps them, and the process its
    peak resident set (400 MiB more after a reload that built the statute book's answer language). False,
    doing nothing, where the C library has no malloc_trim (musl, macOS, Windows)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, looked up once (a CDLL leaves a few hundred cyclic objects for the collector)."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, TypeError, AttributeError):  # no process-wide C namespace, or no such function
        return None
    return trim
