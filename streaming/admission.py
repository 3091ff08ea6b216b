"""A concurrency limit with a bounded waiting line: `max_active` answers run, `max_queued` wait,
anyone beyond is refused at once (429 + Retry-After) rather than left hanging. Before a request
waits for a slot its source prepares it (a narrowing compiles) holding no slot; `NarrowingLimit`
bounds how many distinct narrowings one client may have in preparation at once."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager

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

    def refuse_if_full(self) -> None:
        if self.full:
            raise OverloadedError(
                f"expected at most {self.max_active} running and {self.max_queued} waiting answers, "
                f"got {self.active} running and {self.waiting} waiting",
                self._retry_after_s,
            )

    async def enter(self) -> Callable[[], None]:
        """Wait for a slot; returns the function that frees it (safe to call more than once)."""
        self.refuse_if_full()
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


class NarrowingLimit:
    """At most `per_client` distinct narrowings in preparation per client; requests for one
    narrowing share it, and the whole language (no narrowing) is never counted."""

    def __init__(self, per_client: int, retry_after_s: int) -> None:
        if per_client < 1:
            raise ConfigurationError(f"expected at least 1 narrowing per client, got {per_client}")
        self.per_client = per_client
        self._retry_after_s = retry_after_s
        self._preparing: Counter[tuple[str, Hashable]] = Counter()

    @contextmanager
    def held(self, client: str, narrowing: Hashable | None) -> Iterator[None]:
        if narrowing is None:
            yield
            return
        key = (client, narrowing)
        if key not in self._preparing:
            distinct = sum(1 for owner, _ in self._preparing if owner == client)
            if distinct >= self.per_client:
                raise OverloadedError(
                    f"expected at most {self.per_client} new narrowings (courts, acts) in preparation per "
                    f"client, got another while {distinct} compile",
                    self._retry_after_s,
                )
        self._preparing[key] += 1
        try:
            yield
        finally:
            self._preparing[key] -= 1
            if not self._preparing[key]:
                del self._preparing[key]
