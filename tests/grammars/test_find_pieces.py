"""A long text is found a piece at a time (`CitationFinder.iter_find`, pieces cut at blank lines): what
comes out is what finding the whole text at once gives, on real drafts and passages, and what a piece
needs from the ones before it (a 시행령 cited, for `영`) is carried over."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grammars import default_finder
from grammars import find as find_module

ROOT = Path(__file__).resolve().parents[2]


def _decoded(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # the drafts written in CP949
        return data.decode("cp949")


def _texts() -> list[str]:
    drafts = [_decoded(p.read_bytes()) for p in sorted((ROOT / "data" / "drafts").iterdir())
              if p.suffix in (".txt", ".md")]
    with (ROOT / "tests" / "realtext" / "passages.jsonl").open(encoding="utf-8") as lines:
        passages = [json.loads(line)["text"] for line in lines if line.strip()]
    return ["\n\n".join(drafts), "\n\n".join(passages)]


@pytest.mark.parametrize("which", [0, 1], ids=["drafts", "real passages"])
def test_pieces_find_what_the_whole_text_gives(which: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _texts()[which]
    whole = default_finder().find(text)
    monkeypatch.setattr(find_module, "PIECE", 1)  # a piece at every blank line
    assert len(list(find_module._pieces(text))) > 20
    assert list(default_finder().iter_find(text)) == whole != []


@pytest.mark.parametrize(("text", "found"), [
    ("근로기준법 시행령 제30조를 본다.\n\n영 제31조에 따른다.", ["근로기준법 시행령 제30조", "영 제31조"]),
    ("영 제31조에 따른다.\n\n근로기준법 시행령 제30조를 본다.", ["근로기준법 시행령 제30조"]),
    ("민법 제750조.\n\n위 제751조도 같다.", ["민법 제750조", "위 제751조"]),
    ("위 제751조도 같다.\n\n민법 제750조.", ["민법 제750조"]),
], ids=["decree before", "decree after", "statute before", "statute after"])
def test_a_piece_knows_the_kinds_of_act_cited_in_pieces_before(text: str, found: list[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(find_module, "PIECE", 1)
    assert [text[slice(*f.span)] for f in default_finder().iter_find(text)] == found
    monkeypatch.setattr(find_module, "PIECE", 1 << 20)
    assert [text[slice(*f.span)] for f in default_finder().iter_find(text)] == found
