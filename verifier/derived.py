"""What is read out of the database once and kept between processes: a value derived from it (the
lexicon's names and article labels, the former names the 부칙 declare), stored in a cache directory.

A stored value is keyed by the database's URL, its `Database.fingerprint` (any commit changes it) and
the source of the module that derives it (an edit there derives it again), written with `marshal`
(plain data only: dicts, lists, tuples, strings, numbers, None) and read back in milliseconds. A file
that cannot be read is derived again; a newer one supersedes the older of the same kind and database.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from verifier.database import Database

log = logging.getLogger(__name__)

Plain = TypeVar("Plain")


def read_through(database: Database, cache_dir: Path | None, kind: str, source: Path,
                 derive: Callable[[], Plain]) -> Plain:
    """`derive()`, from `cache_dir` when this state of the database was read for `kind` (by the
    module at `source`) before; stored there otherwise. Without `cache_dir`, or for a database with
    no cheap sign of change (PostgreSQL), derived every time."""
    fingerprint = None if cache_dir is None else database.fingerprint()
    if cache_dir is None or fingerprint is None:
        return derive()
    how = hashlib.sha256(source.read_bytes()).hexdigest()
    place = hashlib.sha256(database.url.encode()).hexdigest()[:16]
    key = hashlib.sha256(f"{how}\0{database.url}\0{fingerprint}".encode()).hexdigest()[:32]
    path = Path(cache_dir) / f"{kind}-{place}-{key}.marshal"
    try:
        stored: Any = marshal.loads(path.read_bytes())
        return stored  # type: ignore[no-any-return]  # what `derive` gave for this key
    except FileNotFoundError:
        pass
    except (OSError, EOFError, ValueError, TypeError) as error:
        log.warning("ignoring unreadable %s cache file %s: %s", kind, path, error)
    value = derive()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(marshal.dumps(cast(Any, value)))  # plain data, as the module docstring asks
    os.replace(temporary, path)  # whole or not at all, whoever else writes it at the same time
    for superseded in path.parent.glob(f"{kind}-{place}-*.marshal"):  # any write to the database (an
        if superseded != path:  # audit row) supersedes its last file: one per database and kind
            superseded.unlink(missing_ok=True)
    return value
