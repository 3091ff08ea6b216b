"""Fixtures for the sync tests: a fake clock and a replay of law.go.kr (lawgo_replay.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the replay module beside this file

from lawgo_replay import FakeTime, Replay, ReplayFactory, law_go_kr


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def replay() -> ReplayFactory:
    def make(**kwargs: object) -> Replay:
        return Replay(law_go_kr(), **kwargs)  # type: ignore[arg-type]
    return make
