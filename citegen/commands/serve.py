"""`citegen serve`: the composition root of the HTTP answer service.

Loads the model, opens the verifier's database, compiles the answer language from the database's
acts (and, as requests ask for them, the languages narrowed to some courts or acts, cached), and
serves `streaming.create_app` over the engine (continuous batching on its own thread) and the
verifier. Settings come from `citegen.commands.settings.Settings` (`CITEGEN_STREAMING__…`).
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from citegen.commands.backends import Backend

logger = logging.getLogger(__name__)


def serve(
    host: Annotated[
        str | None, typer.Option("--host", help="Address to listen on (default from settings).")
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", min=0, max=65535, help="Port (default from settings).")
    ] = None,
    database_url: Annotated[str | None, typer.Option("--database-url", help="Verifier database URL.")] = None,
    backend: Annotated[Backend | None, typer.Option(
        "--backend", help="Generation: 'builtin' (citegen's loop) or 'vllm' (default: settings, CITEGEN_BACKEND).")]
    = None,
    vllm_args: Annotated[str, typer.Option("--vllm-args", help="JSON of vLLM engine arguments, e.g. "
                                           '\'{"tensor_parallel_size": 2}\' (with --backend vllm).')] = "{}",
    vllm_lexicon: Annotated[Path, typer.Option("--vllm-lexicon", help="Where the database's lexicon is written "
                                               "for vLLM's workers (the same path on every node).")]
    = Path(tempfile.gettempdir()) / "citegen-vllm-lexicon.json",  # noqa: B008  typer shows it in --help
) -> None:
    """Run the HTTP streaming answer service."""
    import uvicorn  # noqa: PLC0415  the imports below load torch; keep `citegen --help` fast

    from citegen.commands import backends  # noqa: PLC0415
    from citegen.commands import serve_wiring as wiring  # noqa: PLC0415
    from citegen.commands.settings import Settings  # noqa: PLC0415
    from citegen.commands.startup import require_acts, starting  # noqa: PLC0415
    from verifier import Database, Verifier  # noqa: PLC0415

    with starting("serve"):
        settings = Settings()
        config = settings.streaming
        chosen = backend or settings.backend
        backends.require(chosen)
        database = Database.open(database_url or settings.database_url)
        # all the service derives from the database, read through the caches while the database is unchanged
        views = wiring.DatabaseViews(database, Verifier(database), settings.index_cache_dir)
        require_acts(views.lexicon, database.url)
        source = backends.answer_source(chosen, settings, views.lexicon, vllm_lexicon=vllm_lexicon,
                                        vllm_args=vllm_args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app, verifier = wiring.service_app(config, source, views)
    wiring.favour_latency()
    try:
        uvicorn.run(app, host=host or config.host, port=port if port is not None else config.port)
    finally:
        source.close()
        verifier.close()
