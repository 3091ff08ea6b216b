"""`VllmBatch.generate`: a request's citation options replace every `citegen_*` key of its sampling
parameters. They were laid over the caller's `extra_args`, so a key the options left out (`citegen_acts`)
survived and narrowed the request to what the caller had asked for before."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from citegen.constraint import Narrowing
from citegen.integrations.options import CitationOptions

pytestmark = pytest.mark.vllm

OPTIONS = CitationOptions(narrowing=Narrowing(courts=("대법원",)))
GIVEN = {"citegen_grammar": "statute", "citegen_acts": ["민법"], "other_processor": 1}

DRIVER = """
import json, sys
from vllm import SamplingParams
from citegen.constraint import Narrowing
from citegen.integrations.options import CitationOptions
from citegen.integrations.vllm_batch import VllmBatch

class Recorder:
    '''vLLM's LLM as far as VllmBatch reads it: records the requests, generates nothing.'''
    def generate(self, inputs, requests, use_tqdm):
        self.requests = requests
        return []

def main(given, result):
    llm = Recorder()
    params = SamplingParams(max_tokens=8, extra_args=json.loads(given))
    options = CitationOptions(narrowing=Narrowing(courts=("대법원",)))
    VllmBatch(llm).generate(["a", "b"], [params, params], [options, None])
    with open(result, "w", encoding="utf-8") as file:
        json.dump({"sent": [r.extra_args for r in llm.requests], "given": params.extra_args}, file, ensure_ascii=False)

if __name__ == "__main__":
    main(*sys.argv[1:])
"""


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory, vllm_script: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    return vllm_script(DRIVER, tmp_path_factory.mktemp("vllm-batch-options"), json.dumps(GIVEN, ensure_ascii=False))


def test_the_options_replace_every_citegen_key_the_caller_gave(found: dict[str, Any]) -> None:
    sent = found["sent"][0]
    assert sent == {"other_processor": 1, **OPTIONS.as_extra_args()}
    assert CitationOptions.from_extra_args(sent) == OPTIONS  # not narrowed to 민법's statutes as well


def test_a_request_without_options_keeps_its_own_extra_args(found: dict[str, Any]) -> None:
    assert found["sent"][1] == GIVEN
    assert found["given"] == GIVEN  # the caller's sampling parameters are left as they were
