"""Generation on vLLM's async engine, answered as citegen's own engine answers: `citegen.events`.

vLLM decodes (paged attention, continuous batching, tensor/pipeline parallel, Ray) with the
`CitationLogitsProcessor` masking in its workers; this front end replays each request's new token
ids through its own `ConstraintCursor` over the same language, so the `TextEventMachine` that the
built-in engine uses turns them into the same events (prose, citation start/deltas/end, finished).
The HTTP service (`citegen serve --backend vllm`) streams those events unchanged.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncGenerator
from dataclasses import replace
from pathlib import Path
from typing import Any

from transformers import AutoTokenizer
from vllm import SamplingParams as VllmSamplingParams
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.sampling_params import RequestOutputKind
from vllm.v1.engine.async_llm import AsyncLLM

from citegen.constraint import Constraint
from citegen.engine import Request, encode_prompt, prompt_room
from citegen.errors import RequestError
from citegen.events import Event, Finished, FinishReason, TextEventMachine
from citegen.integrations.options import CitationOptions, engine_config
from citegen.integrations.vllm import CitationLogitsProcessor
from citegen.narrowings import constraint_library
from grammars import vocabulary_of

logger = logging.getLogger(__name__)

_request_ids = itertools.count(1)


def start_engine(
    model: str, *, served: CitationOptions | None = None, index_cache_dir: Path | None = None, **engine_args: Any
) -> AsyncLLM:
    """vLLM's async engine over `model` with the citation processor (engine_args: AsyncEngineArgs
    fields such as tensor_parallel_size, pipeline_parallel_size, distributed_executor_backend);
    its workers store and load compiled indexes in `index_cache_dir` (Settings.index_cache_dir) and, when
    they start, ready the narrowings of the `served` options (the ones `VllmGenerator` sends)."""
    processors = [CitationLogitsProcessor, *engine_args.pop("logits_processors", ())]
    additional = {**engine_args.pop("additional_config", {}), **engine_config(index_cache_dir, served)}
    arguments = AsyncEngineArgs(
        model=model, logits_processors=processors, additional_config=additional, **engine_args
    )
    return AsyncLLM.from_engine_args(arguments)


def _finish_reason(vllm_reason: str) -> FinishReason:
    """vLLM's reason as citegen's: only `stop` (an end-of-sequence token or a stop string) ends an answer;
    any other (`length`, an `abort`ed request, an `error`, `repetition`) cut it short, which citegen's
    engine and the HTTP layer report as `length`. (`cancelled` is the engine's for a consumer that left:
    the HTTP layer reports it as `stop`.) An abort read as `stop` showed the client a cut answer as whole."""
    return "stop" if vllm_reason == "stop" else "length"


class VllmGenerator:
    """citegen `Request`s in, `citegen.events` out, decoded by vLLM.

    `options` are what each constrained request carries but its narrowing: their `lexicon` is the
    verifier's lexicon export (`citegen-admin export -o FILE`; None: grammars' built-in names), which the
    front end and the workers both read, so they compile one language (its stored index found by both under
    one key: a lexicon's key follows the order of its names); shorthand left free or not as
    Settings.forbid_shorthand says. `index_cache_dir` is the setting citegen's own engine reads."""

    def __init__(self, engine: AsyncLLM, options: CitationOptions, *, index_cache_dir: Path | None = None) -> None:
        self.engine = engine
        model_config = engine.model_config
        self.tokenizer = AutoTokenizer.from_pretrained(
            model_config.tokenizer, local_files_only=True, trust_remote_code=model_config.trust_remote_code
        )
        self.vocab_size = model_config.get_vocab_size()
        vocabulary = vocabulary_of(self.tokenizer, self.vocab_size)
        self.token_bytes = tuple(piece or b"" for piece in vocabulary.tokens)  # control tokens add no text
        self.eos_ids = vocabulary.eos_ids
        self.context_length = model_config.max_model_len
        self.options = options
        # citegen's own engine's library: the whole language stored in the cache directory for the workers,
        # a narrowing compiled in milliseconds, here and in the worker, over what the narrowings share
        self.constraints = constraint_library(
            vocabulary, self.vocab_size, options.article_lexicon(), forbid_shorthand=not options.shorthand,
            cache_dir=index_cache_dir,
        )

    def sampling_for(self, request: Request, room: int) -> VllmSamplingParams:
        """vLLM's sampling parameters for the request, at most `room` new tokens (what the context
        leaves after the prompt, as citegen's engine caps them: the processor's budget rule closes a
        citation within that); raises RequestError for parameters vLLM itself refuses."""
        sampling = request.sampling
        extra = (
            replace(self.options, narrowing=request.narrowing).as_extra_args() if request.constrain else {}
        )
        try:
            return VllmSamplingParams(
                max_tokens=min(sampling.max_new_tokens, room),
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                top_k=sampling.top_k if sampling.top_k > 0 else -1,
                repetition_penalty=sampling.repetition_penalty,
                seed=sampling.seed,
                extra_args=extra,
                output_kind=RequestOutputKind.DELTA,
                skip_special_tokens=False,
            )
        except ValueError as error:  # vLLM's own validation of the parameters
            raise RequestError(f"expected sampling parameters vLLM accepts, got: {error}") from None

    def admitted(self, request: Request) -> tuple[list[int], VllmSamplingParams]:
        """The request's prompt ids and vLLM sampling parameters; refuses (RequestError) what
        citegen's own engine refuses: an empty prompt or message, a prompt the context cannot hold."""
        prompt_ids = encode_prompt(self.tokenizer, request)
        return prompt_ids, self.sampling_for(request, prompt_room(self.context_length, prompt_ids))

    def check(self, request: Request) -> None:
        """Raise the `RequestError` that `stream` would, starting nothing (as `Engine.check` does)."""
        self.admitted(request)

    async def stream(self, request: Request, constraint: Constraint | None = None) -> AsyncGenerator[Event, None]:
        """The request's events, under `constraint` where one was compiled for it already; closing the
        iterator aborts the request in vLLM."""
        prompt_ids, sampling = self.admitted(request)
        cursor, machine = (
            None,
            TextEventMachine(anchor=None, parse=lambda _: None, stop=request.sampling.stop),
        )
        if request.constrain:
            if constraint is None:
                # a new narrowing compiles its language (seconds over a large vocabulary): not on the loop
                constraint = await self.constraints.get_async(request.narrowing)
            cursor = constraint.cursor()
            machine = TextEventMachine(
                anchor=constraint.anchor, parse=constraint.parse, stop=request.sampling.stop
            )
        request_id = request.request_id or f"vllm-{next(_request_ids)}"
        generated = 0
        reason: FinishReason = "stop"
        outputs = self.engine.generate({"prompt_token_ids": prompt_ids}, sampling, request_id)
        try:
            async for output in outputs:
                completion = output.outputs[0]
                for token in completion.token_ids:
                    if token in self.eos_ids:
                        continue
                    generated += 1
                    transition = cursor.advance(token) if cursor is not None else None
                    for event in machine.feed(self.token_bytes[token], transition):
                        yield event
                    if machine.stopped:
                        break
                if machine.stopped:
                    break
                if completion.finish_reason is not None:
                    reason = _finish_reason(completion.finish_reason)
        finally:
            await outputs.aclose()
        events, reason = machine.finish(reason, complete=cursor is None or cursor.accepting)
        for event in events:
            yield event
        yield Finished(reason, len(prompt_ids), generated, machine.text)

    def close(self) -> None:
        self.engine.shutdown()
