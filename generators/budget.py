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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backend import Backend
from gqlbench.records import Message, Prompt, Sample

__all__ = ["Detail", "FULL_DETAIL", "BuildMessages", "PromptTooLong", "context_limit", "fit_prompt"]


@dataclass(frozen=True)
class Detail:
    """How much of the function signatures a prompt shows."""

    descriptions: bool = True
    parameter_descriptions: bool = True


FULL_DETAIL = Detail()

# (sample, shots, detail) -> chat messages; cot and react each provide one.
BuildMessages = Callable[[Sample, Sequence[Sample], Detail], list[Message]]


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


def fit_prompt(
    sample: Sample,
    shots: Sequence[Sample],
    build: BuildMessages,
    backend: Backend,
    *,
    style: str,
    reserve: int,
    assistant_prefix: str = "",
) -> Prompt:
    """The fullest prompt for ``sample`` that leaves ``reserve`` tokens to generate."""
    limit = context_limit(backend, reserve)
    kept = list(shots)
    detail = FULL_DETAIL
    dropped: list[str] = []
    while True:
        messages = build(sample, kept, detail)
        text = backend.render(messages, assistant_prefix)
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
            dropped.append("function descriptions")
        elif detail.parameter_descriptions:
            detail = Detail(descriptions=False, parameter_descriptions=False)
            dropped.append("parameter descriptions")
        else:
            raise PromptTooLong(sample.id, n_tokens, limit, dropped)
