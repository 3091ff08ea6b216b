"""Offline generation through vLLM with the citation processor: one engine, batches of requests.

`VllmBatch` is what `citegen recite --backend vllm` re-generates slots with. Run as a module it
executes a JSON plan, so code in an interpreter without vllm (tests, benchmarks) can drive an
engine that runs in the `.venv-vllm` one and read back plain JSON:

    .venv-vllm/bin/python -m citegen.integrations.vllm_batch PLAN.json RESULT.json

    PLAN   {"llm": {LLM keyword arguments, "model" required},
            "batches": [{"name": str, "requests": [{"prompt": str | "prompt_token_ids": [int],
                         "sampling": {SamplingParams fields}, "extra_args": {...}}]}]}
    RESULT {"startup_seconds": float,
            "batches": [{"name", "seconds", "error": str | null,
                         "outputs": [[{"token_ids", "text", "finish_reason"}, ...] per request]}]}

A batch whose request is refused (bad `citegen_*` extra_args) records the error and the engine goes
on with the next batch.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vllm import LLM, SamplingParams
from vllm.exceptions import VLLMClientError

from citegen.integrations.options import PREFIX, CitationOptions
from citegen.integrations.vllm import CitationLogitsProcessor

logger = logging.getLogger(__name__)

ENGINE_DEFAULTS: Mapping[str, Any] = {"enforce_eager": True, "seed": 0}


def build_llm(model: str | Path, **engine_args: Any) -> LLM:
    """A vLLM engine over `model` with the citation processor installed."""
    arguments = {**ENGINE_DEFAULTS, **engine_args, "model": str(model)}
    arguments["logits_processors"] = [CitationLogitsProcessor, *arguments.get("logits_processors", ())]
    return LLM(**arguments)


@dataclass(frozen=True, slots=True)
class Completion:
    token_ids: list[int]
    text: str
    finish_reason: str | None


class VllmBatch:
    """Prompts in, completions out, each request under its own citation options."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def generate(
        self,
        prompts: Sequence[str | Sequence[int]],
        sampling: Sequence[SamplingParams],
        options: Sequence[CitationOptions | None],
    ) -> list[list[Completion]]:
        """A request's options replace every `citegen_*` key of its sampling's `extra_args` (a key they
        leave out, such as `citegen_acts`, would narrow the request still); None leaves them as given."""
        requests = []
        for params, chosen in zip(sampling, options, strict=True):
            params = params.clone()
            if chosen is not None:
                others = {k: v for k, v in (params.extra_args or {}).items() if not k.startswith(PREFIX)}
                params.extra_args = {**others, **chosen.as_extra_args()}
            requests.append(params)
        inputs = [{"prompt": p} if isinstance(p, str) else {"prompt_token_ids": list(p)} for p in prompts]
        results = self.llm.generate(inputs, requests, use_tqdm=False)
        return [
            [Completion(list(o.token_ids), o.text, o.finish_reason) for o in result.outputs]
            for result in results
        ]


def run_plan(plan: Mapping[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    llm = build_llm(**plan["llm"])
    result: dict[str, Any] = {"startup_seconds": time.perf_counter() - started, "batches": []}
    batch = VllmBatch(llm)
    for spec in plan["batches"]:
        requests = spec["requests"]
        prompts = [r.get("prompt_token_ids") or r["prompt"] for r in requests]
        sampling = [SamplingParams(**r.get("sampling", {}), extra_args=r.get("extra_args")) for r in requests]
        begun = time.perf_counter()
        record: dict[str, Any] = {"name": spec.get("name", ""), "error": None, "outputs": []}
        try:
            completions = batch.generate(prompts, sampling, [None] * len(requests))
            record["outputs"] = [[_as_dict(c) for c in r] for r in completions]
        except (VLLMClientError, ValueError) as error:  # a refused request
            record["error"] = f"{type(error).__name__}: {error}"
        record["seconds"] = time.perf_counter() - begun
        result["batches"].append(record)
    return result


def _as_dict(completion: Completion) -> dict[str, Any]:
    return {
        "token_ids": completion.token_ids,
        "text": completion.text,
        "finish_reason": completion.finish_reason,
    }


def main(argv: Sequence[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: python -m citegen.integrations.vllm_batch PLAN.json RESULT.json\n")
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    plan = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    Path(argv[1]).write_text(json.dumps(run_plan(plan), ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
