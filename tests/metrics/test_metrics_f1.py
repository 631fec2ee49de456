"""Dataflow-edge, function and argument F1 from per-sample counts."""

from __future__ import annotations

import pytest

from gqlbench.metrics import analyze
from gqlbench.metrics.f1 import dataflow_edges, f1_scores, prf, sample_counts
from gqlbench.metrics.sources import references
from gqlbench.specs import load_specs

GOLD = """\
r = GET_search(q="Mariah Carey", type="track")
me = GET_me()
p = POST_users__user_id__playlists(user_id=me.id, name="Love Mariah")
POST_playlists__playlist_id__tracks(playlist_id=p.id, uris=",".join([t.uri for t in r.tracks.items[:3]]))
"""


@pytest.fixture(scope="module")
def functions():
    return load_specs("spotify")


def test_references_follow_comprehension_variables_into_elements() -> None:
    assert references("','.join([$0.uri for $0 in GET_search#1.tracks.items[:3]])") == (("GET_search#1", ".tracks.items[:3][*].uri"),)
    assert references("GET_me#1.id.upper()") == (("GET_me#1", ".id"),)
    assert references("len(GET_search#1.tracks.items)") == (("GET_search#1", ".tracks.items"),)
    assert references("'Love #1 hits'") == ()


def test_edges_name_producer_field_consumer_and_parameter(functions) -> None:
    edges = dataflow_edges(analyze(GOLD, functions))
    assert sorted(edges) == [
        ("GET_me#1", ".id", "POST_users__user_id__playlists#1", "user_id"),
        ("GET_search#1", ".tracks.items[:3][*].uri", "POST_playlists__playlist_id__tracks#1", "uris"),
        ("POST_users__user_id__playlists#1", ".id", "POST_playlists__playlist_id__tracks#1", "playlist_id"),
    ]


def test_gold_against_itself_counts_no_mistake(functions) -> None:
    gold = analyze(GOLD, functions)
    assert sample_counts(gold, gold) == {"dataflow": (3, 0, 0), "function": (4, 0, 0), "argument": (6, 0, 0)}


def test_a_wrong_field_path_costs_one_edge_each_way(functions) -> None:
    gold = analyze(GOLD, functions)
    wrong = analyze(GOLD.replace("user_id=me.id", "user_id=me.uri") + "GET_me()\n", functions)
    counts = sample_counts(gold, wrong)
    assert counts["dataflow"] == (2, 1, 1)
    assert counts["function"] == (4, 1, 0)
    assert counts["argument"] == (5, 1, 1)


def test_an_unparsed_prediction_predicts_nothing(functions) -> None:
    gold = analyze(GOLD, functions)
    assert sample_counts(gold, analyze("r = (", functions))["function"] == (0, 0, 4)
    assert sample_counts(gold, None)["dataflow"] == (0, 0, 3)


def test_prf_conventions() -> None:
    assert prf(0, 0, 0) == (1.0, 1.0, 1.0)
    assert prf(0, 0, 2) == (0.0, 0.0, 0.0)
    assert prf(1, 1, 2) == pytest.approx((0.5, 1 / 3, 0.4))


def test_split_scores_are_ratios_of_sums_not_means_of_f1() -> None:
    samples = [
        {"dataflow": (1, 0, 0), "function": (1, 0, 0), "argument": (0, 0, 0)},
        {"dataflow": (0, 0, 9), "function": (0, 1, 1), "argument": (0, 0, 0)},
    ]
    scores = f1_scores(samples)
    assert scores["dataflow_recall"] == pytest.approx(0.1)  # a mean of recalls would be 0.5
    assert scores["dataflow_precision"] == 1.0
    assert scores["function_f1"] == pytest.approx(0.5)
    assert scores["argument_f1"] == 1.0
