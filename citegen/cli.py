"""`citegen`: the composition root. The only module that wires engine, verifier and streaming."""

from __future__ import annotations

import typer

from citegen.commands import ask as ask_command
from citegen.commands import recite as recite_command
from citegen.commands import serve as serve_command

app = typer.Typer(
    name="citegen",
    help="Answer legal questions with checked Korean legal citations.",
    no_args_is_help=True,
    add_completion=False,
)


app.command()(ask_command.ask)
app.command()(serve_command.serve)
app.command()(recite_command.recite)


def main() -> None:
    app()
