"""Opaque names and the rename back: calls and keywords only, consistent across a domain."""

from __future__ import annotations

import pytest

from gqlbench.dataset import load_split
from gqlbench.errors import GqlbenchError
from gqlbench.generators.obfuscate import (
    OBFUSCATE_CHOICES,
    Obfuscation,
    build_name_map,
    hide_words,
    parse_obfuscate,
    rename_calls,
    unknown_endpoint,
)
from gqlbench.generators.offer import load_domain_catalog
from gqlbench.specs.names import looks_like_endpoint_name


def test_choices_parse_to_what_they_hide() -> None:
    assert parse_obfuscate("none") == Obfuscation()
    assert parse_obfuscate("all") == Obfuscation(True, True, True)
    assert parse_obfuscate("params") == Obfuscation(params=True)
    assert set(OBFUSCATE_CHOICES) == {"none", "names", "params", "descriptions", "all", "function-descriptions", "spec-descriptions"}
    assert parse_obfuscate("function-descriptions") == Obfuscation(function_descriptions=True)
    assert parse_obfuscate("spec-descriptions") == Obfuscation(spec_descriptions=True)
    with pytest.raises(GqlbenchError, match="--obfuscate 'hide'"):
        parse_obfuscate("hide")


def test_rename_touches_only_called_names_and_keywords() -> None:
    code = "r = f(a=1, b=x.a)\ng(r.f, a=f)\nprint(z)  # f(a=2)\n"
    renamed = rename_calls(code, {"f": "api_1"}, {"f": {"a": "arg_1"}})
    assert renamed == "r = api_1(arg_1=1, b=x.a)\ng(r.f, a=f)\nprint(z)  # f(a=2)\n"


def test_unparsable_code_gets_whole_word_function_renames() -> None:
    assert rename_calls("api_1(arg_1=1\napi_12()", {"api_1": "GET_me", "api_12": "GET_x"}, {}) == "GET_me(arg_1=1\nGET_x()"


def test_gold_code_round_trips_and_numbers_are_shared_by_the_domain() -> None:
    samples = [s for s in load_split("test") if s.domain == "tmdb"][:5]
    catalog = load_domain_catalog("tmdb")
    maps = [build_name_map("tmdb", list(catalog.specs), s.function_specs, Obfuscation(True, True), 3) for s in samples]
    numbers: dict[str, str] = {}
    for sample, names in zip(samples, maps, strict=True):
        shown = names.forward(sample.gold_code)
        assert not any(f in shown for f in sample.function_names) and "api_" in shown
        assert names.backward(shown) == sample.gold_code
        for real, opaque in names.functions.items():
            assert numbers.setdefault(real, opaque) == opaque
    other_seed = build_name_map("tmdb", list(catalog.specs), samples[0].function_specs, Obfuscation(names=True), 4)
    assert other_seed.functions != maps[0].functions


def test_every_name_of_the_domain_numbering_maps_back_and_is_logged_when_not_offered() -> None:
    catalog = load_domain_catalog("tmdb")
    sample = [s for s in load_split("test") if s.domain == "tmdb"][0]
    names = build_name_map("tmdb", list(catalog.specs), sample.function_specs, Obfuscation(True, True), 3, catalog.specs)
    assert set(names.others) == set(catalog.specs) - set(sample.function_names)
    assert names.to_json()["functions"] == names.functions  # the record keeps only the offered names
    real = next(n for n in names.others if catalog.specs[n].param_names)
    first = catalog.specs[real].param_names[0]
    offered = sample.function_names[0]
    code = f"a = {names.others[real]}(arg_1=1)\nb = {names.functions[offered]}()\nc = api_999(arg_1=2)\n"
    back, logged = names.backward_logged(code)
    assert back == f"a = {real}({first}=1)\nb = {offered}()\nc = {unknown_endpoint('api_999')}(arg_1=2)\n"
    assert logged == {names.others[real]: real, "api_999": unknown_endpoint("api_999")}
    assert looks_like_endpoint_name(unknown_endpoint("api_999")) and unknown_endpoint("api_999") not in catalog.specs
    params_only = build_name_map("tmdb", list(catalog.specs), sample.function_specs, Obfuscation(params=True), 3, catalog.specs)
    assert params_only.backward_logged(f"{real}(arg_1=1)\n") == (f"{real}({first}=1)\n", {real: real})


def test_hidden_parameter_names_are_hidden_in_descriptions_too() -> None:
    keywords = {"person_id": "arg_1", "certification": "arg_2", "certification.lte": "arg_3", "ids": "arg_4"}
    assert hide_words("person id", keywords) == "arg_1"  # TMDB describes a parameter by spelling its name
    assert hide_words("Use `person_id`, not person_identity.", keywords) == "Use `arg_1`, not person_identity."
    assert hide_words("certification.lte or certification", keywords) == "arg_3 or arg_2"
    assert hide_words("[IDs](/web-api/#spotify-uris-and-ids): ids=1,2", keywords) == "[IDs](/web-api/#spotify-uris-and-ids): arg_4=1,2"
