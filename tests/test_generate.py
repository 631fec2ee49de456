"""The prompts a run builds (gqlbench.generate): what their instructions and headings promise is what they show."""

from __future__ import annotations

from typing import cast

import pytest

from gqlbench.dataset import load_split
from gqlbench.dry_run import TokenCounter
from gqlbench.generate import Generator
from gqlbench.generators.backend import Backend
from gqlbench.generators.react import SchemaObserver
from gqlbench.records import Prompt
from gqlbench.run_config import RunSettings


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
