"""`apply_token_bitmask_inplace` against the naive loop its docstring states, on every backend."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from citegen.errors import MaskError
from citegen.kernels import apply_token_bitmask_inplace

REPO = Path(__file__).resolve().parents[2]

# (batch, logits width, vocab_size or None, indices or None)
CASES = {
    "one-row-exact-words": (1, 64, None, None),
    "vocab-not-multiple-of-32": (3, 77, 77, None),
    "logits-wider-than-vocab": (2, 200, 150, None),
    "logits-wider-than-bitmask": (2, 130, None, None),
    "some-rows-only": (4, 100, 100, [0, 2]),
    "no-rows": (3, 50, 50, []),
    "several-blocks": (2, 9000, 8999, [1]),
}


def naive_reference(logits, bitmask, indices, vocab_size):
    out = logits.clone()
    vocab = bitmask.shape[1] * 32 if vocab_size is None else vocab_size
    for row in range(logits.shape[0]) if indices is None else indices:
        for token in range(logits.shape[1]):
            word = token // 32
            allowed = (
                token < vocab and word < bitmask.shape[1] and (int(bitmask[row, word]) >> (token % 32)) & 1
            )
            if not allowed:
                out[row, token] = float("-inf")
    return out


def random_case(batch, width, vocab_size, seed=0):
    generator = torch.Generator().manual_seed(seed)
    words = ((vocab_size or width) + 31) // 32
    logits = torch.randn(batch, width, generator=generator)
    bitmask = torch.randint(-(2**31), 2**31 - 1, (batch, words), dtype=torch.int32, generator=generator)
    return logits, bitmask


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_cpu_path_equals_the_naive_loop(case, dtype) -> None:
    batch, width, vocab_size, indices = case
    if width > 1000 and dtype == torch.bfloat16:
        width = 1000  # the naive loop is slow; the float32 run covers several blocks
    logits, bitmask = random_case(batch, width, vocab_size)
    logits = logits.to(dtype)
    expected = naive_reference(logits, bitmask, indices, vocab_size)
    apply_token_bitmask_inplace(logits, bitmask, indices, vocab_size)
    assert torch.equal(logits, expected)


def test_a_one_dimensional_row_is_masked_like_a_batch_of_one() -> None:
    logits, bitmask = random_case(1, 70, 70)
    expected = naive_reference(logits, bitmask, None, 70)[0]
    row = logits[0].clone()
    apply_token_bitmask_inplace(row, bitmask[0], vocab_size=70)
    assert torch.equal(row, expected)


@pytest.mark.parametrize(
    ("logits", "bitmask", "indices", "vocab_size", "message"),
    [
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int64), None, None, "int32 bitmask"),
        (torch.zeros(2, 64), torch.zeros(3, 2, dtype=torch.int32), None, None, "one row per logits row"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), [2], None, "row indices in"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), None, 65, "vocab_size <= 64"),
        (torch.zeros(2, 64, dtype=torch.int64), torch.zeros(2, 2, dtype=torch.int32), None, None, "floating"),
        (torch.zeros(2, 2, 64), torch.zeros(2, 2, dtype=torch.int32), None, None, "(batch, vocab)"),
    ],
    ids=["int64-bitmask", "row-count", "index-out-of-range", "vocab-past-bitmask", "int-logits", "3-d"],
)
def test_bad_arguments_raise_a_typed_error(logits, bitmask, indices, vocab_size, message) -> None:
    with pytest.raises(MaskError, match=message.replace("(", r"\(").replace(")", r"\)")):
        apply_token_bitmask_inplace(logits, bitmask, indices, vocab_size)


_INTERPRETER_SCRIPT = """
import sys, torch
from citegen.kernels import check_bitmask_arguments
from citegen.kernels.triton_bitmask import apply_token_bitmask_triton_inplace
cases = torch.load(sys.argv[1])
results = []
for logits, bitmask, indices, vocab_size in cases:
    logits_2d, bitmask_2d, rows, vocab = check_bitmask_arguments(logits, bitmask, indices, vocab_size)
    if rows is None or rows.numel():
        apply_token_bitmask_triton_inplace(logits_2d, bitmask_2d, rows, vocab)
    results.append(logits)
torch.save(results, sys.argv[2])
"""


def test_triton_kernel_in_the_interpreter_equals_the_naive_loop(tmp_path) -> None:
    """TRITON_INTERPRET must be set before triton is imported, hence a fresh interpreter."""
    cases = []
    for seed, (batch, width, vocab_size, indices) in enumerate(CASES.values()):
        logits, bitmask = random_case(batch, width, vocab_size, seed)
        cases.append((logits, bitmask, indices, vocab_size))
    torch.save(cases, tmp_path / "cases.pt")
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    subprocess.run(
        [sys.executable, "-c", _INTERPRETER_SCRIPT, str(tmp_path / "cases.pt"), str(tmp_path / "out.pt")],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    results = torch.load(tmp_path / "out.pt")
    for name, (logits, bitmask, indices, vocab_size), got in zip(CASES, cases, results, strict=True):
        assert torch.equal(got, naive_reference(logits, bitmask, indices, vocab_size)), name


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16], ids=["f32", "bf16", "f16"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_triton_kernel_on_cuda_equals_the_naive_loop(case, dtype) -> None:
    batch, width, vocab_size, indices = case
    logits, bitmask = random_case(batch, width, vocab_size)
    logits = logits.to(dtype)
    expected = naive_reference(logits, bitmask, indices, vocab_size)
    on_gpu = logits.cuda()
    apply_token_bitmask_inplace(on_gpu, bitmask.cuda(), indices, vocab_size)
    assert torch.equal(on_gpu.cpu(), expected)
