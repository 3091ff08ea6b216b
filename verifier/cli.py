"""`citegen-admin`: create, import, search, verify and audit the statute/case database."""

from __future__ import annotations

import typer

app = typer.Typer(name="citegen-admin", help="Administer the citation database.", no_args_is_help=True,
                  add_completion=False)


@app.command()
def init() -> None:
    """Create the database schema."""
    typer.echo("citegen-admin init: not built yet in this version.", err=True)
    raise typer.Exit(code=2)


def main() -> None:
    app()
