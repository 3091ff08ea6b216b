#!/usr/bin/env bash
# The device check, run once on a lent GPU machine (see the README's "Numbers"): the CUDA kernel
# tests, the kernels' instructions under the GPU's own triton (bench/kernel_ptx.py), then
# bench/gpu_mask.py (Triton kernel vs xgrammar's, every launch shape side by side, and the
# constraint's share of a GPU decode step). Packages the GPU image lacks travel as wheels in .whl/
# (cp312, manylinux x86_64): xgrammar apache-tvm-ffi interegular sqlalchemy greenlet alembic mako
# pydantic pydantic-core annotated-types typing-inspection pydantic-settings python-dotenv fastapi
# starlette uvicorn opentelemetry-api importlib-metadata.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 2
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PWD" HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton, transformers; print('torch', torch.__version__, 'triton', triton.__version__, 'transformers', transformers.__version__)" | tee -a "$OUT/gpu.txt"
timeout 120 python3 -m pytest -q -m gpu tests/engine -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
timeout 60 python3 bench/kernel_ptx.py --out "$OUT/kernel_ptx.md" 2>&1 | grep "^|"
timeout 300 python3 bench/gpu_mask.py --out "$OUT/gpu_mask.md" 2>&1 | tee "$OUT/gpu_mask.log" | tail -60
