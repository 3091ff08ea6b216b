"""One bad request fails alone (issue 13): sampling parameters that cannot be sampled are refused
when built, and a row whose scores cannot be sampled fails its own request while the rest of the
batch finishes exactly as it would have alone."""

from __future__ import annotations

import math

import pytest
import torch
from test_engine import QUESTION, run_all

from citegen.engine import Engine, Request
from citegen.errors import RequestError, SamplingError, SamplingParamsError
from citegen.events import Failed, Finished
from citegen.sampling import SamplingParams, sample_row

REFUSED = {
    "temperature-1e-300": ("temperature", 1e-300),
    "temperature-1e-38": ("temperature", 1e-38),
    "temperature-1e-45": ("temperature", 1e-45),
    "temperature-negative": ("temperature", -0.5),
    "temperature-inf": ("temperature", math.inf),
    "temperature-nan": ("temperature", math.nan),
    "temperature-bool": ("temperature", True),
    "temperature-text": ("temperature", "0.7"),
    "top_p-1e-300": ("top_p", 1e-300),
    "top_p-0": ("top_p", 0.0),
    "top_p-above-1": ("top_p", 1.5),
    "top_p-nan": ("top_p", math.nan),
    "max_new_tokens-true": ("max_new_tokens", True),
    "max_new_tokens-text": ("max_new_tokens", "10"),
    "max_new_tokens-0": ("max_new_tokens", 0),
    "max_new_tokens-float": ("max_new_tokens", 10.0),
    "top_k-negative": ("top_k", -1),
    "repetition_penalty-0": ("repetition_penalty", 0.0),
    "repetition_penalty-1e-300": ("repetition_penalty", 1e-300),
    "repetition_penalty-inf": ("repetition_penalty", math.inf),
    "seed-negative": ("seed", -1),
    "seed-2**64": ("seed", 2**64),
    "seed-bool": ("seed", False),
    "stop-empty": ("stop", ("",)),
    "stop-list": ("stop", ["x"]),
}


@pytest.mark.parametrize(("field", "value"), list(REFUSED.values()), ids=list(REFUSED))
def test_parameters_that_cannot_be_sampled_are_refused_naming_the_field(field, value) -> None:
    with pytest.raises(SamplingParamsError, match=f"^expected {field} ") as refused:
        SamplingParams(**{field: value})
    assert refused.value.field == field and isinstance(refused.value, RequestError)


ACCEPTED = {
    "greedy": {"temperature": 0.0},
    "smallest-temperature": {"temperature": 0.01},
    "smallest-top_p": {"top_p": 1e-6, "temperature": 1.0},
    "integers-for-reals": {"temperature": 1, "top_p": 1, "repetition_penalty": 2},
    "largest-seed": {"seed": 2**63 - 1},
}


@pytest.mark.parametrize("fields", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_parameters_at_the_bounds_are_accepted(fields) -> None:
    SamplingParams(**fields)


def sampled(seed: int) -> Request:
    return Request(messages=QUESTION, sampling=SamplingParams(max_new_tokens=30, temperature=1.0, seed=seed))


def unvalidated_temperature(engine: Engine, hooks: list) -> Request:
    """A request whose parameters slipped past validation (temperature 1e-300: inf scores, NaN
    probabilities)."""
    request = sampled(99)
    object.__setattr__(request.sampling, "temperature", 1e-300)
    return request


def nan_logits(engine: Engine, hooks: list) -> Request:
    """A request whose prompt makes the model's logits NaN (as an overflowing half-precision model does)."""
    request = Request(prompt="원고의 청구를 받아들였다", sampling=SamplingParams(max_new_tokens=30))
    poisoned = engine.loaded.tokenizer(request.prompt).input_ids

    def poison(module, args, kwargs, output):
        if kwargs["input_ids"][0].tolist() == poisoned:
            output.logits[:, -1, :] = float("nan")
        return output

    hooks.append(engine.loaded.model.register_forward_hook(poison, with_kwargs=True))
    return request


@pytest.mark.parametrize("poison", [unvalidated_temperature, nan_logits], ids=lambda p: p.__name__)
def test_a_poisoned_request_among_twelve_fails_alone(tiny, library, poison) -> None:
    good = [sampled(seed) for seed in range(11)]
    alone = [run_all(Engine(tiny, library), [request])[0] for request in good]
    engine, hooks = Engine(tiny, library, max_batch=12), []
    try:
        results = run_all(engine, good[:5] + [poison(engine, hooks)] + good[5:])
    finally:
        for hook in hooks:
            hook.remove()
    poisoned = results.pop(5)
    assert isinstance(poisoned[-1], Failed) and isinstance(poisoned[-1].error, SamplingError)
    assert not any(isinstance(event, Finished) for event in poisoned)
    assert [events[-1] for events in results] == [events[-1] for events in alone]
    assert all(isinstance(events[-1], Finished) for events in results)


def test_sampling_keeps_the_best_token_at_the_smallest_top_p() -> None:
    row = torch.tensor([0.5, 3.0, -1.0, 2.9])
    params = SamplingParams(temperature=1.0, top_p=1e-6)
    assert {sample_row(row, params, torch.Generator().manual_seed(seed)) for seed in range(20)} == {1}


@pytest.mark.parametrize(
    "fields", [{"temperature": 1e-300}, {"top_p": 1e-300}], ids=["temperature-1e-300", "top_p-1e-300"]
)
def test_the_service_source_refuses_them_before_the_stream_starts(tiny, library, fields) -> None:
    """`citegen serve`'s source turns the refusal into streaming's RequestRejectedError (an HTTP 4xx)
    before any event, and serves the next request."""
    import asyncio

    import streaming
    from citegen.commands.serve_wiring import EngineSource

    source = EngineSource(Engine(tiny, library))

    async def first_event(**sampling):
        request = streaming.GenerationRequest(
            "r", (streaming.Message("user", "판례?"),), max_tokens=8, **sampling
        )
        stream = source.generate(request)
        try:
            return await anext(stream)
        finally:
            await stream.aclose()

    try:
        with pytest.raises(streaming.RequestRejectedError, match=f"expected {next(iter(fields))} "):
            asyncio.run(first_event(**fields))
        assert asyncio.run(first_event(temperature=1.0, seed=1)) is not None
    finally:
        source.close()
