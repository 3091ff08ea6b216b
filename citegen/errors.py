"""Errors of the citegen engine.

    CitegenError                  root: anything the engine refuses or cannot do
    ├── ModelLoadError            a model directory that is missing, incomplete or unreadable
    ├── VocabularyMismatchError   tokenizer, model and token index disagree on the vocabulary
    ├── RequestError              a generation request the engine cannot serve (checked on submit)
    │   └── PromptTooLongError    the prompt leaves no room in the model's context
    ├── MaskError                 a bitmask/logits pair of the wrong shape, dtype or device
    └── EmptyMaskError            the constraint allowed no token at all (a grammar bug, never sampled)

Expected outcomes are values, not exceptions: a finished sequence reports why it finished
(`Finished.reason`), a citation that does not parse ends with `citation=None`.
"""

from __future__ import annotations


class CitegenError(Exception):
    """Root of the engine's errors; the message says what was expected and what came."""


class ModelLoadError(CitegenError):
    pass


class VocabularyMismatchError(CitegenError):
    pass


class RequestError(CitegenError):
    pass


class PromptTooLongError(RequestError):
    pass


class MaskError(CitegenError):
    pass


class EmptyMaskError(CitegenError):
    pass
