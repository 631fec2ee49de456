"""Fitting a prompt into the model's context window, visibly.

A prompt is measured in the model's own tokens, as rendered by its chat
template. When it does not leave room for ``reserve`` new tokens, parts are
removed in a fixed order, least useful first:

1. few-shot examples, the last (least similar) first;
2. the functions' descriptions (what the paper did for 8K-context models);
3. the parameters' descriptions.

Each removal is recorded in :attr:`Prompt.dropped`. If the bare prompt still
does not fit, :class:`PromptTooLong` is raised: a prompt is never cut in the
middle.

With native tool calling (``--prompt tools``) the tools' JSON is part of the
prompt: a backend with ``render_tools`` renders it as its chat template
declares the tools (the text the model sees); any other backend (a server
applies its own template) is charged the messages plus the tools' JSON text.
Descriptions are dropped from the tools as from a text prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend
from gqlbench.records import Message, Prompt, Sample

__all__ = ["Detail", "FULL_DETAIL", "BuildMessages", "BuildTools", "PromptTooLong", "context_limit", "detail_of", "fit_prompt"]


@dataclass(frozen=True)
class Detail:
    """How much of the function signatures a prompt shows."""

    descriptions: bool = True
    parameter_descriptions: bool = True


FULL_DETAIL = Detail()

# (sample, shots, detail) -> chat messages; cot and react each provide one.
BuildMessages = Callable[[Sample, Sequence[Sample], Detail], list[Message]]
# (sample, detail) -> the OpenAI tools offered with the messages (--prompt tools)
BuildTools = Callable[[Sample, Detail], list[dict[str, Any]]]


class PromptTooLong(GqlbenchError):
    """The prompt does not fit even without shots and descriptions."""

    def __init__(self, sample_id: str, n_tokens: int, limit: int, dropped: Sequence[str]) -> None:
        self.sample_id, self.n_tokens, self.limit, self.dropped = sample_id, n_tokens, limit, list(dropped)
        super().__init__(
            f"sample {sample_id}: prompt exceeds context ({n_tokens} tokens > {limit} available) "
            "even without shots and descriptions; use a model with a longer context or lower --max-new-tokens"
        )


def context_limit(backend: Backend, reserve: int) -> int:
    """Prompt tokens available when ``reserve`` tokens are kept for the answer."""
    return backend.max_model_len - reserve


_DROPPED_DESCRIPTIONS, _DROPPED_PARAMETERS = "function descriptions", "parameter descriptions"


def detail_of(prompt: Prompt) -> Detail:
    """The detail a fitted prompt kept (read back from :attr:`Prompt.dropped`), e.g. to offer the same tools."""
    return Detail(
        descriptions=_DROPPED_DESCRIPTIONS not in prompt.dropped, parameter_descriptions=_DROPPED_PARAMETERS not in prompt.dropped
    )


def _render(backend: Backend, messages: list[Message], tools: list[dict[str, Any]] | None, assistant_prefix: str) -> str:
    if tools is None:
        return backend.render(messages, assistant_prefix)
    render_tools = getattr(backend, "render_tools", None)
    if callable(render_tools):
        return str(render_tools(messages, tools))
    return backend.render(messages, assistant_prefix) + "\n" + json.dumps(tools, ensure_ascii=False)


def fit_prompt(
    sample: Sample,
    shots: Sequence[Sample],
    build: BuildMessages,
    backend: Backend,
    *,
    style: str,
    reserve: int,
    assistant_prefix: str = "",
    tools: BuildTools | None = None,
) -> Prompt:
    """The fullest prompt for ``sample`` that leaves ``reserve`` tokens to generate (``tools``: the tools it offers count too)."""
    limit = context_limit(backend, reserve)
    kept = list(shots)
    detail = FULL_DETAIL
    dropped: list[str] = []
    while True:
        messages = build(sample, kept, detail)
        text = _render(backend, messages, None if tools is None else tools(sample, detail), assistant_prefix)
        n_tokens = backend.count_tokens(text)
        if n_tokens <= limit:
            return Prompt(
                sample_id=sample.id,
                style=style,
                messages=messages,
                text=text,
                n_tokens=n_tokens,
                shots=[s.id for s in kept],
                dropped=dropped,
            )
        if kept:
            dropped.append(f"shot {kept.pop().id}")
        elif detail.descriptions:
            detail = Detail(descriptions=False)
            dropped.append(_DROPPED_DESCRIPTIONS)
        elif detail.parameter_descriptions:
            detail = Detail(descriptions=False, parameter_descriptions=False)
            dropped.append(_DROPPED_PARAMETERS)
        else:
            raise PromptTooLong(sample.id, n_tokens, limit, dropped)
