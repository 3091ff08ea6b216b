"""Errors of the training pipeline, under citegen's root `CitegenError`.

    TrainingError          root: the corpus, tokenizer or model cannot be built as asked
    └── TrainingDataError  the law data is missing, empty or not in the law.go.kr shapes
"""

from __future__ import annotations

from citegen.errors import CitegenError


class TrainingError(CitegenError):
    """Root of citegen.training's errors; the message says what was expected and what came."""


class TrainingDataError(TrainingError):
    pass
