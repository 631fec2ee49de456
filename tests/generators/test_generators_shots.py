"""Few-shot selection: deterministic, from train of the same domain only, never errata gold."""

from __future__ import annotations

import random

import pytest

from gqlbench.dataset import Errata, load_errata, load_split
from gqlbench.errors import GqlbenchError
from gqlbench.generators.prompts import gold_calls
from gqlbench.generators.shots import select_shots, shot_pool, shot_rule_name, shot_set, utterance_overlap
from gqlbench.records import Sample


@pytest.fixture(scope="module")
def pool() -> list[Sample]:
    return shot_pool(load_split("train"), load_errata())


def _sample(sample_id: str, utterance: str, domain: str = "tmdb", gold: str = "GET_x()") -> Sample:
    split, index = sample_id.split("/")
    return Sample(
        id=sample_id,
        split=split,
        index=int(index),
        domain=domain,
        utterance=utterance,
        gold_code=gold,
        function_specs=[],
        graphql_schema="",
    )


def test_errata_samples_are_never_in_the_pool(pool: list[Sample]) -> None:
    errata = load_errata()
    ids = {s.id for s in pool}
    assert errata.invalid_gold and not ids & set(errata.invalid_gold)
    assert not ids & set(errata.positional_gold_args)
    broken = set(errata.other["non_executable_gold"])
    assert "train/15" in broken and not ids & broken
    unfit = {i for i in set(errata.invalid_gold) | set(errata.positional_gold_args) | broken if i.startswith("train/")}
    assert len(pool) == len(load_split("train")) - len(unfit)


def test_gold_that_does_not_parse_is_left_out_even_without_an_errata_entry() -> None:
    train = load_split("train")
    pool = shot_pool(train, Errata())
    assert "train/84" not in {s.id for s in pool}  # not valid Python
    assert len(pool) == len(train) - 1


def test_no_shot_comes_from_the_evaluated_split_or_another_domain(pool: list[Sample]) -> None:
    for split in ("valid", "test"):
        for sample in load_split(split):
            for rule in ("similar", "fixed"):
                shots = select_shots(sample, pool, 3, rule)
                assert len(shots) == 3
                assert all(s.split == "train" and s.domain == sample.domain for s in shots), (sample.id, rule)


def test_selection_is_deterministic_and_independent_of_pool_order(pool: list[Sample]) -> None:
    shuffled = list(pool)
    random.Random(7).shuffle(shuffled)
    for sample in load_split("test"):
        for rule in ("similar", "fixed"):
            assert [s.id for s in select_shots(sample, pool, 3, rule)] == [s.id for s in select_shots(sample, shuffled, 3, rule)]


def test_similar_ranks_by_word_overlap_then_line_index() -> None:
    query = _sample("test/0", "who directed the movie Alien")
    pool = [
        _sample("train/0", "tell me a joke"),
        _sample("train/1", "who directed Alien"),
        _sample("train/2", "who directed the movie Alien"),
        _sample("train/3", "who directed Jaws"),
        _sample("train/4", "who directed Heat"),  # same overlap as train/3: the lower index wins
        _sample("train/5", "who directed the movie Alien", domain="spotify"),
    ]
    assert [s.id for s in select_shots(query, pool, 3, "similar")] == ["train/2", "train/1", "train/3"]
    assert utterance_overlap("Who directed", "who DIRECTED") == 1.0


def test_fixed_is_one_set_per_domain_covering_new_functions_first(pool: list[Sample]) -> None:
    tests = [s for s in load_split("test") if s.domain == "tmdb"]
    sets = {tuple(s.id for s in select_shots(sample, pool, 3, "fixed")) for sample in tests}
    assert len(sets) == 1
    chosen = [next(p for p in pool if p.id == i) for i in sets.pop()]
    functions = [{c.function for c in gold_calls(s.gold_code)} for s in chosen]
    assert functions[1] - functions[0] and functions[2] - functions[0] - functions[1]


def test_a_train_sample_is_shown_only_examples_other_than_itself_and_zero_shots_is_empty(pool: list[Sample]) -> None:
    train = load_split("train")
    fixed = {s.id for s in shot_set(pool, 3)}
    outside = next(s for s in train if s.id not in fixed and s.domain == "tmdb")
    inside = next(s for s in train if s.id in fixed)
    shown = select_shots(outside, pool, 3)  # --split all: the fixed set, which does not hold the sample
    assert {s.id for s in shown} <= fixed and outside.id not in {s.id for s in shown}
    with pytest.raises(GqlbenchError, match=f"sample {inside.id} is one of its domain's 3 fixed few-shot examples"):
        select_shots(inside, pool, 3)
    with pytest.raises(GqlbenchError, match="--shots 0"):  # per-sample retrieval would find the sample itself
        select_shots(outside, pool, 3, "similar")
    assert select_shots(inside, pool, 0) == []
    with pytest.raises(GqlbenchError, match="shot rule"):
        select_shots(load_split("test")[0], pool, 3, "random")


def test_the_fixed_set_of_every_domain_is_what_test_samples_are_shown_and_grows_by_prefix(pool: list[Sample]) -> None:
    shown = {s.domain: [x.id for x in select_shots(s, pool, 3)] for s in load_split("test")}
    assert [s.id for s in shot_set(pool, 3)] == shown["spotify"] + shown["tmdb"]
    for domain in ("spotify", "tmdb"):
        sets = [[s.id for s in shot_set(pool, k) if s.domain == domain] for k in range(6)]
        assert all(sets[k] == sets[k + 1][:k] and len(sets[k]) == k for k in range(5)), domain


def test_the_default_rule_is_the_papers_one_fixed_set_per_domain_and_diverse_names_it_too(pool: list[Sample]) -> None:
    for domain in ("spotify", "tmdb"):
        tests = [s for s in load_split("test") if s.domain == domain]
        default = {tuple(s.id for s in select_shots(sample, pool, 3)) for sample in tests}
        assert len(default) == 1, domain  # every sample of the domain: the same examples
        assert default == {tuple(s.id for s in select_shots(sample, pool, 3, "diverse")) for sample in tests}
    assert shot_rule_name("diverse") == "fixed" and shot_rule_name("similar") == "similar"
