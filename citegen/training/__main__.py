"""`python -m citegen.training`: build the shipped model from the statute book and the sample cases.

    python -m citegen.training corpus --out build/training/corpus.jsonl   # inspect the corpus
    python -m citegen.training model  --out data/models/ko-legal-tiny     # corpus, tokenizer, model
    python -m citegen.training evaluate                                   # how it cites, unconstrained
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import platform
import time
from pathlib import Path
from typing import Annotated

import torch
import typer

from citegen.training.corpus import CorpusGenerator, write_corpus
from citegen.training.evaluate import answers, citation_report
from citegen.training.sources import CORE_ACTS, LawData, book_acts, law_data, read_law_data
from citegen.training.tokenizer import partial_utf8_tokens, train_tokenizer
from citegen.training.train import ModelShape, Schedule, build_model, pack_blocks, save_model, train

DATA_DIR = Path("data")  # the CLI runs from the repository root, like the Makefile
app = typer.Typer(help="Build the synthetic corpus, the tokenizer and the tiny model.", no_args_is_help=True,
                  add_completion=False)

LawDir = Annotated[Path, typer.Option(help="The statute book (a *.book.jsonl.xz bundle or a folder holding one, "
                                            "with aliases.json), or a folder of <법령> bodies.")]
CaseDir = Annotated[Path, typer.Option(help="Folder of PrecService / detc bodies.")]
InForceOn = Annotated[dt.datetime | None, typer.Option(
    "--on", formats=["%Y-%m-%d"], help="Read the statute book as in force on this date (default: today).")]
CoreActs = Annotated[list[str] | None, typer.Option(
    "--act", help="A core act of the corpus, by name (repeat it; default: the 37 acts of sources.CORE_ACTS).")]
OtherActs = Annotated[int, typer.Option(help="Acts drawn from the statute book besides the core ones.")]
Seed = Annotated[int, typer.Option(help="Seeds the corpus, the initial weights and the data order.")]
Samples = Annotated[int, typer.Option(help="Number of Q&A samples in the corpus.")]
MessyRate = Annotated[float, typer.Option(help="Share of citations written in a messy or wrong form.")]


def _law_data(law: Path, cases: Path, on: dt.datetime | None, core: list[str] | None, other_acts: int,
              seed: int) -> LawData:
    # The bundle reader is the verifier's: the composition root module that wraps it is imported
    # here, in the CLI, so that the training library itself never imports the verifier.
    from citegen.commands.statute_book import bundle_in, read_statute_book

    bundle = bundle_in(law)
    if bundle is None:
        return read_law_data(law, cases)
    book = read_statute_book(bundle, (on or dt.datetime.now()).date())
    acts = book_acts(book, other_acts, seed, tuple(core or CORE_ACTS))
    return law_data(acts, cases, (law if law.is_dir() else law.parent) / "aliases.json")


@app.command()
def corpus(
    out: Annotated[Path, typer.Option(help="JSONL file to write.")] = Path("build/training/corpus.jsonl"),
    law: LawDir = DATA_DIR / "law",
    cases: CaseDir = DATA_DIR / "cases",
    on: InForceOn = None,
    core_acts: CoreActs = None,
    other_acts: OtherActs = 20,
    seed: Seed = 0,
    samples: Samples = 8000,
    messy_rate: MessyRate = 0.15,
) -> None:
    """Write the corpus with the citations of each answer and their forms."""
    data = _law_data(law, cases, on, core_acts, other_acts, seed)
    write_corpus(list(CorpusGenerator(data, seed, messy_rate).samples(samples)), out)
    typer.echo(f"{samples} samples from {len(data.acts)} acts and {len(data.decisions)} decisions -> {out}")


@app.command()
def model(
    out: Annotated[Path, typer.Option(help="Model folder to write.")] = DATA_DIR / "models" / "ko-legal-tiny",
    law: LawDir = DATA_DIR / "law",
    cases: CaseDir = DATA_DIR / "cases",
    on: InForceOn = None,
    core_acts: CoreActs = None,
    other_acts: OtherActs = 20,
    seed: Seed = 0,
    samples: Samples = 8000,
    messy_rate: MessyRate = 0.15,
    vocab_size: Annotated[int, typer.Option(help="Entries in the BPE vocabulary, special tokens included.")] = 4096,
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
    on = on or dt.datetime.now()
    data = _law_data(law, cases, on, core_acts, other_acts, seed)
    corpus_samples = list(CorpusGenerator(data, seed, messy_rate).samples(samples))
    texts = [m["content"] for s in corpus_samples for m in s.messages()]
    tokenizer = train_tokenizer(texts, vocab_size)
    typer.echo(f"tokenizer: {len(tokenizer)} tokens, {len(partial_utf8_tokens(tokenizer))} split a character")
    shape = ModelShape(layers=layers)
    schedule = Schedule(steps=steps, batch_size=batch_size, block_size=block_size,
                        learning_rate=learning_rate, threads=threads)
    blocks = pack_blocks(corpus_samples, tokenizer, block_size)
    network = build_model(shape, tokenizer, seed)
    typer.echo(f"corpus: {blocks.numel()} tokens in {len(blocks)} blocks; model: "
               f"{sum(p.numel() for p in network.parameters())} parameters")
    result = train(network, blocks, schedule, seed)
    summary = {
        "command": f"python -m citegen.training model --law {law} --cases {cases} --on {on:%Y-%m-%d} "
                   f"{''.join(f'--act {name!r} ' for name in core_acts or ())}--other-acts {other_acts} "
                   f"--out {out} --seed {seed} --samples {samples} --messy-rate {messy_rate} "
                   f"--vocab-size {vocab_size} --layers {layers} --steps {steps} --batch-size {batch_size} "
                   f"--block-size {block_size} --learning-rate {learning_rate} --threads {threads}",
        "seed": seed, "samples": samples, "in_force_on": f"{on:%Y-%m-%d}", "acts": len(data.acts),
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
    other_acts: OtherActs = 20,
    training_seed: Annotated[int, typer.Option(help="The training seed (it drew the other acts).")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the question draw; not the training seed.")] = 1000,
    questions: Annotated[int, typer.Option(help="Questions drawn from the corpus generator.")] = 40,
    temperature: Annotated[float, typer.Option(help="0 answers greedily; above 0 samples (seeded).")] = 0.0,
) -> None:
    """Answer held-out questions and count the citation forms in the answers."""
    data = _law_data(law, cases, on, core_acts, other_acts, training_seed)
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
