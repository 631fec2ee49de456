"""Under ``--obfuscate``, no prompt of the real dataset shows a real name, few-shot examples included.

Every test, valid and train sample's prompt (CoT and ReAct, with the examples
each shot rule picks for it; every fit train sample once as an example) is
searched for what the level hides: an endpoint name of the domain or a type
named after one (``GET_person__person_id_Root``) under ``names`` and ``all``;
a parameter name in a signature, a schema argument, an example's call, or
spelled out in a description (``"person id"`` for ``person_id``) under
``params`` and ``all``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import pytest
from graphql import parse
from graphql.language import ObjectTypeDefinitionNode, TypeDefinitionNode

from gqlbench.dataset import load_errata, load_split
from gqlbench.generators.cot import cot_messages
from gqlbench.generators.offer import load_domain_catalog
from gqlbench.generators.present import Presented, Presenter, PromptSetting
from gqlbench.generators.react import ReactPrompter, SchemaObserver
from gqlbench.generators.shots import SHOT_RULES, select_shots, shot_pool
from gqlbench.records import Sample

LEVELS = ("names", "params", "all")
_OPAQUE_PARAM = re.compile(r"^arg_\d+$")
_LINK_TARGET = re.compile(r"\]\([^)]*\)|https?://\S+")  # a URL is not prose: its anchor may spell a word (#spotify-uris-and-ids)


def _prompts(presenter: Presenter) -> Iterator[tuple[str, list[Presented], str]]:
    """(prompt id, every presented sample it shows, its whole text) for each prompt of the dataset."""
    pool = shot_pool(load_split("train"), load_errata())
    react = ReactPrompter(SchemaObserver())
    test = load_split("test")
    for split in ("test", "valid", "train"):
        for sample in load_split(split):
            for rule in [None] if split == "train" else SHOT_RULES:
                shots = [] if rule is None else select_shots(sample, pool, 3, rule)
                shown = [presenter(s) for s in (sample, *shots)]
                yield f"{sample.id} ({rule or 'no'} shots)", shown, _text(presenter, sample, shots, react)
    for shot in pool:  # every sample that can be an example, as one
        host = next(s for s in test if s.domain == shot.domain)
        yield f"{shot.id} as an example", [presenter(shot)], _text(presenter, host, [shot], react)


def _text(presenter: Presenter, sample: Sample, shots: list[Sample], react: ReactPrompter) -> str:
    shown, examples = presenter(sample).sample, [presenter(s).sample for s in shots]
    messages = cot_messages(shown, examples) + react(shown, examples)
    return "\n".join(m.content for m in messages)


def _in_prose(word: str, text: str) -> bool:
    """A word of prose: not part of a compound (``playlist-modify-public``) or a dotted name."""
    return re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w-])", _LINK_TARGET.sub(" ", text)) is not None


def _param_leaks(presented: Presented, example: bool) -> list[str]:
    """Real parameter names a presented sample shows: signatures, schema arguments, example calls, descriptions."""
    shown = presented.sample
    catalog = load_domain_catalog(shown.domain).specs
    every = {p for spec in catalog.values() for p in spec.param_names}
    leaks = []
    originals = dict(catalog) | {s.name: s for s in presented.original.function_specs}  # the signatures it shows
    assert len(presented.offered) == len(shown.function_specs)
    for real_name, spec in zip(presented.offered, shown.function_specs, strict=True):
        listed = [n for v in spec.parameters.model_dump().values() if isinstance(v, list) for n in v]
        leaks += [f"signature {spec.name}: {n}" for n in [*spec.param_names, *listed] if isinstance(n, str) and not _OPAQUE_PARAM.match(n)]
        real = set(originals[real_name].param_names)
        forms = real | {w.replace("_", " ") for w in real}
        for text in [spec.description or "", *(p.description or "" for p in spec.parameters.properties.values())]:
            leaks += [f"description of {spec.name}: {w!r}" for w in sorted(forms) if _in_prose(w, text)]
    if shown.graphql_schema.strip():
        for definition in parse(shown.graphql_schema).definitions:
            if isinstance(definition, ObjectTypeDefinitionNode) and definition.name.value == "Query":
                for field in definition.fields or ():
                    leaks += [f"schema argument {field.name.value}: {a.name.value}" for a in field.arguments or () if a.name.value in every]
    for node in ast.walk(ast.parse(shown.gold_code)) if example else ():  # only an example's gold is shown
        if isinstance(node, ast.keyword) and node.arg is not None and not _OPAQUE_PARAM.match(node.arg):
            leaks.append(f"example call keyword {node.arg}")
    return leaks


@pytest.mark.parametrize("level", LEVELS)
def test_no_prompt_shows_a_real_name_its_level_hides(level: str) -> None:
    presenter = Presenter(PromptSetting(obfuscate=level), seed=0)
    hides = presenter.setting.obfuscation
    leaks: dict[str, list[str]] = {}
    for prompt, shown, text in _prompts(presenter):
        domain = shown[0].original.domain
        found: list[str] = []
        if hides.names:
            endpoints = set(load_domain_catalog(domain).specs)
            found += sorted({e for e in endpoints if e in text})  # a substring: types named after it too
            found += sorted(set(re.findall(r"\b(?:GET|PUT|POST|DELETE|PATCH)_\w+", text)))
        if hides.params:
            for i, presented in enumerate(shown):
                found += _param_leaks(presented, example=i > 0 or prompt.endswith("as an example"))
        if found:
            leaks[prompt] = found
    assert not leaks, f"{len(leaks)} prompts leak, e.g. {dict(list(leaks.items())[:3])}"


def test_types_stay_distinct_and_keep_their_part() -> None:
    """``GET_tracks__id_Album`` becomes ``api_<n>_Album``: every type keeps what follows the endpoint name, none merge."""
    presenter = Presenter(PromptSetting(obfuscate="names"), seed=0)
    for sample in load_split("test") + load_split("train"):
        if not sample.graphql_schema.strip():
            continue
        pairs = list(zip(_type_names(sample.graphql_schema), _type_names(presenter(sample).sample.graphql_schema), strict=True))
        assert len({after for _, after in pairs}) == len({before for before, _ in pairs}), sample.id
        for before, after in pairs:
            assert after == before or _keeps_part(before, after), (sample.id, before, after)


def _keeps_part(before: str, after: str) -> bool:
    match = re.fullmatch(r"api_\d+(?:_([A-Z]\w*))?", after)
    return match is not None and before.endswith(match.group(1) or "")


def _type_names(sdl: str) -> list[str]:
    return [d.name.value for d in parse(sdl).definitions if isinstance(d, TypeDefinitionNode)]
