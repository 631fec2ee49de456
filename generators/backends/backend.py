"""The contract between prompting and model backends.

A backend turns a batch of :class:`GenerationRequest` into
:class:`gqlbench.records.Completion` records. Prompt builders only see the
:class:`Backend` protocol (to count tokens and render chat templates), so the
same prompting code runs on vLLM, an OpenAI-compatible server or transformers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from gqlbench.records import Completion, Message

__all__ = ["GenerationConfig", "GenerationRequest", "Backend", "engine_counters", "backend_warnings"]


@dataclass(frozen=True)
class GenerationConfig:
    """Sampling settings; the paper's protocol is greedy decoding."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 512
    stop: tuple[str, ...] = ()
    seed: int = 0
    n: int = 1  # completions per request; only asked of a backend whose ``supports_n`` is true

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_new_tokens": self.max_new_tokens,
            "stop": list(self.stop),
            "seed": self.seed,
        }
        if self.n != 1:
            data["n"] = self.n
        return data


@dataclass(frozen=True)
class GenerationRequest:
    """One prompt: chat messages, optionally an assistant text to continue.

    ``assistant_prefix`` lets ReAct continue its own scratchpad: the backend
    renders ``messages`` with the generation prompt and appends the prefix.
    """

    sample_id: str
    messages: tuple[Message, ...]
    assistant_prefix: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Backend(Protocol):
    """What every model backend offers the prompting and running layers.

    Optional: a backend with a true ``supports_n`` attribute answers a config
    with ``n > 1`` with ``n`` completions per request (``Completion.index``
    0..n-1); without it, ``run --samples K`` calls ``generate`` once per
    completion index with seed ``seed + index``. A backend with an
    ``engine_counters()`` method reports its engine's cumulative counters
    (see :func:`engine_counters`). A backend with an ``on_progress``
    attribute (None by default) tells a listener set there how far each
    ``generate`` call is (:mod:`gqlbench.generators.backends.progress`).
    """

    name: str  # "vllm", "openai", "hf"
    max_model_len: int  # context window in tokens

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        """The exact prompt text the model sees (chat template applied)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Length of ``text`` in the model's own tokens."""
        ...

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        """Generate for all requests as one batch, yielding completions as they finish.

        A request that fails yields a Completion with ``error`` set; it never
        raises for a single bad request, so one failure cannot lose the batch.
        """
        ...

    def describe(self) -> dict[str, Any]:
        """Everything needed to reproduce: model path, weights hash, template hash, versions, engine args."""
        ...

    def close(self) -> None:
        """Free the engine (GPU memory, server connections)."""
        ...


def engine_counters(backend: object) -> dict[str, int]:
    """The engine's cumulative counters (prefix-cache hits, preemptions, ...), or ``{}`` if it keeps none.

    They explain a run's speed: how much of the prompt the prefix cache spared
    and whether the KV cache was too small for the batch (preemptions mean
    prompts were computed again). Differences of two readings cover the work in between.
    """
    read = getattr(backend, "engine_counters", None)
    return dict(read()) if callable(read) else {}


def backend_warnings(backend: object) -> list[str]:
    """What the backend saw during the run that the user should be told once it is over (``[]`` if it keeps nothing).

    A run is never stopped for what a model wrote; a pattern over the whole run
    (a server that never returned a tool call) is told after it, with the fix.
    """
    read = getattr(backend, "warnings", None)
    return list(read()) if callable(read) else []
