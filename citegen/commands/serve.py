"""`citegen serve`: the composition root of the HTTP answer service.

Loads the model, opens the verifier's database, compiles the answer language from the database's
acts (and, as requests ask for them, the languages narrowed to some courts or acts, cached), and
serves `streaming.create_app` over the engine (continuous batching on its own thread) and the
verifier. Settings come from `citegen.commands.settings.Settings` (`CITEGEN_STREAMING__…`).
"""

from __future__ import annotations

import gc
import logging
import signal
import socket
import sys
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
    from citegen.commands import backends  # noqa: PLC0415
    from citegen.commands.settings import Settings  # noqa: PLC0415
    from citegen.commands.startup import require_acts, starting  # noqa: PLC0415

    # settings and the address first: a mistake in either is told before seconds of loading
    with starting("serve"):
        settings = Settings()
        config = settings.streaming
        chosen = backend or settings.backend
        backends.require(chosen)
        address = (host or config.host, port if port is not None else config.port)
        _check_listenable(*address)
    import uvicorn  # noqa: PLC0415  the imports below load torch; keep `citegen --help` fast

    from citegen.commands import serve_wiring as wiring  # noqa: PLC0415
    from verifier import Database, Verifier  # noqa: PLC0415

    with starting("serve"):
        database = Database.open(database_url or settings.database_url, create=False)
        # all the service derives from the database, read through the caches while it is unchanged
        views = wiring.DatabaseViews(database, Verifier(database), settings.index_cache_dir)
        require_acts(views.lexicon, database.url)
        source = backends.answer_source(chosen, settings, views.lexicon, vllm_lexicon=vllm_lexicon,
                                        vllm_args=vllm_args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app, verifier = wiring.service_app(config, source, views)
    wiring.favour_latency()
    # SIGTERM (systemd, Docker, Kubernetes) stops as Ctrl-C does: uvicorn shuts down, then raises the
    # signal again into this handler, so the audit rows buffered and the engine are closed below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        host, port = address
        uvicorn.run(app, host=host, port=port, timeout_graceful_shutdown=config.shutdown_grace_s)
    finally:
        source.close()
        verifier.close()
        gc.unfreeze()  # the model's objects, frozen while serving, are freed at exit like any others


def _check_listenable(host: str, port: int) -> None:
    """Bind the service's address once before anything loads, so a port in use is told at once rather
    than after a minute's start (uvicorn binds it again when it serves)."""
    from citegen.commands.startup import StartupError  # noqa: PLC0415

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind((host, port))
    except OSError as error:
        raise StartupError(f"expected to listen on {host}:{port}, got {error.strerror or error}",
                           "pass another --port or --host (CITEGEN_STREAMING__PORT, __HOST): another process "
                           "may listen there, or the address is not this machine's") from None
