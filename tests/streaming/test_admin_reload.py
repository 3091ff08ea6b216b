"""`POST /admin/reload`: after an import (or `citegen-admin sync`) into the database a running
service reads, everything the service derives from the database follows it without a restart
(`DatabaseViews`): the verifier's caches, the prose screen's names, and, when the engine compiles
its answer language anew over the moved lexicon (the tiny model of tests/engine/tiny_lm.py), the
names a request may narrow its acts to. The old language's idle compile thread goes with it."""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import sys
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from streaming_kit import ScriptedSource, citation, filled_sqlite, sse_events

from citegen.commands.backends import engine_source
from citegen.commands.serve_wiring import (
    DatabaseAdmin,
    DatabaseViews,
    EngineSource,
    service_app,
)
from citegen.commands.settings import Settings
from citegen.constraint import ConstraintLibrary, Narrowing
from citegen.engine import Engine
from citegen.narrowings import constraint_library
from grammars import COURTS, StatuteCitation, parse_citation
from streaming.config import StreamingSettings
from streaming.protocols import Finished, GenerationRequest, ProseDelta, SourceEvent, Usage
from streaming.protocols import Message as ChatTurn
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lexicon import lexicon_data
from verifier.verify import Verifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))  # the engine tests' tiny model
from tiny_lm import build_tiny

ACT = {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률", "articles": [{"article": "750"}]}
STATUTES = {"type": "coverage", "kind": "statute"}
CASE_COVERAGE = {"type": "coverage", "kind": "case", "court": "대법원", "from": "1950-01-01", "to": "2030-12-31"}
DECISION = parse_citation("대법원 2024. 2. 8. 선고 2023다302036 판결")
NEW_ACT = {"type": "act", "law_id": "900001", "name": "시험용특별법", "kind": "법률", "articles": [{"article": "3"}]}
NEW_ALIAS = {"type": "alias", "alias": "시험특례", "act": "시험용특별법", "official": True}  # no 법 for a finder to see
KEY = {"x-api-key": "k"}
PROSE = "이고, 시험특례 제3조도 본다."  # the new act's 약칭 written as prose, outside the citation automaton


def _import(folder: Path, name: str, records: list[dict[str, object]], database: Database) -> None:
    path = folder / name
    path.write_text("\n".join(json.dumps(record, ensure_ascii=False) for record in records), encoding="utf-8")
    import_paths(database, [path])


def _answer(base: str, body: dict[str, object]) -> httpx.Response | list[tuple[str, dict]]:
    """The answer's events, or the response when it was refused before a stream started."""
    with httpx.stream("POST", f"{base}/v1/answers", json=body, timeout=60) as response:
        if response.status_code != 200:
            response.read()
            return response
        return list(sse_events(response))


@pytest.mark.parametrize("cached", [False, True], ids=["read-each-time", "read-through-cache"])
def test_reload_lets_the_running_verifier_see_new_rows_and_says_when_a_language_it_cannot_recompile_is_behind(
        serve, tmp_path: Path, cached: bool) -> None:
    database = filled_sqlite(tmp_path, [ACT, STATUTES, CASE_COVERAGE])
    checker = Verifier(database)
    cache_dir = tmp_path / "cache" if cached else None  # as `citegen serve` reads: the index cache folder
    views = DatabaseViews(database, checker, cache_dir)
    app, verifier = service_app(StreamingSettings(admin_api_key="k"), ScriptedSource(), views)
    base = serve(app)
    try:
        assert checker.verify(DECISION).status == "not_found"
        _import(tmp_path, "decision.jsonl", [{"type": "case", "court": "대법원", "date": "2024-02-08",
                                             "case_number": "2023다302036", "disposition": "판결"}], database)
        assert checker.verify(DECISION).status == "not_found"  # the cached verdict, until reload
        assert httpx.post(f"{base}/admin/reload").status_code == 401
        reloaded = httpx.post(f"{base}/admin/reload", headers=KEY).json()
        assert reloaded == {"caches_cleared": True, "names_added": [], "names_removed": [], "articles_changed": [],
                            "language_recompiled": False, "restart_needed": False}
        assert checker.verify(DECISION).status == "verified"

        _import(tmp_path, "act.jsonl", [{**ACT, "articles": [{"article": "750"}, {"article": "751"}]},
                                        {"type": "act", "law_id": "001872", "name": "근로기준법", "kind": "법률",
                                         "articles": [{"article": "23"}]}], database)
        reloaded = httpx.post(f"{base}/admin/reload", headers=KEY).json()
        assert (reloaded["names_added"], reloaded["articles_changed"], reloaded["restart_needed"]) == (
            ["근로기준법"], ["민법"], True)
        assert checker.verify(StatuteCitation("근로기준법", 23)).status == "verified"
        # a source that cannot recompile cannot write the new act: a request may not narrow to it yet
        refused = _answer(base, {"question": "해고의 요건은?", "acts": ["근로기준법"]})
        assert isinstance(refused, httpx.Response) and refused.status_code == 422
        assert "근로기준법" in refused.text
        if cache_dir is not None:  # the screen and the names were read through the cache, its file kept
            assert [path.name.split("-")[0] for path in sorted(cache_dir.glob("lexicon-*"))] == ["lexicon"]
            assert "근로기준법" in DatabaseViews(database, checker, cache_dir).lexicon
    finally:
        verifier.close()
        database.close()


def _compile_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith("citegen-compile")]


def test_reload_recompiles_the_engines_answer_language_and_the_old_ones_idle_thread_ends(tmp_path: Path) -> None:
    tiny = build_tiny()
    database = filled_sqlite(tmp_path, [ACT, STATUTES])
    lexicon = lexicon_data(database)
    relanguage = functools.partial(constraint_library, tiny.vocabulary, tiny.vocab_size)
    source = EngineSource(Engine(tiny, relanguage(lexicon), max_batch=2), relanguage)
    checker = Verifier(database)
    admin = DatabaseAdmin(DatabaseViews(database, checker), source.use_lexicon)
    try:
        before = source.engine.constraints
        assert before is not None and before.get().parse("근로기준법 제23조") is None
        unchanged = asyncio.run(admin.reload())
        assert (unchanged["language_recompiled"], source.engine.constraints) == (False, before)
        running = set(_compile_threads())
        asyncio.run(before.get_async(Narrowing(acts=("민법",))))  # a narrowing compiles on the library's thread
        [old_thread] = set(_compile_threads()) - running
        _import(tmp_path, "act.jsonl", [{"type": "act", "law_id": "001872", "name": "근로기준법", "kind": "법률",
                                         "articles": [{"article": "23"}]}], database)
        reloaded = asyncio.run(admin.reload())
        assert (reloaded["names_added"], reloaded["language_recompiled"], reloaded["restart_needed"]) == (
            ["근로기준법"], True, False)
        after = source.engine.constraints
        assert after is not before and after is not None
        assert after.get().parse("근로기준법 제23조") == StatuteCitation("근로기준법", 23)
        assert asyncio.run(admin.reload())["language_recompiled"] is False  # compiled once per change
        del before  # what the engine no longer holds: the old library, and with it its idle compile thread
        old_thread.join(timeout=10)
        assert not old_thread.is_alive()
    finally:
        source.close()
        checker.close()
        database.close()


class ScriptedEngineSource(EngineSource):
    """The built-in engine's source with its own `prepare` and `use_lexicon` (the tiny model's
    answer language, compiled anew on reload and narrowed per request), whose answers replay a
    script: an untrained model cannot be made to write a given citation. The script reads the
    narrowed constraint `prepare` compiled, to see that the engine would have allowed it."""

    def __init__(self, engine: Engine, relanguage: Callable[..., ConstraintLibrary],
                 script: Callable[[GenerationRequest], list[SourceEvent]]) -> None:
        super().__init__(engine, relanguage)
        self.script = script

    async def generate(self, request: GenerationRequest) -> AsyncIterator[SourceEvent]:
        for event in self.script(request):
            yield event


def test_after_a_reload_a_request_narrowed_to_a_new_act_gets_its_citation_verified_and_the_screen_knows_it(
        serve, tmp_path: Path) -> None:
    database = filled_sqlite(tmp_path, [ACT, STATUTES])
    cited = StatuteCitation("시험용특별법", 3)
    narrowed: list[object] = []

    def script(request: GenerationRequest) -> list[SourceEvent]:
        library = source.engine.constraints
        assert library is not None
        narrowed.append(library.get(Narrowing(request.courts, request.acts)).parse("시험용특별법 제3조"))
        return [ProseDelta("근거는 "), *citation("시험용특별법 제3조", cited), ProseDelta(PROSE), Finished(Usage(3, 9))]

    tiny = build_tiny()
    relanguage = functools.partial(constraint_library, tiny.vocabulary, tiny.vocab_size)
    views = DatabaseViews(database, Verifier(database))
    source = ScriptedEngineSource(Engine(tiny, relanguage(views.lexicon), max_batch=2), relanguage, script)
    app, verifier = service_app(StreamingSettings(admin_api_key="k"), source, views)
    base = serve(app)
    try:
        narrowing = {"question": "특례의 근거는?", "policy": "strict", "acts": ["시험특례"]}
        refused = _answer(base, narrowing)
        assert isinstance(refused, httpx.Response) and refused.status_code == 422 and "시험특례" in refused.text
        assert not views.find(PROSE)  # the 약칭 means nothing to the screen yet

        _import(tmp_path, "new-act.jsonl", [NEW_ACT, NEW_ALIAS], database)
        reloaded = httpx.post(f"{base}/admin/reload", headers=KEY).json()
        assert (reloaded["names_added"], reloaded["language_recompiled"]) == (["시험용특별법", "시험특례"], True)
        assert [PROSE[found.span[0]:found.span[1]] for found in views.find(PROSE)] == ["시험특례 제3조"]

        events = _answer(base, narrowing)  # the 약칭 is taken, and narrows to the act it names
        assert isinstance(events, list) and narrowed == [cited]  # the engine's narrowed language writes it
        citations = [data for name, data in events if name == "citation"]
        assert [(c["text"], c["status"], c["withheld"]) for c in citations] == [
            ("시험용특별법 제3조", "verified", False),
            ("[확인되지 않은 인용 생략]", "unanchored", True),  # written as prose: the screen holds it back
        ]
        assert "시험특례 제3조" not in "".join(data["text"] for name, data in events if name in ("prose", "citation"))
    finally:
        source.close()
        verifier.close()
        database.close()


def _collected(thing: object) -> bool:
    """Whether the cyclic collector's passes walk `thing` (a frozen object is in none of its generations)."""
    return any(tracked is thing for tracked in gc.get_objects())


def test_the_builtin_source_has_its_language_ready_before_any_request_and_it_and_its_model_out_of_collections(
        tmp_path: Path) -> None:
    database = filled_sqlite(tmp_path, [ACT, STATUTES])
    frozen = gc.get_freeze_count()
    source = engine_source(build_tiny(), Settings(index_cache_dir=tmp_path / "index"), lexicon_data(database))
    try:
        assert len(list((tmp_path / "index").glob("index-*.arrays"))) == 1  # compiled and stored at start
        assert gc.get_freeze_count() > frozen  # the model and its tokenizer: left out of the collector's passes
        library = source.engine.constraints
        assert library is not None and not _collected(library)  # and the language compiled at start
        _import(tmp_path, "new-act.jsonl", [NEW_ACT, NEW_ALIAS], database)
        assert asyncio.run(source.use_lexicon(lexicon_data(database)))  # what POST /admin/reload does
        reloaded = source.engine.constraints
        assert reloaded is not library and not _collected(reloaded)
    finally:
        source.close()
        gc.unfreeze()
        database.close()


CRIMINAL = {"type": "act", "law_id": "001692", "name": "형법", "kind": "법률", "articles": [{"article": "347"}]}


def _generated(source: EngineSource, request: GenerationRequest) -> list[SourceEvent]:
    async def drain() -> list[SourceEvent]:
        return [event async for event in source.generate(request)]

    return asyncio.run(drain())


def test_a_request_prepared_before_a_reload_generates_under_the_narrowing_it_was_prepared_with(
        tmp_path: Path, caplog) -> None:
    """Between `prepare` (its narrowing compiled, the names checked) and `generate` (once it has a slot) the
    database renames the act it narrows to and an admin reloads: it still generates, under what it was
    prepared with, rather than raising KeyError on the name the new library lacks. And a narrowing evicted
    from the library's cache meanwhile is not compiled again while the request holds its slot."""
    tiny = build_tiny()
    database = filled_sqlite(tmp_path, [ACT, CRIMINAL, STATUTES])
    relanguage = functools.partial(constraint_library, tiny.vocabulary, tiny.vocab_size)
    views = DatabaseViews(database, Verifier(database))
    source = EngineSource(Engine(tiny, relanguage(views.lexicon), max_batch=2), relanguage)
    admin = DatabaseAdmin(views, source.use_lexicon)
    narrowed = GenerationRequest("r1", (ChatTurn("user", "근거는?"),), 8, 0.0, 1.0, 0, (), None, ("형법",))
    evicted = GenerationRequest("r2", (ChatTurn("user", "근거는?"),), 8, 0.0, 1.0, 0, (), None, ("민법",))
    try:
        prepared = asyncio.run(source.prepare(narrowed))
        waiting = asyncio.run(source.prepare(evicted))
        library = source.engine.constraints
        assert library is not None
        for court in COURTS[:16]:  # 16 other narrowings: the library keeps the last 16
            library.get(Narrowing(courts=(court.name,)))
        assert not library.is_cached(Narrowing(acts=("민법",)))
        with caplog.at_level(logging.INFO, logger="citegen.constraint"):
            assert isinstance(_generated(source, waiting)[-1], Finished)
        assert "compiled a constraint" not in caplog.text  # it generated under the constraint it was prepared with

        _import(tmp_path, "rename.jsonl", [{**CRIMINAL, "name": "형사법"}], database)
        reloaded = asyncio.run(admin.reload())
        assert (reloaded["names_removed"], reloaded["language_recompiled"]) == (["형법"], True)
        assert isinstance(_generated(source, prepared)[-1], Finished)
    finally:
        source.close()
        views.verifier.close()
        database.close()
