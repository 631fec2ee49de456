"""CoT generation: the fence stop ends an answer only after its code block has closed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from gqlbench.dataset import load_split
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.cot import CLOSING_FENCE, CONTINUED, MAX_CONTINUATIONS, cot_stop
from gqlbench.generators.styles import CotStyle, StyleOptions
from gqlbench.metrics import extract_code
from gqlbench.records import Completion, Message, Prompt

# (assistant prefix) -> (text, finish reason, stop sequence the backend reports, tokens)
Script = Callable[[str], tuple[str, str, str | None, int]]


class ScriptedBackend:
    """Answers each request from a script of its assistant prefix, recording what it was asked."""

    name = "scripted"
    max_model_len = 100_000

    def __init__(self, script: Script) -> None:
        self.script = script
        self.asked: list[tuple[str, GenerationConfig]] = []

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        return "".join(m.content for m in messages) + assistant_prefix

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        for request in requests:
            self.asked.append((request.assistant_prefix, config))
            text, finish, stop, tokens = self.script(request.assistant_prefix)
            yield Completion(
                sample_id=request.sample_id, text=text, tokens_in=10, tokens_out=tokens, latency_s=1.0, finish_reason=finish, stop=stop
            )

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name}

    def close(self) -> None:
        pass


def _generate(script: Script, max_new_tokens: int = 64) -> tuple[Completion, ScriptedBackend]:
    sample = load_split("test")[0]
    backend = ScriptedBackend(script)
    prompt = Prompt(sample_id=sample.id, style="cot", messages=[Message(role="user", content="task")])
    config = GenerationConfig(max_new_tokens=max_new_tokens, stop=cot_stop())
    (completion,) = CotStyle().start(StyleOptions()).generate([(sample, prompt)], backend, config)
    return completion, backend


def test_a_bare_opening_fence_cut_from_the_text_is_continued() -> None:
    """vLLM and a vLLM server report the stop string: it fired while no block was open, so it opened one."""

    def script(prefix: str) -> tuple[str, str, str | None, int]:
        if not prefix:
            return "I need one call.", "stop", CLOSING_FENCE, 5
        return "r = GET_me()", "stop", CLOSING_FENCE, 4

    completion, backend = _generate(script)
    assert [prefix for prefix, _ in backend.asked] == ["", "I need one call.\n```\n"]
    assert backend.asked[1][1].max_new_tokens == 64 - 5  # the budget left
    assert completion.text == "I need one call.\n```\nr = GET_me()" and extract_code(completion.text) == "r = GET_me()\n"
    assert (completion.tokens_out, completion.latency_s, completion.note) == (9, 2.0, CONTINUED)


def test_an_answer_stopped_right_after_its_opening_fence_is_continued() -> None:
    """transformers matches the stop across the prompt's last newline: '```\\n' as the whole answer, no stop reported."""
    completion, backend = _generate(lambda prefix: ("```\n", "stop", None, 2) if not prefix else ("r = GET_me()", "stop", None, 4))
    assert [prefix for prefix, _ in backend.asked] == ["", "```\n"]
    assert completion.text == "```\nr = GET_me()" and extract_code(completion.text) == "r = GET_me()\n"


@pytest.mark.parametrize("stop", [CLOSING_FENCE, None])
def test_a_block_closed_by_the_stop_is_not_continued(stop: str | None) -> None:
    completion, backend = _generate(lambda prefix: ("Plan.\n```python\nr = GET_me()", "stop", stop, 9))
    assert len(backend.asked) == 1 and completion.note is None


def test_an_answer_cut_inside_a_block_says_so() -> None:
    completion, _ = _generate(lambda prefix: ("Plan.\n```python\nr = GET_", "length", None, 64))
    assert completion.note and "ends inside an unclosed code block" in completion.note


def test_continuations_are_bounded_by_count_and_budget() -> None:
    completion, backend = _generate(lambda prefix: ("" if prefix else "```\n", "stop", None, 1))  # a model that stops at once
    assert len(backend.asked) == 1 + MAX_CONTINUATIONS and "still on an opening code fence" in (completion.note or "")
    completion, backend = _generate(lambda prefix: ("Plan.", "stop", CLOSING_FENCE, 64))  # nothing left to continue with
    assert len(backend.asked) == 1 and "no tokens left" in (completion.note or "") and completion.text.endswith(CLOSING_FENCE)
