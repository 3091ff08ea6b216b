"""`citegen serve --backend vllm`: the answer service's generation source on vLLM's async engine.

Everything else of the service stays: the segment machine holds each citation until the verifier
answers, the events and the OpenAI-compatible API are the same. vLLM's workers read the answer
language's statute names from the verifier's lexicon, written to a file beside the database
(`lexicon_file`): a worker on another node needs the same file at the same path (a worker that cannot
read it refuses to start: `citegen.integrations.options.WorkerConfig`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import typer

import streaming
from citegen.commands.languages import ArticleLexicon
from citegen.commands.serve_wiring import (
    engine_request,
    is_prepared,
    prepare_request,
    prepared_constraint,
    stream_event,
)
from citegen.errors import RequestError
from citegen.integrations.options import CitationOptions
from citegen.integrations.vllm_source import VllmGenerator, start_engine
from citegen.models import freeze_loaded

logger = logging.getLogger(__name__)


class VllmSource:
    """`streaming.GenerationSource` over `VllmGenerator`; closing the stream aborts the request.
    Before a request takes a slot it is checked and its narrowing compiled as on citegen's own
    engine (`prepare_request`), in milliseconds; vLLM's workers compile it so too. Only the whole
    language is built whole, by the front end at its start, and stored in the cache directory, from
    which the workers load it."""

    def __init__(self, generator: VllmGenerator) -> None:
        self.generator = generator

    def is_prepared(self, request: streaming.GenerationRequest) -> bool:
        return is_prepared(request, self.generator.constraints)

    async def prepare(self, request: streaming.GenerationRequest) -> streaming.GenerationRequest:
        return await prepare_request(request, self.generator.check, self.generator.constraints)

    async def generate(self, request: streaming.GenerationRequest) -> AsyncIterator[streaming.SourceEvent]:
        try:
            submitted = engine_request(request)
            constraint = await prepared_constraint(request, submitted, self.generator.constraints)
            events = self.generator.stream(submitted, constraint)
            first = await anext(events)
        except RequestError as error:
            raise streaming.RequestRejectedError(str(error)) from error
        try:
            yield stream_event(first)
            async for event in events:
                yield stream_event(event)
        finally:
            await events.aclose()

    def close(self) -> None:
        self.generator.close()


def write_lexicon(lexicon: ArticleLexicon, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(lexicon), ensure_ascii=False, sort_keys=True), encoding="utf-8")
    return str(path)


def vllm_source(
    model: str,
    lexicon: ArticleLexicon,
    lexicon_file: Path,
    engine_args: str,
    max_active: int,
    *,
    forbid_shorthand: bool,
    index_cache_dir: Path | None,
) -> VllmSource:
    """Start vLLM over `model` (engine_args: JSON of AsyncEngineArgs fields) with the processor;
    `forbid_shorthand` and `index_cache_dir` as the built-in engine reads them from Settings."""
    try:
        arguments = json.loads(engine_args)
    except ValueError as error:
        raise typer.BadParameter(
            f"expected --vllm-args as a JSON object, got {engine_args!r}: {error}"
        ) from None
    if not isinstance(arguments, dict):
        raise typer.BadParameter(f"expected --vllm-args as a JSON object, got {engine_args!r}")
    served = CitationOptions(lexicon=write_lexicon(lexicon, lexicon_file), shorthand=not forbid_shorthand)
    engine = start_engine(
        model, served=served, index_cache_dir=index_cache_dir, **{"max_num_seqs": max_active, **arguments}
    )
    logger.info("vLLM engine started over %s with %s", model, arguments)
    generator = VllmGenerator(engine, served, index_cache_dir=index_cache_dir)
    # as citegen's own engine starts (citegen.commands.backends.engine_source): the whole language ready
    # (stored in the cache directory, where the workers load it), what narrowings share compiled, and what
    # was loaded kept out of the collector's passes
    generator.constraints.prepare()
    freeze_loaded()
    return VllmSource(generator)
