"""The lexicon export is plain data grammars accepts, with live articles only."""

from __future__ import annotations

import json

from grammars import parse_citation, statute_grammar
from verifier.database import Database
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
