"""Checks shared by the real-backend tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.cot import cot_stop
from gqlbench.records import Message


def _check_cot_stop(backend: Backend) -> None:
    """With the CoT stops, the text after the closing fence is not generated (it is without them)."""
    request = GenerationRequest(
        "fence",
        (Message(role="user", content=("Write a Python function that adds two numbers, then explain it in three sentences.")),),
        "```python\ndef add(a, b):\n    return a + b",
    )
    (free,) = backend.generate([request], GenerationConfig(max_new_tokens=48))
    after = free.text.split("```", 1)
    assert len(after) == 2 and after[1].strip(), free.text  # left alone, the model writes on after the block
    (stopped,) = backend.generate([request], GenerationConfig(max_new_tokens=48, stop=cot_stop()))
    assert stopped.finish_reason == "stop" and "```" not in stopped.text and free.text.startswith(stopped.text)
    assert stopped.tokens_out < free.tokens_out  # the text after the block was never generated


@pytest.fixture
def check_cot_stop() -> Callable[[Backend], None]:
    return _check_cot_stop
