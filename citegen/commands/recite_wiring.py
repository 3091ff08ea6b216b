"""The real re-citation pipeline: grammars' finder, the verifier's per-document resolver and
verify() and, with a model, the engine's re-generation, adapted to `citegen.recite`'s protocols.
Part of the composition root: the one place where citegen.recite meets the verifier."""

from __future__ import annotations

from pathlib import Path

from citegen.commands import backends
from citegen.commands.backends import Backend
from citegen.recite import RecitePipeline, Resolution, UsageError
from grammars import CitationFinder, CitationParser, FoundCitation, Lexicon, ParsedCitation, default_lexicon
from verifier import Change, Database, DocumentResolver, Verdict, Verifier, VerifierError, build_lexicon, holds_law
from verifier import Resolution as VerifierResolution

_MOST_READ = 4096  # answers an adapter keeps read: a back-reference's is new each time, so it is never met again
# Tables whose rows decide verdicts: signed by `contents_sign` where the database has no cheap sign of its own.
_TABLES = ("acts", "act_aliases", "act_versions", "cases", "coverage", "supplements", "articles", "provisions",
           "article_spans")


class _ResolverAdapter:
    """The verifier's per-document resolver, read as the batch reads it."""

    def __init__(self, resolver: DocumentResolver) -> None:
        self._resolver = resolver
        # The resolver hands back the same answer for a citation it resolved before: read it once. Keyed
        # by identity (the answer is held, so its id is not reused), which costs no hashing of the value.
        self._read: dict[int, tuple[VerifierResolution, Resolution]] = {}

    def resolve(self, text: str, found: FoundCitation) -> Resolution:
        resolution = self._resolver.resolve_found(text, found).resolution
        known = self._read.get(id(resolution))
        if known is not None and known[0] is resolution:
            return known[1]
        changes = tuple(_described(c) for c in resolution.changes)
        read = Resolution(resolution.resolved, changes, not resolution.certain, "; ".join(resolution.doubts),
                          tuple(_described(c) for c in resolution.context))
        if len(self._read) >= _MOST_READ:
            self._read.clear()
        self._read[id(resolution)] = (resolution, read)
        return read


def _described(change: Change) -> str:
    return f"{change.field}: {change.before or '—'} → {change.after} ({change.why})"


class VerifierAuthority:
    """The verifier's resolver and verify() behind the batch's `Authority`. No audit rows: the
    batch's own reports record every verdict, and parallel workers would contend for the log."""

    def __init__(self, database: Database, finder: CitationFinder, cache_dir: Path | None = None) -> None:
        self.database = database
        self.verifier = Verifier(database, audit=False, cache_dir=cache_dir)
        self.finder = finder  # for the texts a resolver reads itself; the batch hands it what this finder found

    def document_resolver(self) -> _ResolverAdapter:
        return _ResolverAdapter(DocumentResolver(self.database, finder=self.finder, lookups=self.verifier.lookups))

    def verify(self, citation: ParsedCitation) -> Verdict:
        return self.verifier.verify(citation)


def finding_lexicon(known: Lexicon | None) -> Lexicon:
    """grammars' built-in names and abbreviations joined with the database's (`known`, None when
    it holds no acts), so the finder sees every act the database can verify (thousands in
    production) and the common ones it lacks."""
    builtin = default_lexicon()
    return builtin if known is None else builtin.joined(known)


def check_sources(database_url: str, model_path: Path | None) -> str:
    """Fail fast, before any worker starts, on a database or model the pipeline could not open; the
    database's state (`database_state`), for the batch's fingerprint."""
    try:
        database = Database.open(database_url, create=False)
    except VerifierError as error:
        raise UsageError(f"expected a usable verifier database, got: {error}; make one with `citegen-admin init` "
                         "and `citegen-admin import`, or pass --database-url") from None
    try:
        empty = not holds_law(database)
        state = database_state(database)
    finally:
        database.close()
    if empty:  # every citation would come back not_covered: almost surely the wrong database
        raise UsageError(f"expected a verifier database holding statutes or decisions, got an empty one at "
                         f"{database.url}; fill it with `citegen-admin import`, or pass --database-url")
    if model_path is not None and not model_path.is_dir():
        raise UsageError(f"expected the model that --regenerate uses at {model_path}, got no such folder")
    return state


def database_state(database: Database) -> str:
    """A value that changes when the database's contents may have, so a re-run after an import redoes
    its documents: an SQLite file's identity, size and times (`Database.fingerprint`), else (PostgreSQL)
    `contents_sign`."""
    fingerprint = database.fingerprint()
    return f"file:{fingerprint}" if fingerprint is not None else f"rows:{contents_sign(database)}"


def contents_sign(database: Database) -> str:
    """The schema revision and, per table that decides verdicts, its row count and a sum over its row
    versions: what every import, sync and in-place update changes. On PostgreSQL the sum is of the rows'
    `xmin`, the transaction that wrote each version (an UPDATE writes a new one, so a sync or re-import
    that corrects a row in place changes it); elsewhere (SQLite, whose file's fingerprint serves
    `database_state` instead) of their ids."""
    version = "xmin::text::bigint" if database.engine.dialect.name == "postgresql" else "id"
    parts = [f"revision={database.revision()}"]
    with database.snapshot() as connection:  # the tables as one import left them, not halfway through one
        for table in _TABLES:
            count, total = connection.exec_driver_sql(f"SELECT count(*), sum({version}) FROM {table}").one()
            parts.append(f"{table}={count}/{total}")
    return ";".join(parts)


def build_pipeline(
    database_url: str, model_path: Path | None, backend: Backend = "builtin", device: str = "auto",
    cache_dir: Path | None = None,
) -> RecitePipeline:
    """The real pipeline, built in each worker process (hence a top-level function). With a
    model, unresolvable citations are re-generated under the database's canonical names only.
    With `cache_dir`, the database's names, the former names its 부칙 declare and the finder's statute
    pattern are kept there for the next process (`verifier.build_lexicon`, `verifier.Verifier`,
    `grammars.CitationFinder`): seconds of start-up each."""
    database = Database.open(database_url, create=False)
    known = build_lexicon(database, cache_dir)
    finder = CitationFinder(CitationParser.for_lexicon(finding_lexicon(known)), cache_dir)
    regenerator = None
    if model_path is not None:
        regenerator = backends.regenerator(backend, model_path, dict(known.acts) if known else {}, device)
    return RecitePipeline(finder.iter_find, VerifierAuthority(database, finder, cache_dir), regenerator)
