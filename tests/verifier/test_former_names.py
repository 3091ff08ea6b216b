"""Acts cited by names they held once, against real lines of the statute book
(tests/fixtures/statute-book-former-names.book.jsonl.xz, made by make_former_names_bundle.py from data/law):
조세특례제한법, named 조세감면규제법 until 법률 제5584호 (1998. 12. 28.), where the book's history of it starts,
so the old name is known from that amendment's 부칙 only; and 송유관 안전관리법, named 송유관사업법 in the
versions from 1990 until 법률 제5832호 (1999. 2. 8.), which the book holds; and 광업법 시행규칙, a 부칙 block of
which holds another act's 부칙 declaring that act's former name."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, select

from grammars import AmendmentNote, CitationFinder, CitationParser, StatuteCitation, find_citations
from verifier import Database, import_paths
from verifier.former_names import declared_former_names, stored_declared_former_names
from verifier.lexicon import build_lexicon
from verifier.models import ACTS
from verifier.resolver import DocumentResolver
from verifier.verify import Verifier

BUNDLE = Path(__file__).parents[1] / "fixtures" / "statute-book-former-names.book.jsonl.xz"
TODAY = dt.date(2026, 12, 2)
RENAMED_1998 = "구 조세감면규제법(1998. 12. 28. 법률 제5584호 조세특례제한법으로 전문개정되기 전의 것) 제56조"


@pytest.fixture
def verifier(database: Database) -> Iterator[Verifier]:
    """A verifier of the two acts (the book is `verifier.database`)."""
    (report,) = import_paths(database, [BUNDLE])
    assert report.counts["acts"] == 3 and not report.skipped
    with Verifier(database, audit=False) as verifier:
        yield verifier


def test_the_renaming_amendments_supplement_declares_the_former_name(verifier: Verifier) -> None:
    with verifier.database.engine.connect() as connection:
        declared = declared_former_names(connection)
        act_id = connection.execute(select(ACTS.c.id).where(ACTS.c.name == "조세특례제한법")).scalar_one()
    assert [(d.act_id, d.number, d.promulgated_on) for d in declared["조세감면규제법"]] == \
        [(act_id, 5584, dt.date(1998, 12, 28))]
    assert "송유관사업법" not in declared  # versions carry it: not a name known from a 부칙 alone
    assert "조세특례제한법" not in declared  # `종전의 조세특례제한법` of a later 전부개정 names itself


def test_another_acts_supplement_read_into_a_block_declares_no_former_name_of_this_act(verifier: Verifier) -> None:
    # 광업법 시행규칙's 부칙 <제97호,1988.4.22> holds 엔지니어링기술진흥법시행규칙's 부칙 of 1993, whose
    # `종전의 기술용역육성법시행규칙 … 인용한 것으로 본다` names the former name of that act: read as this
    # act's own block, `구 기술용역육성법시행규칙 제3조` was verified against 광업법 시행규칙
    with verifier.database.engine.connect() as connection:
        declared = declared_former_names(connection)
    assert "기술용역육성법시행규칙" not in declared
    assert "조세감면규제법" in declared


def test_the_declared_former_names_are_kept_between_processes_until_the_database_changes(
        verifier: Verifier, tmp_path: Path) -> None:
    database = verifier.database
    with database.engine.connect() as connection:
        declared = declared_former_names(connection)
    assert stored_declared_former_names(database, tmp_path, database.engine.connect) == declared
    stored = list(tmp_path.glob("former-names-*"))
    assert len(stored) == (database.dialect == "sqlite")  # no cheap sign of change on PostgreSQL

    def no_connection() -> Connection:
        raise AssertionError("expected the names read back from the cache, got a query")

    if stored:
        assert stored_declared_former_names(database, tmp_path, no_connection) == declared
        import_paths(database, [BUNDLE])  # a commit, even one that changes nothing, is a new state
        assert stored_declared_former_names(database, tmp_path, database.engine.connect) == declared
        assert list(tmp_path.glob("former-names-*")) != stored  # read again, the superseded file removed
    cached = Verifier(database, audit=False, cache_dir=tmp_path)
    assert cached.lookups.declared_former_names(database.engine.connect) == declared
    cached.close()


def test_a_former_name_whose_versions_the_book_lacks_is_not_covered(verifier: Verifier) -> None:
    (found,) = find_citations(f"원심은 {RENAMED_1998}에 따라")
    (span,) = DocumentResolver(verifier.database, lookups=verifier.lookups).resolve_text(RENAMED_1998)
    assert span.resolution.certain and span.resolution.canonical == RENAMED_1998  # the name is kept
    assert found.citation.amendment is not None and found.citation.amendment.renamed_to == "조세특례제한법"
    verdict = verifier.verify(found.citation, TODAY)
    assert verdict.status == "not_covered", verdict.detail
    assert "조세특례제한법" in verdict.detail and "제5584호" in verdict.detail and "that amendment" in verdict.detail
    assert verdict.canonical == RENAMED_1998
    for citation in (StatuteCitation("조세감면규제법", 3, former=True), StatuteCitation("조세감면규제법", 3)):
        plain = verifier.verify(citation, TODAY)
        assert plain.status == "not_covered" and "no act named" not in plain.detail, plain.detail


def test_a_note_naming_another_title_than_the_amendment_gave_is_a_mismatch(verifier: Verifier) -> None:
    note = AmendmentNote("법률", 5584, "전문개정", True, dt.date(1998, 12, 28), renamed_to="소득세법")
    verdict = verifier.verify(StatuteCitation("조세감면규제법", 56, former=True, amendment=note), TODAY)
    assert verdict.status == "mismatch" and [(m.field, m.database) for m in verdict.mismatches] == \
        [("renamed to", "조세특례제한법")]


@pytest.mark.parametrize(("citation", "on", "status"), [
    pytest.param(StatuteCitation("송유관사업법", 3, former=True), TODAY, "verified", id="구-by-the-former-name"),
    pytest.param(StatuteCitation("송유관사업법", 3), dt.date(1995, 1, 1), "verified", id="plain-before-the-rename"),
    pytest.param(StatuteCitation("송유관사업법", 3), TODAY, "outdated", id="plain-after-the-rename"),
    # the book holds 송유관사업법 from 법률 제4215호 (1990), not from its 제정: absence says nothing of before
    pytest.param(StatuteCitation("송유관사업법", 90, former=True), TODAY, "not_covered", id="no-such-article-held"),
    pytest.param(StatuteCitation("송유관 안전관리법", 3), TODAY, "verified", id="todays-name"),
])
def test_a_former_name_the_versions_carry_is_checked_against_them(verifier: Verifier, citation: StatuteCitation,
                                                                  on: dt.date, status: str) -> None:
    verdict = verifier.verify(citation, on)
    assert verdict.status == status, verdict.detail
    assert verdict.canonical is not None and verdict.canonical.removeprefix("구 ").startswith(citation.act or "")


def test_outdated_by_a_rename_offers_the_former_version_that_verifies(verifier: Verifier) -> None:
    outdated = verifier.verify(StatuteCitation("송유관사업법", 3), TODAY)
    assert outdated.suggestion == "구 송유관사업법(1999. 2. 8. 법률 제5832호로 개정되기 전의 것) 제3조"
    (suggested,) = find_citations(outdated.suggestion)
    assert verifier.verify(suggested.citation, TODAY).status == "verified"
    # the version the note names must carry the name cited
    note = AmendmentNote("법률", 5832, "개정", False, dt.date(1999, 2, 8))
    renamed = verifier.verify(StatuteCitation("송유관사업법", 3, former=True, amendment=note), TODAY)
    assert renamed.status == "mismatch" and renamed.mismatches[-1].field == "act name", renamed.detail


def test_the_lexicon_holds_the_former_names_the_book_can_check(verifier: Verifier) -> None:
    lexicon = build_lexicon(verifier.database)
    assert lexicon is not None
    # versions carry 송유관사업법: the generator may write it (a plain citation dated before the rename is right)
    assert lexicon.acts["송유관사업법"] is not None and "3" in lexicon.acts["송유관사업법"]
    # 조세감면규제법 is known from a 부칙 alone: no article of it can verify, so the generator never writes it;
    # the finder still reads it by its shape
    assert "조세감면규제법" not in lexicon.acts and "조세감면규제법" not in lexicon.informal
    finder = CitationFinder(CitationParser.for_lexicon(lexicon))
    assert [found.citation.act for found in finder.find(RENAMED_1998)] == ["조세감면규제법"]


def test_recitation_keeps_the_former_name(verifier: Verifier) -> None:
    text = "구 송유관사업법 제3조 및 송유관 안전관리법 제3조"
    lexicon = build_lexicon(verifier.database)
    assert lexicon is not None
    finder = CitationFinder(CitationParser.for_lexicon(lexicon))
    spans = DocumentResolver(verifier.database, finder=finder, lookups=verifier.lookups).resolve_text(text)
    assert [span.resolution.canonical for span in spans] == ["구 송유관사업법 제3조", "송유관 안전관리법 제3조"]
    assert all(change.field != "act" for change in spans[0].resolution.changes)
