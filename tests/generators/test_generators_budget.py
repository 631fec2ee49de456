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


# -- --prompt tools: the tools' JSON is part of the prompt ------------------------------------


def _tools_size(backend: WordBackend, **detail: bool) -> int:
    from gqlbench.generators.budget import Detail
    from gqlbench.generators.tools import tool_specs, tools_messages

    return backend.count_tokens(backend.render(tools_messages(SAMPLE)) + "\n" + json.dumps(tool_specs(SAMPLE, Detail(**detail))))


def test_the_tools_json_counts_and_long_tools_lose_descriptions_then_are_refused() -> None:
    from gqlbench.generators.budget import detail_of
    from gqlbench.generators.tools import tool_specs, tools_messages

    def build(sample, shots, detail):  # type: ignore[no-untyped-def]
        return tools_messages(sample)

    messages_only = WordBackend(10**9).count_tokens(WordBackend(10**9).render(tools_messages(SAMPLE)))
    full = _tools_size(WordBackend(10**9))
    assert full > messages_only  # the tools are charged, not only the two messages
    prompt = fit_prompt(SAMPLE, [], build, WordBackend(full + 10), style="tools", reserve=10, tools=tool_specs)
    assert prompt.dropped == [] and prompt.n_tokens == full and '"parameters"' in (prompt.text or "")

    short = WordBackend(full + 9)  # one token short: the functions' descriptions go first
    prompt = fit_prompt(SAMPLE, [], build, short, style="tools", reserve=10, tools=tool_specs)
    assert prompt.dropped == ["function descriptions"] and not detail_of(prompt).descriptions
    assert all(
        SAMPLE.function_specs[0].description.strip() not in t["function"]["description"] for t in tool_specs(SAMPLE, detail_of(prompt))
    )
    with pytest.raises(PromptTooLong):
        fit_prompt(SAMPLE, [], build, WordBackend(messages_only + 10), style="tools", reserve=10, tools=tool_specs)


def test_a_backend_that_renders_tools_is_charged_its_own_rendering() -> None:
    from gqlbench.generators.tools import tool_specs, tools_messages

    class ToolsWordBackend(WordBackend):
        def render_tools(self, messages: Sequence[Message], tools: Sequence[dict]) -> str:  # type: ignore[type-arg]
            return self.render(messages) + " ".join(t["function"]["name"] for t in tools) * 50

    backend = ToolsWordBackend(10**9)
    prompt = fit_prompt(SAMPLE, [], lambda s, shots, d: tools_messages(s), backend, style="tools", reserve=0, tools=tool_specs)
    assert prompt.text == backend.render_tools(tools_messages(SAMPLE), tool_specs(SAMPLE))
