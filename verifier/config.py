"""Where the verifier's database lives when nobody says otherwise."""

from __future__ import annotations

import os
from pathlib import Path


def default_database_url() -> str:
    """An SQLite file in the user's data directory (created on first use)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{base / 'citegen' / 'citegen.sqlite3'}"
