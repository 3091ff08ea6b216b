"""A request's output ids as vLLM keeps them, read by a constraint cursor.

vLLM v1 hands a logits processor each request's list of output ids once and changes it in place
between steps: it appends the ids sampled, puts -1 placeholders at the end under asynchronous
scheduling (filled in later), and takes ids back, after a KV transfer that failed to load
(`del req_state.output_token_ids[n:]`) or where asynchronous speculative decoding extended the list
past what was accepted (vllm/v1/worker/gpu_model_runner.py, gpu_input_batch.py). A cursor that read
an id vLLM then took back is in a state the text no longer reaches, and would mask every later row of
the request by it: `OutputReader` keeps the cursor's state before each id it read, and goes back to
before the first one no longer there, or replaced, before it reads on.
"""

from __future__ import annotations

from citegen.constraint import ConstraintCursor

# Ids at the end of what was read compared with the list on each catch-up: vLLM changes only the tail
# it appended in the last steps (speculative tokens, a few at a time), and a comparison of the whole
# list at every step would cost as much as the output is long.
RECHECKED = 32


class OutputReader:
    """`cursor` kept in step with `output_ids`, a list another party appends to and may take back."""

    def __init__(self, cursor: ConstraintCursor, output_ids: list[int]) -> None:
        self.cursor = cursor
        self.output_ids = output_ids
        self._read: list[int] = []  # the ids read, in order
        self._states: list[int] = []  # the cursor's state before each

    @property
    def read(self) -> int:
        """How many ids the cursor has read."""
        return len(self._read)

    def catch_up(self) -> None:
        """Advance over the ids appended since the last call, after going back over any taken back; stops
        at a placeholder (-1: not sampled yet). A token the cursor rejects raises its error (CitegenError),
        the ids before it read."""
        self._take_back()
        ids, read, states, cursor = self.output_ids, self._read, self._states, self.cursor
        while len(read) < len(ids):
            token = ids[len(read)]
            if token < 0:
                return
            state = cursor.state
            cursor.advance(token)
            states.append(state)
            read.append(token)

    def _take_back(self) -> None:
        ids, read = self.output_ids, self._read
        kept = min(len(read), len(ids))
        for at in range(max(0, kept - RECHECKED), kept):
            if ids[at] != read[at]:
                kept = at
                break
        if kept < len(read):
            self.cursor.rewind(self._states[kept])
            del read[kept:], self._states[kept:]
