"""`citegen recite INPUT… --out DIR`: the composition root of batch re-citation.

Runs the batch with a progress bar over the pipeline `recite_wiring.build_pipeline` assembles
(grammars' finder, the verifier's resolver and verify, with `--regenerate` the engine).
Exit codes: 0 nothing needs review, 1 something does, 2 bad usage.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from citegen.commands.backends import Backend, recite_jobs
from citegen.recite.limits import ARCHIVE_EXPANSION, DEFAULT_MAX_BYTES

logger = logging.getLogger(__name__)


def recite(
    inputs: Annotated[list[Path], typer.Argument(help="Files or folders of drafts (.txt, .md, .docx, .hwpx).")],
    out: Annotated[Path, typer.Option("--out", help="Folder for rewritten drafts and reports.")],
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", min=1, help="Worker processes (default: the CPU count); with --regenerate each loads the model."
    )] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only; write no documents.")] = False,
    regenerate: Annotated[bool, typer.Option(
        "--regenerate/--no-regenerate",
        help="Re-generate citations the database cannot resolve with the model (CITEGEN_MODEL_PATH) under the "
             "citation automaton; offered as suggestions only when they verify. Slow on CPU."
    )] = False,
    max_bytes: Annotated[int, typer.Option(
        "--max-bytes", min=1, help="Largest file read; also the most a .docx/.hwpx's text parts may unpack to "
                                   f"together (all its entries: {ARCHIVE_EXPANSION} times that).")]
    = DEFAULT_MAX_BYTES,
    database_url: Annotated[str | None, typer.Option(
        "--database-url", help="The verifier database, as for citegen-admin (default: env CITEGEN_DATABASE_URL, "
                               "else the SQLite file citegen-admin uses).")] = None,
    backend: Annotated[Backend | None, typer.Option(
        "--backend", help="Where --regenerate decodes: citegen's own loop, or one vLLM engine (implies --jobs 1); "
                          "default: settings, CITEGEN_BACKEND.")]
    = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Rewrite the citations of drafts in canonical, checked form and report what changed."""
    from citegen.commands.settings import Settings  # noqa: PLC0415  the database stack: not for --help
    from citegen.commands.startup import starting  # noqa: PLC0415
    from citegen.recite import BatchOptions, UsageError, collect_inputs, run_batch  # noqa: PLC0415  the pipeline

    with starting("recite"):
        settings = Settings()
    url = database_url or settings.database_url
    model_path = settings.model_path if regenerate else None
    chosen = backend or settings.backend
    jobs = recite_jobs(chosen, regenerate, jobs or os.cpu_count() or 1)
    console = Console(stderr=True)
    from citegen.commands.recite_wiring import build_pipeline, check_sources  # here: keeps --help fast

    try:
        files = collect_inputs(inputs, out)
        database_state = check_sources(url, model_path)
    except UsageError as error:
        console.print(f"[red]citegen recite:[/red] {escape(str(error))}", soft_wrap=True)  # one line
        raise typer.Exit(code=2) from None
    # The database's state, not only its URL: after an import, documents are checked again.
    options = BatchOptions(out=out, jobs=jobs, dry_run=dry_run, max_bytes=max_bytes,
                           fingerprint=f"db={url};state={database_state};regenerate={model_path}")
    factory = functools.partial(build_pipeline, url, model_path, chosen, settings.device, settings.index_cache_dir)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=quiet) as progress:
        task = progress.add_task("reciting", total=len(files))
        summary = run_batch(files, options, factory, on_document=lambda *_: progress.advance(task))
    needs = summary.documents_needing_review
    console.print(
        f"{summary.documents} documents ({summary.resumed} already done), {summary.citations} citations: "
        + ", ".join(f"{summary.actions.get(a, 0)} {a}" for a in ("kept", "rewritten", "suggested", "review"))
        + f"; {needs} documents need review. Reports: {out / 'report.html'}, {out / 'report.jsonl'}"
    )
    raise typer.Exit(code=summary.exit_code)
