"""Tokens per second and the citation constraint's overhead: vLLM (CPU build, the processor in its
worker) against citegen's own continuous-batching loop, same model, prompts and answer language.

    bench/setup_vllm_env.sh   # once: .venv-vllm
    HF_HUB_OFFLINE=1 .venv/bin/python bench/vllm_bench.py [--model data/models/ko-legal-tiny]
        [--concurrency 1 8 32] [--tokens 64] [--repeats 2] [--out bench/results/vllm_bench.md]

For each concurrency c, c chat requests (engine_bench's questions cycled, temperature 0.8, one seed each, the
same seeds for both engines) are submitted at once and timed until the last finishes. "constrained"
requests carry the answer language (`citegen_grammar=answer`); "free" ones carry no citegen option,
so the processor stays installed but idle for them. Overhead = 1 - constrained tok/s / free tok/s.
Completion tokens per second counts every generated token of the batch over its wall time; the best
of `--repeats` runs is kept (the machine is shared). vLLM runs in .venv-vllm through
`python -m citegen.integrations.vllm_batch`; its engine start-up is reported, not timed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.engine_bench import QUESTIONS  # noqa: E402  the engine bench's question set, the same prompts
from bench.report import results_page  # noqa: E402
from citegen.constraint import ConstraintLibrary, Narrowing, compile_language  # noqa: E402
from citegen.engine import Engine, Request  # noqa: E402
from citegen.events import Finished  # noqa: E402
from citegen.models import LoadedModel, load_model  # noqa: E402
from citegen.narrowings import narrowed_answer_grammar  # noqa: E402
from citegen.sampling import SamplingParams  # noqa: E402
from grammars.compile import vocabulary_of  # noqa: E402

VLLM_PYTHON = REPO / ".venv-vllm" / "bin" / "python"
TEMPERATURE = 0.8
MODES = ("free", "constrained")


def prompt_ids(loaded: LoadedModel, question: str) -> list[int]:
    text = loaded.tokenizer.apply_chat_template(
        [{"role": "user", "content": question}], tokenize=False, add_generation_prompt=True
    )
    return list(loaded.tokenizer(text, add_special_tokens=False).input_ids)


def engine_run(engine: Engine, concurrency: int, tokens: int, constrained: bool) -> tuple[float, int]:
    """(seconds, completion tokens) for `concurrency` requests submitted at once."""
    handles = [
        engine.submit(
            Request(
                messages=(("user", QUESTIONS[i % len(QUESTIONS)]),),
                constrain=constrained,
                sampling=SamplingParams(max_new_tokens=tokens, temperature=TEMPERATURE, seed=i),
            )
        )
        for i in range(concurrency)
    ]
    begun = time.perf_counter()
    while engine.has_work():
        engine.step()
    seconds = time.perf_counter() - begun
    generated = 0
    for handle in handles:
        while not handle.events.empty():
            event = handle.events.get()
            if isinstance(event, Finished):
                generated += event.completion_tokens
    return seconds, generated


def measure_engine(
    loaded: LoadedModel, levels: list[int], tokens: int, repeats: int
) -> dict[tuple[str, int], dict]:
    vocabulary = vocabulary_of(loaded.tokenizer, loaded.vocab_size)
    # the grammar the processor builds for `citegen_grammar: answer` (and `citegen serve --backend vllm`):
    # the built-in lexicon, shorthand forbidden
    grammar = narrowed_answer_grammar(None, Narrowing(), forbid_shorthand=True)
    library = ConstraintLibrary(lambda _: compile_language(grammar, vocabulary), loaded.vocab_size)
    engine = Engine(loaded, library, max_batch=max(levels))
    engine_run(engine, 2, 8, True)  # warm-up: compile the first states, touch the weights
    found = {}
    for concurrency in levels:
        for mode in MODES:
            runs = [engine_run(engine, concurrency, tokens, mode == "constrained") for _ in range(repeats)]
            seconds, generated = min(runs, key=lambda run: run[0] / max(run[1], 1))
            found[mode, concurrency] = {"seconds": seconds, "tokens": generated}
    return found


def measure_vllm(
    model: Path, loaded: LoadedModel, levels: list[int], tokens: int, repeats: int
) -> tuple[dict, float]:
    def batch(name: str, concurrency: int, constrained: bool) -> dict:
        extra = {"citegen_grammar": "answer"} if constrained else {}
        return {
            "name": name,
            "requests": [
                {
                    "prompt_token_ids": prompt_ids(loaded, QUESTIONS[i % len(QUESTIONS)]),
                    "extra_args": extra,
                    "sampling": {"max_tokens": tokens, "temperature": TEMPERATURE, "seed": i},
                }
                for i in range(concurrency)
            ],
        }

    batches = [batch("warm-up", 2, True)]
    batches += [
        batch(f"{mode}-{c}-{r}", c, mode == "constrained")
        for c in levels
        for mode in MODES
        for r in range(repeats)
    ]
    engine = {"model": str(model), "dtype": "float32", "max_model_len": 512, "max_num_seqs": max(levels)}
    with tempfile.TemporaryDirectory() as workdir:
        plan, result = Path(workdir) / "plan.json", Path(workdir) / "result.json"
        plan.write_text(json.dumps({"llm": engine, "batches": batches}, ensure_ascii=False), encoding="utf-8")
        environment = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "VLLM_CPU_KVCACHE_SPACE": "1",
            "VLLM_LOGGING_LEVEL": "WARNING",
            "PYTHONPATH": str(REPO),
        }
        subprocess.run(
            [str(VLLM_PYTHON), "-m", "citegen.integrations.vllm_batch", str(plan), str(result)],
            check=True,
            env=environment,
            cwd=workdir,
        )
        ran = json.loads(result.read_text(encoding="utf-8"))
    found = {}
    for concurrency in levels:
        for mode in MODES:
            runs = []
            for record in ran["batches"]:
                if record["name"].startswith(f"{mode}-{concurrency}-"):
                    if record["error"]:
                        raise RuntimeError(
                            f"expected the vLLM batch {record['name']} to run, got {record['error']}"
                        )
                    generated = sum(len(c["token_ids"]) for r in record["outputs"] for c in r)
                    runs.append((record["seconds"], generated))
            seconds, generated = min(runs, key=lambda run: run[0] / max(run[1], 1))
            found[mode, concurrency] = {"seconds": seconds, "tokens": generated}
    return found, ran["startup_seconds"]


def report(found: dict[str, dict], levels: list[int], startup: float, args: argparse.Namespace) -> str:
    lines = [
        "# vLLM (CPU build) with the citation processor vs citegen's own loop",
        "",
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; {platform.machine()}, {os.cpu_count()} CPUs "
        "(shared with other jobs: compare within a run); float32; model "
        f"`{_shown(args.model)}`; {args.tokens} new tokens at most, temperature {TEMPERATURE}, "
        f"best of {args.repeats}.",
        f"Command: `HF_HUB_OFFLINE=1 .venv/bin/python bench/vllm_bench.py --concurrency "
        f"{' '.join(map(str, levels))} --tokens {args.tokens} --repeats {args.repeats}`. "
        f"vLLM start-up: {startup:.1f} s.",
        "",
        "| engine | concurrent | free tok/s | constrained tok/s | constraint overhead |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, runs in found.items():
        for concurrency in levels:
            free, constrained = (runs[m, concurrency] for m in MODES)
            free_rate = free["tokens"] / free["seconds"]
            constrained_rate = constrained["tokens"] / constrained["seconds"]
            lines.append(
                f"| {name} | {concurrency} | {free_rate:.0f} | {constrained_rate:.0f} | "
                f"{1 - constrained_rate / free_rate:+.0%} |"
            )
    return "\n".join(lines) + "\n"


def _shown(path: Path) -> str:
    return str(path.resolve().relative_to(REPO)) if path.resolve().is_relative_to(REPO) else str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=REPO / "data" / "models" / "ko-legal-tiny")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "vllm_bench.md")
    args = parser.parse_args()
    if not VLLM_PYTHON.exists():
        sys.exit(f"expected the vLLM interpreter at {VLLM_PYTHON}, got none: run bench/setup_vllm_env.sh")
    loaded = load_model(args.model, "cpu")
    vllm_found, startup = measure_vllm(args.model, loaded, args.concurrency, args.tokens, args.repeats)
    engine_found = measure_engine(loaded, args.concurrency, args.tokens, args.repeats)
    text = report(
        {"vLLM + processor": vllm_found, "citegen engine": engine_found}, args.concurrency, startup, args
    )
    args.out.write_text(results_page([text], about=__doc__), encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
