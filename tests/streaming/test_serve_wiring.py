"""The composition root's adapters against the real verifier: verdicts cross field by field and
admin data come from an SQLite file; PostgreSQL going away mid-stream withholds the citations
still to be verified."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from sqlalchemy import event
from streaming_kit import (
    MINBEOP_750,
    MINBEOP_9999,
    Gate,
    ScriptedSource,
    answer,
    citation,
    filled_sqlite,
    sse_events,
)

from citegen.commands.serve_wiring import (
    DatabaseAdmin,
    DatabaseViews,
    anchors_for,
    citable_names,
    database_verifier,
)
from grammars import StatuteCitation, as_lexicon
from streaming import create_app
from streaming.config import StreamingSettings
from streaming.protocols import Finished, ProseDelta, Usage
from streaming.segments import CitationReleased
from streaming.service import citation_fields
from tests.postgres_kit import postgres_database_with
from verifier.database import Database
from verifier.lexicon import lexicon_data
from verifier.verify import Verifier

RECORDS = [
    {
        "type": "act",
        "law_id": "001706",
        "name": "민법",
        "kind": "법률",
        "articles": [{"article": "750"}, {"article": "751"}],
    },
    {"type": "coverage", "kind": "statute"},
]
MINBEOP_751 = StatuteCitation("민법", 751)


@pytest.fixture
def database(tmp_path: Path):
    database = filled_sqlite(tmp_path, RECORDS)
    yield database
    database.close()


def test_verdicts_of_the_real_verifier_reach_the_client(serve, database: Database) -> None:
    checker = Verifier(database)
    admin = DatabaseAdmin(DatabaseViews(database, checker))
    app = create_app(
        StreamingSettings(admin_api_key="k"),
        ScriptedSource(),
        database_verifier(checker),
        admin=admin,
        probes=[admin],
        anchors=anchors_for(lexicon_data(database)),
    )
    base = serve(app)
    citations = [data for name, data in answer(base) if name == "citation"]
    assert [(c["text"], c["status"]) for c in citations] == [
        ("민법 제750조", "verified"),
        ("[확인되지 않은 인용 생략]", "not_found"),
    ]
    assert "001706" in citations[0]["source"]
    audit = httpx.get(f"{base}/admin/audit", headers={"x-api-key": "k"}).json()["entries"]
    assert sorted(entry["status"] for entry in audit) == ["not_found", "verified"]
    assert httpx.get(f"{base}/admin/stats", headers={"x-api-key": "k"}).json()["acts"] == 1
    assert httpx.get(f"{base}/readyz").json()["checks"]["database"] is True


@pytest.fixture
def postgres_database(tmp_path: Path):
    yield from postgres_database_with(tmp_path, RECORDS, "citegen_stream")


@pytest.mark.postgres
def test_database_lost_mid_stream_withholds_the_rest_in_strict_mode(serve, postgres_database) -> None:
    admin, name, database = postgres_database
    between = Gate()
    script = [
        ProseDelta("첫째 "),
        *citation("민법 750조", MINBEOP_750),
        between,
        ProseDelta(" 둘째 "),
        *citation("민법 751조", MINBEOP_751),
        *citation("민법 제9999조", MINBEOP_9999),
        Finished(Usage(1, 9)),
    ]
    checker = Verifier(database, audit=False)
    admin_data = DatabaseAdmin(DatabaseViews(database, checker))
    base = serve(
        create_app(
            StreamingSettings(),
            ScriptedSource(lambda request: script),
            database_verifier(checker),
            probes=[admin_data],
        )
    )
    with httpx.stream("POST", f"{base}/v1/answers", json={"question": "q"}, timeout=10) as response:
        events = sse_events(response)
        assert next(events)[0] == "prose"
        assert next(events)[1]["status"] == "verified"
        # The server goes away: open connections are cut and new ones refused.
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        between.open()
        rest = list(events)
    citations = [data for name, data in rest if name == "citation"]
    assert [(c["status"], c["withheld"]) for c in citations] == [("unavailable", True)] * 2
    assert all("751" not in data.get("text", "") and "9999" not in data.get("text", "") for _, data in rest)
    assert rest[-1][0] == "done"
    assert httpx.get(f"{base}/readyz").status_code == 503


def test_a_verified_citation_carries_its_provision_as_the_version_checked_has_it(tmp_path: Path) -> None:
    """The real 형법 (a legalize-kr file of the fixture) imported: the verdict that crosses to the
    service carries the article's title, its text in that version and the version's law.go.kr address."""
    import asyncio
    import json
    import tarfile

    from citegen.commands.serve_wiring import DatabaseVerifier
    from verifier import import_paths

    with tarfile.open(Path(__file__).parents[1] / "fixtures" / "legalize-real-history.tar.xz") as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
        commit = next(commit for commit, _, path in manifest if path == "kr/형법/법률.md")
        statute = tmp_path / "kr" / "형법" / "법률.md"
        statute.parent.mkdir(parents=True)
        statute.write_bytes(tar.extractfile(f"versions/{commit}/kr/형법/법률.md").read())  # type: ignore[union-attr]
    database = Database.open(f"sqlite:///{tmp_path / 'book.sqlite3'}")
    import_paths(database, [statute])
    checker = DatabaseVerifier(Verifier(database))
    try:
        verdict = asyncio.run(checker.verify(StatuteCitation("형법", 250, paragraph=1)))
    finally:
        checker.close()
        database.close()
    assert verdict.status == "verified", verdict.detail
    provision = verdict.provision
    assert provision is not None and (provision.act, provision.article) == ("형법", "제250조")
    assert provision.title and "살인" in provision.title
    assert provision.text and "사람을 살해한 자는" in provision.text
    assert provision.address.startswith("https://www.law.go.kr/") and "법률 제" in provision.version
    # and so it goes out in the SSE `citation` event and the chat `citations`
    released = CitationReleased(0, "형법 제250조 제1항", "형법 제250조 제1항", "verified", None, None, None, provision)
    assert citation_fields(released)["provision"]["text"] == provision.text


def test_the_service_reads_its_names_and_its_language_in_one_reading(database: Database) -> None:
    """The names a request may narrow to and the language compiled came from two readings of the
    database, seconds apart: an import committing between them left a service refusing, as unknown, acts
    its language cites. Counted here as the reads of the acts table one reading makes."""
    statements: list[str] = []

    def count(_connection, _cursor, statement: str, *_rest) -> None:
        statements.append(statement)

    event.listen(database.engine, "before_cursor_execute", count)
    try:
        views = DatabaseViews(database, Verifier(database), None)
    finally:
        event.remove(database.engine, "before_cursor_execute", count)
    assert sum("FROM acts ORDER BY acts.name" in statement for statement in statements) == 1
    assert views.lexicon == lexicon_data(database)


def test_a_request_may_narrow_by_the_abbreviations_the_finder_reads_for_the_acts_held() -> None:
    """The real statute book stores no `근기법`: a request narrowed by it was refused (422) though the finder
    reads it; an abbreviation of an act the database lacks stays refused."""
    citable = citable_names(as_lexicon({"근로기준법": ["23"], "형법": ["250"]}))
    assert citable.acts["근기법"] == citable.acts["근로기준법"] == "근로기준법"
    assert "민소법" not in citable.acts and citable.acts["형법"] == "형법"
    assert citable_names(None).acts == {}
