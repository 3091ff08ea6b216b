"""The per-document resolver: messy citations completed against the samples, every change listed."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
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
    # The second 민법 제750조 is answered from the resolver's memo: it is still the citation 같은 법 follows.
    ("a repeated citation is the one a back-reference follows",
     "민법 제750조, 민사소송법 제1조, 민법 제750조, 같은 법 제23조",
     ["민법 제750조", "민사소송법 제1조", "민법 제750조", "민법 제23조"], []),
    ("대판 with loose dots", "대판 2024.7.11, 2024도4202",
     ["대법원 2024. 7. 11. 선고 2024도4202 판결"], []),
    ("spaced bare number gets court and date", "(2024 도 4202)",
     ["대법원 2024. 7. 11. 선고 2024도4202 판결"], []),
    ("bare 결정 number gets 자", "(2022마6489)", ["대법원 2023. 1. 12.자 2022마6489 결정"], []),
    ("informal abbreviation", "민소법 제1조", ["민사소송법 제1조"], []),
    # a date not in the calendar: the database's completes it, but it is no correction (a review's find)
    ("a date not in the calendar", "대법원 2024. 2. 30. 선고 2024도4202 판결",
     ["대법원 2024. 7. 11. 선고 2024도4202 판결"], [0]),
    ("court abbreviation", "서울고법 2023. 5. 4. 선고 2022나2034567 판결",
     ["서울고등법원 2023. 5. 4. 선고 2022나2034567 판결"], []),
    ("one number at two courts stays uncertain", "(2022가합1234)", [None], [0]),
    ("back-reference with nothing before it", "같은 법 제3조", [None], [0]),
    ("a back-reference keeps the version cited before",
     "구 민법(1990. 1. 13. 법률 제4199호로 개정되기 전의 것) 제750조, 같은 법 제23조 및 동조 제2항",
     ["구 민법(1990. 1. 13. 법률 제4199호로 개정되기 전의 것) 제750조",
      "구 민법(1990. 1. 13. 법률 제4199호로 개정되기 전의 것) 제23조",
      "구 민법(1990. 1. 13. 법률 제4199호로 개정되기 전의 것) 제23조 제2항"], []),
    # Statutes' `같은 제3항ㆍ제5항` (…제20조제1항 …, 같은 제3항ㆍ제5항) and `같은 제38조의3` (「관세법」 제87조 …
    # 같은 제38조의3제1항): below the level written first, the provision cited before.
    ("같은 제N항 takes the article, 같은 제N호 the paragraph, 같은 제N조 the act",
     "민법 제23조 제1항, 같은 제3항ㆍ제5항 및 같은 제2호, 같은 제750조",
     ["민법 제23조 제1항", "민법 제23조 제3항", "민법 제23조 제5항", "민법 제23조 제5항 제2호", "민법 제750조"], []),
    ("위 제N조 takes the act cited before", "민법 제23조 제1항에 따라 위 제750조 제1항, 제2항",
     ["민법 제23조 제1항", "민법 제750조 제1항", "민법 제750조 제2항"], []),
    ("위 after two acts is uncertain", "민사소송법 제1조, 민법 제750조, 위 제23조",
     ["민사소송법 제1조", "민법 제750조", "민법 제23조"], [2]),
    ("위 with no statute before it is no citation", "위 제23조에 따라", [], []),
    # A 부칙 whose act the text leaves out is a guess from the act before; a named one is certain.
    ("부칙 without its act", "민법 제750조, 법률 제7428호 부칙 제2조",
     ["민법 제750조", "민법 부칙(법률 제7428호) 제2조"], [1]),
    ("부칙 of a named act, and of 같은 법", "민법 부칙(2005. 3. 31. 법률 제7427호) 제2조, 같은 법 부칙 제3항",
     ["민법 부칙(2005. 3. 31. 법률 제7427호) 제2조", "민법 부칙 제3항"], []),
    ("부칙 with nothing before it", "부칙(2005. 5. 26.) 제3항", [None], [0]),
    # 국제조세조정법: `「외국환거래법」 제3조 … 제58조제5항에 따라 … 같은 조 제6항` — 같은 조 is 제58조, written
    # without its act after the citation before; outside an act whose own it is, a guess.
    ("같은 조 after an article written without its act", "민법 제750조에 따른 배상, 제751조제1항에 따라 같은 조 제2항",
     ["민법 제750조", "민법 제751조 제2항"], [1]),
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


def test_a_supplement_provision_is_not_covered_and_says_why(loaded: Database) -> None:
    (span,) = DocumentResolver(loaded).resolve_text("민법 부칙(2005. 3. 31. 법률 제7427호) 제2조")
    verdict = Verifier(loaded).verify(span.resolution.resolved)
    assert (verdict.status, verdict.canonical) == ("not_covered", "민법 부칙(2005. 3. 31. 법률 제7427호) 제2조")
    assert "부칙" in verdict.detail


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


# Acts with their 시행령/시행규칙, for the back-references that name a decree or rule.
DECREE_RECORDS = [
    {"type": "act", "law_id": f"00{i:04d}", "name": name, "kind": kind, "articles": [{"article": "1"}]}
    for i, (name, kind) in enumerate([
        ("근로기준법", "법률"), ("근로기준법 시행령", "대통령령"), ("근로기준법 시행규칙", "고용노동부령"),
        ("소득세법", "법률"), ("소득세법 시행령", "대통령령"), ("도로교통법", "법률"),
        ("도로교통법 시행규칙", "행정안전부령"), ("민사소송규칙", "대법원규칙"),
    ])
]


@pytest.fixture(scope="module")
def with_decrees(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    folder = tmp_path_factory.mktemp("decrees")
    records = folder / "decrees.jsonl"
    records.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in DECREE_RECORDS), encoding="utf-8")
    database = Database.open(f"sqlite:///{folder / 'decrees.sqlite3'}")
    import_file(database, records)
    yield database
    database.close()


# (id, text, canonical forms in order, which of them are uncertain)
DECREE_DOCUMENTS = [
    ("같은 법 시행령 and 동법 시행규칙 are the decree and rule of the act before",
     "근로기준법 제23조, 같은 법 시행령 제30조 및 동법 시행규칙 제5조",
     ["근로기준법 제23조", "근로기준법 시행령 제30조", "근로기준법 시행규칙 제5조"], []),
    ("after a decree, 같은 법 시행규칙 is its parent act's rule",
     "근로기준법 시행령 제30조, 같은 법 시행규칙 제5조", ["근로기준법 시행령 제30조", "근로기준법 시행규칙 제5조"], []),
    ("같은 법 시행령 with nothing before it", "같은 법 시행령 제30조", [None], [0]),
    ("같은 법 시행령 after a rule that is no 법률", "민사소송규칙 제3조, 같은 법 시행령 제2조",
     ["민사소송규칙 제3조", None], [1]),
    ("같은 법 시행령 after an act the database lacks", "「주택임대차특별법」 제3조, 같은 법 시행령 제2조",
     ["주택임대차특별법 제3조", "주택임대차특별법 시행령 제2조"], [0, 1]),
    ("영 after the one 시행령 cited", "근로기준법 시행령 제30조, 영 제31조 및 동조 제2항",
     ["근로기준법 시행령 제30조", "근로기준법 시행령 제31조", "근로기준법 시행령 제31조 제2항"], []),
    ("영 after its own act", "근로기준법 시행령 제30조, 근로기준법 제23조, 영 제31조",
     ["근로기준법 시행령 제30조", "근로기준법 제23조", "근로기준법 시행령 제31조"], []),
    ("영 when another act is in focus", "근로기준법 시행령 제30조, 소득세법 제3조, 영 제31조",
     ["근로기준법 시행령 제30조", "소득세법 제3조", None], [2]),
    ("영 when two decrees were cited", "근로기준법 시행령 제30조, 소득세법 시행령 제3조, 영 제31조",
     ["근로기준법 시행령 제30조", "소득세법 시행령 제3조", None], [2]),
    ("declared 영 wins over the decree cited last",
     "근로기준법 시행령(이하 '영'이라 한다) 제30조, 소득세법 시행령 제3조, 영 제31조",
     ["근로기준법 시행령 제30조", "소득세법 시행령 제3조", "근로기준법 시행령 제31조"], []),
    ("영 after a 시행령 the database lacks: a guess", "「의료법 시행령」 제2조, 소득세법 제3조, 영 제5조",
     ["의료법 시행령 제2조", "소득세법 제3조", "소득세법 시행령 제5조"], [0, 2]),
    ("규칙 undeclared stays uncertain", "도로교통법 시행규칙 제91조, 규칙 제3조",
     ["도로교통법 시행규칙 제91조", "도로교통법 시행규칙 제3조"], [1]),
    ("규칙 declared", "「도로교통법 시행규칙」(이하 '규칙'이라 한다) 제91조, 규칙 제3조",
     ["도로교통법 시행규칙 제91조", "도로교통법 시행규칙 제3조"], []),
    ("법 declared", "소득세법(이하 '법'이라 한다) 제94조, 법 제95조", ["소득세법 제94조", "소득세법 제95조"], []),
    ("법 시행규칙 is the rule of the act declared 법", "근로기준법(이하 ‘법’이라 한다) 제23조 및 법 시행규칙 제5조",
     ["근로기준법 제23조", "근로기준법 시행규칙 제5조"], []),
    ("법 시행령 with no act declared 법", "소득세법 제3조, 법 시행령 제5조", ["소득세법 제3조", None], [1]),
    ("a declaration that does not fit its act binds nothing", "소득세법 시행령(이하 '법') 제3조, 법 제5조",
     ["소득세법 시행령 제3조", None], [1]),
    # 같은 법 names a 법률 (reference §2.3): after a 시행령/시행규칙, the 법률 it carries out, never the decree.
    ("같은 법 after a 시행령 is its 법률", "소득세법 시행령 제98조, 같은 법 제41조",
     ["소득세법 시행령 제98조", "소득세법 제41조"], []),
    ("동법 after a 시행규칙 is its 법률", "도로교통법 시행규칙 제91조, 동법 제93조 제1항",
     ["도로교통법 시행규칙 제91조", "도로교통법 제93조 제1항"], []),
    ("같은 법 after a 시행령 then 같은 법 시행규칙", "근로기준법 시행령 제30조, 같은 법 제23조 및 같은 법 시행규칙 제5조",
     ["근로기준법 시행령 제30조", "근로기준법 제23조", "근로기준법 시행규칙 제5조"], []),
    ("a list after 같은 법 stays with the 법률", "소득세법 시행령 제98조, 같은 법 제41조, 제42조",
     ["소득세법 시행령 제98조", "소득세법 제41조", "소득세법 제42조"], []),
    ("같은 조 after a 시행령 stays in the 시행령", "근로기준법 시행령 제30조, 같은 조 제2항",
     ["근로기준법 시행령 제30조", "근로기준법 시행령 제30조 제2항"], []),
    ("같은 법 after a rule that is no 법률", "민사소송규칙 제3조, 같은 법 제2조", ["민사소송규칙 제3조", None], [1]),
    ("동법 제3항 after a 시행령 has no article of the 법률", "근로기준법 시행령 제30조 제1항, 동법 제3항",
     ["근로기준법 시행령 제30조 제1항", None], [1]),
    # 같은 영, 동령, 같은 시행규칙 … name the decree or rule itself: the one cited last.
    ("같은 영, 동령, 동 시행령 after a 법률 are the 시행령 cited before it",
     "근로기준법 시행령 제30조, 소득세법 제3조, 같은 영 제31조, 동령 제2조 및 동 시행령 제1조",
     ["근로기준법 시행령 제30조", "소득세법 제3조", "근로기준법 시행령 제31조", "근로기준법 시행령 제2조",
      "근로기준법 시행령 제1조"], []),
    ("같은 시행령 after two 시행령 is the later", "근로기준법 시행령 제30조, 소득세법 시행령 제3조, 같은 시행령 제5조",
     ["근로기준법 시행령 제30조", "소득세법 시행령 제3조", "소득세법 시행령 제5조"], []),
    ("같은 법 after 같은 영 is the 법률 of that 시행령", "소득세법 시행령 제98조, 근로기준법 제23조, 같은 영 제99조, 같은 법 제41조",
     ["소득세법 시행령 제98조", "근로기준법 제23조", "소득세법 시행령 제99조", "소득세법 제41조"], []),
    ("같은 영 with no 시행령 before it", "근로기준법 제23조, 같은 영 제5조", ["근로기준법 제23조", None], [1]),
    ("같은 시행규칙 after a 법률 is the 시행규칙 cited before it",
     "도로교통법 시행규칙 제91조, 도로교통법 제93조, 같은 시행규칙 제92조",
     ["도로교통법 시행규칙 제91조", "도로교통법 제93조", "도로교통법 시행규칙 제92조"], []),
    ("같은 시행규칙 after a 시행령 only", "근로기준법 시행령 제30조, 같은 시행규칙 제3조", ["근로기준법 시행령 제30조", None], [1]),
    ("같은 규칙 is a guess", "도로교통법 시행규칙 제91조, 같은 규칙 제3조",
     ["도로교통법 시행규칙 제91조", "도로교통법 시행규칙 제3조"], [1]),
    ("같은 규칙 after a 대법원규칙 is that rule, a guess", "민사소송규칙 제3조, 같은 규칙 제5조",
     ["민사소송규칙 제3조", "민사소송규칙 제5조"], [1]),
]


@pytest.mark.parametrize(("text", "canonical", "uncertain"), [d[1:] for d in DECREE_DOCUMENTS],
                         ids=[d[0] for d in DECREE_DOCUMENTS])
def test_decrees_rules_and_their_short_names_resolve_from_the_document(
        with_decrees: Database, text: str, canonical: list[str | None], uncertain: list[int]) -> None:
    spans = DocumentResolver(with_decrees).resolve_text(text)
    assert [s.resolution.canonical for s in spans] == canonical
    assert [i for i, s in enumerate(spans) if not s.resolution.certain] == uncertain
    for span in spans:  # what came from elsewhere in the document is marked so, and only that
        written = text[span.found.span[0]:span.found.span[1]]
        referring = span.found.citation.act is None  # type: ignore[union-attr]
        assert bool(span.resolution.context) == (referring and span.resolution.canonical is not None), written
        assert span.resolution.certain or span.resolution.doubts, written


def test_a_name_declared_after_it_was_cited_stands_for_its_act_from_there_on(with_decrees: Database) -> None:
    # The resolver keeps answers for citations that name their act; one kept for `표준법 제3조` before the
    # declaration must not answer the same citation after it.
    text = "표준법 제3조, 「소득세법」(이하 '표준법'이라 한다) 제94조, 표준법 제3조"
    spans = DocumentResolver(with_decrees).resolve_text(text)
    assert [s.resolution.canonical for s in spans] == ["표준법 제3조", "소득세법 제94조", "소득세법 제3조"]
    assert [s.resolution.certain for s in spans] == [False, True, True]
    assert [bool(s.resolution.context) for s in spans] == [False, False, True]


def test_영_inside_a_시행규칙_is_its_시행령(with_decrees: Database) -> None:
    resolver = DocumentResolver(with_decrees, own_act="근로기준법 시행규칙")
    resolution = resolver.resolve(StatuteCitation(None, 5, back_reference="영"))
    assert (resolution.canonical, resolution.certain) == ("근로기준법 시행령 제5조", True)
    assert [c.why for c in resolution.context] == ["the 시행령 of this 시행규칙"]


def test_법_시행규칙_inside_a_시행령_is_its_법률s_rule(with_decrees: Database) -> None:
    resolver = DocumentResolver(with_decrees, own_act="근로기준법 시행령")
    resolution = resolver.resolve(StatuteCitation(None, 5, back_reference="법 시행규칙"))
    assert (resolution.canonical, resolution.certain) == ("근로기준법 시행규칙 제5조", True)


SAID_FROM_CONTEXT = [
    ("소득세법 시행령 제98조, 같은 법 제41조", "소득세법 제41조",
     "같은 법: 소득세법, the 법률 of 소득세법 시행령 cited before (같은 법 names a 법률)"),
    ("근로기준법 시행령 제30조, 소득세법 제3조, 동령 제31조", "근로기준법 시행령 제31조",
     "동령: 근로기준법 시행령, the 시행령 cited last"),
]


@pytest.mark.parametrize(("text", "canonical", "why"), SAID_FROM_CONTEXT, ids=[t for t, _, _ in SAID_FROM_CONTEXT])
def test_a_back_reference_across_a_decree_says_what_it_took_from_the_text(
        with_decrees: Database, text: str, canonical: str, why: str) -> None:
    last = DocumentResolver(with_decrees).resolve_text(text)[-1].resolution
    assert (last.canonical, last.certain) == (canonical, True)
    assert [(c.field, c.after, c.why) for c in last.context] == [("act", canonical.rsplit(" ", 1)[0], why)]


# (text, what the last citation resolves to, why it is doubted): never the decree in place of the 법률.
DOUBTED_WITH_A_REASON = [
    ("민사소송규칙 제3조, 같은 법 제2조", None, "같은 법 names a 법률, and 민사소송규칙"),
    ("근로기준법 시행령 제30조 제1항, 동법 제3항", None, "the article cited before belongs to 근로기준법 시행령"),
    ("근로기준법 제23조, 같은 영 제5조", None, "같은 영 refers to a 시행령 cited before it, and there is none"),
    ("근로기준법 시행령 제30조, 같은 시행규칙 제3조", None, "같은 시행규칙 refers to a 시행규칙 cited before it"),
    ("도로교통법 시행규칙 제91조, 같은 규칙 제3조", "도로교통법 시행규칙 제3조", "(취업규칙, 사내 규칙)"),
]


@pytest.mark.parametrize(("text", "canonical", "reason"), DOUBTED_WITH_A_REASON,
                         ids=[t for t, _, _ in DOUBTED_WITH_A_REASON])
def test_a_reference_the_text_does_not_settle_is_doubted_with_a_reason(
        with_decrees: Database, text: str, canonical: str | None, reason: str) -> None:
    last = DocumentResolver(with_decrees).resolve_text(text)[-1].resolution
    assert (last.canonical, last.certain) == (canonical, False)
    assert any(reason in doubt for doubt in last.doubts), last.doubts


def test_같은_조_after_an_article_of_the_act_itself(loaded: Database) -> None:
    # In an act's own text an article written without its act is the act's own: 같은 조 is certain.
    text = "「민사소송법」 제1조에 따른 기간, 제751조제1항에 따라 같은 조 제2항"
    spans = DocumentResolver(loaded, own_act="민법").resolve_text(text)
    assert [s.resolution.canonical for s in spans] == ["민사소송법 제1조", "민법 제751조 제2항"]
    assert all(s.resolution.certain for s in spans)


def test_a_name_several_acts_share_is_written_alike_whichever_is_meant(book: Database) -> None:
    # 근로기준법 of 1953 (repealed in 1997) and of 1997: the verifier picks one by date, the text is the same
    spans = DocumentResolver(book).resolve_text("근기법 제23조제1항에 따라, 같은 법 제24조")
    assert [s.resolution.canonical for s in spans] == ["근로기준법 제23조 제1항", "근로기준법 제24조"]
    assert [s.resolution.doubts for s in spans] == [(), ()]
