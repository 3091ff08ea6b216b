"""A real server on 127.0.0.1 for each test that asks for one (`serve(app) -> base URL`).

The test inputs live in `streaming_kit.py`, importable from the tests of this folder.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn

sys.path.insert(0, str(Path(__file__).parent))


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


@pytest.fixture
def serve() -> Iterator[Callable[[object], str]]:
    """`serve(app)` starts uvicorn on a free port in a thread and returns its base URL."""
    servers: list[tuple[_Server, threading.Thread]] = []

    def start(app: object) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = _Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        if not server.ready.wait(10):
            raise RuntimeError("expected uvicorn to start within 10 s, got no startup")
        servers.append((server, thread))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(10)
