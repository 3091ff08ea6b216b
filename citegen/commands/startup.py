"""Start-up errors a user can fix, as every console entry point reports them: one line that says
what was expected and what came, one line that says what to do, exit code 2 — never a traceback.

    with starting("serve"):
        settings = Settings()              # CITEGEN_* variables that do not validate
        database = Database.open(url)      # unreachable, wrong schema, not a database
        ...                                # a model directory that does not load, vLLM missing

Errors past start-up (an answer that fails) are not caught here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

EXIT_BAD_SETUP = 2


class StartupError(Exception):
    """A setup the command cannot start with, with what to do about it (`hint`)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


_MODEL_HINT = "set CITEGEN_MODEL_PATH (or --model) to a directory holding the model and its tokenizer"
_DATABASE_HINT = (
    "pass --database-url or set CITEGEN_DATABASE_URL; create and fill it with "
    "`citegen-admin init` and `citegen-admin import data/law data/cases`"
)
_SETTINGS_HINT = "check the CITEGEN_* environment variables against the README's settings"


def _hint_for(error: BaseException) -> str | None:
    """The hint for an error a user can fix, None for any other (a bug: let it show)."""
    from pydantic import ValidationError  # noqa: PLC0415  only when something failed
    from pydantic_settings import SettingsError  # noqa: PLC0415

    from citegen.errors import ModelLoadError, VocabularyMismatchError  # noqa: PLC0415
    from streaming import ConfigurationError  # noqa: PLC0415
    from verifier import DatabaseError  # noqa: PLC0415

    if isinstance(error, StartupError):
        return error.hint
    if isinstance(error, ModelLoadError | VocabularyMismatchError):
        return _MODEL_HINT
    if isinstance(error, DatabaseError):
        return _DATABASE_HINT
    if isinstance(error, ValidationError | ConfigurationError | SettingsError):  # SettingsError: not JSON
        return _SETTINGS_HINT
    return None


def _first_line(error: BaseException) -> str:
    from pydantic import ValidationError  # noqa: PLC0415

    if isinstance(error, ValidationError):  # pydantic's message runs to many lines: say each field once
        problems = [f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}" for e in error.errors()]
        return f"expected valid settings, got {'; '.join(problems)}"
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@contextmanager
def starting(command: str) -> Iterator[None]:
    """Turns a start-up error a user can fix into two lines on stderr and exit code 2."""
    try:
        yield
    except Exception as error:
        hint = _hint_for(error)
        if hint is None:
            raise
        typer.echo(f"citegen {command}: {_first_line(error)}", err=True)
        typer.echo(f"  hint: {hint}", err=True)
        raise typer.Exit(EXIT_BAD_SETUP) from None


def require_vllm() -> None:
    """`--backend vllm` on a machine without vLLM: refused before anything loads."""
    from importlib.util import find_spec  # noqa: PLC0415

    if find_spec("vllm") is None:
        raise StartupError(
            "expected vLLM for the vllm backend (--backend or CITEGEN_BACKEND), got no `vllm` module here",
            "install the extra (`pip install 'citegen[vllm]'`, on CPU see bench/setup_vllm_env.sh) "
            "or use --backend builtin",
        )


def require_acts(lexicon: object, url: str) -> None:
    """A database without acts would leave every statute citation unverifiable."""
    if not lexicon:
        raise StartupError(f"expected a database holding acts at {url}, got none", _DATABASE_HINT)
