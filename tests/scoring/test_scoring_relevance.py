"""The relevance set: every case it holds cannot be done with the functions it offers."""

from __future__ import annotations

import pytest

from gqlbench.dataset import called_functions, get_sample, load_errata, load_split
from gqlbench.generators.cot import cot_messages
from gqlbench.generators.offer import load_domain_catalog, offered_functions, parse_functions
from gqlbench.generators.present import Presenter, PromptSetting
from gqlbench.metrics.abstention import read_abstention
from gqlbench.schemas import query_fields
from gqlbench.schemas.merge import parse_sdl
from gqlbench.scoring.relevance import is_impossible_id, offered_sample, relevance_set, stand_in
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


@pytest.mark.parametrize("functions", ["distractors:3", "domain"])
def test_a_wider_offer_holds_no_stand_in_for_the_removed_function(functions: str) -> None:
    samples = load_split("test")
    cases, dropped = relevance_set(samples, load_errata(), functions, seed=0)
    assert len(cases) + len(dropped) == len(samples) and len(cases) > len(samples) // 2
    shapes: dict[tuple[str, str], object] = {}  # response shapes, each read once
    would_have = 0  # cases whose usual wider offer holds a stand-in (so keeping them out is exercised)
    for case in cases:
        domain = case.possible.domain
        catalog = load_domain_catalog(domain)
        gold = called_functions(case.possible.gold_code, set(catalog.specs))
        possible, impossible = case.offers[case.possible.id], case.offers[case.impossible.id]
        assert set(gold) <= set(possible) and len(possible) == len(set(possible))  # every gold function, once
        assert impossible == [n for n in possible if n != case.removed]
        assert case.removed not in impossible and all(name in catalog.specs for name in impossible)
        assert not any(stand_in(domain, case.removed, other, shapes) for other in impossible)  # checked against the catalog
        others = [n for n in catalog.specs if n not in gold and not stand_in(domain, case.removed, n, shapes)]
        assert len(possible) == len(gold) + (len(others) if functions == "domain" else min(3, len(others)))
        for sample in (case.possible, case.impossible):  # the prompt shows exactly that offer
            assert Presenter(PromptSetting(functions), 0, offers=case.offers)(sample).sample.function_names == case.offers[sample.id]
        usual = offered_functions(case.possible, catalog, parse_functions(functions), 0)
        would_have += any(stand_in(domain, case.removed, n, shapes) for n in usual if n != case.removed)
    assert would_have


def test_a_wider_offer_is_the_same_for_the_same_seed_and_absent_under_gold() -> None:
    samples = load_split("test")[:8]
    first, again = relevance_set(samples, load_errata(), "distractors:3", 1), relevance_set(samples, load_errata(), "distractors:3", 1)
    other = relevance_set(samples, load_errata(), "distractors:3", 2)
    assert first == again and [c.offers for c in first[0]] != [c.offers for c in other[0]]
    assert [c.removed for c in first[0]] == [c.removed for c in other[0]] == [c.removed for c in relevance_set(samples, load_errata())[0]]
    assert all(c.offers == {} for c in relevance_set(samples, load_errata())[0])


def test_a_sample_whose_offer_cannot_be_widened_without_a_stand_in_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    sample = get_sample("test/0")
    gold = set(called_functions(sample.gold_code, set(load_specs("spotify"))))
    monkeypatch.setattr("gqlbench.scoring.relevance.stand_in", lambda domain, removed, other, shapes=None: other not in gold)
    assert relevance_set([sample], load_errata())[0]  # with the gold functions alone it is a case
    cases, (left_out,) = relevance_set([sample], load_errata(), "distractors:3")
    assert not cases and left_out.sample_id == "test/0"
    assert left_out.reason.startswith("--functions distractors:3: every other endpoint of spotify could stand in for ")
