"""The per-document resolver: messy citations completed against the samples, every change listed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import event

from grammars import CaseCitation, CaseNumber, StatuteCitation
from verifier.database import Database
from verifier.importers import import_file
from verifier.resolver import DocumentResolver
from verifier.verify import Verifier

# (text, canonical forms in order, which of them are uncertain)
DOCUMENTS = [
    ("back-references follow the previous citation",
     "민법 제750조, 같은 법 제23조 제1항 및 동조 제2항",
     ["민법 제750조", "민법 제23조 제1항", "민법 제23조 제2항"], []),
    ("대판 with loose dots", "대판 2024.7.11, 2024도4202",
     ["대법원 2024. 7. 11. 선고 2024도4202 판결"], []),
    ("spaced bare number gets court and date", "(2024 도 4202)",
     ["대법원 2024. 7. 11. 선고 2024도4202 판결"], []),
    ("bare 결정 number gets 자", "(2022마6489)", ["대법원 2023. 1. 12.자 2022마6489 결정"], []),
    ("informal abbreviation", "민소법 제1조", ["민사소송법 제1조"], []),
    ("court abbreviation", "서울고법 2023. 5. 4. 선고 2022나2034567 판결",
     ["서울고등법원 2023. 5. 4. 선고 2022나2034567 판결"], []),
    ("one number at two courts stays uncertain", "(2022가합1234)", [None], [0]),
    ("back-reference with nothing before it", "같은 법 제3조", [None], [0]),
]


@pytest.mark.parametrize(("text", "canonical", "uncertain"), [d[1:] for d in DOCUMENTS], ids=[d[0] for d in DOCUMENTS])
def test_document_resolution(loaded: Database, text: str, canonical: list[str | None], uncertain: list[int]) -> None:
    spans = DocumentResolver(loaded).resolve_text(text)
    assert [s.resolution.canonical for s in spans] == canonical
    assert [i for i, s in enumerate(spans) if not s.resolution.certain] == uncertain
    for span in spans:
        written = text[span.found.span[0]:span.found.span[1]]
        if span.resolution.canonical not in (None, written):  # every rewrite is accounted for
            assert span.resolution.changes, written


def test_completion_lists_each_filled_field(loaded: Database) -> None:
    resolution = DocumentResolver(loaded).resolve(CaseCitation(CaseNumber(2015, "도", 2004)))
    assert resolution.certain
    assert [(c.field, c.after) for c in resolution.changes] == [
        ("court", "대법원"), ("date", "2020. 6. 18."), ("delivery", "선고"), ("disposition", "판결"),
        ("panel", "전원합의체")]


def test_a_written_field_the_database_contradicts_is_kept_and_doubted(loaded: Database) -> None:
    written = CaseCitation(CaseNumber(2024, "도", 4202), court="대법원", date=dt.date(2024, 7, 12))
    resolution = DocumentResolver(loaded).resolve(written)
    assert not resolution.certain
    assert resolution.resolved.date == dt.date(2024, 7, 12)  # never silently "corrected"
    assert any("2024. 7. 11." in doubt for doubt in resolution.doubts)


OWN_ACT = [("이 법 in an act", "민법", "이 법", "민법"),
           ("법 in a 시행령", "민법 시행령", "법", "민법"),
           ("법 outside a decree", "민법", "법", None)]


@pytest.mark.parametrize(("own_act", "reference", "act"), [o[1:] for o in OWN_ACT], ids=[o[0] for o in OWN_ACT])
def test_references_to_the_documents_own_act(loaded: Database, own_act: str, reference: str, act: str | None) -> None:
    resolver = DocumentResolver(loaded, own_act=own_act)
    resolution = resolver.resolve(StatuteCitation(None, 750, back_reference=reference))  # type: ignore[arg-type]
    assert resolution.resolved.act == act  # type: ignore[union-attr]
    assert resolution.certain == (act is not None)


def test_resolvers_beside_a_verifier_ask_the_database_once_per_name_and_number_until_clear_cache(
        database: Database, tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    first.write_text('{"type": "act", "law_id": "001700", "name": "민사소송법", "kind": "법률", '
                     '"articles": [{"article": "1"}]}\n{"type": "alias", "alias": "민소법", "act": "민사소송법"}\n',
                     encoding="utf-8")
    import_file(database, first)
    statements: list[str] = []
    event.listen(database.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    text = "민소법 제1조, (2023다1)"
    with Verifier(database, audit=False) as verifier:
        spans = DocumentResolver(database, lookups=verifier.lookups).resolve_text(text)
        assert [s.resolution.canonical for s in spans] == ["민사소송법 제1조", None]
        assert statements, "the first document must ask the database"
        statements.clear()
        for _ in range(2):  # later documents, each with its own resolver, hit the shared cache
            DocumentResolver(database, lookups=verifier.lookups).resolve_text(text)
        assert statements == []

        second = tmp_path / "second.jsonl"
        second.write_text('{"type": "case", "court": "대법원", "date": "2023-05-18", "case_number": "2023다1", '
                          '"disposition": "판결"}\n', encoding="utf-8")
        import_file(database, second)
        stale = DocumentResolver(database, lookups=verifier.lookups).resolve_text(text)
        assert stale[1].resolution.canonical is None  # cached until told
        verifier.clear_cache()
        fresh = DocumentResolver(database, lookups=verifier.lookups).resolve_text(text)
        assert fresh[1].resolution.canonical == "대법원 2023. 5. 18. 선고 2023다1 판결"
