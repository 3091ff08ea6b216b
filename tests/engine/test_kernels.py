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
from citegen.kernels.triton_bitmask import LAUNCH_SHAPES

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
    # rows a multiple of 16 logits wide, as served vocabularies are: the 16-byte path on a GPU
    "aligned-rows-padded-vocab": (4, 8192, 8000, [0, 2]),
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


def random_case(batch, width, vocab_size, seed=0, sparse=False):
    generator = torch.Generator().manual_seed(seed)
    words = ((vocab_size or width) + 31) // 32
    logits = torch.randn(batch, width, generator=generator)
    bitmask = torch.randint(-(2**31), 2**31 - 1, (batch, words), dtype=torch.int32, generator=generator)
    if sparse:  # a few words decide, as inside a citation (allowing) or in free text (rejecting)
        few = torch.rand(batch, words, generator=generator) < 0.05
        few[:, -1] = True
        bitmask = bitmask * few if sparse == "allowing" else torch.where(few, bitmask, -1)
    return logits, bitmask


@pytest.mark.parametrize("sparse", [False, "allowing", "rejecting"], ids=["dense", "few-allow", "few-reject"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_cpu_path_equals_the_naive_loop(case, dtype, sparse) -> None:
    batch, width, vocab_size, indices = case
    if width > 1000 and dtype == torch.bfloat16:
        width = 1000  # the naive loop is slow; the float32 run covers several blocks
    logits, bitmask = random_case(batch, width, vocab_size, sparse=sparse)
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
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), torch.tensor([0, -1]), None, "row indices in"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), [[0], [1]], None, "1-D list of row indices"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), None, 65, "vocab_size <= 64"),
        (torch.zeros(2, 64, dtype=torch.int64), torch.zeros(2, 2, dtype=torch.int32), None, None, "floating"),
        (torch.zeros(2, 2, 64), torch.zeros(2, 2, dtype=torch.int32), None, None, "(batch, vocab)"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), torch.tensor([True, False]), None, "integer row"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), [0.9, 1.0], None, "integer row"),
        # a meta tensor's data pointer is 0: the C kernel wrote through it and the process died
        (torch.zeros(2, 64, device="meta"), torch.zeros(2, 2, dtype=torch.int32, device="meta"), None, None,
         "on the CPU or a CUDA device, got them on meta"),
    ],
    ids=["int64-bitmask", "row-count", "index-out-of-range", "negative-index", "nested-indices", "vocab-past-bitmask",
         "int-logits", "3-d", "bool-indices", "float-indices", "meta-device"],
)
def test_bad_arguments_raise_a_typed_error(logits, bitmask, indices, vocab_size, message) -> None:
    with pytest.raises(MaskError, match=message.replace("(", r"\(").replace(")", r"\)")):
        apply_token_bitmask_inplace(logits, bitmask, indices, vocab_size)


_INTERPRETER_SCRIPT = """
import sys, torch
from citegen.kernels import check_bitmask_arguments
from citegen.kernels.triton_bitmask import LaunchShape, apply_token_bitmask_triton_inplace
cases = torch.load(sys.argv[1])
results = []
for logits, bitmask, indices, vocab_size, vector in cases:
    logits_2d, bitmask_2d, rows, vocab = check_bitmask_arguments(logits, bitmask, indices, vocab_size)
    if rows is None or rows.size:
        shape = None if vector is None else LaunchShape(vector=vector, num_warps=4)
        rows = None if rows is None else torch.from_numpy(rows)
        apply_token_bitmask_triton_inplace(logits_2d, bitmask_2d, rows, vocab, shape)
    results.append(logits)
torch.save(results, sys.argv[2])
"""


SPECIAL_VOCAB = 250


def special_values_case(dtype, device="cpu"):
    """Every kind of group for a 16-byte vector (all allowed, all masked, mixed), with allowed
    logits that must come back bit for bit: NaN, -0.0, +-inf, subnormal; rows read through a view
    whose row stride (320) is wider than its width (256), both multiples of 16 so a GPU takes the
    vector path; columns past the vocabulary (250) masked."""
    generator = torch.Generator().manual_seed(7)
    padded = torch.randn(3, 320, generator=generator).to(dtype)
    specials = torch.tensor([float("nan"), -0.0, float("inf"), float("-inf"), 1e-40, 0.5, -3.0, 7.0]).to(dtype)
    padded[:, :256] = specials.repeat(32)
    words = torch.tensor([0, -1, 0x0F0F0F0F, 0x00FF00FF, 0x33333333, -(2**31), 1, 0x7FFFFFFF], dtype=torch.int32)
    return padded.to(device)[:, :256], words.repeat(3, 1).to(device)


def bits(tensor):
    return tensor.view(torch.int32 if tensor.element_size() == 4 else torch.int16)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
def test_triton_kernel_in_the_interpreter_equals_the_naive_loop(tmp_path, dtype) -> None:
    """Every store strategy (per-logit, 16-byte groups, the shipped choice for the dtype) against
    the naive loop, bit for bit. TRITON_INTERPRET must be set before triton is imported, hence a
    fresh interpreter."""
    cases, expected = [], []
    for vector in (None, 1, 16 // dtype.itemsize):
        for seed, (batch, width, vocab_size, indices) in enumerate(CASES.values()):
            if dtype != torch.float32:
                width = min(width, 1000)  # the naive loop is slow; float32 covers several blocks
            logits, bitmask = random_case(batch, width, vocab_size, seed)
            cases.append((logits.to(dtype), bitmask, indices, vocab_size, vector))
        logits, bitmask = special_values_case(dtype)
        cases.append((logits, bitmask, None, SPECIAL_VOCAB, vector))
    expected = [naive_reference(logits, bitmask, indices, vocab) for logits, bitmask, indices, vocab, _ in cases]
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
    names = [*CASES, "special-values"]
    for index, (case, got, want) in enumerate(zip(cases, results, expected, strict=True)):
        assert torch.equal(bits(got), bits(want)), f"{names[index % len(names)]}, vector {case[-1]}"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_logits_are_stored_16_bytes_at_a_time_on_an_h200(dtype) -> None:
    """The shipped shape compiled for sm_90 (no GPU needed), given the alignment a served batch has
    (bench/kernel_ptx.py): every global store is a 16-byte vector; a kernel change that loses the
    vectorisation (a mask no longer constant per group) fails here rather than only in an H200
    timing. Alignment itself is the launch's business: Triton specialises on it."""
    sys.path.insert(0, str(REPO / "bench"))
    from kernel_ptx import ELEMENT_BYTES, global_accesses, ours_ptx

    stores = global_accesses(ours_ptx(dtype, LAUNCH_SHAPES[ELEMENT_BYTES[dtype]]))["st"]
    assert set(stores) == {16}, stores


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


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_triton_kernel_on_cuda_keeps_allowed_logits_bit_for_bit(dtype) -> None:
    logits, bitmask = special_values_case(dtype, "cuda")
    assert logits.stride(0) == 320
    expected = naive_reference(logits.cpu(), bitmask.cpu(), None, SPECIAL_VOCAB)
    apply_token_bitmask_inplace(logits, bitmask, vocab_size=SPECIAL_VOCAB)
    assert torch.equal(bits(logits.cpu()), bits(expected))
