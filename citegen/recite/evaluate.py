"""Precision and recall of extraction + resolution against labelled drafts (`data/drafts/labels.jsonl`).

A label is `{"file", "original", "expected_canonical"}` (null when the citation cannot be resolved).
The k-th label of a given `original` in a file is the k-th occurrence of that text; the citation
the batch found overlapping it is its answer. The batch answers with a canonical form only when it
applies one (`kept`, `rewritten`); a suggestion or a review is an abstention.

    precision = correct answers / all answers (including answers for unresolvable labels and
                rewrites of text no label covers)
    recall    = correct answers / labels with an expected canonical form
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from citegen.recite.documents import read_document
from citegen.recite.pipeline import CitationOutcome, RecitePipeline
from grammars import CaseCitation, ParsedCitation, StatuteCitation, format_date

APPLIED = ("kept", "rewritten")


@dataclass(frozen=True, slots=True)
class Label:
    file: str
    original: str
    expected: str | None


@dataclass(frozen=True, slots=True)
class Miss:
    file: str
    original: str
    expected: str | None
    answered: str | None
    action: str  # what the batch did, or "not found"


@dataclass(slots=True)
class Score:
    labels: int = 0
    resolvable: int = 0
    answers: int = 0
    correct: int = 0
    unlabelled_rewrites: int = 0
    misses: list[Miss] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / self.answers if self.answers else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.resolvable if self.resolvable else 1.0


def load_labels(path: Path) -> list[Label]:
    labels = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            labels.append(Label(row["file"], row["original"], row.get("expected_canonical")))
    return labels


def evaluate(pipeline: RecitePipeline, drafts: Path, labels: Iterable[Label]) -> Score:
    by_file: dict[str, list[Label]] = defaultdict(list)
    for label in labels:
        by_file[label.file].append(label)
    score = Score()
    for name in sorted(by_file):
        document = read_document(drafts / name)
        outcomes = pipeline.recite(document).outcomes
        _score_document(score, name, document.streams, outcomes, by_file[name])
    return score


def _score_document(score: Score, name: str, streams: Sequence[str],
                    outcomes: Iterable[CitationOutcome], labels: list[Label]) -> None:
    unclaimed = list(outcomes)
    seen: dict[str, int] = defaultdict(int)
    for label in labels:
        score.labels += 1
        score.resolvable += label.expected is not None
        occurrence = _occurrence(streams, label.original, seen[label.original])
        seen[label.original] += 1
        outcome = next((o for o in unclaimed if occurrence and o.stream == occurrence[0]
                        and o.span[0] < occurrence[2] and occurrence[1] < o.span[1]), None)
        if outcome is not None:
            unclaimed.remove(outcome)
        answer = outcome.canonical if outcome is not None and outcome.action in APPLIED else None
        score.answers += answer is not None
        if answer is not None and answer == label.expected:
            score.correct += 1
        elif answer is not None or label.expected is not None:
            score.misses.append(Miss(name, label.original, label.expected, answer,
                                     outcome.action if outcome is not None else "not found"))
    for outcome in unclaimed:
        if outcome.action == "rewritten":
            score.answers += 1
            score.unlabelled_rewrites += 1
            score.misses.append(Miss(name, outcome.original, None, outcome.canonical, "rewritten without a label"))


def _occurrence(streams: Sequence[str], text: str, index: int) -> tuple[int, int, int] | None:
    """(stream, start, end) of the index-th occurrence of `text` across the document's streams."""
    for stream, content in enumerate(streams):
        start = content.find(text)
        while start != -1:
            if index == 0:
                return stream, start, start + len(text)
            index -= 1
            start = content.find(text, start + 1)
    return None


@dataclass(frozen=True, slots=True)
class SpanLabel:
    """One citation of a real passage, labelled by hand: where it is written, and how it reads."""

    span: tuple[int, int]
    reading: str  # `reading()` of the citation the finder should return
    form: str  # the labeller's name for how it is written (`amendment note`, `range`, …)
    resolved: str | None = None  # for a back-reference, the citation the passage makes it (`민법 제578조`)

    @property
    def rewrite(self) -> str:
        """What a rewrite of the span must write: the resolved citation, or the reading itself."""
        return self.resolved or self.reading


@dataclass(frozen=True, slots=True)
class Passage:
    """A verbatim passage of real legal text (tests/realtext/passages.jsonl, sources in SOURCES.md)."""

    id: str
    source: str
    text: str
    labels: tuple[SpanLabel, ...]


def load_passages(path: Path) -> list[Passage]:
    """Each label names its citation by the text written and which occurrence of it (`nth`), so that
    the file is checked by eye; a label whose text does not occur raises ValueError."""
    passages = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        labels = []
        for cited in row["citations"]:
            start = -1
            for _ in range(cited.get("nth", 0) + 1):
                start = row["text"].find(cited["written"], start + 1)
                if start < 0:
                    raise ValueError(f"expected {cited['written']!r} in passage {row['id']} (line {number}), "
                                     f"got too few occurrences")
            labels.append(SpanLabel((start, start + len(cited["written"])), cited["reading"], cited["form"],
                                    cited.get("resolved")))
        passages.append(Passage(row["id"], row["source"], row["text"], tuple(labels)))
    return passages


def reading(citation: ParsedCitation) -> str:
    """A citation as one line: its canonical form where complete; otherwise the written parts, `?`
    for the missing ones of a case and the back-reference for the act of a statute (`같은 법 제4조`)."""
    if citation.is_complete:
        return citation.canonical()
    if isinstance(citation, CaseCitation):
        parts = [citation.court or "?", format_date(citation.date) if citation.date else "?",
                 citation.delivery or "?", str(citation.case_number), *([citation.panel] if citation.panel else []),
                 citation.disposition or "?"]
        return " ".join(parts)
    assert isinstance(citation, StatuteCitation)  # the two kinds of ParsedCitation
    head = citation.act_reference()
    if citation.act is None:  # the back-reference with what it states: `같은 법 시행령(… 개정되기 전의 것)`, a 부칙
        note = str(citation.amendment) if citation.amendment else ""
        supplement = f" {citation.supplement}" if citation.supplement else ""
        head = f"{'구 ' if citation.former else ''}{citation.back_reference or '?'}{note}{supplement}"
    if citation.article is None and citation.supplement is None:  # 동조, 같은 항: the lower levels alone
        rest = citation.provision().split(" ", 1)[1:] if citation.paragraph or citation.item else []
        return " ".join([head, *rest])
    return f"{head} {citation.provision()}"
