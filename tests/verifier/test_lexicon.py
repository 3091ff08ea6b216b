"""The lexicon export is plain data grammars accepts, with live articles only."""

from __future__ import annotations

import json
from collections import defaultdict

from sqlalchemy import func, select

from grammars import parse_citation, statute_grammar
from verifier.database import Database
from verifier.importers.history import SPANS, VERSIONS
from verifier.importers.store import ACTS
from verifier.lexicon import build_lexicon, lexicon_data


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
