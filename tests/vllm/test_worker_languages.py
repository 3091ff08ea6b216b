"""What language a vLLM worker masks with as the requests' options and lexicon file change under one
engine: the citation processor in the vLLM interpreter, driven by a script that rewrites the lexicon
file between two batches (a plan of `citegen.integrations.vllm_batch` cannot)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grammars import StatuteCitation, parse_citation

pytestmark = pytest.mark.vllm

KEPT = 16  # compiled languages a worker keeps (citegen.integrations.vllm), as citegen's ConstraintLibrary

DRIVER = """
import json, os, sys, time
import torch
from vllm import SamplingParams
from vllm.v1.sample.logits_processor import BatchUpdate
from citegen.integrations.options import CitationOptions
from citegen.integrations.vllm import CitationLogitsProcessor
from citegen.integrations.vllm_batch import VllmBatch, build_llm
from grammars import as_lexicon

def main(model, lexicon, prompt, result):
    llm = build_llm(model, dtype="float32", max_model_len=256, max_num_seqs=4)
    batch = VllmBatch(llm)
    def statute(**extra):
        params = SamplingParams(max_tokens=24, temperature=0.0, extra_args={"citegen_grammar": "statute", **extra})
        return batch.generate([prompt], [params], [None])[0][0].text
    found = {"informal": statute(citegen_acts=["민소법"])}
    with open(lexicon, "w", encoding="utf-8") as file:
        json.dump({"민법": ["750"]}, file, ensure_ascii=False)
    found["before"] = statute(citegen_lexicon=lexicon)
    with open(lexicon, "w", encoding="utf-8") as file:  # a new export of the database
        json.dump({"형법": ["250"]}, file, ensure_ascii=False)
    later = time.time_ns() + 10**9
    os.utime(lexicon, ns=(later, later))  # a new version even where the clock is coarse
    found["after"] = statute(citegen_lexicon=lexicon)
    # the processor itself, in this process: one narrowing after another joins and leaves row 0
    processor = CitationLogitsProcessor(llm.llm_engine.vllm_config, torch.device("cpu"), False)
    acts = sorted(as_lexicon(None).acts)[:24]
    for act in acts:
        params = SamplingParams(max_tokens=8, extra_args={"citegen_acts": [act]})
        processor.update_state(BatchUpdate(batch_size=1, removed=[0], added=[(0, params, [5], [])], moved=[]))
    found["kept"] = len(processor._constraints)
    found["narrowings"] = len(acts)
    with open(result, "w", encoding="utf-8") as file:
        json.dump(found, file, ensure_ascii=False)
    llm.llm_engine.engine_core.shutdown()

if __name__ == "__main__":
    main(*sys.argv[1:])
"""


@pytest.fixture(scope="module")
def found(model_dir: Path, tmp_path_factory: pytest.TempPathFactory,
          vllm_script: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    workdir = tmp_path_factory.mktemp("vllm-worker-languages")
    prompt = "질문: 관련 조문은 무엇인가요?\n답: "
    return vllm_script(DRIVER, workdir, str(model_dir), str(workdir / "lexicon.json"), prompt)


def test_a_rewritten_lexicon_file_is_the_language_of_the_next_request(found: dict[str, Any]) -> None:
    """The front end accepts a request against the lexicon file as it is now; the worker kept masking
    with the language it compiled from the file's first version (민법 only) for as long as it ran."""
    before, after = parse_citation(found["before"]), parse_citation(found["after"])
    assert isinstance(before, StatuteCitation) and before.act == "민법", found["before"]
    assert isinstance(after, StatuteCitation) and after.act == "형법", found["after"]


def test_an_act_named_by_its_abbreviation_is_written_by_its_name(found: dict[str, Any]) -> None:
    """`citegen_acts: ["민소법"]` made the worker write `민소법 제…`, a form no output may take."""
    parsed = parse_citation(found["informal"])
    assert isinstance(parsed, StatuteCitation) and parsed.act == "민사소송법", found["informal"]
    assert found["informal"].startswith("민사소송법 제"), found["informal"]


def test_a_worker_keeps_a_bounded_number_of_compiled_languages(found: dict[str, Any]) -> None:
    """Each new narrowing a request asks for is compiled in the worker; all of them stayed there."""
    assert found["narrowings"] > KEPT
    assert found["kept"] == KEPT
