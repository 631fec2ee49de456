"""The context budget: drop shots (last first), then descriptions; never cut a prompt."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from gqlbench.dataset import get_sample
from gqlbench.generators.budget import PromptTooLong, fit_prompt
from gqlbench.generators.cot import cot_messages
from gqlbench.records import Message


class WordBackend:
    """Counts whitespace-separated words; renders messages one per line."""

    name = "words"

    def __init__(self, max_model_len: int) -> None:
        self.max_model_len = max_model_len

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        return "".join(f"{m.role}: {m.content}\n" for m in messages) + assistant_prefix

    def count_tokens(self, text: str) -> int:
        return len(text.split())


SAMPLE = get_sample("test/0")
SHOTS = [get_sample(i) for i in ("train/23", "train/15", "train/24")]


def _size(shots: int, **detail: bool) -> int:
    from gqlbench.generators.budget import Detail

    backend = WordBackend(10**9)
    return backend.count_tokens(backend.render(cot_messages(SAMPLE, SHOTS[:shots], Detail(**detail))))


def test_a_prompt_that_fits_is_kept_whole() -> None:
    backend = WordBackend(_size(3) + 100)
    prompt = fit_prompt(SAMPLE, SHOTS, cot_messages, backend, style="cot", reserve=100)
    assert prompt.shots == [s.id for s in SHOTS] and prompt.dropped == []
    assert prompt.n_tokens == _size(3) and prompt.text == backend.render(prompt.messages)


def test_shots_are_dropped_last_first_until_it_fits() -> None:
    backend = WordBackend(_size(1) + 50)  # room for one shot only
    prompt = fit_prompt(SAMPLE, SHOTS, cot_messages, backend, style="cot", reserve=50)
    assert prompt.shots == ["train/23"]
    assert prompt.dropped == ["shot train/24", "shot train/15"]
    assert prompt.n_tokens <= backend.max_model_len - 50


def test_then_function_descriptions_then_parameter_descriptions() -> None:
    no_functions = _size(0, descriptions=False)
    bare = _size(0, descriptions=False, parameter_descriptions=False)
    assert bare < no_functions < _size(0)
    prompt = fit_prompt(SAMPLE, SHOTS, cot_messages, WordBackend(no_functions + 10), style="cot", reserve=10)
    assert prompt.shots == [] and prompt.dropped[-1] == "function descriptions" and len(prompt.dropped) == 4
    prompt = fit_prompt(SAMPLE, SHOTS, cot_messages, WordBackend(bare + 10), style="cot", reserve=10)
    assert prompt.dropped[-2:] == ["function descriptions", "parameter descriptions"]
    signatures = json.loads(prompt.messages[-1].content.split("\n\n")[1])
    assert all("description" not in f and all("description" not in p for p in f["parameters"]["properties"].values()) for f in signatures)


def test_a_prompt_too_long_even_when_bare_is_an_error_not_a_cut() -> None:
    bare = _size(0, descriptions=False, parameter_descriptions=False)
    with pytest.raises(PromptTooLong, match="test/0: prompt exceeds context") as info:
        fit_prompt(SAMPLE, SHOTS, cot_messages, WordBackend(bare + 9), style="cot", reserve=10)
    assert info.value.n_tokens == bare and info.value.limit == bare - 1
    assert info.value.dropped[-1] == "parameter descriptions"


def test_the_assistant_prefix_counts_against_the_budget() -> None:
    backend = WordBackend(_size(0) + 10)
    assert fit_prompt(SAMPLE, [], cot_messages, backend, style="react", reserve=10).dropped == []
    prompt = fit_prompt(SAMPLE, [], cot_messages, backend, style="react", reserve=10, assistant_prefix="Thought:")
    assert prompt.dropped == ["function descriptions"] and prompt.text.endswith("Thought:")
