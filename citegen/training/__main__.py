"""`python -m citegen.training`: build the shipped model from the statute book and the sample cases.

    python -m citegen.training corpus --out build/training/corpus.jsonl   # inspect the corpus
    python -m citegen.training model  --out data/models/ko-legal-tiny     # corpus, tokenizer, model
    python -m citegen.training evaluate                                   # how it cites, unconstrained

Bad input or usage (law data that cannot be read, an option out of range) ends the command with one
line saying what was wrong, a hint, and exit code 2, as every citegen command reports it
(citegen.commands.startup).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import platform
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NamedTuple

import torch
import typer

from citegen.commands.startup import StartupError, starting
from citegen.training.corpus import CorpusGenerator, write_corpus
from citegen.training.errors import TrainingDataError, TrainingError
from citegen.training.evaluate import answers, citation_report
from citegen.training.sources import CORE_ACTS, LawData, book_acts, law_data, read_law_data
from citegen.training.tokenizer import MIN_VOCAB_SIZE, partial_utf8_tokens, train_tokenizer
from citegen.training.train import ModelShape, Schedule, build_model, check_block_fits, pack_blocks, save_model, train

DATA_DIR = Path("data")  # the CLI runs from the repository root, like the Makefile
OTHER_ACTS = 20  # drawn from the statute book unless --other-acts says otherwise
app = typer.Typer(help="Build the synthetic corpus, the tokenizer and the tiny model.", no_args_is_help=True,
                  add_completion=False)

LawDir = Annotated[Path, typer.Option(help="The statute book (a *.book.jsonl.xz bundle or a folder holding one, "
                                            "with aliases.json), or a folder of <법령> bodies.")]
CaseDir = Annotated[Path, typer.Option(help="Folder of PrecService / detc bodies.")]
InForceOn = Annotated[dt.datetime | None, typer.Option(
    "--on", formats=["%Y-%m-%d"],
    help="Read the statute book as in force on this date (default: today; a bundle only).")]
CoreActs = Annotated[list[str] | None, typer.Option(
    "--act", help="A core act of the corpus, by name (repeat it; default: the 37 acts of sources.CORE_ACTS; "
                  "a bundle only).")]
OtherActs = Annotated[int | None, typer.Option(
    min=0, help=f"Acts drawn from the statute book besides the core ones (default: {OTHER_ACTS}; a bundle only).")]
Seed = Annotated[int, typer.Option(help="Seeds the corpus, the initial weights and the data order.")]
Samples = Annotated[int, typer.Option(min=0, help="Number of Q&A samples in the corpus.")]
MessyRate = Annotated[float, typer.Option(min=0.0, max=1.0,
                                          help="Share of citations written in a messy or wrong form.")]
_DATA_HINT = ("point --law at the statute book (data/law) or a folder of <법령> bodies, and --cases at a "
              "folder of case bodies (data/cases)")


@contextmanager
def _refusing_bad_input(command: str) -> Iterator[None]:
    """A TrainingError is bad input or usage, reported as every citegen command reports one (exit 2);
    anything else is a bug and keeps its traceback."""
    with starting(f"training {command}"):
        try:
            yield
        except TrainingDataError as error:
            raise StartupError(str(error), _DATA_HINT) from error
        except TrainingError as error:
            raise StartupError(str(error), f"see `python -m citegen.training {command} --help`") from error


class _Law(NamedTuple):
    data: LawData
    in_force_on: dt.date | None  # the statute book's day; None for <법령> bodies
    chosen_by: str  # the options that chose the acts, as a command line repeats them


def _law_data(law: Path, cases: Path, on: dt.datetime | None, core: list[str] | None, other_acts: int | None,
              seed: int) -> _Law:
    # The bundle reader is the verifier's: the composition root module that wraps it is imported
    # here, in the CLI, so that the training library itself never imports the verifier.
    from citegen.commands.statute_book import bundle_in, read_statute_book

    bundle = bundle_in(law)
    if bundle is None:
        given = [flag for flag, is_given in (("--on", on is not None), ("--act", bool(core)),
                                             ("--other-acts", other_acts is not None)) if is_given]
        if given:  # <법령> bodies are the acts of the corpus, in force as written: nothing to choose
            raise TrainingError(f"expected {', '.join(given)} only with a statute book bundle (*.book.jsonl.xz), "
                                f"got --law {law}, which holds none")
        return _Law(read_law_data(law, cases), None, "")
    day = (on or dt.datetime.now()).date()
    others = OTHER_ACTS if other_acts is None else other_acts
    acts = book_acts(read_statute_book(bundle, day), others, seed, tuple(core or CORE_ACTS))
    chosen_by = f"--on {day:%Y-%m-%d} {''.join(f'--act {name!r} ' for name in core or ())}--other-acts {others} "
    return _Law(law_data(acts, cases, (law if law.is_dir() else law.parent) / "aliases.json"), day, chosen_by)


@app.command()
def corpus(
    out: Annotated[Path, typer.Option(help="JSONL file to write.")] = Path("build/training/corpus.jsonl"),
    law: LawDir = DATA_DIR / "law",
    cases: CaseDir = DATA_DIR / "cases",
    on: InForceOn = None,
    core_acts: CoreActs = None,
    other_acts: OtherActs = None,
    seed: Seed = 0,
    samples: Samples = 8000,
    messy_rate: MessyRate = 0.15,
) -> None:
    """Write the corpus with the citations of each answer and their forms."""
    with _refusing_bad_input("corpus"):
        data = _law_data(law, cases, on, core_acts, other_acts, seed).data
        write_corpus(list(CorpusGenerator(data, seed, messy_rate).samples(samples)), out)
    typer.echo(f"{samples} samples from {len(data.acts)} acts and {len(data.decisions)} decisions -> {out}")


@app.command()
def model(
    out: Annotated[Path, typer.Option(help="Model folder to write.")] = DATA_DIR / "models" / "ko-legal-tiny",
    law: LawDir = DATA_DIR / "law",
    cases: CaseDir = DATA_DIR / "cases",
    on: InForceOn = None,
    core_acts: CoreActs = None,
    other_acts: OtherActs = None,
    seed: Seed = 0,
    samples: Samples = 8000,
    messy_rate: MessyRate = 0.15,
    vocab_size: Annotated[int, typer.Option(
        min=MIN_VOCAB_SIZE, help="Entries in the BPE vocabulary, special tokens included.")] = 4096,
    layers: Annotated[int, typer.Option(help="Decoder layers.")] = 4,
    steps: Annotated[int, typer.Option(help="Optimizer steps.")] = 1000,
    batch_size: Annotated[int, typer.Option(help="Blocks per step.")] = 16,
    block_size: Annotated[int, typer.Option(help="Tokens per block.")] = 256,
    learning_rate: Annotated[float, typer.Option(help="Peak learning rate.")] = 3e-3,
    threads: Annotated[int, typer.Option(help="torch CPU threads.")] = 2,
) -> None:
    """Generate the corpus, train the tokenizer and the model, and save them in transformers format."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    started = time.monotonic()
    with _refusing_bad_input("model"):
        # refused before the data is read, not after the pipeline has run
        shape = ModelShape(layers=layers)
        schedule = Schedule(steps=steps, batch_size=batch_size, block_size=block_size,
                            learning_rate=learning_rate, threads=threads)
        check_block_fits(schedule.block_size, shape.max_positions)
        law_read = _law_data(law, cases, on, core_acts, other_acts, seed)
        data = law_read.data
        corpus_samples = list(CorpusGenerator(data, seed, messy_rate).samples(samples))
        texts = [m["content"] for s in corpus_samples for m in s.messages()]
        tokenizer = train_tokenizer(texts, vocab_size)
        typer.echo(f"tokenizer: {len(tokenizer)} tokens, {len(partial_utf8_tokens(tokenizer))} split a character")
        blocks = pack_blocks(corpus_samples, tokenizer, block_size)
        network = build_model(shape, tokenizer, seed)
        typer.echo(f"corpus: {blocks.numel()} tokens in {len(blocks)} blocks; model: "
                   f"{sum(p.numel() for p in network.parameters())} parameters")
        result = train(network, blocks, schedule, seed)
    summary: dict[str, object] = {
        "command": f"python -m citegen.training model --law {law} --cases {cases} {law_read.chosen_by}"
                   f"--out {out} --seed {seed} --samples {samples} --messy-rate {messy_rate} "
                   f"--vocab-size {vocab_size} --layers {layers} --steps {steps} --batch-size {batch_size} "
                   f"--block-size {block_size} --learning-rate {learning_rate} --threads {threads}",
        "seed": seed, "samples": samples,
        "in_force_on": law_read.in_force_on, "acts": len(data.acts),  # None for <법령> bodies
        "articles": sum(len(act.articles) for act in data.acts), "decisions": len(data.decisions),
        "corpus_tokens": blocks.numel(), "shape": shape, "schedule": schedule, **result,
        "total_seconds": round(time.monotonic() - started, 1),
        "torch": torch.__version__, "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
    }
    save_model(network, tokenizer, out, summary)
    typer.echo(f"saved to {out}: loss {result['final_loss']}, {result['wall_seconds']} s of training")


@app.command()
def evaluate(
    model_dir: Annotated[Path, typer.Option("--model", help="Model folder.")] = DATA_DIR / "models" / "ko-legal-tiny",
    law: LawDir = DATA_DIR / "law",
    cases: CaseDir = DATA_DIR / "cases",
    on: InForceOn = None,
    core_acts: CoreActs = None,
    other_acts: OtherActs = None,
    training_seed: Annotated[int, typer.Option(help="The training seed (it drew the other acts).")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the question draw; not the training seed.")] = 1000,
    questions: Annotated[int, typer.Option(min=0, help="Questions drawn from the corpus generator.")] = 40,
    temperature: Annotated[float, typer.Option(
        min=0.0, help="0 answers greedily; above 0 samples (seeded).")] = 0.0,
) -> None:
    """Answer questions drawn from the corpus generator with another seed and count the citation forms
    in the answers. The questions are not held out: the generator has few question templates, so
    many (about half, for the shipped model) occur word for word in the training corpus."""
    with _refusing_bad_input("evaluate"):
        data = _law_data(law, cases, on, core_acts, other_acts, training_seed).data
        asked = [sample.question for sample in CorpusGenerator(data, seed).samples(questions)]
    asked = ["불법행위로 인한 손해배상책임의 요건은 무엇인가요?", *asked]
    started = time.monotonic()
    report = citation_report(asked, answers(model_dir, asked, temperature, seed))
    typer.echo(f"{report.answers} answers in {time.monotonic() - started:.0f} s, "
               f"{report.answers_with_citations} with citations; {report.citations} citations, "
               f"{report.canonical_share:.0%} canonical")
    for form, count in report.forms.most_common():
        typer.echo(f"  {count:4d}  {form}")
    for question, answer in report.examples:
        typer.echo(f"\nQ: {question}\nA: {answer}")


if __name__ == "__main__":
    app()
