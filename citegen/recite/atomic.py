"""Files the batch leaves for a reader (outputs, reports, result headers) replaced whole or not at all.

A file is written under a temporary name in its own folder, flushed to disk, then renamed over the
old one (`os.replace`, atomic within a file system): a write that fails part-way (a full disk, a
crash) leaves the previous file as it was and no half-written one, only perhaps a `.citegen-*.tmp`
beside it after a crash.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A binary stream whose bytes become `path`'s when the block ends without an error; on an error
    `path` is left as it was and the partial file is removed."""
    # A short name of its own: the target's name may already be near the file system's limit.
    temporary = path.with_name(f".citegen-{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask's usual mode
    try:
        with open(descriptor, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())  # on disk before the rename makes it the file
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_bytes_atomically(path: Path, data: bytes) -> None:
    with replacing(path) as stream:
        stream.write(data)
