"""`citegen ask "질문"`: stream one answer to the terminal, citations highlighted by verdict.

Composition root: loads the model, opens the verifier's database, constrains citations to the
database's acts (the DB-aware statute grammar) and checks each citation as it closes. With
`--no-constrain` the same model answers freely and the citations found in its answer are listed
with their verdicts afterwards, for comparison.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any

import typer

logger = logging.getLogger(__name__)

_STYLES = {"verified": "bold green", "mismatch": "bold yellow"}


class _Shown(logging.Handler):
    """Log records printed dimmed on a console (stderr)."""

    def __init__(self, console: Any) -> None:
        super().__init__()
        self.console = console

    def emit(self, record: logging.LogRecord) -> None:
        self.console.print(f"citegen ask: {record.getMessage()}", style="dim", soft_wrap=True)


def _show_index_builds(errors: Any) -> None:
    """A first `ask` over a database builds its citation index whole (half a minute over the statute book)
    and stores it: grammars' log says so as it goes, shown on `errors` (one handler, however many asks a
    process runs)."""
    shown = logging.getLogger("grammars")
    shown.setLevel(logging.INFO)
    for handler in [h for h in shown.handlers if isinstance(h, _Shown)]:
        shown.removeHandler(handler)
    shown.addHandler(_Shown(errors))


def ask(
    question: Annotated[str, typer.Argument(help="The question, in Korean.")],
    no_constrain: Annotated[bool, typer.Option("--no-constrain", help="Generate citations freely.")] = False,
    max_new_tokens: Annotated[
        int, typer.Option("--max-new-tokens", min=1, help="Answer length limit.")
    ] = 200,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, help="0 = greedy.")] = 0.0,
    seed: Annotated[int | None, typer.Option("--seed", help="Sampling seed (default from settings).")] = None,
    model: Annotated[
        Path | None, typer.Option("--model", help="Model directory (default from settings).")
    ] = None,
    database_url: Annotated[str | None, typer.Option("--database-url", help="Verifier database URL.")] = None,
) -> None:
    """Answer QUESTION on the terminal, citations checked and highlighted, with why one did not verify."""
    from citegen.commands.startup import EXIT_BAD_SETUP, require_acts, starting  # noqa: PLC0415

    if not question.strip():  # refused before anything loads
        typer.echo("citegen ask: expected a question, got an empty one", err=True)
        raise typer.Exit(EXIT_BAD_SETUP)
    from rich.console import Console  # noqa: PLC0415  the imports below load torch: keep --help fast

    from citegen.commands.languages import build_engine  # noqa: PLC0415
    from citegen.commands.settings import Settings  # noqa: PLC0415
    from citegen.engine import Request  # noqa: PLC0415
    from citegen.errors import CitegenError, SamplingParamsError  # noqa: PLC0415
    from citegen.events import CitationDelta, CitationEnd, Failed, Finished, ProseDelta  # noqa: PLC0415
    from citegen.models import load_model  # noqa: PLC0415
    from citegen.sampling import SamplingParams  # noqa: PLC0415
    from grammars import find_citations  # noqa: PLC0415
    from verifier import Database, Verifier, VerifierError, lexicon_data  # noqa: PLC0415

    with starting("ask"):
        settings = Settings()
    try:  # refused before the model and the index load
        sampling = SamplingParams(max_new_tokens=max_new_tokens, temperature=temperature,
                                  seed=settings.seed if seed is None else seed)
    except SamplingParamsError as refused:
        typer.echo(f"citegen ask: {refused}", err=True)
        raise typer.Exit(EXIT_BAD_SETUP) from None
    console = Console(highlight=False, soft_wrap=True, markup=False)  # model text is never markup
    errors = Console(stderr=True, highlight=False, markup=False)
    _show_index_builds(errors)

    sources: list[Any] = []  # the provisions cited, in the version checked, listed after the answer

    def verdict(found: Any) -> None:
        shown = f" [{found.status}]" if found.status == "verified" else f" [{found.status}: {found.detail}]"
        console.print(shown, end="", style=_STYLES.get(found.status, "bold red"))
        if found.provision is not None and found.provision not in sources:
            sources.append(found.provision)

    def list_sources() -> None:
        for provision in sources:
            title = f" ({provision.title})" if provision.title else ""
            console.print(f"  {provision.act} {provision.article}{title}, {provision.version()}: "
                          f"{provision.address}", style="dim")
            if provision.text:
                console.print("    " + provision.text.replace("\n", "\n    "), style="dim")

    with starting("ask"):
        database = Database.open(database_url or settings.database_url, create=False)
        lexicon = lexicon_data(database, settings.index_cache_dir)  # milliseconds while the file is unchanged
        require_acts(lexicon, database.url)
        loaded = load_model(model or settings.model_path, settings.device)
        engine = build_engine(
            loaded, lexicon, max_batch=1,
            forbid_shorthand=settings.forbid_shorthand, cache_dir=settings.index_cache_dir,
        )
    request = Request(messages=(("user", question),), sampling=sampling, constrain=not no_constrain)
    try:
        with Verifier(database) as verifier:
            for event in engine.stream(request):
                match event:
                    case ProseDelta(text=text):
                        console.print(text, end="")
                    case CitationDelta(text=text):
                        console.print(text, end="", style="bold cyan")
                    case CitationEnd(citation=citation) if citation is not None:
                        verdict(verifier.verify(citation))
                    case Finished(text=text, completion_tokens=tokens, reason=reason):
                        console.print()
                        if no_constrain:  # what a free answer cited, canonical or not
                            for found_citation in find_citations(text):
                                written = text[found_citation.span[0] : found_citation.span[1]]
                                console.print(f"  {written} ({found_citation.form.value})", end="")
                                verdict(verifier.verify(found_citation.citation))
                                console.print()
                        list_sources()
                        errors.print(f"({tokens} tokens, {reason})", style="dim")
                    case Failed(error=error):
                        raise error
    except (CitegenError, VerifierError) as error:
        errors.print(f"citegen ask: {error}", style="bold red")
        raise typer.Exit(code=1) from error
