"""`POST /admin/reload`: after an import (or `citegen-admin sync`) into the database a running
service reads, the verifier sees the new rows without a restart, and an engine whose answer
language the database's lexicon has moved away from compiles it anew (the tiny model of
tests/engine/tiny_lm.py)."""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from pathlib import Path

import httpx
from streaming_kit import ScriptedSource, filled_sqlite

from citegen.commands.serve_wiring import DatabaseAdmin, EngineSource, constraint_library, database_verifier
from citegen.engine import Engine
from grammars import StatuteCitation, parse_citation
from streaming import create_app
from streaming.config import StreamingSettings
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lexicon import lexicon_data
from verifier.verify import Verifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))  # the engine tests' tiny model
from tiny_lm import build_tiny

ACT = {"type": "act", "law_id": "001706", "name": "민법", "kind": "법률", "articles": [{"article": "750"}]}
CASE_COVERAGE = {"type": "coverage", "kind": "case", "court": "대법원", "from": "1950-01-01", "to": "2030-12-31"}
DECISION = parse_citation("대법원 2024. 2. 8. 선고 2023다302036 판결")


def _import(folder: Path, name: str, records: list[dict[str, object]], database: Database) -> None:
    path = folder / name
    path.write_text("\n".join(json.dumps(record, ensure_ascii=False) for record in records), encoding="utf-8")
    import_paths(database, [path])


def test_reload_lets_the_running_verifier_see_new_rows_and_says_when_a_language_it_cannot_recompile_is_behind(
        serve, tmp_path: Path) -> None:
    database = filled_sqlite(tmp_path, [ACT, {"type": "coverage", "kind": "statute"}, CASE_COVERAGE])
    checker = Verifier(database)
    admin = DatabaseAdmin(database, checker, lexicon_data(database))
    base = serve(create_app(StreamingSettings(admin_api_key="k"), ScriptedSource(), database_verifier(checker),
                            admin=admin, probes=[admin]))
    assert checker.verify(DECISION).status == "not_found"
    _import(tmp_path, "decision.jsonl", [{"type": "case", "court": "대법원", "date": "2024-02-08",
                                         "case_number": "2023다302036", "disposition": "판결"}], database)
    assert checker.verify(DECISION).status == "not_found"  # the cached verdict, until reload
    assert httpx.post(f"{base}/admin/reload").status_code == 401
    reloaded = httpx.post(f"{base}/admin/reload", headers={"x-api-key": "k"}).json()
    assert reloaded == {"caches_cleared": True, "names_added": [], "names_removed": [], "articles_changed": [],
                        "language_recompiled": False, "restart_needed": False}
    assert checker.verify(DECISION).status == "verified"

    _import(tmp_path, "act.jsonl", [{**ACT, "articles": [{"article": "750"}, {"article": "751"}]},
                                    {"type": "act", "law_id": "001872", "name": "근로기준법", "kind": "법률",
                                     "articles": [{"article": "23"}]}], database)
    reloaded = httpx.post(f"{base}/admin/reload", headers={"x-api-key": "k"}).json()
    assert (reloaded["names_added"], reloaded["articles_changed"], reloaded["restart_needed"]) == (
        ["근로기준법"], ["민법"], True)
    assert checker.verify(StatuteCitation("근로기준법", 23)).status == "verified"
    checker.close()
    database.close()


def test_reload_recompiles_the_engines_answer_language_when_the_lexicon_moved(tmp_path: Path) -> None:
    tiny = build_tiny()
    database = filled_sqlite(tmp_path, [ACT, {"type": "coverage", "kind": "statute"}])
    lexicon = lexicon_data(database)
    relanguage = functools.partial(constraint_library, tiny)
    source = EngineSource(Engine(tiny, relanguage(lexicon), max_batch=2), relanguage)
    checker = Verifier(database)
    admin = DatabaseAdmin(database, checker, lexicon, source.use_lexicon)
    try:
        before = source.engine.constraints
        assert before is not None and before.get().parse("근로기준법 제23조") is None
        unchanged = asyncio.run(admin.reload())
        assert (unchanged["language_recompiled"], source.engine.constraints) == (False, before)
        _import(tmp_path, "act.jsonl", [{"type": "act", "law_id": "001872", "name": "근로기준법", "kind": "법률",
                                         "articles": [{"article": "23"}]}], database)
        reloaded = asyncio.run(admin.reload())
        assert (reloaded["names_added"], reloaded["language_recompiled"], reloaded["restart_needed"]) == (
            ["근로기준법"], True, False)
        after = source.engine.constraints
        assert after is not before and after is not None
        assert after.get().parse("근로기준법 제23조") == StatuteCitation("근로기준법", 23)
        assert asyncio.run(admin.reload())["language_recompiled"] is False  # compiled once per change
    finally:
        source.close()
        checker.close()
        database.close()
