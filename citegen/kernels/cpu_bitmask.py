"""The CPU path of `apply_token_bitmask_inplace`.

float32 rows (the CPU model dtype) go through numpy views of the same memory, 32 logits per bitmask
word. Real masks are made of whole words: inside a citation nearly every word is 0 (a few tokens
allowed), in free text nearly every word is -1 (a few tokens rejected). So only the words that are
not all-allowed are touched:
- sparse rows (most words 0): the allowed words' logits are gathered, the row is filled with -inf
  (a memset) and the gathered words are written back with their disallowed bits at -inf;
- dense rows (few words not -1): those words are gathered, masked and scattered back;
- rows where most words are mixed: every bit is unpacked and `copyto(where=)` masks the row.
`bench/cpu_apply.py` measures these against unpacking every bit, torch and a per-state id list
(bench/results/cpu_apply.md). Other dtypes (bf16 has no numpy type) take the torch path.
"""

from __future__ import annotations

import sys

import numpy as np
import torch

# unpackbits(bitorder="little") on the bytes of little-endian int32 words yields token order.
_LITTLE_ENDIAN = sys.byteorder == "little"
_NEG_INF = np.float32(-np.inf)


def _bits(words: np.ndarray) -> np.ndarray:
    """(len(words), 32) bool: bit j of word i."""
    return np.unpackbits(words.view(np.uint8), bitorder="little").view(np.bool_).reshape(len(words), 32)


def _mask_words_inplace(logits: np.ndarray, words: np.ndarray) -> None:
    """logits: (n, 32) float32, words: (n,) int32 — one bitmask word per 32 logits."""
    if 2 * np.count_nonzero(words) <= len(words):  # mostly empty words: keep the allowed ones, clear the rest
        allowed = np.flatnonzero(words)
        kept = logits[allowed]
        logits.fill(_NEG_INF)
        logits[allowed] = np.where(_bits(words[allowed]), kept, _NEG_INF)
        return
    partial = np.flatnonzero(words != -1)
    if 2 * len(partial) <= len(words):  # mostly full words: mask the others
        touched = logits[partial]
        np.copyto(touched, _NEG_INF, where=~_bits(words[partial]))
        logits[partial] = touched
        return
    np.copyto(logits, _NEG_INF, where=~_bits(words))


def _mask_row_inplace(logits: np.ndarray, words: np.ndarray, covered: int) -> None:
    whole = covered // 32
    if whole:
        _mask_words_inplace(logits[: whole * 32].reshape(whole, 32), words[:whole])
    rest = covered - whole * 32
    if rest:
        allowed = _bits(words[whole : whole + 1])[0, :rest]
        np.copyto(logits[whole * 32 : covered], _NEG_INF, where=~allowed)


def apply_token_bitmask_cpu_inplace(
    logits: torch.Tensor, bitmask: torch.Tensor, rows: torch.Tensor | None, vocab_size: int
) -> None:
    width = logits.shape[1]
    covered = min(width, vocab_size)
    row_ids = range(logits.shape[0]) if rows is None else rows.tolist()
    if logits.dtype == torch.float32 and _LITTLE_ENDIAN:
        logits_np = logits.detach().numpy()
        words_np = bitmask.numpy()
        for row in row_ids:
            _mask_row_inplace(logits_np[row], words_np[row], covered)
    else:
        shifts = torch.arange(32, dtype=torch.int32)
        for row in row_ids:
            bits = ((bitmask[row].unsqueeze(-1) >> shifts) & 1).view(-1)[:covered]
            logits[row, :covered].masked_fill_(bits == 0, float("-inf"))
    if covered < width:
        index = slice(None) if rows is None else rows.long()
        logits[index, covered:] = float("-inf")
