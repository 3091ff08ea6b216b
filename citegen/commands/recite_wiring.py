"""The real re-citation pipeline: grammars' finder, the verifier's per-document resolver and
verify() and, with a model, the engine's re-generation, adapted to `citegen.recite`'s protocols.
Part of the composition root: the one place where citegen.recite meets the verifier."""

from __future__ import annotations

from pathlib import Path

from grammars import FoundCitation, ParsedCitation, find_citations
from verifier.database import Database
from verifier.resolver import DocumentResolver
from verifier.verdict import Verdict
from verifier.verify import Verifier

from citegen.recite import RecitePipeline, Resolution


class _ResolverAdapter:
    """The verifier's per-document resolver, read as the batch reads it."""

    def __init__(self, resolver: DocumentResolver) -> None:
        self._resolver = resolver

    def resolve(self, found: FoundCitation) -> Resolution:
        resolution = self._resolver.resolve(found.citation)
        changes = tuple(f"{c.field}: {c.before or '—'} → {c.after} ({c.why})" for c in resolution.changes)
        return Resolution(resolution.resolved, changes, not resolution.certain, "; ".join(resolution.doubts))


class VerifierAuthority:
    """The verifier's resolver and verify() behind the batch's `Authority`. No audit rows: the
    batch's own reports record every verdict, and parallel workers would contend for the log."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.verifier = Verifier(database, audit=False)

    def document_resolver(self) -> _ResolverAdapter:
        return _ResolverAdapter(DocumentResolver(self.database))

    def verify(self, citation: ParsedCitation) -> Verdict:
        return self.verifier.verify(citation)


def build_pipeline(database_url: str, model_path: Path | None) -> RecitePipeline:
    """The real pipeline, built in each worker process (hence a top-level function)."""
    authority = VerifierAuthority(Database.open(database_url))
    regenerator = None
    if model_path is not None:
        from citegen.recite.regenerate import EngineRegenerator  # noqa: PLC0415  loads torch

        regenerator = EngineRegenerator.load(model_path, authority)
    return RecitePipeline(find_citations, authority, regenerator)
