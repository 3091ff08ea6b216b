"""A concurrency limit with a bounded waiting line: `max_active` answers run, `max_queued` wait,
anyone beyond is refused at once (429 + Retry-After) rather than left hanging."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from streaming.errors import ConfigurationError, OverloadedError


class Admission:
    def __init__(self, max_active: int, max_queued: int, retry_after_s: int) -> None:
        if max_active < 1 or max_queued < 0:
            raise ConfigurationError(
                f"expected max_active ≥ 1 and max_queued ≥ 0, got {max_active} and {max_queued}"
            )
        self.max_active, self.max_queued = max_active, max_queued
        self._retry_after_s = retry_after_s
        self._slots = asyncio.Semaphore(max_active)
        self.active = 0
        self.waiting = 0

    @property
    def full(self) -> bool:
        return self.active + self.waiting >= self.max_active + self.max_queued

    async def enter(self) -> Callable[[], None]:
        """Wait for a slot; returns the function that frees it (safe to call more than once)."""
        if self.full:
            raise OverloadedError(
                f"expected at most {self.max_active} running and {self.max_queued} waiting answers, "
                f"got {self.active} running and {self.waiting} waiting",
                self._retry_after_s,
            )
        self.waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
        self.active += 1
        freed = False

        def leave() -> None:
            nonlocal freed
            if not freed:
                freed = True
                self.active -= 1
                self._slots.release()

        return leave
