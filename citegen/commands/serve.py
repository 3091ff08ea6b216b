"""`citegen serve`: the composition root of the HTTP answer service.

Loads the model, opens the verifier's database, compiles the answer language from the database's
acts, and serves `streaming.create_app` over the engine (continuous batching on its own thread)
and the verifier. Settings come from `citegen.settings.Settings` (`CITEGEN_STREAMING__…`).
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from citegen.settings import Settings

logger = logging.getLogger(__name__)


def serve(
    host: Annotated[
        str | None, typer.Option("--host", help="Address to listen on (default from settings).")
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", min=0, max=65535, help="Port (default from settings).")
    ] = None,
    database_url: Annotated[str | None, typer.Option("--database-url", help="Verifier database URL.")] = None,
) -> None:
    """Run the HTTP streaming answer service."""
    import uvicorn  # noqa: PLC0415  the imports below load torch; keep `citegen --help` fast

    from citegen.commands import serve_wiring as wiring  # noqa: PLC0415
    from citegen.models import load_model  # noqa: PLC0415
    from streaming import create_app  # noqa: PLC0415
    from verifier.database import Database  # noqa: PLC0415
    from verifier.lexicon import lexicon_data  # noqa: PLC0415
    from verifier.verify import Verifier  # noqa: PLC0415

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    config = settings.streaming
    database = Database.open(database_url or settings.database_url)
    lexicon = lexicon_data(database)
    checker = Verifier(database)
    admin = wiring.DatabaseAdmin(database, checker)
    source = wiring.EngineSource(
        wiring.build_engine(
            load_model(settings.model_path, settings.device), lexicon, max_batch=config.max_active
        )
    )
    verifier = wiring.database_verifier(checker)
    wiring.favour_latency()
    app = create_app(
        config, source, verifier, admin=admin, probes=[admin], anchors=wiring.anchors_for(lexicon)
    )
    try:
        uvicorn.run(app, host=host or config.host, port=port if port is not None else config.port)
    finally:
        source.close()
        verifier.close()
