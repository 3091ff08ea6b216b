"""The CPU paths (the C kernel and the torch path it falls back to) against the naive loop and, at the
served vocabularies, against a brute-force reference: sparse, dense and mixed rows, several dtypes, batch
rows, logits wider than the vocabulary; and what happens where the kernel cannot be built."""

from __future__ import annotations

import functools
import logging
import shutil
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from citegen.kernels import apply_token_bitmask_inplace, cpu_bitmask
from citegen.kernels.cpu_bitmask import (
    apply_token_bitmask_torch_inplace,
    build_native_kernel,
    native_kernel,
)
from tests.engine.test_kernels import naive_reference

HAS_CC = shutil.which("cc") is not None
WIDTH = 1000  # 31 whole words and 8 tokens of a 32nd
# (logits width, vocab_size): DeepSeek V4; Qwen's 151,851 ids in its 151,936-wide embedding, and all 151,936
SERVED = {"deepseek-129280": (129_280, 129_280), "qwen-151851-of-151936": (151_936, 151_851),
          "qwen-151936": (151_936, 151_936)}  # fmt: skip
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def native_path(logits, bitmask, rows, vocab_size) -> None:
    kernel = native_kernel()
    assert kernel is not None, "cc is on PATH, yet the kernel was not built (see the warning logged)"
    kernel.apply_inplace(logits, bitmask, rows, vocab_size)


@functools.cache
def portable_kernel():
    """The kernel built without AVX-512, as on a machine that lacks it: its portable word loop."""
    with tempfile.TemporaryDirectory() as folder:
        compiler = Path(folder) / "cc-without-avx512"
        compiler.write_text('#!/bin/sh\nexec cc "$@" -mno-avx512f\n')
        compiler.chmod(0o755)
        return build_native_kernel(str(compiler))


def portable_path(logits, bitmask, rows, vocab_size) -> None:
    kernel = portable_kernel()
    assert kernel is not None, "cc builds the kernel, yet not with -mno-avx512f (see the warning logged)"
    kernel.apply_inplace(logits, bitmask, rows, vocab_size)


PATHS = {"native": native_path, "portable": portable_path, "torch": apply_token_bitmask_torch_inplace}
needs_cc = pytest.mark.skipif(not HAS_CC, reason="no C compiler (cc) to build the kernel")


def words_of(kind: str, count: int, generator: torch.Generator) -> torch.Tensor:
    """A bitmask row: `sparse` mostly 0 words, `dense` mostly -1, `mixed` random words."""
    random = torch.randint(-(2**31), 2**31 - 1, (count,), dtype=torch.int32, generator=generator)
    if kind == "mixed":
        return random
    keep = torch.rand(count, generator=generator) < 0.2
    fill = torch.zeros(count, dtype=torch.int32) if kind == "sparse" else torch.full((count,), -1, dtype=torch.int32)
    return torch.where(keep, random, fill)


def special_logits(batch: int, width: int, dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    logits = torch.randn(batch, width, generator=generator)
    logits[:, ::97] = float("nan")
    logits[:, 5::89] = float("inf")
    logits[:, 7::83] = float("-inf")
    return logits.to(dtype)


def brute_force(logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int], vocab_size: int) -> torch.Tensor:
    """Every bit unpacked by numpy, every row and token decided on its own."""
    out = logits.clone()
    bits = np.unpackbits(bitmask.numpy().view(np.uint8), axis=1, bitorder="little").astype(bool)
    allowed = np.zeros(logits.shape, dtype=bool)
    covered = min(vocab_size, logits.shape[1])
    allowed[:, :covered] = bits[:, :covered]
    for row in rows:
        out[row, ~torch.from_numpy(allowed[row])] = float("-inf")
    return out


def assert_same(actual: torch.Tensor, expected: torch.Tensor) -> None:
    assert torch.equal(actual.isnan(), expected.isnan())
    assert torch.equal(actual.float().nan_to_num(0.5), expected.float().nan_to_num(0.5))


@pytest.mark.parametrize("path", [*(pytest.param(p, marks=needs_cc) for p in ("native", "portable")), "torch"])
@pytest.mark.parametrize("dtype", list(DTYPES.values()), ids=list(DTYPES))
@pytest.mark.parametrize("vocab_size", [WIDTH, 992, 900], ids=["partial-last-word", "whole-words", "narrower"])
@pytest.mark.parametrize("kind", ["sparse", "dense", "mixed"])
def test_rows_of_every_shape_equal_the_naive_loop(kind, vocab_size, dtype, path) -> None:
    generator = torch.Generator().manual_seed(7)
    logits = special_logits(3, WIDTH, dtype, generator)
    bitmask = torch.stack([words_of(kind, (vocab_size + 31) // 32, generator) for _ in range(3)])
    expected = naive_reference(logits, bitmask, [0, 2], vocab_size)
    PATHS[path](logits, bitmask, np.array([0, 2], dtype=np.int32), vocab_size)
    assert_same(logits, expected)


@pytest.mark.parametrize("path", [*(pytest.param(p, marks=needs_cc) for p in ("native", "portable")), "torch"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("shape", list(SERVED.values()), ids=list(SERVED))
def test_served_vocabularies_equal_the_brute_force_reference(shape, dtype, path) -> None:
    """A batch of five rows, one of each kind, a mask of one token and one of all: rows 0, 1, 3 and 4 masked."""
    width, vocab_size = shape
    generator = torch.Generator().manual_seed(11)
    logits = special_logits(5, width, dtype, generator)
    words = (vocab_size + 31) // 32
    one = torch.zeros(words, dtype=torch.int32)
    one[words // 2] = 1 << 7
    every = torch.full((words,), -1, dtype=torch.int32)
    bitmask = torch.stack([*(words_of(kind, words, generator) for kind in ("sparse", "dense", "mixed")), one, every])
    rows = [0, 1, 3, 4]
    expected = brute_force(logits, bitmask, rows, vocab_size)
    PATHS[path](logits, bitmask, np.array(rows, dtype=np.int32), vocab_size)
    assert_same(logits, expected)
    assert torch.isfinite(logits[3]).sum() == 1  # the one allowed token of row 3 kept its value


@needs_cc
def test_the_dispatcher_masks_cpu_float32_with_the_native_kernel_where_cc_is() -> None:
    """A kernel that failed to build only logs a warning: this catches a build broken where cc exists."""
    assert native_kernel() is not None
    logits = torch.zeros(2, 64)
    apply_token_bitmask_inplace(logits, torch.tensor([[5, 0], [-1, -1]], dtype=torch.int32), [0])
    assert torch.isfinite(logits[0]).nonzero().flatten().tolist() == [0, 2]
    assert torch.isfinite(logits[1]).all()


def test_without_a_compiler_the_kernel_is_not_built_and_the_reason_is_logged(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="citegen.kernels.cpu_bitmask"):
        assert build_native_kernel("citegen-no-such-compiler") is None
    assert "citegen-no-such-compiler" in caplog.text
    assert "torch mask path" in caplog.text


def test_a_compiler_that_fails_is_named_with_its_exit_status(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="citegen.kernels.cpu_bitmask"):
        assert build_native_kernel("false") is None  # coreutils' false: exits 1, says nothing
    assert "`false` could not build cpu_bitmask.c" in caplog.text
    assert "non-zero exit status 1" in caplog.text


@needs_cc
def test_a_source_the_compiler_rejects_is_logged_with_the_compilers_error(caplog, tmp_path) -> None:
    broken = tmp_path / "broken.c"
    broken.write_text("void apply_bitmask_32(void) { this is not C; }\n")
    with caplog.at_level(logging.WARNING, logger="citegen.kernels.cpu_bitmask"):
        assert build_native_kernel("cc", broken) is None
    assert "`cc` could not build broken.c" in caplog.text
    assert "error:" in caplog.text  # the compiler's own diagnostic


@pytest.mark.parametrize("dtype", DTYPES.values(), ids=DTYPES.keys())
def test_logits_autograd_tracks_are_masked_as_an_inplace_operation_it_sees(dtype) -> None:
    """The kernel writes through a pointer, which autograd's version counter never sees: logits a graph
    saved for backward would be changed under it. Those go the torch path, and backward says so."""
    generator = torch.Generator().manual_seed(5)
    weights = torch.randn(2, WIDTH, generator=generator, requires_grad=True)
    logits = (weights * 1.0).to(dtype)  # not a leaf: autograd allows in-place changes and tracks them
    saved_by = logits.square().sum()  # its backward reads `logits` as they were
    bitmask = torch.stack([words_of("mixed", (WIDTH + 31) // 32, generator) for _ in range(2)])
    expected = naive_reference(logits.detach().clone(), bitmask, None, WIDTH)
    apply_token_bitmask_inplace(logits, bitmask, vocab_size=WIDTH)
    assert torch.equal(logits.detach(), expected)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        saved_by.backward()


@needs_cc
def test_threads_that_first_mask_at_once_wait_for_one_build(monkeypatch) -> None:
    builds: list[object] = []
    build = cpu_bitmask.build_native_kernel

    def counted() -> object:
        builds.append(None)
        return build()

    monkeypatch.setattr(cpu_bitmask, "build_native_kernel", counted)
    monkeypatch.setattr(cpu_bitmask, "_built", [])  # this process as if it had masked nothing yet
    start = threading.Barrier(8)
    kernels: list[object] = []

    def first_mask() -> None:
        start.wait()
        kernels.append(cpu_bitmask.native_kernel())

    threads = [threading.Thread(target=first_mask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert len({id(kernel) for kernel in kernels}) == 1 and kernels[0] is not None
