"""`citegen`: the composition root. The only module that wires engine, verifier and streaming."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from citegen.commands import recite as recite_command
from citegen.commands import serve as serve_command

app = typer.Typer(
    name="citegen",
    help="Answer legal questions with checked Korean legal citations.",
    no_args_is_help=True,
    add_completion=False,
)


def _not_built(what: str) -> None:
    typer.echo(f"citegen {what}: not built yet in this version.", err=True)
    raise typer.Exit(code=2)


@app.command()
def ask(question: Annotated[str, typer.Argument(help="The question, in Korean.")]) -> None:
    """Answer QUESTION on the terminal, citations checked and highlighted."""
    _not_built("ask")


app.command()(serve_command.serve)
app.command()(recite_command.recite)


def main() -> None:
    app()
