"""`python -m citegen.training`: bad input or usage ends with one line on stderr (and a hint) and exit
code 2, never a traceback; options that cannot apply are refused rather than ignored and recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from citegen.training.__main__ import app, evaluate


def _run(*arguments: str | Path) -> Result:
    return CliRunner().invoke(app, [str(argument) for argument in arguments])


def test_a_law_folder_without_acts_ends_with_one_line_naming_it(law_data_dirs: tuple[Path, Path],
                                                                 tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _run("corpus", "--law", empty, "--cases", law_data_dirs[1], "--out", tmp_path / "corpus.jsonl")
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"citegen training corpus: expected law.go.kr <법령> bodies (XML/JSON) in "
                                    f"{empty}, got no act\n  hint: ")
    assert "Traceback" not in result.output


def test_a_missing_case_folder_ends_with_one_line_naming_it(law_data_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    result = _run("corpus", "--law", law_data_dirs[0], "--cases", tmp_path / "nowhere", "--out", tmp_path / "c.jsonl")
    assert result.exit_code == 2, result.output
    assert f"got {tmp_path / 'nowhere'}, which does not exist" in result.output.splitlines()[0]


@pytest.mark.parametrize(
    "option",
    [("--on", "2026-12-02"), ("--act", "민법"), ("--other-acts", "0")],
    ids=["on", "act", "other-acts"],
)
def test_book_options_are_refused_with_a_folder_of_law_bodies(law_data_dirs: tuple[Path, Path], tmp_path: Path,
                                                              option: tuple[str, str]) -> None:
    law, cases = law_data_dirs
    result = _run("corpus", "--law", law, "--cases", cases, "--out", tmp_path / "corpus.jsonl", *option)
    assert result.exit_code == 2, result.output
    assert f"expected {option[0]} only with a statute book bundle" in result.output
    assert not (tmp_path / "corpus.jsonl").exists()


@pytest.mark.parametrize(
    ("option", "expected"),
    [(("--steps", "0"), "expected steps ≥ 1, got 0"), (("--batch-size", "0"), "expected batch_size ≥ 1, got 0"),
     (("--threads", "0"), "expected threads ≥ 1, got 0"),
     (("--block-size", "2048"), "expected a block of at most the model's 1024 positions, got 2048"),
     (("--messy-rate", "1.5"), "--messy-rate"), (("--samples", "-1"), "--samples"),
     (("--vocab-size", "100"), "--vocab-size")],
    ids=["no-steps", "empty-batch", "no-threads", "block-beyond-positions", "messy-rate-above-one",
         "negative-samples", "vocabulary-below-the-bytes"],
)
def test_model_refuses_an_option_out_of_range_before_reading_any_data(tmp_path: Path, option: tuple[str, str],
                                                                      expected: str) -> None:
    result = _run("model", "--law", tmp_path / "nowhere", "--out", tmp_path / "model", *option)
    assert result.exit_code == 2, result.output
    assert expected in result.output and "nowhere" not in result.output


def test_a_model_of_law_bodies_records_no_book_option_and_the_tokens_it_saw(law_data_dirs: tuple[Path, Path],
                                                                          tmp_path: Path) -> None:
    law, cases = law_data_dirs
    out = tmp_path / "model"
    result = _run("model", "--law", law, "--cases", cases, "--out", out, "--samples", "40", "--vocab-size", "300",
                  "--layers", "1", "--steps", "2", "--batch-size", "1000", "--block-size", "32", "--threads", "1")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "training_summary.json").read_text(encoding="utf-8"))
    assert summary["in_force_on"] is None
    assert not {"--on", "--act", "--other-acts"} & set(summary["command"].split())
    assert summary["tokens_seen"] == 2 * summary["corpus_tokens"]  # a batch larger than the corpus holds it once


def test_evaluate_does_not_call_its_questions_held_out() -> None:
    # They are drawn from the corpus generator with another seed: about half of the shipped model's
    # evaluation questions occur word for word in its training corpus.
    assert evaluate.__doc__ is not None
    assert "not held out" in " ".join(evaluate.__doc__.split())
    assert "held-out" not in evaluate.__doc__
