"""Batch re-citation of drafts: find messy citations, resolve and rewrite them canonically,
verify them, propose re-generated ones for review, and report what changed.

Pipeline (one document): `documents.read_document` → `pipeline.RecitePipeline.recite`
(find → resolve → verify → decide) → `Document.render`; the batch (`runner.run_batch`) runs it
across the documents `inputs.collect_inputs` found (never outside their folders) in worker
processes and writes `report.jsonl` and `report.html` (`reports`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citegen.recite.documents import SUPPORTED_SUFFIXES, Document, read_document
    from citegen.recite.errors import DocumentError, ReciteError, RegenerationError, UsageError
    from citegen.recite.inputs import InputFile, collect_inputs
    from citegen.recite.pipeline import (
        NEEDS_REVIEW,
        Authority,
        Check,
        CitationOutcome,
        DocumentResolver,
        RecitePipeline,
        Regenerator,
        Resolution,
    )
    from citegen.recite.runner import BatchOptions, BatchSummary, run_batch

# Where each public name lives: the package loads a module on first use of one of its names, so a
# command that needs only the errors or the limits (`citegen --help`) starts without the pipeline.
_HOMES = {
    **dict.fromkeys(("SUPPORTED_SUFFIXES", "Document", "read_document"), "documents"),
    **dict.fromkeys(("DocumentError", "ReciteError", "RegenerationError", "UsageError"), "errors"),
    **dict.fromkeys(("InputFile", "collect_inputs"), "inputs"),
    **dict.fromkeys(("NEEDS_REVIEW", "Authority", "Check", "CitationOutcome", "DocumentResolver",
                     "RecitePipeline", "Regenerator", "Resolution"), "pipeline"),
    **dict.fromkeys(("BatchOptions", "BatchSummary", "run_batch"), "runner"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'citegen.recite' has no attribute {name!r}")
    return getattr(importlib.import_module(f"citegen.recite.{home}"), name)


__all__ = [
    "NEEDS_REVIEW",
    "SUPPORTED_SUFFIXES",
    "Authority",
    "BatchOptions",
    "BatchSummary",
    "Check",
    "CitationOutcome",
    "Document",
    "DocumentError",
    "DocumentResolver",
    "InputFile",
    "ReciteError",
    "RecitePipeline",
    "RegenerationError",
    "Regenerator",
    "Resolution",
    "UsageError",
    "collect_inputs",
    "read_document",
    "run_batch",
]
