"""The answer service's parts: the engine and the verifier adapted to streaming's two protocols,
the database's readiness and admin data (the engine itself: `citegen.commands.languages`, which
this module re-exports for its callers). Part of the composition root: the one place where the
engine, the verifier and streaming meet."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streaming
from citegen import events as engine_events
from citegen.commands.languages import (  # noqa: F401  re-exported
    ArticleLexicon,
    answer_grammar_for,
    build_engine,
)
from citegen.commands.recite_wiring import finding_lexicon
from citegen.constraint import Constraint, ConstraintLibrary, Narrowing
from citegen.engine import Engine, Request
from citegen.errors import RequestError
from citegen.models import freeze_loaded
from citegen.sampling import SamplingParams
from grammars import (
    COURTS_BY_NAME,
    CitationFinder,
    CitationParser,
    FoundCitation,
    Lexicon,
    ParsedCitation,
    default_lexicon,
)
from streaming import AnchorPrefixes, Gauges
from verifier import Database, Verifier, head_revision, read_lexicon
from verifier import admin as admin_queries

if TYPE_CHECKING:
    from fastapi import FastAPI

logger = logging.getLogger(__name__)

def stream_event(event: engine_events.Event) -> streaming.SourceEvent:
    match event:
        case engine_events.ProseDelta(text=prose, tentative=tentative):
            return streaming.ProseDelta(prose, tentative)
        case engine_events.CitationStart(prefix=prefix):
            return streaming.CitationStart(prefix)
        case engine_events.CitationDelta(text=delta):
            return streaming.CitationDelta(delta)
        case engine_events.CitationEnd(text=whole, citation=parsed):
            return streaming.CitationEnd(whole, parsed)
        case engine_events.Finished(reason=reason, prompt_tokens=prompt, completion_tokens=completion):
            return streaming.Finished(
                streaming.Usage(prompt, completion), "length" if reason == "length" else "stop"
            )
        case engine_events.Failed(error=error):
            raise streaming.GenerationError(
                f"expected the engine to finish the answer, got {error}"
            ) from error
    raise streaming.SegmentProtocolError(f"expected an engine event, got {event!r}")


def engine_request(request: streaming.GenerationRequest) -> Request:
    """The service's request as the engine's (and the vLLM backend's) `Request`."""
    sampling = SamplingParams(
        max_new_tokens=request.max_tokens,
        temperature=request.temperature,
        top_p=request.top_p,
        seed=request.seed,
        stop=request.stop,
    )
    return Request(messages=tuple((m.role, m.content) for m in request.messages), sampling=sampling,
                   narrowing=Narrowing(request.courts, request.acts), request_id=request.request_id)


async def prepare_request(
    request: streaming.GenerationRequest,
    check: Callable[[Request], None],
    constraints: ConstraintLibrary | None,
) -> streaming.GenerationRequest:
    """What every generation source does before a request takes a generation slot (its
    `streaming.PreparingSource.prepare`): refuse sampling parameters that cannot be sampled, an
    empty message and a prompt the model's context cannot hold (`check`: the backend's tokenizer
    and context length; `Engine.check`, `VllmGenerator.check`), each a `RequestRejectedError`
    (422) before any stream; then compile a new narrowing's language (on the library's own thread:
    milliseconds on the built-in engine, a whole build of seconds for vLLM's workers), so that no slot
    waits on a compile. Returns the request carrying that constraint, which its generation uses: a
    reload or an eviction while it waits for a slot cannot make it compile again, or find its act gone."""
    try:
        submitted = engine_request(request)  # SamplingParamsError
        await asyncio.to_thread(check, submitted)
    except RequestError as error:
        raise streaming.RequestRejectedError(str(error)) from error
    if submitted.constrain and constraints is not None:
        return replace(request, prepared=await constraints.get_async(submitted.narrowing))
    return request


def is_prepared(request: streaming.GenerationRequest, constraints: ConstraintLibrary | None) -> bool:
    """`streaming.PreparingSource.is_prepared` over a source's constraint library."""
    return constraints is None or constraints.is_cached(Narrowing(request.courts, request.acts))


async def prepared_constraint(
    request: streaming.GenerationRequest, submitted: Request, constraints: ConstraintLibrary | None
) -> Constraint | None:
    """The constraint a request generates under: the one its `prepare` compiled, else (a caller that did
    not prepare it) the library's, compiled off the loop where new."""
    if isinstance(request.prepared, Constraint):
        return request.prepared
    if not submitted.constrain or constraints is None:
        return None
    return await constraints.get_async(submitted.narrowing)


def citable_names(lexicon: Lexicon | None) -> streaming.CitableNames:
    """What a request may narrow its citations to: grammars' courts, and every name the database
    gives an act (its own, an official 약칭, an informal abbreviation) or grammars' built-in lexicon
    abbreviates one of its acts by (`근기법`, which the finder reads: `Lexicon.citable_name`), each mapped
    to the name the answer language cites it by. `lexicon` is the verifier's build_lexicon() of the
    database whose lexicon_data() the language was built from (None: a database without acts)."""
    courts = {court: court for court in COURTS_BY_NAME}
    if lexicon is None:
        return streaming.CitableNames(courts, {})
    builtin = default_lexicon()
    written = (*lexicon.acts, *lexicon.aliases, *lexicon.informal, *builtin.aliases, *builtin.informal)
    acts = {name: canonical for name in written if (canonical := lexicon.citable_name(name)) is not None}
    return streaming.CitableNames(courts, acts)


class EngineSource:
    """`streaming.GenerationSource` over the continuous-batching engine, whose loop runs on its own
    thread: every request joins the running batch. Closing the stream cancels the request."""

    def __init__(self, engine: Engine,
                 relanguage: Callable[[ArticleLexicon], ConstraintLibrary] | None = None) -> None:
        self.engine = engine
        self.relanguage = relanguage  # the library of the answer language over another lexicon
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=engine.run_forever, args=(self._stop,), name="engine", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self.engine.wake()
        self._thread.join(timeout=10)

    async def use_lexicon(self, lexicon: ArticleLexicon) -> bool:
        """Compile the whole answer language over `lexicon` and prepare its narrowings (on the new
        library's own compile thread, off the event loop), then make it the engine's: requests
        submitted from then on are constrained by it, those running keep the constraint they started with (a compiled
        constraint, not the library). Nothing else holds the library it replaces, so that library
        and its idle compile thread end here (tests/streaming/test_admin_reload.py). False when the
        source was built without a way to compile another language."""
        if self.relanguage is None:
            return False
        library = self.relanguage(lexicon)
        await library.prepare_async()
        freeze_loaded()  # the new library, out of the collector's passes as the first one is
        self.engine.constraints = library
        return True

    def is_prepared(self, request: streaming.GenerationRequest) -> bool:
        return is_prepared(request, self.engine.constraints)

    async def prepare(self, request: streaming.GenerationRequest) -> streaming.GenerationRequest:
        return await prepare_request(request, self.engine.check, self.engine.constraints)

    async def generate(self, request: streaming.GenerationRequest) -> AsyncIterator[streaming.SourceEvent]:
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[engine_events.Event] = asyncio.Queue()
        try:
            submitted = engine_request(request)  # SamplingParamsError: parameters that cannot be sampled
            # the constraint goes to submit, so an eviction in between cannot make it compile in the engine
            constraint = await prepared_constraint(request, submitted, self.engine.constraints)
            handle = self.engine.submit(submitted, _thread_safe_sink(loop, inbox.put_nowait), constraint)
        except RequestError as error:
            raise streaming.RequestRejectedError(str(error)) from error
        try:
            while True:
                event = stream_event(await inbox.get())
                yield event
                if isinstance(event, streaming.Finished):
                    return
        finally:
            handle.cancel()


def _thread_safe_sink(loop: asyncio.AbstractEventLoop, put: Callable[[Any], None]) -> Callable[[Any], None]:
    def sink(event: engine_events.Event) -> None:
        with contextlib.suppress(RuntimeError):  # the server's loop has closed: nobody is listening any more
            loop.call_soon_threadsafe(put, event)

    return sink


class DatabaseVerifier:
    """`streaming.Verifier` over the verifier's verify(); the verdict crosses field by field.

    No database call runs on the event loop: a citation seen before (in the verifier's cache) is
    answered there, a new one is looked up on a small thread pool, and the audit log is written
    by the verifier's own writer thread, so a locked or lost database delays only the citations
    that wait on it (until their verify timeout), never `/healthz` or another answer."""

    def __init__(self, verifier: Verifier, *, threads: int = 4) -> None:
        self.verifier = verifier
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="verify")
        verifier.start_audit_writer()

    async def verify(self, citation: ParsedCitation) -> streaming.Verdict:
        found = self.verifier.verify_cached(citation)
        if found is None:
            found = await asyncio.get_running_loop().run_in_executor(self._pool, self.verifier.verify, citation)
        cited = found.provision
        provision = None if cited is None else streaming.Provision(
            cited.act, cited.article, cited.title, cited.text, cited.version(), cited.address)
        return streaming.Verdict(found.status, found.canonical, found.source, found.detail, provision)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.verifier.close()


@dataclass(frozen=True, slots=True)
class _Reading:
    """What the service derives from the database, read at once (queries: not on the event loop)."""

    lexicon: ArticleLexicon  # lexicon_data(): the acts and articles the answer language compiles
    citable: streaming.CitableNames
    find: Callable[[str], Sequence[FoundCitation]]

    @classmethod
    def of(cls, database: Database, cache_dir: Path | None = None) -> _Reading:
        """With `cache_dir`, the names and the finder's pattern are read through the caches kept there
        (`verifier.build_lexicon`, `grammars.CitationFinder`): the statute book's take 4-5 s CPU to read
        and compile, under 1 s from the caches while the database is unchanged."""
        known, data = read_lexicon(database, cache_dir)  # one reading: an import may commit meanwhile
        finder = CitationFinder(CitationParser.for_lexicon(finding_lexicon(known)), cache_dir)
        return cls(data, citable_names(known), finder.find)


class DatabaseViews:
    """The one owner of what the service derives from the database, all refreshed by `reload`
    (`POST /admin/reload`, after an import or a `citegen-admin sync`):

        the verifier's caches   verdicts, act names, versions, coverage (`Verifier.clear_cache`)
        lexicon                 lexicon_data(): the acts and articles the answer language is compiled from
        citable()               the names a request may narrow its acts to (names, 약칭, informal), each
                                mapped to the name the language cites it by
        find()                  the prose screen's finder: grammars' act names and the database's

    The lexicon and the narrowable names follow the answer language: they change when it has been
    compiled over the database's new lexicon (or the lexicon did not move), since a request narrowed
    to an act the language cannot write could not be answered. The caches and the screen follow the
    database at once: a screen that knows a new act withholds its citations written as prose,
    whatever the language can write. Streaming asks `citable()` on each request and `find` on each
    screened answer, so what a reload takes holds from the next request; those running keep theirs."""

    def __init__(self, database: Database, verifier: Verifier, cache_dir: Path | None = None) -> None:
        self.database = database
        self.verifier = verifier
        self.cache_dir = cache_dir  # where the readings are cached (`_Reading.of`); None: read each time
        self._language = self._screen = _Reading.of(database, cache_dir)
        self._reloading = asyncio.Lock()  # one reload at a time: each compares with what the last one took

    @property
    def lexicon(self) -> ArticleLexicon:
        return self._language.lexicon

    def citable(self) -> streaming.CitableNames:
        return self._language.citable

    def find(self, text: str) -> Sequence[FoundCitation]:
        return self._screen.find(text)

    async def reload(self, use_lexicon: Callable[[ArticleLexicon], Awaitable[bool]] | None) -> dict[str, Any]:
        """Forget the verifier's cached verdicts and lookups and read the database anew (on a worker
        thread), so decisions and versions written since are verified at once and the screen knows
        every act; and if the lexicon moved from the one the answer language was compiled from (acts
        or articles added or gone), compile the language anew off the event loop (`use_lexicon`).
        `restart_needed`: the language is behind and the source cannot recompile it (vLLM)."""
        def refresh() -> _Reading:
            self.verifier.clear_cache()
            return _Reading.of(self.database, self.cache_dir)

        async with self._reloading:
            fresh = await asyncio.to_thread(refresh)
            self._screen = fresh
            before, current = _label_sets(self.lexicon), _label_sets(fresh.lexicon)
            added = sorted(set(current) - set(before))
            removed = sorted(set(before) - set(current))
            changed = sorted(name for name in set(current) & set(before) if current[name] != before[name])
            moved = bool(added or removed or changed)
            recompiled = moved and use_lexicon is not None and await use_lexicon(fresh.lexicon)
            if recompiled or not moved:
                self._language = fresh
        logger.info("reloaded: caches cleared; %d names added, %d removed, %d with other articles; language %s",
                    len(added), len(removed), len(changed), "recompiled" if recompiled else "unchanged")
        return {"caches_cleared": True, "names_added": added[:100], "names_removed": removed[:100],
                "articles_changed": changed[:100], "language_recompiled": recompiled,
                "restart_needed": moved and not recompiled}


class DatabaseAdmin:
    """Audit log and counts for the admin endpoints (verifier.admin's queries, on worker threads),
    the database's readiness probe, and `reload` (`DatabaseViews.reload`, recompiling the answer
    language with `use_lexicon` where the source can: `EngineSource.use_lexicon`)."""

    name = "database"

    def __init__(self, views: DatabaseViews,
                 use_lexicon: Callable[[ArticleLexicon], Awaitable[bool]] | None = None) -> None:
        self.views = views
        self.database = views.database
        self.verifier = views.verifier
        self.use_lexicon = use_lexicon

    async def reload(self) -> Mapping[str, Any]:
        return await self.views.reload(self.use_lexicon)

    async def audit(self, limit: int, status: str | None) -> Sequence[Mapping[str, Any]]:
        def read() -> list[dict[str, Any]]:
            self.verifier.flush_audit()  # the log is batched: show what this process verified too
            return admin_queries.audit_entries(self.database, limit, status)

        return [{**entry, "at": entry["at"].isoformat()} for entry in await asyncio.to_thread(read)]

    async def stats(self) -> Mapping[str, Any]:
        counts = await asyncio.to_thread(admin_queries.row_counts, self.database)
        return {"database": self.database.url, **counts}

    async def ready(self) -> bool:
        """The database answers and holds the current schema (a lost SQLite file would be empty)."""
        return await asyncio.to_thread(self.database.revision) == head_revision()

    def audit_gauges(self) -> Gauges:
        """The audit log's health for /metrics: rows waiting to be written, rows lost (must stay 0)."""
        return {
            "citegen_audit_rows_pending": ("Audit rows buffered, not yet written.",
                                           lambda: self.verifier.audit_rows_pending),
            "citegen_audit_rows_lost": ("Audit rows dropped since start (must stay 0).",
                                        lambda: self.verifier.audit_rows_lost),
        }


def _label_sets(lexicon: ArticleLexicon) -> dict[str, set[str] | None]:
    return {name: None if labels is None else set(labels) for name, labels in lexicon.items()}


def anchors_for(lexicon: ArticleLexicon) -> AnchorPrefixes:
    """For a generation source that does not mark tentative prose (citegen's engine and its vLLM
    front end do: `citegen.events`): prefixes of the anchors the engine opens citations on, for the
    segment machine to hold back."""
    # Heads that only forbid (forbid_shorthand) never complete, so holding their prefixes back
    # (`「…`, a year) would only delay prose: the citations' own anchors are the same either way.
    return AnchorPrefixes.of(answer_grammar_for(lexicon, forbid_shorthand=False))


def favour_latency() -> None:
    """Shorten the interpreter's thread switch interval (5 ms by default) for the serving process:
    the event loop and the engine's decode thread share the GIL, and every handoff a held citation
    waits on could otherwise cost up to the full interval."""
    sys.setswitchinterval(0.0005)


def database_verifier(verifier: Verifier) -> DatabaseVerifier:
    return DatabaseVerifier(verifier)


def service_app(config: streaming.StreamingSettings, source: streaming.GenerationSource,
                views: DatabaseViews) -> tuple[FastAPI, DatabaseVerifier]:
    """The app `citegen serve` runs: `source` and the verifier of `views` (lookups on worker
    threads), the admin endpoints (a reload recompiles the language where the source can: the
    built-in engine; vLLM needs a restart), and the narrowable names and the prose screen that
    follow reloads. Returns the app and the verifier adapter, to close after the app."""
    use_lexicon = source.use_lexicon if isinstance(source, EngineSource) else None
    admin = DatabaseAdmin(views, use_lexicon)
    verifier = database_verifier(views.verifier)
    app = streaming.create_app(config, source, verifier, admin=admin, probes=[admin],  # both sources mark
                               citable=views.citable, screen=views.find,  # tentative prose: no anchors
                               gauges=admin.audit_gauges())
    return app, verifier
