"""Which of overlapping matches the finder keeps (grammars.find): the longest, the earlier on a tie.

`longest_first(spans)` equals the naive greedy: take the spans longest first (then by start, end and
position in `spans`), keep each that shares no character with one kept before, and list the kept in
text order (ties in start in that same order). It is linear in the text: spans are swept by start
into runs that overlap one another (a span overlapping none of the others, as most citations do, is
kept at once), and only a run of two or more is decided by the greedy, over that run's characters alone.
"""

from __future__ import annotations

from collections.abc import Sequence


def longest_first(spans: Sequence[tuple[int, int]]) -> list[int]:
    """The indices into `spans` of those kept, in text order."""
    kept: list[int] = []
    run: list[tuple[int, int, int]] = []  # (start, end, index) of the run being swept
    run_end = last_start = -1
    # Sorted on tuples of numbers, which compare in C; the finder's spans come in a few runs sorted by
    # start already, which the sort merges.
    for start, end, index in sorted((start, end, index) for index, (start, end) in enumerate(spans)):
        # Sharing no character with the run so far (and not starting with its last, as an empty span
        # may), the span starts a run: the one before is decided.
        if start >= run_end and start != last_start:
            _decide(run, kept)
            run, run_end = [], end
        last_start = start
        run.append((start, end, index))
        run_end = max(run_end, end)
    _decide(run, kept)
    return kept


def _decide(run: list[tuple[int, int, int]], kept: list[int]) -> None:
    """Append to `kept` the indices the greedy keeps of `run` (a sweep's run, sorted by start)."""
    if len(run) == 1:
        kept.append(run[0][2])
        return
    if not run:
        return
    origin = run[0][0]
    taken = bytearray(max(end for _, end, _ in run) - origin)
    chosen: list[tuple[int, int, int, int]] = []
    for length, start, end, index in sorted((start - end, start, end, index) for start, end, index in run):
        if taken.find(1, start - origin, end - origin) < 0:
            taken[start - origin:end - origin] = b"\x01" * (end - start)
            chosen.append((start, length, end, index))
    kept.extend(index for *_, index in sorted(chosen))
