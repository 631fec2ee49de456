"""A sample as a prompt setting shows it: offered functions, obfuscation, schema view.

:func:`present` returns the sample rewritten for the prompt (its signatures,
response SDL and, for a few-shot example, its gold code), so every prompt
style renders it unchanged and the context budget measures what is really
sent. The rewritten sample is only ever shown; scoring and execution use the
original, after :meth:`Presented.real_code` has mapped the model's program
back to the real names.

Under the default setting (``gold``, no obfuscation, full schema) the sample
comes back as it is, so prompts stay byte for byte the paper's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.generators.obfuscate import NameMap, Obfuscation, build_name_map, hide_words, parse_obfuscate
from gqlbench.generators.offer import DomainCatalog, FunctionsSetting, load_domain_catalog, offered_functions, parse_functions
from gqlbench.generators.prompts import Shown
from gqlbench.generators.sdl_view import SCHEMA_CHOICES, view_sdl
from gqlbench.records import FunctionSpec, Sample

__all__ = ["PromptSetting", "Presented", "present", "Presenter"]


@dataclass(frozen=True)
class PromptSetting:
    """``--functions``, ``--obfuscate`` and ``--schema`` as given (strings, as stored in config.json)."""

    functions: str = "gold"
    obfuscate: str = "none"
    schema: str = "full"

    def __post_init__(self) -> None:
        self.parsed_functions  # noqa: B018 - validates now, before any work
        parse_obfuscate(self.obfuscate)
        if self.schema not in SCHEMA_CHOICES:
            raise GqlbenchError(f"--schema {self.schema!r}: choose one of {', '.join(SCHEMA_CHOICES)}")

    @property
    def parsed_functions(self) -> FunctionsSetting:
        return parse_functions(self.functions)

    @property
    def obfuscation(self) -> Obfuscation:
        return parse_obfuscate(self.obfuscate)

    @property
    def is_default(self) -> bool:
        return self == PromptSetting()

    @property
    def shown(self) -> Shown:
        """What prompts under this setting show, for their instructions and headings."""
        return Shown(schema=self.schema != "none", every_function_needed=self.parsed_functions.kind == "gold")


@dataclass(frozen=True)
class Presented:
    """One sample under a prompt setting."""

    sample: Sample  # as the prompt shows it (same id)
    original: Sample
    offered: list[str]  # real endpoint names, in prompt order
    names: NameMap = field(default_factory=NameMap)

    def real_code(self, code: str) -> str:
        """A program written in the shown names, in the real ones."""
        return self.names.backward(code)

    def real_code_logged(self, code: str) -> tuple[str, dict[str, str]]:
        """:meth:`real_code`, and ``{name as written: real name}`` of the calls of functions this sample did not offer."""
        return self.names.backward_logged(code)

    def record(self) -> dict[str, Any]:
        """What samples.jsonl keeps: the offered functions and the name mapping."""
        return {"offered": list(self.offered), "obfuscation": self.names.to_json()}


def _shown_spec(spec: FunctionSpec, names: NameMap, obfuscation: Obfuscation) -> FunctionSpec:
    """``spec`` under the name map; hidden parameter names are hidden in its descriptions too (``"person id"``)."""
    raw = spec.model_dump(mode="json", exclude_unset=True)
    keywords = names.keywords(spec.name)
    raw["name"] = names.shown(spec.name)
    descriptions = not (obfuscation.descriptions or obfuscation.spec_descriptions)
    if not descriptions or obfuscation.function_descriptions:
        raw.pop("description", None)
    elif isinstance(raw.get("description"), str):
        raw["description"] = hide_words(raw["description"], keywords)
    parameters = raw.get("parameters")
    if isinstance(parameters, dict):
        properties = parameters.get("properties", {})
        renamed = {}
        for key, value in properties.items():
            if isinstance(value, dict) and not descriptions:
                value.pop("description", None)
            elif isinstance(value, dict) and isinstance(value.get("description"), str):
                value["description"] = hide_words(value["description"], keywords)
            renamed[keywords.get(key, key)] = value
        if "properties" in parameters:
            parameters["properties"] = renamed
        for key, value in parameters.items():  # required, body_params, ...: lists of parameter names
            if key != "properties" and isinstance(value, list):
                parameters[key] = [keywords.get(k, k) if isinstance(k, str) else k for k in value]
    return FunctionSpec.model_validate(raw)


def _catalog_or_none(domain: str) -> DomainCatalog | None:
    try:
        return load_domain_catalog(domain)
    except GqlbenchError:
        return None


def present(
    sample: Sample, setting: PromptSetting, seed: int, *, catalog: DomainCatalog | None = None, offered: Sequence[str] | None = None
) -> Presented:
    """``sample`` under ``setting``; ``offered`` overrides the offer (e.g. a relevance case without one gold function)."""
    choice = setting.parsed_functions
    obfuscation = setting.obfuscation
    if catalog is None and (choice.kind != "gold" or offered is not None or obfuscation.renames):
        catalog = _catalog_or_none(sample.domain)
    if catalog is None and (choice.kind != "gold" or offered is not None):
        raise GqlbenchError(
            f"sample {sample.id}: domain {sample.domain!r} is not in the catalog, so --functions {choice} "
            "cannot offer its endpoints; use --functions gold or add the domain (see GQLBENCH_CATALOG)"
        )
    if offered is None:
        offered = offered_functions(sample, catalog, choice, seed) if catalog else list(sample.function_names)
    offered = list(offered)
    own = offered == sample.function_names
    by_name = {s.name: s for s in sample.function_specs}
    if own:
        specs = list(sample.function_specs)
        sdl = sample.graphql_schema
    else:
        assert catalog is not None
        specs = [catalog.specs.get(n) or by_name[n] for n in offered if n in catalog.specs or n in by_name]
        sdl = "\n".join(catalog.sdl[n] for n in offered if n in catalog.sdl)
    names = build_name_map(
        sample.domain, list(catalog.specs) if catalog else [], specs, obfuscation, seed, catalog.specs if catalog else None
    )
    if setting.is_default:
        return Presented(sample, sample, offered, names)
    shown = sample.model_copy(
        update={
            "function_specs": [_shown_spec(s, names, obfuscation) for s in specs],
            "graphql_schema": view_sdl(sdl, setting.schema, obfuscation, names, where=f"sample {sample.id}"),
            "gold_code": names.forward(sample.gold_code),
            "input": "",
        }
    )
    return Presented(shown, sample, offered, names)


@dataclass
class Presenter:
    """Presents the samples (and few-shot examples) of one run, each once."""

    setting: PromptSetting
    seed: int
    offers: dict[str, list[str]] = field(default_factory=dict)  # sample id -> its offer, instead of the setting's choice
    _seen: dict[str, Presented] = field(default_factory=dict)
    _examples: dict[str, Presented] = field(default_factory=dict)  # examples shown without some functions

    def __call__(self, sample: Sample) -> Presented:
        if sample.id not in self._seen:
            self._seen[sample.id] = present(sample, self.setting, self.seed, offered=self.offers.get(sample.id))
        return self._seen[sample.id]

    def example(self, shot: Sample, avoid: Sequence[str] = ()) -> Presented:
        """``shot`` as a few-shot example that must not show the functions in ``avoid`` (left out of its offer)."""
        presented = self(shot)
        offered = [n for n in presented.offered if n not in avoid]
        if offered == presented.offered:
            return presented
        key = f"{shot.id}|without:{','.join(sorted(avoid))}"
        if key not in self._examples:
            self._examples[key] = present(shot, self.setting, self.seed, offered=offered)
        return self._examples[key]

    def get(self, sample_id: str) -> Presented | None:
        """A sample already presented (how an observer finds the real program of a shown one)."""
        return self._seen.get(sample_id)
