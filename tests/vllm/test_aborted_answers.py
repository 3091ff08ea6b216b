"""An answer vLLM aborted is an answer cut short, and the client is told so: `VllmGenerator.stream` read
vLLM's `abort` finish reason as `stop`, so the service's `done` event and the chat API's finish_reason said
`stop` of an answer that had not ended. Driven through `VllmSource`, what the HTTP layer reports from,
over an engine that answers one output (a few tokens of prose) with the finish reason asked for."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.vllm

PROSE = "손해를 배상할 책임이"

DRIVER = """
import asyncio, json, sys
from types import SimpleNamespace
from transformers import AutoConfig, AutoTokenizer
import streaming
from citegen.commands.serve_vllm import VllmSource
from citegen.integrations.options import CitationOptions
from citegen.integrations.vllm_source import VllmGenerator

class Engine:
    '''vLLM's AsyncLLM as far as VllmGenerator reads it: one output of `token_ids`, finished for `reason`.'''
    def __init__(self, model, token_ids, reason):
        vocab_size = AutoConfig.from_pretrained(model).vocab_size
        self.model_config = SimpleNamespace(tokenizer=model, trust_remote_code=False, max_model_len=1024,
                                            get_vocab_size=lambda: vocab_size)
        self.token_ids, self.reason = token_ids, reason

    async def generate(self, prompt, sampling, request_id):
        yield SimpleNamespace(outputs=[SimpleNamespace(token_ids=self.token_ids, finish_reason=self.reason)])

async def told(model, token_ids, reason):
    source = VllmSource(VllmGenerator(Engine(model, token_ids, reason), CitationOptions()))
    request = streaming.GenerationRequest("r1", (streaming.Message("user", "손해배상책임의 요건은?"),), 32)
    events = [event async for event in source.generate(request)]
    prose = "".join(event.text for event in events if isinstance(event, streaming.ProseDelta))
    return {"finish_reason": events[-1].finish_reason, "prose": prose}

def main(model, prose, result):
    token_ids = AutoTokenizer.from_pretrained(model)(prose, add_special_tokens=False).input_ids
    found = {reason: asyncio.run(told(model, token_ids, reason)) for reason in ("stop", "length", "abort")}
    with open(result, "w", encoding="utf-8") as file:
        json.dump(found, file, ensure_ascii=False)

if __name__ == "__main__":
    main(*sys.argv[1:])
"""


@pytest.fixture(scope="module")
def told(model_dir: Path, tmp_path_factory: pytest.TempPathFactory,
         vllm_script: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    return vllm_script(DRIVER, tmp_path_factory.mktemp("vllm-aborted"), str(model_dir), PROSE)


FINISHES = [("stop", "stop"), ("length", "length"), ("abort", "length")]


@pytest.mark.parametrize(("vllm_reason", "reported"), FINISHES, ids=[f"{v}-is-{r}" for v, r in FINISHES])
def test_the_client_is_told_whether_the_answer_was_cut_short(told: dict[str, Any], vllm_reason: str,
                                                              reported: str) -> None:
    assert told[vllm_reason] == {"finish_reason": reported, "prose": PROSE}
