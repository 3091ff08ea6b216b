"""The lexicon export is plain data grammars accepts, with live articles only."""

from __future__ import annotations

import json
import marshal
from collections import defaultdict
from pathlib import Path

import pytest
from small_books import Act, import_acts
from sqlalchemy import event, func, insert, select

from grammars import Lexicon, parse_citation, statute_grammar
from verifier.database import Database
from verifier.importers import import_paths
from verifier.lexicon import build_lexicon, lexicon_data
from verifier.models import ACTS, ALIASES, SPANS, VERSIONS


def test_lexicon_data_lists_live_articles_and_aliases(loaded: Database) -> None:
    data = lexicon_data(loaded)
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data  # plain JSON data
    assert data["민법"] == ["23", "750"]  # 제3조의2 (삭제) and 제5조 (이동) are not citable
    assert data["주택임대차보호법"] is None  # listed only: any article
    assert data["주택임대차법"] is None and data["민소법"] == ["1"]


def test_grammars_accept_the_export(loaded: Database) -> None:
    data = lexicon_data(loaded)
    statute_grammar(lexicon=data)  # raises LexiconError on anything it cannot take
    assert parse_citation("민법 제750조", lexicon=data) is not None
    assert parse_citation("민법 제751조", lexicon=data) is None


def test_built_lexicon_keeps_official_and_informal_names_apart(loaded: Database) -> None:
    lexicon = build_lexicon(loaded)
    assert lexicon.aliases == {"주택임대차법": "주택임대차보호법"}
    assert lexicon.informal == {"민소법": "민사소송법"}
    assert lexicon.canonical_name("민소법") == "민사소송법"


def test_a_database_without_acts_has_no_lexicon(database: Database) -> None:
    assert build_lexicon(database) is None  # grammars' Lexicon needs at least one act
    assert lexicon_data(database) == {}


def test_an_act_in_force_names_its_newest_versions_articles(book: Database) -> None:
    """Over the statute book's history (labels gathered by the database, SQLite and PostgreSQL): an
    act's current name holds every article its newest version keeps, read here span by span, in
    article order; an article deleted in that version is not among them."""
    with book.engine.connect() as connection:
        newest = dict(connection.execute(select(VERSIONS.c.act_id, func.max(VERSIONS.c.sequence))
                                         .group_by(VERSIONS.c.act_id)).all())
        kept: dict[int, set[str]] = defaultdict(set)
        dropped: dict[int, set[str]] = defaultdict(set)
        for act_id, number, branch, last, deleted in connection.execute(
                select(SPANS.c.act_id, SPANS.c.number, SPANS.c.branch, SPANS.c.last, SPANS.c.deleted)):
            if last == newest[act_id]:
                (dropped if deleted else kept)[act_id].add(f"{number}의{branch}" if branch else str(number))
        names = dict(connection.execute(select(ACTS.c.id, ACTS.c.name)).all())
    data = lexicon_data(book)
    alone = [act_id for act_id in kept if list(names.values()).count(names[act_id]) == 1]
    assert alone and any(dropped[act_id] for act_id in alone)
    for act_id in alone:
        held = data[names[act_id]]
        assert set(held) == kept[act_id] and not dropped[act_id] & set(held)
        assert held == sorted(held, key=lambda label: tuple(int(part) for part in label.split("의")))
def _as_data(lexicon: Lexicon | None) -> object:
    return None if lexicon is None else (dict(lexicon.acts), dict(lexicon.aliases), dict(lexicon.informal))


def test_the_cached_lexicon_is_always_the_databases_as_it_is_now(database: Database, sample_dir: Path,
                                                                 tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    import_paths(database, [sample_dir / "law" / "list.json"])
    listed = build_lexicon(database, cache)
    assert _as_data(listed) == _as_data(build_lexicon(database))
    assert _as_data(build_lexicon(database, cache)) == _as_data(listed)  # read back (SQLite) or again (PostgreSQL)
    assert bool(list(cache.glob("lexicon-*"))) == (database.dialect == "sqlite")  # no cheap sign of change on PG

    import_paths(database, [sample_dir / "law" / "minbeop.xml", sample_dir / "law" / "extra.jsonl"])  # a commit
    grown = build_lexicon(database, cache)
    assert _as_data(grown) == _as_data(build_lexicon(database)) != _as_data(listed)
    assert grown is not None and grown.acts["민법"] == frozenset({"23", "750"})
    assert len(list(cache.glob("lexicon-*"))) == (database.dialect == "sqlite")  # the superseded file removed
    assert lexicon_data(database, cache) == lexicon_data(database)  # `citegen ask` reads it through the cache


def test_an_unreadable_lexicon_cache_file_is_read_from_the_database_again(loaded: Database, tmp_path: Path) -> None:
    if loaded.fingerprint() is None:
        pytest.skip("PostgreSQL: no cache to spoil")
    build_lexicon(loaded, tmp_path)
    (stored,) = tmp_path.glob("lexicon-*")
    stored.write_bytes(b"\x00 not marshal")
    assert _as_data(build_lexicon(loaded, tmp_path)) == _as_data(build_lexicon(loaded))
    assert stored.read_bytes() != b"\x00 not marshal"  # stored anew


def test_a_lexicon_cache_file_that_is_not_what_was_checked_is_read_from_the_database_again(
        loaded: Database, tmp_path: Path) -> None:
    """A stored lexicon is rebuilt without its checks: only bytes matching the digest stored before them are."""
    if loaded.fingerprint() is None:
        pytest.skip("PostgreSQL: no cache to spoil")
    build_lexicon(loaded, tmp_path)
    (stored,) = tmp_path.glob("lexicon-*")
    sealed = stored.read_bytes()
    acts, aliases, digest = marshal.loads(sealed[32:])
    spoiled = sealed[:32] + marshal.dumps(({"민법\n": ["0"], **acts}, aliases, digest))  # unchecked, loads fine
    stored.write_bytes(spoiled)
    assert _as_data(build_lexicon(loaded, tmp_path)) == _as_data(build_lexicon(loaded))
    assert stored.read_bytes() == sealed  # stored anew


BROADCASTING = "방송통신위원회의 설치 및 운영에 관한 법률"


def test_a_repealed_act_gives_its_name_the_articles_of_its_versions(database: Database, tmp_path: Path) -> None:
    # repealed by another act (법률 제21066호, 2025. 10. 1.): its newest version, the repeal, has no article
    import_acts(database, tmp_path, Act("010685", [
        (83354, BROADCASTING, "법률", "2008-02-29", 8867, "2008-02-29", "제정"),
        (273425, BROADCASTING, "법률", "2025-08-26", 21043, "2025-08-26", "타법개정"),
        (277305, BROADCASTING, "법률", "2025-10-01", 21066, "2025-10-01", "타법폐지"),
    ], [(3, 0, 1, 1, "위원회의 설치", False, "1 2 2.1 2.2", None),
        (3, 0, 2, 2, "위원회의 설치", False, "1 2 2.1 2.2 2.3", None),
        (4, 0, 1, 1, "위원회의 구성", True, "", None)]))
    assert lexicon_data(database)[BROADCASTING] == ["3"]  # 제4조 only ever deleted


def test_a_cache_folder_that_cannot_be_written_costs_a_warning_not_the_start(
        loaded: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A read-only or full cache folder crashed `citegen serve` at start, and every reload after (the
    README promises a warning); here a folder that cannot be made, under a file."""
    if loaded.fingerprint() is None:
        pytest.skip("PostgreSQL: nothing is cached")
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert lexicon_data(loaded, blocked / "cache") == lexicon_data(loaded, None)
    assert "could not store the lexicon" in caplog.text


def test_a_name_the_grammar_cannot_spell_is_left_out_of_the_lexicon_not_served_to_crash(
        database: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An act imported without history under a name holding a bracket (`「시험」법`, stored as `시험」법`) made
    the lexicon refuse to build: `citegen serve` exited at start and every reload answered 500."""
    records = tmp_path / "acts.jsonl"
    records.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in (
        {"type": "act", "law_id": "900001", "name": "「시험」법", "articles": [{"article": "1"}]},
        {"type": "act", "law_id": "001706", "name": "민법", "articles": [{"article": "750"}]},
        {"type": "alias", "alias": "「민」", "act": "민법"},
    )), encoding="utf-8")
    import_paths(database, [records])
    data = lexicon_data(database)
    assert list(data) == ["민법"]
    assert Lexicon.build(data).acts.keys() == {"민법"}  # what serve compiles from it
    assert "a name the statute grammar cannot spell" in caplog.text


def test_an_import_committing_between_the_lexicons_reads_is_seen_by_none_of_them(
        database: Database, database_url: str, sample_dir: Path) -> None:
    # The acts are read, then an import commits a new act with its alias, then the aliases are read: read
    # apart, the alias names an act the names lack (a KeyError on PostgreSQL, read committed); read as one
    # snapshot, the new act is in neither, and in both at the next reading.
    import_paths(database, [sample_dir / "law"])
    writer = Database.open(database_url)
    committed: list[bool] = []

    def commit_an_act_after_the_names(_connection, _cursor, statement: str, *_args) -> None:
        if committed or "FROM acts" not in statement:
            return
        committed.append(True)
        with writer.engine.begin() as connection:
            act_id = connection.execute(insert(ACTS).values(
                law_id="999999", name="시험법", source="test").returning(ACTS.c.id)).scalar_one()
            connection.execute(insert(ALIASES).values(alias="시험약칭법", act_id=act_id, official=True))

    event.listen(database.engine, "after_cursor_execute", commit_an_act_after_the_names)
    try:
        data = lexicon_data(database)
    finally:
        event.remove(database.engine, "after_cursor_execute", commit_an_act_after_the_names)
        writer.close()
    assert committed
    assert "시험법" not in data and "시험약칭법" not in data
    later = lexicon_data(database)
    assert later["시험법"] is None and later["시험약칭법"] is None
