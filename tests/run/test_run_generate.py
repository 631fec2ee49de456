"""The prompts a run builds (gqlbench.run.generate): what their instructions and headings promise is what they show."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from gqlbench.dataset import load_split
from gqlbench.generators.backends.backend import Backend
from gqlbench.generators.react import SchemaObserver
from gqlbench.records import Prompt
from gqlbench.run.config import RunSettings
from gqlbench.run.dry_run import TokenCounter
from gqlbench.run.generate import Generator


def _prompts(**settings: object) -> list[Prompt]:
    run = RunSettings(model="m", **settings)  # type: ignore[arg-type]
    observer = SchemaObserver() if run.style.uses_steps else None
    counter = TokenCounter(None, 10**7, "estimate")  # renders and counts; large enough that no shot is dropped

    def no_pool() -> None:
        raise AssertionError("building prompts runs nothing")

    generator = Generator(run, cast(Backend, counter), observer, no_pool)  # type: ignore[arg-type]
    return [generator.prompt(sample) for sample in load_split("test")]


@pytest.mark.parametrize("prompt", ["cot", "react"])
def test_without_a_schema_no_message_names_one(prompt: str) -> None:
    for built in _prompts(prompt=prompt, schema="none"):
        assert len(built.shots) == 3
        for message in built.messages:
            assert "GraphQL schema" not in message.content, (built.sample_id, message.role)
        system = built.messages[0].content
        assert "not shown" in system and "schema names them" not in system


@pytest.mark.parametrize("prompt", ["cot", "react"])
def test_the_papers_prompt_promises_the_schema_it_shows_and_a_wider_offer_says_not_all_are_needed(prompt: str) -> None:
    default = _prompts(prompt=prompt, limit=2)
    for built in default:
        assert "the GraphQL schema of the responses they return" in built.messages[0].content
        assert all(m.content.count("GraphQL schema:\n\n") == 1 for m in built.messages if m.role == "user")
        assert "not every one of them is needed" not in built.messages[0].content
    for built in _prompts(prompt=prompt, functions="distractors:3", limit=2):
        assert "not every one of them is needed" in built.messages[0].content


def test_each_completion_is_reported_as_it_is_generated_before_its_batch_is_scored(tmp_path: Path) -> None:
    """A batch's progress shows requests finished (and their tokens) while the batch is still being scored and written."""
    from gqlbench.run.generate import Sink
    from tests.stub_backends import StubBackend

    settings = RunSettings(model="stub", backend="stub", limit=3, shots=0, execute=False)

    def no_pool() -> None:
        raise AssertionError("--no-exec runs nothing")

    generator = Generator(settings, cast(Backend, StubBackend()), None, no_pool)  # type: ignore[arg-type]
    told: list[str] = []
    generator.on_generated = lambda completion: told.append(completion.sample_id)
    chunk = [(sample, (0,)) for sample in load_split("test")[:3]]
    seen_before_first_result = None
    for item in generator.run_chunk(chunk, Sink(tmp_path)):
        if seen_before_first_result is None and not isinstance(item, str):
            seen_before_first_result = list(told)
    assert seen_before_first_result == ["test/0", "test/1", "test/2"]
