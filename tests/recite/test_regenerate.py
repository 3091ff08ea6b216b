"""Re-generation of an unresolvable slot under the answer automaton, with a tiny Llama and a
byte-level BPE tokenizer built and briefly trained here on sentences that cite: what comes back is
the first citation the model closes, well-formed, of the kind the draft wrote, of an act the
database holds, the same every time."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from pathlib import Path

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from citegen.commands.recite_wiring import build_pipeline
from citegen.models import LoadedModel, wrap_model
from citegen.recite import BatchOptions, collect_inputs, run_batch
from citegen.recite.regenerate import EngineRegenerator
from grammars import CaseCitation, CaseNumber, StatuteCitation, parse_citation

LEXICON = {"민법": ["750", "751"], "형법": ["250"]}
CORPUS = ["피고의 책임은 민법 제750조에 따른다.", "이 점은 판례(대법원 2024. 7. 11. 선고 2024도4202 판결)와 같다.",
          "살인죄는 형법 제250조에 따른다.", "피고의 책임은 민법 제751조에 따른다."]


@pytest.fixture(scope="module")
def loaded() -> LoadedModel:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(CORPUS, trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|end|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|end|>", pad_token="<|end|>")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256,
                         bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id, pad_token_id=fast.eos_token_id)
    model = LlamaForCausalLM(config)
    batch = fast([text + "<|end|>" for text in CORPUS], padding=True, return_tensors="pt")
    labels = batch.input_ids.masked_fill(batch.attention_mask == 0, -100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small trains fastest on one thread, above all on a busy machine
    try:
        for _ in range(60):  # enough to recite the corpus, so the slots below get citations
            model(**batch, labels=labels).loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    finally:
        torch.set_num_threads(threads)
    return wrap_model(model.eval(), fast)


@pytest.fixture(scope="module")
def regenerator(loaded: LoadedModel) -> EngineRegenerator:
    return EngineRegenerator(loaded, LEXICON, max_new_tokens=40)


SLOTS = [
    ("statute-of-a-known-act", StatuteCitation("민법", 9999), "민법"),
    ("statute-of-an-unknown-act", StatuteCitation("없는법", 1), None),
    ("back-reference", StatuteCitation(None, 3, back_reference="같은 법"), None),
]


@pytest.mark.parametrize(("written", "act"), [s[1:] for s in SLOTS], ids=[s[0] for s in SLOTS])
def test_a_statute_slot_gets_an_existing_article_of_the_database(regenerator: EngineRegenerator,
                                                                 written: StatuteCitation, act: str | None) -> None:
    suggestion = regenerator.suggest("피고의 책임은 ", written, "에 따른다.")
    assert suggestion is not None
    parsed = parse_citation(suggestion) or regenerator.parser.parse(suggestion)
    assert isinstance(parsed, StatuteCitation) and parsed.canonical() == suggestion
    assert parsed.act in LEXICON and str(parsed.article) in LEXICON[parsed.act]
    assert act is None or parsed.act == act


def test_a_case_slot_gets_a_complete_case_citation_of_the_written_court(regenerator: EngineRegenerator) -> None:
    written = CaseCitation(CaseNumber(2099, "다", 1), "대법원", dt.date(2099, 1, 1))
    suggestion = regenerator.suggest("이 점은 판례(", written, ")와 같다.")
    parsed = parse_citation(suggestion or "")
    assert isinstance(parsed, CaseCitation) and parsed.court == "대법원" and parsed.canonical() == suggestion


def test_the_same_slot_gets_the_same_suggestion(regenerator: EngineRegenerator) -> None:
    written = StatuteCitation("형법", 1)
    first = regenerator.suggest("살인죄는 ", written, "")
    assert first is not None and first == regenerator.suggest("살인죄는 ", written, "")


def test_no_prose_around_the_slot_gives_no_suggestion(regenerator: EngineRegenerator) -> None:
    assert regenerator.suggest("  ", StatuteCitation("민법", 1), "\n") is None


def test_a_batch_with_a_model_re_generates_but_offers_nothing_that_changes_what_the_draft_states(
        loaded: LoadedModel, tmp_path: Path, sample_database_url: str) -> None:
    """The draft states court, date, number and disposition, and the database knows no such case: any
    verified citation the model writes in its place is another decision, not a correction (issue 12)."""
    model_dir = tmp_path / "model"
    loaded.model.save_pretrained(model_dir)
    loaded.tokenizer.save_pretrained(model_dir)
    draft = "이 점은 판례(대법원 2020. 1. 1. 선고 2019다1 판결)와 같다."
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(draft, encoding="utf-8")
    out = tmp_path / "out"
    factory = functools.partial(build_pipeline, sample_database_url, model_dir)

    summary = run_batch(collect_inputs([tmp_path / "in"], out), BatchOptions(out, jobs=1), factory)

    (record,) = [json.loads(line) for line in (out / "report.jsonl").read_text("utf-8").splitlines()]
    assert (summary.exit_code, record["verdict"], record["action"]) == (1, "not_found", "review")
    assert record["canonical"] is None
    re_generated = re.search(r"re-generated '([^']+)', but .* would change what the draft states", record["reason"])
    assert re_generated is not None, record["reason"]
    assert isinstance(parse_citation(re_generated.group(1)), CaseCitation)
    assert (out / "documents" / "in" / "a.txt").read_text("utf-8") == draft
