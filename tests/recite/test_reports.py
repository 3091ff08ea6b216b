"""The reviewer's HTML: every piece of a draft's text is escaped, and each changed line is shown once."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from citegen.recite import reports
from citegen.recite.pipeline import CitationOutcome
from citegen.recite.reports import DocumentReport, ResultFiles, SummaryRow, write_diff, write_html


def _outcome(stream: int, text: str, cited: str, action: str, canonical: str | None, reason: str = "",
             context: tuple[str, ...] = ()) -> CitationOutcome:
    start = text.index(cited)
    return CitationOutcome(stream, (start, start + len(cited)), cited, canonical, "verified", action, reason,
                           "abbreviated", context=context)


def render_diff(streams: Sequence[str], outcomes: Iterable[CitationOutcome]) -> str:
    out = io.StringIO()
    write_diff(streams, outcomes, out)
    return out.getvalue()


def test_text_reasons_and_canonical_forms_are_escaped() -> None:
    text = '<script>alert(1)</script> 민소법 제1조 "인용"'
    outcomes = [_outcome(0, text, "민소법 제1조", "suggested", "<b>민사소송법 제1조</b>", reason='a "quoted" <reason>')]
    page = render_diff([text], outcomes)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>민사소송법" not in page and "&lt;b&gt;민사소송법 제1조&lt;/b&gt;" in page
    assert 'title="a &#34;quoted&#34; &lt;reason&gt;"' in page


def test_each_changed_line_is_one_row_numbered_in_its_stream_and_kept_citations_are_not_shown() -> None:
    body = "첫 줄 민법 제750조\n둘째 줄\n민소법 제1조와 민소법 제2조"
    notes = "주석의 민소법 제3조"
    outcomes = [_outcome(0, body, "민법 제750조", "kept", "민법 제750조"),
                _outcome(0, body, "민소법 제1조", "rewritten", "민사소송법 제1조"),
                _outcome(0, body, "민소법 제2조", "rewritten", "민사소송법 제2조", context=("act: from before",)),
                _outcome(1, notes, "민소법 제3조", "review", None, reason="not in the database")]
    page = render_diff([body, notes], outcomes)
    assert page.count('<tr class="del">') == 2
    assert '<td>3</td><td>−</td><td><del>민소법 제1조</del>와 <del>민소법 제2조</del></td>' in page
    assert '<td>+</td><td><ins>민사소송법 제1조</ins>와 <ins>민사소송법 제2조</ins></td>' in page
    note = "<b>rewritten from context</b> <code>민소법 제2조</code> → <code>민사소송법 제2조</code>: act: from before"
    assert note in page
    assert "<code>민소법 제1조</code> →" not in page  # a rewrite that rests on nothing else gets no note
    assert '<td>1:1</td>' in page and "not in the database <i>(verified)</i>" in page
    assert "민법 제750조" not in page


def test_a_document_without_changes_says_so() -> None:
    assert render_diff(["민법 제750조"], []) == '<p class="quiet">No citation changed or needs review.</p>'


def test_the_page_holds_a_documents_diff_whole_whatever_the_pieces_it_is_read_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "민소법 제1조와 민소법 제2조\n둘째 줄의 민소법 제3조"
    outcomes = [_outcome(0, body, cited, "rewritten", cited.replace("민소법", "민사소송법"))
                for cited in ("민소법 제1조", "민소법 제2조", "민소법 제3조")]
    result, report = ResultFiles(tmp_path / "result.json"), DocumentReport("draft.txt", None, "done")
    result.write_outcomes(report, outcomes, [body])
    result.write_header(report)
    fragment = result.diff.read_text("utf-8")

    def page() -> str:
        out = io.BytesIO()
        write_html([SummaryRow.of(report)], [(report, result)], out, "batch")
        return out.getvalue().decode("utf-8")

    whole = page()
    monkeypatch.setattr(reports, "DIFF_PIECE", 5)  # pieces that split a line, a tag and a syllable's bytes
    assert page() == whole
    assert len(fragment) > 5 and fragment + "\n" in whole


def test_outcome_lines_are_each_outcomes_own_json_also_where_outcomes_repeat(tmp_path: Path) -> None:
    """The lines share the encoding of what repeated outcomes say, never where they stand."""
    text = '민소법 제1조, 민소법 제1조 및 "민소법 제1조"'
    same = _outcome(0, text, "민소법 제1조", "rewritten", "민사소송법 제1조", reason='a "quoted" <reason>',
                    context=("act: 민소법 → 민사소송법",))
    outcomes = [same, CitationOutcome(0, (10, 18), *reports.placeless(same)),
                CitationOutcome(0, (20, 27), "민소법 제1조", None, "verified", "review", "", "abbreviated"),
                CitationOutcome(3, (0, 8), *reports.placeless(same))]
    result = ResultFiles(tmp_path / "doc.json")
    result.write_outcomes(DocumentReport("doc.txt", None, "done"), outcomes, [text, "", "", text])
    expected = [json.dumps(reports.outcome_record(outcome), ensure_ascii=False) + "\n" for outcome in outcomes]
    assert result.outcomes.read_text("utf-8").splitlines(keepends=True) == expected


def test_outcomes_written_as_they_come_make_the_lines_diff_and_counts_of_the_document(tmp_path: Path) -> None:
    body = "첫 줄 민법 제750조\n둘째 줄\n민소법 제1조와 민소법 제2조"
    outcomes = [_outcome(0, body, "민법 제750조", "kept", "민법 제750조"),
                _outcome(0, body, "민소법 제1조", "rewritten", "민사소송법 제1조"),
                _outcome(0, body, "민소법 제2조", "review", None, reason="not in the database"),
                _outcome(1, "주석의 민소법 제3조", "민소법 제3조", "suggested", "민사소송법 제3조")]
    result, report = ResultFiles(tmp_path / "streamed.json"), DocumentReport("d.txt", None, "done")
    result.write_outcomes(report, iter(outcomes), [body, "주석의 민소법 제3조"])
    assert not result.header.exists()  # the header comes last, when the caller has written the rest
    result.write_header(report)
    assert result.outcomes.read_text("utf-8").splitlines(keepends=True) == [
        json.dumps(reports.outcome_record(o), ensure_ascii=False) + "\n" for o in outcomes]
    assert result.diff.read_text("utf-8") == render_diff([body, "주석의 민소법 제3조"], outcomes)
    assert result.read().counts == {"kept": 1, "rewritten": 1, "review": 1, "suggested": 1}


def test_a_diff_written_as_outcomes_come_refuses_them_out_of_text_order() -> None:
    text = "민소법 제1조와 민소법 제2조"
    first, second = (_outcome(0, text, cited, "review", None) for cited in ("민소법 제1조", "민소법 제2조"))
    with pytest.raises(RuntimeError, match="expected outcomes in stream and text order"):
        render_diff([text], iter([second, first]))


@pytest.mark.parametrize("piece", [1, 40, 1 << 20], ids=["a-character", "mid-line", "whole-file"])
def test_report_lines_are_each_outcome_under_its_file_however_the_lines_are_read_in_pieces(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int) -> None:
    text = '민소법 제1조와 "민소법 제2조"\n{민법 제750조}'
    outcomes = [_outcome(0, text, "민소법 제1조", "rewritten", "민사소송법 제1조", reason='a "{quoted}" reason\n'),
                _outcome(0, text, "민소법 제2조", "review", None, context=("{\n",)),
                _outcome(0, text, "민법 제750조", "kept", "민법 제750조")]
    result, report = ResultFiles(tmp_path / "doc.json"), DocumentReport("폴더/doc.txt", None, "done")
    result.write_outcomes(report, outcomes, [text])
    monkeypatch.setattr(reports, "DIFF_PIECE", piece)
    out = io.BytesIO()
    reports.write_jsonl(result, report, out)
    assert out.getvalue().decode("utf-8").splitlines() == [
        json.dumps({"file": "폴더/doc.txt", "record": "citation", **reports.outcome_record(o)}, ensure_ascii=False)
        for o in outcomes]
