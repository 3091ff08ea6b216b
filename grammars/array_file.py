"""Named numpy arrays in one flat file: read with one system call, each array a view of the bytes read.

`.npz` is a zip of `.npy` members: loading one parses a zip directory and a header per member, about
0.1 ms per array; the case grammar's index holds 19 arrays, so loading it took 2.3 ms and storing it
1.7, a sixth of its whole build. Here the layout is a magic line, the length of a JSON table of
`{"arrays": [[name, dtype, shape, offset], ...], "crc32": ...}`, the table, then the arrays' bytes, each
starting on a 64-byte boundary of the file (aligned for every dtype once read): 0.3 ms either way, and a
file that `np.memmap` could map array by array. The CRC-32 of those bytes is checked on every read (about
0.3 ms a MiB): a flipped byte or a block of zeros a crash left would otherwise load as wrong masks.

Only plain numeric dtypes are written or read (no object arrays, nothing to unpickle). A file that is
not one of these, whose table points outside it, or whose bytes do not match their checksum raises
`ValueError` naming what is wrong.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import IO

import numpy as np

MAGIC = b"citegen-arrays 2\n"  # 1: no checksum
_LENGTH_BYTES = 8
_ALIGN = 64
_KINDS = "biuf"  # bool, signed, unsigned, float


def write_arrays(stream: IO[bytes], arrays: dict[str, np.ndarray]) -> None:
    table, chunks, offset, checksum = [], [], 0, 0
    for name, array in arrays.items():
        if array.dtype.kind not in _KINDS:
            raise ValueError(f"expected numeric arrays, got dtype {array.dtype} for {name!r}")
        data = array.tobytes()  # C order, whatever the array's
        data += bytes(-len(data) % _ALIGN)
        table.append([name, array.dtype.str, list(array.shape), offset])
        chunks.append(data)
        checksum = zlib.crc32(data, checksum)
        offset += len(data)
    header = json.dumps({"arrays": table, "crc32": checksum}).encode()
    header += b" " * (-(len(MAGIC) + _LENGTH_BYTES + len(header)) % _ALIGN)  # the arrays start aligned too
    stream.write(MAGIC + len(header).to_bytes(_LENGTH_BYTES, "little") + header)
    for data in chunks:
        stream.write(data)


def read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a file `write_arrays` wrote (writable views of one buffer); ValueError if it is not one."""
    with open(path, "rb") as stream:
        data = bytearray(os.fstat(stream.fileno()).st_size)  # of the file opened: it may be replaced meanwhile
        if stream.readinto(data) != len(data):
            raise ValueError(f"expected {len(data)} bytes in {path}, read fewer")
    if not data.startswith(MAGIC):
        raise ValueError(f"expected a citegen array file starting {MAGIC!r}, got {bytes(data[:len(MAGIC)])!r}")
    start = len(MAGIC) + _LENGTH_BYTES
    length = int.from_bytes(data[len(MAGIC) : start], "little")
    if start + length > len(data):
        raise ValueError(f"expected a table of {length} bytes, the file ends {len(data) - start} bytes in")
    try:
        header = json.loads(data[start : start + length])
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"expected a JSON table of arrays, got unreadable bytes: {error}") from error
    table = header.get("arrays") if isinstance(header, dict) else None
    if not isinstance(table, list) or not isinstance(header.get("crc32"), int):
        raise ValueError(f"expected a JSON object of arrays and their crc32, got {str(header)[:200]}")
    base, arrays = start + length, {}
    for entry in table:
        if not (isinstance(entry, list) and len(entry) == 4):
            raise ValueError(f"expected [name, dtype, shape, offset] entries, got {entry!r}")
        name, dtype_name, shape, offset = entry
        try:
            dtype = np.dtype(dtype_name)
        except TypeError as error:
            raise ValueError(f"expected a numpy dtype for array {name!r}, got {dtype_name!r}") from error
        sizes = (*shape, offset) if isinstance(shape, list) else (None,)
        well_formed = isinstance(name, str) and all(isinstance(n, int) and n >= 0 for n in sizes)
        if not well_formed or dtype.kind not in _KINDS:
            raise ValueError(f"expected a numeric array with a shape and offset, got {entry!r}")
        count = int(np.prod(shape, dtype=np.int64))
        if base + offset + count * dtype.itemsize > len(data):
            raise ValueError(f"expected array {name!r} inside the file, it runs past its end")
        arrays[name] = np.frombuffer(data, dtype=dtype, count=count, offset=base + offset).reshape(shape)
    if zlib.crc32(memoryview(data)[base:]) != header["crc32"]:
        raise ValueError(f"expected the arrays' bytes to match their crc32 {header['crc32']}, they differ: "
                         "the file was damaged after it was written")
    return arrays
