"""The decode loop with CUDA logits: the bitmask rows go through the Triton kernel."""

from __future__ import annotations

import pytest
import torch
from test_engine import check_events, run_all, sampled
from tiny_lm import citation_language, malformed_anchors

from citegen.constraint import ConstraintLibrary
from citegen.engine import Engine
from citegen.models import wrap_model

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]


def test_constrained_answers_on_cuda_hold_only_well_formed_citations(tiny) -> None:
    on_gpu = wrap_model(tiny.model.to("cuda"), tiny.tokenizer)
    try:
        library = ConstraintLibrary(lambda _: citation_language(on_gpu), on_gpu.vocab_size)
        results = run_all(Engine(on_gpu, library), [sampled(seed) for seed in range(12)])
        assert all(not malformed_anchors(check_events(events)) for events in results)
    finally:
        tiny.model.to("cpu")
