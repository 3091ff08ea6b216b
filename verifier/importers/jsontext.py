"""JSON as the importers read it: UTF-8, well-formed, and numbers finite.

Python's `json` accepts `NaN`, `Infinity` and `-Infinity`, which no JSON standard has; read as
text they would become an act `inf` with 법령ID `nan`. They are refused, with where they stand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from verifier.errors import MalformedFileError

# a string (skipped whole, so a "NaN" inside one is text) or a non-finite constant
_STRING_OR_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


class _NonFiniteError(ValueError):
    pass


def _refuse(constant: str) -> Any:
    raise _NonFiniteError(constant)


def decode_utf8(path: Path, data: bytes, line: int | None = None) -> str:
    """`data` as text; `line`: the line of a JSONL file it is (bytes are counted from 1 either way)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        where = (f"line {line}, " if line else "") + f"byte {error.start + 1}"
        raise MalformedFileError(path, where, f"expected UTF-8 text, got byte {data[error.start]:#04x}") from error


def _line_column(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def load_json(path: Path, text: str, line: int | None = None) -> Any:
    """`text` parsed; `line` is the line of a JSONL file the text is (positions then say "line N, column C")."""
    try:
        return json.loads(text, parse_constant=_refuse)
    except json.JSONDecodeError as error:
        where = f"line {line or error.lineno}, column {error.colno}"
        problem = "one JSON object per line" if line else "well-formed JSON"
        raise MalformedFileError(path, where, f"expected {problem}, got: {error.msg}") from error
    except _NonFiniteError as error:
        found = next(match for match in _STRING_OR_CONSTANT.finditer(text) if match.group(1))
        row, column = _line_column(text, found.start())
        raise MalformedFileError(path, f"line {line or row}, column {column}",
                                 f"expected finite JSON numbers, got {error}") from None
    except RecursionError as error:
        raise MalformedFileError(path, f"line {line}" if line else None,
                                 "expected JSON nested less deeply, got too deep a nesting") from error
