"""A bench process's resident memory, read from /proc/self/status (Linux): the peak reset before a row, read
after it."""

from __future__ import annotations

from pathlib import Path

from grammars.collector import release_freed_heap


def status_mib(field: str) -> float:
    """A /proc/self/status field given in kB (VmRSS, VmHWM), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"expected {field} in /proc/self/status, got none")


def reset_peak_rss() -> float:
    """Reset the process's peak RSS to its current RSS (Linux clear_refs 5); returns the current RSS. The
    heap earlier rows freed is handed back first (`release_freed_heap`), so a row's growth is what a fresh
    process would see, not reuse of pages an earlier row left resident (xgrammar's 500 acts: 3 GiB)."""
    release_freed_heap()
    Path("/proc/self/clear_refs").write_text("5")
    return status_mib("VmRSS")


def peak_rss() -> float:
    return status_mib("VmHWM")
