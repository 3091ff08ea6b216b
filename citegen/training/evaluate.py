"""How the trained model cites when nothing constrains it: greedy answers to questions, and the
share of the citations in them (found by grammars' lenient finder) written in canonical form."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, BatchEncoding

from grammars import CitationForm, find_citations


@dataclass
class CitationReport:
    answers: int = 0
    answers_with_citations: int = 0
    forms: Counter[str] = field(default_factory=Counter)
    examples: list[tuple[str, str]] = field(default_factory=list)  # (question, answer), the first few

    @property
    def citations(self) -> int:
        return sum(self.forms.values())

    @property
    def canonical_share(self) -> float:
        return self.forms[CitationForm.CANONICAL.value] / self.citations if self.citations else 0.0


def answers(model_dir: Path, questions: list[str], temperature: float = 0.0, seed: int = 0,
            max_new_tokens: int = 200) -> list[str]:
    """Greedy answers at temperature 0, else sampled ones from `seed`."""
    sampling = {"do_sample": True, "temperature": temperature, "top_k": 0} if temperature > 0 else {"do_sample": False}
    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True).eval()  # type: ignore[no-untyped-call]
    written = []
    with torch.inference_mode():
        for question in questions:
            prompt = cast(BatchEncoding, tokenizer.apply_chat_template(  # return_dict: a BatchEncoding
                [{"role": "user", "content": question}], add_generation_prompt=True, return_tensors="pt",
                return_dict=True))
            output = model.generate(**prompt, max_new_tokens=max_new_tokens, **sampling)
            answer = tokenizer.decode(output[0, prompt["input_ids"].shape[1]:], skip_special_tokens=True)
            written.append(cast(str, answer))  # one sequence in, one text out
    return written


def citation_report(questions: list[str], written: list[str], keep_examples: int = 5) -> CitationReport:
    report = CitationReport()
    for question, answer in zip(questions, written, strict=True):
        # A citation inside <think> is the model's scratch work; only the answer counts.
        visible = answer.rsplit("</think>", 1)[-1]
        found = find_citations(visible, lenient=True)
        report.answers += 1
        report.answers_with_citations += bool(found)
        report.forms.update(citation.form.value for citation in found)
        if len(report.examples) < keep_examples:
            report.examples.append((question, answer))
    return report
