"""What is read out of the database once and kept between processes: a value derived from it (the
lexicon's names and article labels, the former names the 부칙 declare), stored in a cache directory.

A stored value is keyed by the database's URL, its `Database.fingerprint` (any commit changes it) and
the source of the modules that derive it and of this one (an edit there derives it again), written with
`marshal` (plain data only: dicts, lists, tuples, strings, numbers, None) after a digest of those bytes,
and read back in milliseconds. The digest proves a file holds whole what `derive` returned, checks
included (verifier.lexicon checks what it derives, so a process that reads it back need not). A file
that cannot be read, or whose bytes do not match their digest, is derived again; a newer one supersedes
the older of the same kind and database. A cache folder that cannot be written (read-only, full) costs
a warning: the value is derived and served all the same.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from grammars import write_atomically
from verifier.database import Database

log = logging.getLogger(__name__)

Plain = TypeVar("Plain")

_SEAL = 32  # bytes of the digest before a file's marshal bytes


def _seal(stored: bytes) -> bytes:
    return hashlib.blake2b(stored, digest_size=_SEAL).digest()


def read_through(database: Database, cache_dir: Path | None, kind: str, sources: tuple[Path, ...],
                 derive: Callable[[], Plain]) -> Plain:
    """`derive()`, from `cache_dir` when this state of the database was read for `kind` (by the
    modules at `sources`) before; stored there otherwise. Without `cache_dir`, or for a database with
    no cheap sign of change (PostgreSQL), derived every time."""
    fingerprint = None if cache_dir is None else database.fingerprint()
    if cache_dir is None or fingerprint is None:
        return derive()
    how = hashlib.sha256(b"".join(source.read_bytes() for source in (Path(__file__), *sources))).hexdigest()
    place = hashlib.sha256(database.url.encode()).hexdigest()[:16]
    key = hashlib.sha256(f"{how}\0{database.url}\0{fingerprint}".encode()).hexdigest()[:32]
    path = Path(cache_dir) / f"{kind}-{place}-{key}.marshal"
    try:
        sealed = path.read_bytes()
        if sealed[:_SEAL] != _seal(sealed[_SEAL:]):
            raise ValueError("its bytes do not match their digest")
        stored: Any = marshal.loads(sealed[_SEAL:])
        return stored  # type: ignore[no-any-return]  # what `derive` gave for this key
    except FileNotFoundError:
        pass
    except (OSError, EOFError, ValueError, TypeError) as error:
        log.warning("ignoring unreadable %s cache file %s: %s", kind, path, error)
    value = derive()
    stored_bytes = marshal.dumps(cast(Any, value))  # plain data, as the module docstring asks
    try:  # whole or not at all, whoever else writes it at the same time
        write_atomically(path, lambda stream: stream.write(_seal(stored_bytes) + stored_bytes))
        for superseded in path.parent.glob(f"{kind}-{place}-*.marshal"):  # any write to the database (an
            if superseded != path:  # audit row) supersedes its last file: one per database and kind
                superseded.unlink(missing_ok=True)
    except OSError as error:  # a read-only or full cache folder: derived again next time, served now
        log.warning("could not store the %s in %s: %s", kind, path.parent, error)
    return value
