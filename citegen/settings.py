"""The one settings object. Read from the environment (`CITEGEN_` prefix) only at the edges:
the console entry points and `create_app()`; library code receives the values as arguments."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from streaming.config import StreamingSettings
from verifier.config import default_database_url

REPO_DATA_DIR = Path(__file__).resolve().parent.parent / "data"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CITEGEN_", env_nested_delimiter="__", extra="ignore")

    database_url: str = Field(default_factory=default_database_url)
    data_dir: Path = REPO_DATA_DIR
    model_path: Path = REPO_DATA_DIR / "models" / "ko-legal-tiny"
    device: str = "auto"  # "auto" picks CUDA when available, else CPU
    seed: int = 0
    streaming: StreamingSettings = Field(default_factory=StreamingSettings)
