"""The answer service's parts: the engine and the verifier adapted to streaming's two protocols,
the database's readiness and admin data. Part of the composition root: the one place where the
engine, the verifier and streaming meet."""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import desc, func, select

import streaming
from citegen import events as engine_events
from citegen.constraint import (
    CitationLanguage,
    ConstraintLibrary,
    Narrowing,
    compile_language,
    narrowed_answer_grammar,
)
from citegen.engine import Engine, Request
from citegen.errors import RequestError
from citegen.models import LoadedModel
from citegen.sampling import SamplingParams
from grammars import COURTS_BY_NAME, CitationParser, Lexicon, ParsedCitation
from grammars.grammar import AnswerGrammar
from streaming.anchors import AnchorPrefixes
from verifier.database import Database, head_revision
from verifier.importers.store import ACTS, ARTICLES, CASES
from verifier.verify import AUDIT, Verifier

logger = logging.getLogger(__name__)

ArticleLexicon = Mapping[str, Iterable[str] | None]  # the verifier's lexicon_data()


ALL = Narrowing()  # the whole answer language: every court, every act of the lexicon


def answer_grammar_for(
    lexicon: ArticleLexicon, narrowing: Narrowing = ALL, *, forbid_shorthand: bool = True
) -> AnswerGrammar:
    """The answer language the service constrains with; `forbid_shorthand` (Settings.forbid_shorthand)
    makes every head written otherwise than canonically unwritable (`형법제355조`, `대판 2…`, a bare
    `2024도4202`), not only free text."""
    return narrowed_answer_grammar(lexicon, narrowing, forbid_shorthand=forbid_shorthand)


def answer_language(
    loaded: LoadedModel,
    lexicon: ArticleLexicon,
    parser: CitationParser,
    narrowing: Narrowing,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> CitationLanguage:
    """The whole-answer language over the model's vocabulary: free text, citations of the
    database's acts (and of every court), parsed with the database's names. With `cache_dir` the
    index is built whole once and loaded from disk afterwards, so serving never pays for a state
    computed on first visit."""
    grammar = answer_grammar_for(lexicon, narrowing, forbid_shorthand=forbid_shorthand)
    return compile_language(grammar, loaded.vocabulary, parser.parse, cache_dir=cache_dir)


def build_engine(
    loaded: LoadedModel,
    lexicon: ArticleLexicon,
    max_batch: int,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> Engine:
    parser = CitationParser.for_lexicon(dict(lexicon))
    language = functools.partial(
        answer_language, loaded, lexicon, parser, forbid_shorthand=forbid_shorthand, cache_dir=cache_dir
    )
    return Engine(loaded, ConstraintLibrary(language, loaded.vocab_size), max_batch=max_batch)


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


def citable_names(lexicon: Lexicon | None) -> streaming.CitableNames:
    """What a request may narrow its citations to: grammars' courts, and every name the database
    gives an act (its own, an official 약칭, an informal abbreviation), each mapped to the name the
    answer language cites it by. `lexicon` is the verifier's build_lexicon() of the database whose
    lexicon_data() the language was built from (None: a database without acts)."""
    acts = {} if lexicon is None else {
        name: lexicon.canonical_name(name) for name in (*lexicon.acts, *lexicon.aliases, *lexicon.informal)
    }
    return streaming.CitableNames({court: court for court in COURTS_BY_NAME}, acts)


class EngineSource:
    """`streaming.GenerationSource` over the continuous-batching engine, whose loop runs on its own
    thread: every request joins the running batch. Closing the stream cancels the request."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=engine.run_forever, args=(self._stop,), name="engine", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self.engine.wake()
        self._thread.join(timeout=10)

    async def generate(self, request: streaming.GenerationRequest) -> AsyncIterator[streaming.SourceEvent]:
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[engine_events.Event] = asyncio.Queue()
        try:
            submitted = engine_request(request)  # SamplingParamsError: parameters that cannot be sampled
            constraints = self.engine.constraints
            # a new narrowing compiles its language (seconds over a large vocabulary): not on the loop;
            # the constraint goes to submit, so an eviction in between cannot make it compile here
            constraint = (
                await constraints.get_async(submitted.narrowing)
                if submitted.constrain and constraints is not None
                else None
            )
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
        try:
            loop.call_soon_threadsafe(put, event)
        except RuntimeError:  # the server's loop has closed: nobody is listening any more
            pass

    return sink


class DatabaseVerifier:
    """`streaming.Verifier` over the verifier's verify(); the verdict crosses field by field.

    A held citation waits for its lookup, and on a busy machine a hop to a thread and back costs
    milliseconds (the engine's decode thread holds the GIL most of the time). So a citation seen
    before (in the verifier's cache) is answered on the event loop, and so is every citation when
    `inline` (an SQLite file: a lookup is a fraction of a millisecond); otherwise a new citation is
    looked up on a small thread pool, as a database across the network needs."""

    def __init__(
        self, verifier: Verifier, *, inline: bool, threads: int = 4, remembered: int = 100_000
    ) -> None:
        self.verifier = verifier
        self._inline = inline
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="verify")
        self._seen: OrderedDict[ParsedCitation, None] = OrderedDict()
        self._remembered = remembered

    async def verify(self, citation: ParsedCitation) -> streaming.Verdict:
        if self._inline or citation in self._seen:
            found = self.verifier.verify(citation)
        else:
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(self._pool, self.verifier.verify, citation)
            self._seen[citation] = None
            if len(self._seen) > self._remembered:
                self._seen.popitem(last=False)
        return streaming.Verdict(found.status, found.canonical, found.source, found.detail)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.verifier.close()


class DatabaseAdmin:
    """Audit log and counts for the admin endpoints, and the database's readiness probe."""

    name = "database"

    def __init__(self, database: Database, verifier: Verifier) -> None:
        self.database = database
        self.verifier = verifier

    def _read(self, query: Callable[[Any], Any]) -> Any:
        with self.database.engine.connect() as connection:
            return query(connection)

    async def audit(self, limit: int, status: str | None) -> Sequence[Mapping[str, Any]]:
        self.verifier.flush_audit()  # the log is batched: show what this process verified too
        query = (
            select(
                AUDIT.c.at,
                AUDIT.c.status,
                AUDIT.c.citation,
                AUDIT.c.canonical,
                AUDIT.c.source_ref,
                AUDIT.c.reason,
            )
            .order_by(desc(AUDIT.c.id))
            .limit(limit)
        )
        if status is not None:
            query = query.where(AUDIT.c.status == status)
        rows = await asyncio.to_thread(self._read, lambda connection: connection.execute(query).all())
        return [{**row._asdict(), "at": row.at.isoformat()} for row in rows]

    async def stats(self) -> Mapping[str, Any]:
        def count(connection: Any) -> dict[str, int]:
            return {
                name: connection.execute(select(func.count()).select_from(table)).scalar_one()
                for name, table in (
                    ("acts", ACTS),
                    ("articles", ARTICLES),
                    ("cases", CASES),
                    ("audit", AUDIT),
                )
            }

        return {"database": self.database.url, **await asyncio.to_thread(self._read, count)}

    async def ready(self) -> bool:
        """The database answers and holds the current schema (a lost SQLite file would be empty)."""
        return await asyncio.to_thread(self.database.revision) == head_revision()


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
    return DatabaseVerifier(verifier, inline=verifier.database.dialect == "sqlite")
