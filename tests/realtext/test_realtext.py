"""The finder on real legal text (passages.jsonl, sources and labelling rules in SOURCES.md): the
issue's targets, measured as bench/find_bench.py measures them."""

from __future__ import annotations

from pathlib import Path

from citegen.recite.evaluate import load_passages, reading
from grammars import find_citations

PASSAGES = load_passages(Path(__file__).with_name("passages.jsonl"))


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_the_set_is_real_text_of_at_least_60_passages_from_at_least_8_sources() -> None:
    assert len(PASSAGES) >= 60 and len({p.source for p in PASSAGES}) >= 8
    assert sum(len(p.labels) for p in PASSAGES) >= 150


def test_recall_and_precision_on_real_text_meet_the_targets() -> None:
    labels = exact = overlap = found_total = found_right = 0
    misses = []
    for passage in PASSAGES:
        found = find_citations(passage.text)
        for label in passage.labels:
            labels += 1
            exact += any(f.span == label.span for f in found)
            overlap += any(_overlaps(f.span, label.span) for f in found)
            if not any(f.span == label.span for f in found):
                misses.append((passage.id, passage.text[slice(*label.span)]))
        for f in found:
            found_total += 1
            right = any(_overlaps(f.span, label.span) for label in passage.labels)
            found_right += right
            if not right:
                misses.append((passage.id, "false: " + passage.text[slice(*f.span)]))
    assert overlap / labels >= 0.97, misses
    assert exact / labels >= 0.92, misses
    assert found_right / found_total >= 0.99, misses


def test_every_exactly_found_citation_reads_as_labelled() -> None:
    wrong = []
    for passage in PASSAGES:
        found = {f.span: f for f in find_citations(passage.text)}
        wrong += [(passage.id, reading(found[label.span].citation), label.reading)
                  for label in passage.labels if label.span in found
                  and reading(found[label.span].citation) != label.reading]
    assert wrong == []
