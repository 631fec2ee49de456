"""The relevance set: every case it holds cannot be done with the functions it offers."""

from __future__ import annotations

import pytest

from gqlbench.dataset import called_functions, get_sample, load_errata, load_split
from gqlbench.generators.cot import cot_messages
from gqlbench.metrics.abstention import read_abstention
from gqlbench.relevance import is_impossible_id, offered_sample, relevance_set, stand_in
from gqlbench.schemas import query_fields
from gqlbench.schemas.merge import parse_sdl
from gqlbench.specs import load_specs


@pytest.mark.parametrize("split", ["test", "valid", "train"])
def test_every_case_of_the_set_is_impossible_and_its_twin_possible(split: str) -> None:
    samples = load_split(split)
    cases, dropped = relevance_set(samples, load_errata())
    assert len(cases) + len(dropped) == len(samples) and len(cases) > len(samples) // 2
    for case in cases:
        domain = case.possible.domain
        catalog = load_specs(domain)
        gold = called_functions(case.possible.gold_code, set(catalog))
        offered = case.impossible.function_names
        assert set(case.possible.function_names) == set(gold) and case.removed in gold
        assert sorted(offered) == sorted(n for n in gold if n != case.removed)
        assert is_impossible_id(case.impossible.id) and not is_impossible_id(case.possible.id)
        # the removed endpoint is nowhere in the prompt: not a signature, not a schema Query field, not a word
        assert case.removed not in query_fields(parse_sdl(case.impossible.graphql_schema or "scalar JSON", case.impossible.id))
        prompt = "\n".join(m.content for m in cot_messages(case.impossible, []))
        assert case.removed not in prompt
        # the gold program is not a program over the offered functions, and nothing offered could stand in
        assert case.removed in read_abstention(case.impossible.gold_code, set(offered), set(catalog)).unoffered
        assert not any(stand_in(domain, case.removed, other) for other in offered)
        assert all(name in catalog for name in gold)  # each name is one endpoint of the catalog, the only one with that job


def test_the_set_is_deterministic_and_says_why_a_sample_is_left_out() -> None:
    samples = load_split("test")
    first, second = relevance_set(samples, load_errata()), relevance_set(samples, load_errata())
    assert first == second
    reasons = {d.sample_id: d.reason for d in first[1]}
    assert "needs one function" in reasons["test/8"]
    _, train_dropped = relevance_set([get_sample("train/61"), get_sample("train/84")], load_errata())
    assert [d.sample_id for d in train_dropped] == ["train/61", "train/84"]
    assert "stand-in" in train_dropped[0].reason and "invalid gold" in train_dropped[1].reason


def test_the_last_call_without_a_stand_in_is_the_one_removed() -> None:
    (case,), _ = relevance_set([get_sample("test/0")], load_errata())
    assert case.removed == called_functions(case.possible.gold_code, set(load_specs("spotify")))[-1]
    assert case.impossible.id == "test-impossible/0" and case.impossible.split == "test-impossible"


def test_stand_ins_need_the_same_method_and_response_shape() -> None:
    assert stand_in("tmdb", "GET_search_tv", "GET_tv__tv_id__similar")  # both a page of TV shows
    assert not stand_in("tmdb", "GET_search_tv", "GET_tv__tv_id_")
    assert not stand_in("spotify", "GET_me", "POST_me_player_queue")


def test_an_offered_sample_renders_exactly_the_offered_functions() -> None:
    sample = get_sample("test/0")
    names = ["GET_me", "GET_search"]
    offered = offered_sample(sample, names)
    assert offered.function_names == names and offered.id == sample.id
    assert set(query_fields(parse_sdl(offered.graphql_schema, "offered"))) == set(names)


def test_a_case_is_never_built_from_a_case() -> None:
    (case,), _ = relevance_set([get_sample("test/0")], load_errata())
    with pytest.raises(Exception, match="already an impossible case"):
        relevance_set([case.impossible], load_errata())
