"""Re-generation prompts are bounded in tokens, as the model's context is. They were cut at a number of
characters, but a Hanja character costs the shipped tokenizer 3 tokens: the prose before a citation in a
Hanja-heavy draft came to more tokens than the model's 1024, citegen's engine refused it
(PromptTooLongError) and the whole document failed. A slot that still cannot be re-generated sends its
citation to review with the reason; the document's other citations are decided all the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers import AutoTokenizer, PreTrainedTokenizerBase
from typer.testing import CliRunner

from citegen.cli import app
from citegen.commands.recite_wiring import build_pipeline
from citegen.recite.documents import PlainTextDocument
from citegen.recite.errors import RegenerationError
from citegen.recite.pipeline import CONTEXT_CHARS
from citegen.recite.regenerate import slot_prompt
from grammars import ParsedCitation

SHIPPED_MODEL = Path(__file__).resolve().parents[2] / "data" / "models" / "ko-legal-tiny"
# 國漢文 as older decisions and commentaries write it: three tokens a character to the shipped tokenizer
HANJA = ("凡人之行爲其結果及於他人則其責任亦隨之民事上不法行爲者違法侵害他人之權利而生損害之事也"
         "故意過失之有無當依具體事情判斷之")
DRAFT = ("민법 제750조는 불법행위의 내용에 관하여 규정합니다.\n" + HANJA * 8
         + "\n이에 관하여는 민법 제9999조가 있다. 민법 제751조 제1항도 본다.\n")


@pytest.fixture(scope="module")
def tokenizer() -> PreTrainedTokenizerBase:
    return AutoTokenizer.from_pretrained(SHIPPED_MODEL, local_files_only=True)


def _context(model: Path) -> int:
    return json.loads((model / "config.json").read_text("utf-8"))["max_position_embeddings"]


def test_a_hanja_draft_is_recited_with_the_shipped_model(tmp_path: Path, sample_database_url: str,
                                                          tokenizer: PreTrainedTokenizerBase) -> None:
    before = DRAFT[: DRAFT.index("민법 제9999조")][-CONTEXT_CHARS:]
    assert len(tokenizer(before, verbose=False).input_ids) > _context(SHIPPED_MODEL)  # what characters let through
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "hanja.txt").write_text(DRAFT, encoding="utf-8")
    out = tmp_path / "out"

    result = CliRunner().invoke(app, ["recite", str(tmp_path / "drafts"), "--out", str(out), "--regenerate",
                                      "--database-url", sample_database_url, "--jobs", "1", "--quiet"],
                                env={"CITEGEN_MODEL_PATH": str(SHIPPED_MODEL), "CITEGEN_BACKEND": "builtin"})

    assert result.exit_code == 1, result.output  # 1: a citation needs review, not a failed document
    records = [json.loads(line) for line in (out / "report.jsonl").read_text("utf-8").splitlines()]
    decided = {r["original"]: r for r in records if r.get("record") == "citation"}
    assert [r for r in records if r.get("verdict") == "failed"] == []
    assert set(decided) == {"민법 제750조", "민법 제9999조", "민법 제751조 제1항"}
    assert decided["민법 제9999조"]["action"] == "review"
    assert "re-generat" in decided["민법 제9999조"]["reason"]
    assert decided["민법 제751조 제1항"]["action"] == "kept"
    assert (out / "documents" / "drafts" / "hanja.txt").read_text("utf-8") == DRAFT


@pytest.mark.parametrize("budget", [1, 30, 500, 926], ids=lambda b: f"{b}-tokens")
def test_the_prompt_is_the_longest_end_of_the_prose_that_fits(tokenizer: PreTrainedTokenizerBase,
                                                             budget: int) -> None:
    prose = "판시한 바와 같이 " + HANJA * 8 + " 이에 관하여는 "
    prompt = slot_prompt(prose, "", tokenizer, budget)
    assert prose.strip().endswith(prompt)
    assert len(tokenizer(prompt).input_ids) <= budget
    longer = prose.strip()[-len(prompt) - 1:].lstrip()
    assert len(tokenizer(longer).input_ids) > budget


def test_prose_that_fits_is_kept_whole(tokenizer: PreTrainedTokenizerBase) -> None:
    assert slot_prompt("  피고의 책임은 ", "에 따른다.", tokenizer, 926) == "피고의 책임은"
    assert slot_prompt(" ", " 에 따른다.", tokenizer, 926) == "에 따른다."


class _Refusing:
    """A regenerator whose model cannot take any slot."""

    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        raise RegenerationError("expected the engine to take the slot's prompt, got: too long")


def test_a_slot_that_cannot_be_regenerated_goes_to_review_and_the_document_goes_on(sample_database_url: str) -> None:
    pipeline = build_pipeline(sample_database_url, None)
    pipeline.regenerator = _Refusing()
    text = "관련 조문으로 민법 제9999조가 있다. 민법 제751조 제1항도 본다."

    outcomes = pipeline.recite(PlainTextDocument((text,), "utf-8", "draft")).outcomes

    assert [(o.original, o.action) for o in outcomes] == [("민법 제9999조", "review"), ("민법 제751조 제1항", "kept")]
    assert outcomes[0].reason.endswith("re-generation failed: expected the engine to take the slot's prompt, "
                                       "got: too long")
