"""Errors of citegen: one root for the engine, its adapters, re-citation and training.

    CitegenError                  root: anything citegen refuses or cannot do
    ├── ModelLoadError            a model directory that is missing, incomplete or unreadable
    ├── VocabularyMismatchError   tokenizer, model and token index disagree on the vocabulary
    ├── RequestError              a generation request the engine cannot serve (checked on submit)
    │   ├── PromptTooLongError    the prompt leaves no room in the model's context
    │   ├── SamplingParamsError   sampling parameters outside what can be sampled (`field` names which)
    │   └── ExtraArgsError        malformed `citegen_*` extra_args of a vLLM request (integrations.options)
    ├── MaskError                 a bitmask/logits pair of the wrong shape, dtype or device
    ├── EmptyMaskError            the constraint allowed no token at all (a grammar bug, never sampled)
    ├── SamplingError             one row's scores cannot be sampled (non-finite): that request fails alone
    ├── ReciteError               re-citation of drafts (citegen.recite.errors: UsageError, DocumentError, …)
    └── TrainingError             the training pipeline (citegen.training.errors: TrainingDataError)

Expected outcomes are values, not exceptions: a finished sequence reports why it finished
(`Finished.reason`), a citation that does not parse ends with `citation=None`.
"""

from __future__ import annotations


class CitegenError(Exception):
    """Root of citegen's errors; the message says what was expected and what came."""


class ModelLoadError(CitegenError):
    pass


class VocabularyMismatchError(CitegenError):
    pass


class RequestError(CitegenError):
    pass


class PromptTooLongError(RequestError):
    pass


class SamplingParamsError(RequestError):
    """`field` is the parameter that was refused (`temperature`, `top_p`, …), for a 422 body."""

    def __init__(self, field: str, expected: str, got: object) -> None:
        super().__init__(f"expected {field} {expected}, got {got!r}")
        self.field = field
        self.expected = expected
        self.got = got


class MaskError(CitegenError):
    pass


class EmptyMaskError(CitegenError):
    pass


class SamplingError(CitegenError):
    pass
