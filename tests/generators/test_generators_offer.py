"""Which functions a prompt offers: parsing, determinism, shuffling, connected distractors."""

from __future__ import annotations

import statistics

import pytest

from gqlbench.dataset import load_split
from gqlbench.errors import GqlbenchError
from gqlbench.generators.offer import (
    FunctionsSetting,
    connectedness,
    load_domain_catalog,
    offered_functions,
    parse_functions,
    without,
)


def test_settings_parse_and_print_back() -> None:
    for text in ("gold", "domain", "distractors:3", "distractors:10:connected"):
        assert str(parse_functions(text)) == text
    assert parse_functions("distractors:4:connected") == FunctionsSetting("distractors", 4, True)
    for bad in ("all", "distractors", "distractors:-1", "distractors:3:near", "distractors:x"):
        with pytest.raises(GqlbenchError, match="--functions"):
            parse_functions(bad)


def test_gold_is_the_samples_own_order_and_domain_is_every_endpoint_shuffled() -> None:
    for sample in load_split("test")[:6]:
        catalog = load_domain_catalog(sample.domain)
        assert offered_functions(sample, catalog, FunctionsSetting(), 0) == sample.function_names
        domain = offered_functions(sample, catalog, parse_functions("domain"), 0)
        assert sorted(domain) == sorted(set(catalog.specs) | set(sample.function_names))
        assert len(domain) == len(set(domain))
    assert len(load_domain_catalog("spotify").specs) == 34 and len(load_domain_catalog("tmdb").specs) == 46


def test_distractors_are_gold_plus_k_others_deterministic_per_seed_and_not_gold_first() -> None:
    samples = load_split("test")
    setting = parse_functions("distractors:5")
    gold_first = 0
    for sample in samples:
        catalog = load_domain_catalog(sample.domain)
        offered = offered_functions(sample, catalog, setting, 0)
        assert set(sample.function_names) <= set(offered) and len(offered) == len(set(sample.function_names)) + 5
        assert offered == offered_functions(sample, catalog, setting, 0)
        gold_first += offered[: len(sample.function_names)] == sample.function_names
    assert gold_first < len(samples) / 4
    sample = samples[0]
    catalog = load_domain_catalog(sample.domain)
    by_seed = {tuple(offered_functions(sample, catalog, setting, seed)) for seed in range(5)}
    assert len(by_seed) > 1  # the seed changes the choice and the order


def test_more_distractors_than_the_domain_has_offers_the_whole_domain() -> None:
    sample = load_split("test")[0]
    catalog = load_domain_catalog(sample.domain)
    assert sorted(offered_functions(sample, catalog, parse_functions("distractors:500"), 1)) == sorted(catalog.specs)


def test_connected_distractors_are_the_most_connected_ones() -> None:
    connected_scores, random_scores = [], []
    for sample in load_split("test")[:12]:
        catalog = load_domain_catalog(sample.domain)
        others = [n for n in catalog.specs if n not in sample.function_names]
        chosen = [n for n in offered_functions(sample, catalog, parse_functions("distractors:4:connected"), 0)
                  if n not in sample.function_names]
        left = [n for n in others if n not in chosen]
        assert min(connectedness(sample, catalog, n) for n in chosen) >= max(connectedness(sample, catalog, n) for n in left)
        drawn = [n for n in offered_functions(sample, catalog, parse_functions("distractors:4"), 0) if n not in sample.function_names]
        connected_scores += [connectedness(sample, catalog, n) for n in chosen]
        random_scores += [connectedness(sample, catalog, n) for n in drawn]
    assert statistics.mean(connected_scores) > statistics.mean(random_scores)


def test_an_offer_minus_one_function_keeps_its_order() -> None:
    assert without(["a", "b", "c"], "b") == ["a", "c"]
