"""The one settings object. Read from the environment (`CITEGEN_` prefix) only at the edges:
the console entry points and `create_app()`; library code receives the values as arguments.
It holds the streaming service's and the verifier's sections, so it lives with the entry points
(the composition root), the only part of citegen that imports those packages. Every generation
backend reads the same fields: `model_path`, `device`, `forbid_shorthand`, `index_cache_dir`."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from citegen.commands.backends import Backend
from streaming import StreamingSettings
from verifier import default_database_url

REPO_DATA_DIR = Path(__file__).resolve().parents[2] / "data"  # citegen/commands/settings.py -> the repo


def default_index_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "citegen" / "index"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CITEGEN_", env_nested_delimiter="__", extra="ignore")

    database_url: str = Field(default_factory=default_database_url)
    data_dir: Path = REPO_DATA_DIR
    model_path: Path = REPO_DATA_DIR / "models" / "ko-legal-tiny"
    backend: Backend = "builtin"  # what generates: citegen.commands.backends
    device: str = "auto"  # "auto" picks CUDA when available, else CPU
    seed: int = 0
    # Generation writes citations in canonical form only: heads written otherwise (`형법제355조`,
    # `대판 2…`, a bare `2024도4202`) are unwritable, not left to free text.
    forbid_shorthand: bool = True
    # Serving indexes are built whole once and loaded from here (a few ms) afterwards.
    index_cache_dir: Path = Field(default_factory=default_index_cache_dir)
    streaming: StreamingSettings = Field(default_factory=StreamingSettings)
