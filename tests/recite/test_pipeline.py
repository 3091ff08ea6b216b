"""The decision per citation: what the resolver and the verdict allow the batch to do with it.

The resolver and verdicts here are given values (the table's inputs), so every branch of the
decision is pinned; the real grammars and verifier run in test_batch.py.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citegen.commands.recite_wiring import build_pipeline
from citegen.recite.documents import PlainTextDocument, read_document
from citegen.recite.evaluate import load_passages
from citegen.recite.pipeline import Check, RecitePipeline, Resolution, stated_changes
from grammars import find_citations
from grammars.citation import CaseCitation, CaseNumber, ParsedCitation, StatuteCitation
from grammars.find import CitationForm, FoundCitation

CASE = CaseCitation(CaseNumber(2024, "도", 4202), "대법원", dt.date(2024, 7, 11), "선고", "판결")
CANONICAL = "대법원 2024. 7. 11. 선고 2024도4202 판결"
BARE = "(2024도4202)"
REGENERATED = "대법원 2024. 7. 11. 선고 2024도4203 판결"


@dataclass
class _Given:
    """One row's resolver and verifier: fixed answers."""

    resolution: Resolution
    check: Check

    def document_resolver(self) -> _Given:
        return self

    def resolve(self, text: str, found: FoundCitation) -> Resolution:
        return self.resolution

    def verify(self, citation: ParsedCitation) -> Check:
        return self.check


class _Regenerator:
    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        return REGENERATED if "판례" in before else None


def _find_written(text: str) -> list[FoundCitation]:
    return [
        FoundCitation((text.index(w), text.index(w) + len(w)), CASE, CitationForm.BARE_CASE_NUMBER)
        for w in (BARE, CANONICAL, REGENERATED)
        if w in text
    ]


ROWS = [
    # id, written, resolution, check, regenerate, expected action, expected canonical
    ("canonical-verified", CANONICAL, Resolution(CASE), Check("verified"), False, "kept", CANONICAL),
    ("bare-resolved", BARE, Resolution(CASE, ("court and date from the database",)), Check("verified"), False,
     "rewritten", CANONICAL),
    ("uncertain", BARE, Resolution(CASE, uncertain=True, reason="two cases share the number"), Check("verified"),
     False, "suggested", CANONICAL),
    ("mismatch", BARE, Resolution(CASE), Check("mismatch", "대법원 2024. 7. 12. 선고 2024도4202 판결", "date differs"),
     False, "suggested", "대법원 2024. 7. 12. 선고 2024도4202 판결"),
    ("not-covered", BARE, Resolution(CASE), Check("not_covered", None, "court not in database"), False,
     "suggested", CANONICAL),
    ("not-covered-as-written", CANONICAL, Resolution(CASE), Check("not_covered"), False, "review", CANONICAL),
    ("ambiguous", BARE, Resolution(CASE), Check("ambiguous"), False, "review", None),
    ("not-found", BARE, Resolution(CASE), Check("not_found"), False, "review", None),
    ("not-found-regenerated-unverified", BARE, Resolution(CASE), Check("not_found"), True, "review", None),
    ("unresolved", BARE, Resolution(None, reason="no case with that number"), Check("verified"), False, "review",
     None),
    ("unresolved-regenerated", BARE, Resolution(None), Check("verified"), True, "suggested",
     REGENERATED),
    ("incomplete", BARE, Resolution(StatuteCitation(None, 3, back_reference="같은 법")), Check("verified"), False,
     "review", None),
]


@pytest.mark.parametrize(("written", "resolution", "check", "regenerate", "action", "canonical"),
                         [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_each_verdict_leads_to_one_action_and_only_rewritten_changes_the_text(
        tmp_path: Path, written: str, resolution: Resolution, check: Check, regenerate: bool, action: str,
        canonical: str | None) -> None:
    path = tmp_path / "draft.txt"
    path.write_text(f"위 판례{written}에 따르면 책임이 있다.", encoding="utf-8")
    document = read_document(path)
    pipeline = RecitePipeline(_find_written, _Given(resolution, check), _Regenerator() if regenerate else None)

    recited = pipeline.recite(document)

    (outcome,) = recited.outcomes
    assert (outcome.action, outcome.canonical, outcome.original) == (action, canonical, written)
    assert outcome.reason
    if regenerate:
        assert ("re-generated under the citation automaton and verified, for review" if action == "suggested"
                else f"re-generated {REGENERATED!r}, which is {check.status}") in outcome.reason
    rendered = document.render(recited.edits).decode("utf-8")
    assert rendered == (f"위 판례{CANONICAL}에 따르면 책임이 있다." if action in ("rewritten", "kept")
                        else f"위 판례{written}에 따르면 책임이 있다.")


def test_a_citation_split_by_a_tab_is_suggested_not_rewritten(tmp_path: Path, docx_bytes) -> None:
    path = tmp_path / "draft.docx"
    path.write_bytes(docx_bytes([[("판례(2024\t도4202)", False)]]))

    def find(text: str) -> list[FoundCitation]:  # the draft's citation, or the canonical form read back
        if text == CANONICAL:
            return [FoundCitation((0, len(text)), CASE, CitationForm.CANONICAL)]
        return [FoundCitation((2, 12), CASE, CitationForm.SPACED_CASE_NUMBER)]

    recited = RecitePipeline(find, _Given(Resolution(CASE), Check("verified"))).recite(read_document(path))

    assert [o.action for o in recited.outcomes] == ["suggested"]
    assert "tab" in recited.outcomes[0].reason and not recited.edits


def test_an_unresolved_back_reference_goes_to_review_with_the_resolvers_reason(tmp_path: Path) -> None:
    path = tmp_path / "draft.txt"
    path.write_text("영 제5조", encoding="utf-8")
    doubt = "영 is not declared (이하 '영'이라 한다) and may stand for A 시행령 or B 시행령"
    written = StatuteCitation(None, 5, back_reference="영")

    def find(text: str) -> list[FoundCitation]:
        return [FoundCitation((0, 6), written, CitationForm.DECREE_SHORT_NAME)]

    resolution = Resolution(written, uncertain=True, reason=doubt)
    recited = RecitePipeline(find, _Given(resolution, Check("verified"))).recite(read_document(path))

    assert [(o.action, o.canonical, o.reason) for o in recited.outcomes] == [("review", None, doubt)]


class _Suggests:
    def __init__(self, suggestion: str) -> None:
        self.suggestion = suggestion

    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        return self.suggestion


class _Knows:
    """A verifier that knows the given canonical citations, and a resolver that resolves nothing more."""

    def __init__(self, *known: str) -> None:
        self.known = known

    def document_resolver(self) -> _Knows:
        return self

    def resolve(self, text: str, found: FoundCitation) -> Resolution:
        return Resolution(found.citation)

    def verify(self, citation: ParsedCitation) -> Check:
        return Check("verified" if citation.canonical() in self.known else "not_found")


@pytest.mark.parametrize(("written", "suggestion", "offered"), [
    ("민법 제1200조에 따라", "민법 제750조", False),  # verified but another article: no suggestion
    ("형법 제1200조에 따라", "민법 제1200조", False),  # another act
    ("같은 법 제5조에 따라", "민법 제5조", True),  # fills the act the draft left to context
    ("민법 부칙 제2조에 따라", "민법 제2조", False),  # drops the 부칙: another provision
])
def test_a_re_generated_suggestion_keeps_what_the_draft_stated(tmp_path: Path, written: str, suggestion: str,
                                                                offered: bool) -> None:
    path = tmp_path / "draft.txt"
    path.write_text(f"판례에 의하면 {written}", encoding="utf-8")
    pipeline = RecitePipeline(find_citations, _Knows(suggestion), _Suggests(suggestion))
    (outcome,) = pipeline.recite(read_document(path)).outcomes
    assert (outcome.action == "suggested" and outcome.canonical == suggestion) is offered, outcome.reason
    assert not pipeline.recite(read_document(path)).edits


def test_a_resolution_that_changes_a_stated_part_goes_to_review_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "draft.txt"
    path.write_text("민법 제750조 제1항에 따라", encoding="utf-8")
    changed = StatuteCitation("민법", 750, paragraph=2)  # a resolver that would move the paragraph
    pipeline = RecitePipeline(find_citations, _Given(Resolution(changed), Check("verified")))
    recited = pipeline.recite(read_document(path))
    (outcome,) = recited.outcomes
    assert outcome.action == "review" and "paragraph 1 -> 2" in outcome.reason and not recited.edits


# Never corrupt a draft: real passages (tests/realtext) and the generated drafts of data/drafts, with
# hostile text spliced in, through the real finder, resolver and verifier.
_REPOSITORY = Path(__file__).resolve().parents[2]
_DOCUMENTS = [p.text for p in load_passages(_REPOSITORY / "tests" / "realtext" / "passages.jsonl")] + [
    "".join(read_document(path).streams) for path in sorted((_REPOSITORY / "data" / "drafts").glob("*.[tm][xd]*"))]
_NOISE_CHARACTERS = "민법형제조항호의구 ,.()[]「」‘’\n0123456789대판원선고다도헌바<>*#|·ㆍ~"
_NOISE = st.text(alphabet=st.sampled_from(list(_NOISE_CHARACTERS)), max_size=40)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=st.integers(0, len(_DOCUMENTS) - 1), at=st.floats(0, 1), noise=_NOISE)
def test_outside_the_replaced_spans_a_recited_draft_is_the_draft_byte_for_byte(
        shipped_database_url: str, document: int, at: float, noise: str) -> None:
    original = _DOCUMENTS[document]
    cut = int(len(original) * at)
    text = original[:cut] + noise + original[cut:]
    draft = PlainTextDocument((text,), "utf-8", "draft")
    pipeline = _pipeline(shipped_database_url)
    recited = pipeline.recite(draft)
    edits = sorted(recited.edits.get(0, []))
    rewritten = {o.span: o for o in recited.outcomes if o.action == "rewritten"}
    assert [(e.start, e.end) for e in edits] == sorted(rewritten)
    found = {f.span: f.citation for f in pipeline.find(text)}  # the pipeline's finder: the database's names
    pieces, position = [], 0
    for edit in edits:
        assert edit.start >= position  # no two replacements overlap
        pieces += [text[position:edit.start], edit.replacement]
        position = edit.end
        (read,) = pipeline.find(edit.replacement)  # one citation, the one the report claims
        assert read.span == (0, len(edit.replacement))
        assert read.citation.canonical() == rewritten[(edit.start, edit.end)].canonical
        assert stated_changes(found[(edit.start, edit.end)], read.citation) == []
    assert draft.render(recited.edits).decode("utf-8") == "".join([*pieces, text[position:]])


@functools.cache
def _pipeline(url: str) -> RecitePipeline:  # one per database: building it reads the lexicon
    return build_pipeline(url, None)


class _ArticlesHeld:
    """A verifier that holds 민법 제750조, 제752조 and 제753조, and no other article."""

    def document_resolver(self) -> _ArticlesHeld:
        return self

    def resolve(self, text: str, found: FoundCitation) -> Resolution:
        return Resolution(found.citation)

    def verify(self, citation: ParsedCitation) -> Check:
        held = isinstance(citation, StatuteCitation) and citation.act == "민법" and citation.article in (750, 752, 753)
        return Check("verified" if held else "not_found", citation.canonical() if held else None, "")


@pytest.mark.parametrize(("written", "action", "says"), [
    ("민법 제752조부터 제753조까지", "kept", ""),
    ("민법 제750조 내지 제753조", "review", "제751조, which do not verify"),
], ids=["nothing-inside", "inside-missing"])
def test_the_articles_inside_a_range_are_verified_too(tmp_path: Path, written: str, action: str, says: str) -> None:
    """`제750조부터 제752조까지` cites 제751조 as well (issue 12): it is checked like the ends, and a range
    whose inside does not verify is not passed over."""
    path = tmp_path / "a.txt"
    path.write_text(f"책임은 {written}에 따른다.", encoding="utf-8")
    pipeline = RecitePipeline(functools.partial(find_citations, lenient=True), _ArticlesHeld())
    outcomes = pipeline.recite(read_document(path)).outcomes
    later_end = outcomes[-1]
    assert later_end.verdict == "verified" and says in later_end.reason, later_end
    assert later_end.action == action or (action == "kept" and later_end.action == "rewritten"), later_end



def _find_every_bare(text: str) -> list[FoundCitation]:
    """Each `BARE` in the draft; a canonical or re-generated form read back is one citation."""
    if text in (CANONICAL, REGENERATED):
        return [FoundCitation((0, len(text)), CASE, CitationForm.CANONICAL)]
    return [FoundCitation(match.span(), CASE, CitationForm.BARE_CASE_NUMBER)
            for match in re.finditer(re.escape(BARE), text)]


class _AfterCaseLaw:
    """Suggests only right after 판례: its answer depends on where the citation stands."""

    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        return REGENERATED if before.endswith("판례") else None


@pytest.mark.parametrize(("resolution", "regenerator", "actions"), [
    (Resolution(CASE), None, ["rewritten", "rewritten", "rewritten"]),
    (Resolution(None), _AfterCaseLaw(), ["review", "suggested", "review"]),
], ids=["decided-once", "regenerated-in-context"])
def test_a_citation_written_again_is_decided_where_it_stands(tmp_path: Path, resolution: Resolution,
                                                             regenerator: _AfterCaseLaw | None,
                                                             actions: list[str]) -> None:
    path = tmp_path / "draft.txt"
    path.write_text(f"첫째 {BARE}.\n판례{BARE}에 따르면\n다시 {BARE}.", encoding="utf-8")
    document = read_document(path)
    pipeline = RecitePipeline(_find_every_bare, _Given(resolution, Check("verified")), regenerator)

    first, again = pipeline.recite(document), pipeline.recite(document)  # the second from the run's memo

    spans = [match.span() for match in re.finditer(re.escape(BARE), document.streams[0])]
    for recited in (first, again):
        assert [outcome.span for outcome in recited.outcomes] == spans
        assert [outcome.action for outcome in recited.outcomes] == actions
    assert first == again


class _CaseHeld:
    """A verifier that holds 대법원 2024. 7. 11. 선고 2024도4202 판결 and completes its bare number, as the
    database does."""

    def document_resolver(self) -> _CaseHeld:
        return self

    def resolve(self, text: str, found: FoundCitation) -> Resolution:
        return Resolution(CASE, ("court and date from the database",))

    def verify(self, citation: ParsedCitation) -> Check:
        return Check("verified", CANONICAL, "")


@pytest.mark.parametrize(("written", "action"), [
    ("위 판례(2024도4202)에 따르면", "rewritten"),
    ("같은 취지로 대법원(2024. 7. 11. 선고 2024도4202 판결)이 있다.", "review"),
    ("대법원 2024. 7. 11. 선고\n\n2024도4202 판결에 따르면", "review"),
    ("대법원\n\n2024. 7. 11. 선고 2024도4202 판결에 따르면", "review"),
    ("대법원 2024. 2. 30. 선고 2024도4202 판결에 따르면", "review"),
], ids=["bare", "court-before-a-parenthesis", "blank-line-before-the-number", "blank-line-after-the-court",
        "a-date-not-in-the-calendar"])
def test_a_case_read_without_the_head_written_just_before_it_is_not_completed_over_it(
        tmp_path: Path, written: str, action: str) -> None:
    """Completed from the database and rewritten, `대법원(2024. 7. 11. 선고 2024도4202 판결)` became
    `대법원(대법원 2024. 7. 11. 선고 …)`: its own court written twice; and `2024. 2. 30.` became the
    database's date without a word."""
    path = tmp_path / "a.txt"
    path.write_text(written, encoding="utf-8")
    document = read_document(path)
    recited = RecitePipeline(functools.partial(find_citations, lenient=True), _CaseHeld()).recite(document)
    (outcome,) = recited.outcomes
    assert outcome.action == action, outcome
    if action == "review":
        assert ("not in the calendar" if "2. 30." in written else "looks like this citation's own head, written apart"
                ) in outcome.reason
        assert document.render(recited.edits).decode() == written
