"""A sample under a prompt setting: the prompt offers exactly the offered functions, in every view."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from gqlbench.dataset import load_split
from gqlbench.errors import GqlbenchError
from gqlbench.generators.cot import cot_messages
from gqlbench.generators.offer import load_domain_catalog
from gqlbench.generators.present import Presenter, PromptSetting, present
from gqlbench.generators.prompts import render_task
from gqlbench.records import Sample

FUNCTIONS = ("gold", "domain", "distractors:3", "distractors:5:connected")
OBFUSCATE = ("none", "names", "params", "descriptions", "all")
SCHEMAS = ("full", "types-only", "none")


def _signature_names(task: str) -> list[str]:
    block = task.split("Function Signatures:\n\n", 1)[1].split("\n\nGraphQL schema:", 1)[0]
    return [spec["name"] for spec in json.loads(block)]


def _endpoints_named(text: str, domain: str, extra: list[str]) -> set[str]:
    names = set(load_domain_catalog(domain).specs) | set(extra)
    return {n for n in names if re.search(rf"\b{re.escape(n)}\b", text)}


def _samples() -> list[Sample]:
    test = load_split("test")
    return [next(s for s in test if s.domain == d) for d in ("spotify", "tmdb")]


@pytest.mark.parametrize(("functions", "obfuscate", "schema"), list(itertools.product(FUNCTIONS, OBFUSCATE, SCHEMAS)))
def test_the_prompt_offers_exactly_the_offered_functions(functions: str, obfuscate: str, schema: str) -> None:
    setting = PromptSetting(functions, obfuscate, schema)
    presenter = Presenter(setting, seed=1)
    train = load_split("train")
    for sample in _samples():
        shot = next(s for s in train if s.domain == sample.domain and len(s.function_names) > 1)
        shown, example = presenter(sample), presenter(shot)
        messages = cot_messages(shown.sample, [example.sample])
        for presented, message in ((shown, messages[3]), (example, messages[1])):
            task = message.content
            expected = [presented.names.shown(n) for n in presented.offered]
            assert _signature_names(task) == expected
            named = _endpoints_named(task, sample.domain, presented.original.function_names)
            if setting.obfuscation.names:
                assert named == set() and set(re.findall(r"\bapi_\d+\b", task)) == set(expected)
            elif schema == "none" or functions != "gold":
                assert named == set(presented.offered)
            else:  # the sample's own SDL may declare an endpoint its signatures lack (see docs/catalog.md)
                assert set(presented.offered) <= named
        assert set(shown.offered) >= set(sample.function_names)
        if functions != "gold":
            assert shown.offered[: len(sample.function_names)] != sample.function_names or len(shown.offered) < 3


def test_the_default_setting_is_the_dataset_prompt_byte_for_byte() -> None:
    for sample in load_split("test")[:5]:
        presented = present(sample, PromptSetting(), 0)
        assert (
            presented.sample is sample
            and render_task(presented.sample) == sample.input
            and presented.record()["obfuscation"] == {"functions": {}, "params": {}}
        )


def test_schema_views() -> None:
    sample = _samples()[0]
    full = present(sample, PromptSetting(schema="full", functions="distractors:2"), 0).sample.graphql_schema
    types_only = present(sample, PromptSetting(schema="types-only", functions="distractors:2"), 0).sample.graphql_schema
    none = present(sample, PromptSetting(schema="none"), 0).sample
    assert '"""' in full and "@rest" in full
    assert '"""' not in types_only and "@rest" not in types_only and "type Query" in types_only
    assert set(re.findall(r"^type (\w+)", full, re.M)) == set(re.findall(r"^type (\w+)", types_only, re.M))
    assert none.graphql_schema == "" and "GraphQL schema:" not in render_task(none, schema=PromptSetting(schema="none").shown.schema)


def test_descriptions_are_removed_everywhere() -> None:
    sample = _samples()[1]
    shown = present(sample, PromptSetting("distractors:2", "descriptions"), 0).sample
    assert all(not s.description and all(not p.description for p in s.parameters.properties.values()) for s in shown.function_specs)
    assert '"""' not in shown.graphql_schema and "description" not in render_task(shown).split("GraphQL schema:")[0]


def test_the_papers_stripping_removes_every_description_of_the_specs_and_keeps_the_schemas() -> None:
    sample = _samples()[0]  # spotify: parameter descriptions are most of its signatures, and its schema has descriptions
    assert any(p.description for s in sample.function_specs for p in s.parameters.properties.values()) and '"""' in sample.graphql_schema
    stripped = present(sample, PromptSetting(obfuscate="spec-descriptions"), 0).sample
    assert all(not s.description and not any(p.description for p in s.parameters.properties.values()) for s in stripped.function_specs)
    assert stripped.graphql_schema == sample.graphql_schema and stripped.gold_code == sample.gold_code
    assert [s.param_names for s in stripped.function_specs] == [s.param_names for s in sample.function_specs]
    function_only = present(sample, PromptSetting(obfuscate="function-descriptions"), 0).sample
    assert not any(s.description for s in function_only.function_specs)
    assert [[p.description for p in s.parameters.properties.values()] for s in function_only.function_specs] == [
        [p.description for p in s.parameters.properties.values()] for s in sample.function_specs
    ]


def test_bad_values_are_one_line_errors() -> None:
    with pytest.raises(GqlbenchError, match="--schema 'short'"):
        PromptSetting(schema="short")
    with pytest.raises(GqlbenchError, match="--functions"):
        PromptSetting(functions="most")


def test_a_domain_outside_the_catalog_can_only_offer_gold() -> None:
    sample = _samples()[0].model_copy(update={"domain": "nowhere"})
    assert present(sample, PromptSetting(obfuscate="all"), 0).sample.function_names[0].startswith("api_")
    with pytest.raises(GqlbenchError, match="not in the catalog"):
        present(sample, PromptSetting("domain"), 0)
