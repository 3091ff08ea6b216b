"""Which of overlapping matches the finder keeps (grammars.find): the longest, the earlier on a tie.

`longest_first(spans)` equals the naive greedy: take the spans longest first (then by start, end and
position in `spans`), keep each that shares no character with one kept before, and list the kept in
text order (ties in start in that same order). It is linear in the text: spans are swept by start
into runs that overlap one another (a span overlapping none of the others is kept at once), and only
a run of two or more (a statute found both by name and by shape, a list inside a longer citation) is
decided by the greedy, over that run alone.
"""

from __future__ import annotations

from collections.abc import Sequence

_FEW = 8  # a run this short is decided by comparing spans pairwise; a longer one through a byte map


def longest_first(spans: Sequence[tuple[int, int]]) -> list[int]:
    """The indices into `spans` of those kept, in text order."""
    kept: list[int] = []
    run: list[tuple[int, int, int]] = []  # (start, end, index) of the run being swept
    run_end = last_start = -1
    # By start alone (ints compare fastest): spans that start alike always share a run, which orders
    # them itself. The finder's spans come in a few runs sorted by start already, which the sort merges.
    starts = [start for start, _ in spans]
    for index in sorted(range(len(spans)), key=starts.__getitem__):
        start, end = spans[index]
        # Sharing no character with the run so far (and not starting with its last, as an empty span
        # may), the span starts a run: the one before is decided.
        if start >= run_end and start != last_start:
            if len(run) == 1:
                kept.append(run[0][2])
            elif run:
                _decide(run, kept)
            run, run_end = [], end
        last_start = start
        run.append((start, end, index))
        if end > run_end:
            run_end = end
    if len(run) == 1:
        kept.append(run[0][2])
    elif run:
        _decide(run, kept)
    return kept


def _decide(run: list[tuple[int, int, int]], kept: list[int]) -> None:
    """Append to `kept` the indices the greedy keeps of `run` (two or more spans), in text order."""
    if len(run) == 2 and run[0][:2] == run[1][:2] and run[0][0] < run[0][1]:
        # One span found twice (a statute by its name and by its shape, the commonest run): the one found first.
        kept.append(min(run[0][2], run[1][2]))
        return
    chosen: list[tuple[int, int, int, int]] = []  # (start, start - end, end, index): text order, ties greedy's
    order = sorted((start - end, start, end, index) for start, end, index in run)
    if len(run) <= _FEW:
        for length, start, end, index in order:
            if all(max(start, other) >= min(end, other_end) for other, _, other_end, _ in chosen):
                chosen.append((start, length, end, index))
    else:
        origin = run[0][0]  # the least start: the sweep adds spans by start
        taken = bytearray(max(end for _, end, _ in run) - origin)
        for length, start, end, index in order:
            if taken.find(1, start - origin, end - origin) < 0:
                taken[start - origin:end - origin] = b"\x01" * (end - start)
                chosen.append((start, length, end, index))
    kept.extend(index for *_, index in sorted(chosen))
