"""The four scores per sample and per split (definitions 5-9), on hand-written cases and the real gold."""

from __future__ import annotations

import pytest

from gqlbench.dataset import load_split
from gqlbench.metrics import aggregate, missing_result, score_sample
from gqlbench.records import FunctionSpec, Parameters, ParamSpec, Sample, SampleResult, Scores


def spec(name: str, *params: str) -> FunctionSpec:
    return FunctionSpec(name=name, parameters=Parameters(properties={p: ParamSpec(type="string") for p in params}))


SPECS = [
    spec("GET_search_movie", "query", "page"),
    spec("GET_search_tv", "query", "page"),
    spec("GET_movie__movie_id__credits", "movie_id"),
    spec("GET_tv__tv_id__credits", "tv_id"),
]

GOLD = (
    "response_obj = GET_search_tv(query='Twin Peaks')\n"
    "response_obj1 = GET_search_movie(query='Mulholland Drive')\n"
    "GET_movie__movie_id__credits(movie_id=response_obj1.results[0].id)\n"
    "GET_tv__tv_id__credits(tv_id=response_obj.results[0].id)\n"
)


def sample(gold: str = GOLD, domain: str = "tmdb", sample_id: str = "test/0") -> Sample:
    split, _, index = sample_id.partition("/")
    return Sample(
        id=sample_id,
        split=split,
        index=int(index),
        domain=domain,
        utterance="u",
        gold_code=gold,
        function_specs=SPECS,
        graphql_schema="",
    )


def scores(prediction: str, gold: str = GOLD) -> tuple[int, int, int, int, int]:
    s = score_sample(sample(gold), prediction).scores
    return s.arg_match_full, s.matched_calls, s.gold_calls, s.seq_match_full, s.seq_match_conn


def test_renamed_variables_score_full() -> None:
    renamed = GOLD.replace("response_obj1", "movie").replace("response_obj", "show")
    assert scores(renamed) == (1, 4, 4, 1, 1)


def test_reordered_independent_calls_keep_arg_and_connected_match_but_not_full_sequence() -> None:
    reordered = (
        "m = GET_search_movie(query='Mulholland Drive')\n"
        "GET_movie__movie_id__credits(movie_id=m.results[0].id)\n"
        "t = GET_search_tv(query='Twin Peaks')\n"
        "GET_tv__tv_id__credits(tv_id=t.results[0].id)\n"
    )
    assert scores(reordered) == (1, 4, 4, 0, 1)


def test_nested_calls_equal_named_responses() -> None:
    nested = (
        "GET_tv__tv_id__credits(tv_id=GET_search_tv(query='Twin Peaks').results[0].id)\n"
        "GET_movie__movie_id__credits(movie_id=GET_search_movie(query='Mulholland Drive').results[0].id)\n"
    )
    # nesting gives program order search_tv, tv_credits, search_movie, movie_credits: not the gold's
    assert scores(nested) == (1, 4, 4, 0, 1)


def test_locals_and_comprehension_renames() -> None:
    gold = "r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=[m.id for m in r.results if m.adult][0])\n"
    predicted = (
        "movies = GET_search_movie(query='Up')\n"
        "ids = [x.id for x in movies.results if x.adult]\n"
        "first = ids[0]\n"
        "GET_movie__movie_id__credits(movie_id=first)\n"
    )
    assert scores(predicted, gold) == (1, 2, 2, 1, 1)


def test_positional_and_extra_arguments() -> None:
    gold = "r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n"
    predicted = "r = GET_search_movie('Up', page=1)\nGET_movie__movie_id__credits(r.results[0].id)\n"
    assert scores(predicted, gold) == (1, 2, 2, 1, 1)


def test_literal_id_instead_of_a_reference_does_not_match() -> None:
    gold = "r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n"
    predicted = "r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=14160)\n"
    # the names are right, the dataflow is not: one component became two
    assert scores(predicted, gold) == (0, 1, 2, 1, 0)
    reason = score_sample(sample(gold), predicted).explanation.gold_calls[1]["reason"]
    assert reason == "GET_movie__movie_id__credits#1: argument 'movie_id': expected GET_search_movie#1.results[0].id, got 14160"


def test_hallucinated_function_counts_as_a_call() -> None:
    gold = "r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n"
    predicted = "r = GET_movie_search(query='Up')\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n"
    assert scores(predicted, gold) == (0, 0, 2, 0, 0)
    result = score_sample(sample(gold), predicted)
    assert result.explanation.predicted_sequence == ["GET_movie_search", "GET_movie__movie_id__credits"]


def test_int_and_float_and_quote_style() -> None:
    gold = 'GET_search_movie(query="Up", page=2)\n'
    assert scores("GET_search_movie(query='Up', page=2.0)\n", gold)[0] == 1
    assert scores("GET_search_movie(query='Up', page=2.5)\n", gold)[0] == 0
    assert scores("GET_search_movie(query='UP', page=2)\n", gold)[0] == 0


def test_fenced_answer_is_scored_on_its_code() -> None:
    answer = f"Let me think step by step.\n```python\n{GOLD}```\nThis prints the credits."
    assert scores(answer) == (1, 4, 4, 1, 1)


def test_syntax_error_scores_zero_and_is_explained() -> None:
    result = score_sample(sample(), GOLD.replace("query='Twin Peaks')", "query='Twin Peaks'"))
    assert {k: v for k, v in result.scores.model_dump().items() if v} == {"gold_calls": 4}  # every metric 0 or None
    assert result.explanation.parse_error.startswith("line ")


def test_explanation_carries_sequences_and_components() -> None:
    explanation = score_sample(sample(), GOLD).explanation
    assert explanation.gold_sequence == explanation.predicted_sequence
    assert explanation.gold_components == [
        ["GET_search_movie", "GET_movie__movie_id__credits"],
        ["GET_search_tv", "GET_tv__tv_id__credits"],
    ]
    assert explanation.gold_calls[0]["matched"] == "GET_search_tv#1 = GET_search_tv(query='Twin Peaks')"


def test_invalid_gold_is_skipped_not_scored() -> None:
    result = score_sample(sample(gold="GET_search_movie(query='x'))\n"), "GET_search_movie(query='x')")
    assert result.skipped is not None and "does not parse" in result.skipped
    assert aggregate([result])["overall"]["n_samples"] == 0


def test_missing_prediction_scores_zero() -> None:
    result = missing_result(sample())
    assert {k: v for k, v in result.scores.model_dump().items() if v} == {"gold_calls": 4}  # every metric 0 or None
    assert result.explanation.missing


def test_aggregate_sums_calls_and_averages_samples() -> None:
    results = [
        SampleResult(
            id="test/0", domain="a", scores=Scores(arg_match_full=1, matched_calls=2, gold_calls=2, seq_match_full=1, seq_match_conn=1)
        ),
        SampleResult(id="test/1", domain="b", scores=Scores(matched_calls=1, gold_calls=4, seq_match_conn=1)),
    ]
    metrics = aggregate(results)
    assert list(metrics) == ["overall", "a", "b"]
    expected = {
        "arg_match_full": 0.5,
        "arg_match_functions": 0.5,
        "seq_match_full": 0.5,
        "seq_match_conn": 1.0,
        "n_samples": 2,
        "n_gold_calls": 6,
    }
    assert {k: metrics["overall"][k] for k in expected} == expected
    assert "exec_success" not in metrics["overall"]  # optional, and no sample has it
    assert metrics["b"]["arg_match_functions"] == 0.25


def test_aggregate_execution_scores_only_where_present() -> None:
    results = [
        SampleResult(id="test/0", domain="a", scores=Scores(gold_calls=1, exec_success=1, exec_match=0)),
        SampleResult(id="test/1", domain="a", scores=Scores(gold_calls=1, exec_success=0, exec_match=0)),
        SampleResult(id="test/2", domain="b", scores=Scores(gold_calls=1)),
    ]
    metrics = aggregate(results)
    assert metrics["overall"]["exec_success"] == 0.5 and metrics["overall"]["n_exec_success"] == 2
    assert metrics["b"]["exec_success"] is None
    assert "exec_success" not in aggregate(results[2:])["overall"]


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_gold_against_itself_scores_one_and_invalid_gold_is_skipped(split: str) -> None:
    results = [score_sample(s, s.gold_code) for s in load_split(split)]
    metrics = aggregate(results)
    for group in metrics.values():
        assert [group[m] for m in ("arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn")] == [1.0] * 4
    skipped = {r.id for r in results if r.skipped}
    assert skipped == {"train": {"train/84"}, "valid": {"valid/0"}, "test": set()}[split]
    assert metrics["overall"]["n_samples"] == len(results) - len(skipped)


def test_empty_predictions_score_zero_and_test_counts_77_gold_calls() -> None:
    metrics = aggregate([score_sample(s, "") for s in load_split("test")])
    assert {k: v["n_gold_calls"] for k, v in metrics.items()} == {"overall": 77, "spotify": 31, "tmdb": 46}
    for group in metrics.values():
        assert [group[m] for m in ("arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn")] == [0.0] * 4


def test_domain_catalog_maps_positional_arguments_of_functions_outside_the_sample() -> None:
    from gqlbench.metrics import functions_for

    tmdb = sample(domain="tmdb")
    if "GET_person__person_id_" not in functions_for(tmdb):
        pytest.skip("the tmdb catalog (gqlbench.specs) is not available")
    gold = "GET_person__person_id_(person_id=5)\n"
    assert score_sample(sample(gold), "GET_person__person_id_(5)\n").scores.arg_match_full == 1


def test_scoring_keeps_no_match_between_pairs() -> None:
    """Interleaved pairs (as threads would score them) get each pair's own match, and the module holds none."""
    from gqlbench.metrics import analyze, get_metric
    from gqlbench.metrics import scores as module

    functions = {f.name: f for f in SPECS}
    gold = analyze(GOLD, functions)
    good, bad = analyze(GOLD, functions), analyze("GET_search_tv(query='x')\n", functions)
    full, ratio = get_metric("arg_match_full"), get_metric("arg_match_functions")
    interleaved = [full.compute(gold, good), ratio.compute(gold, bad), full.compute(gold, bad), ratio.compute(gold, good)]
    assert interleaved == [1, (0, 4), 0, (4, 4)]
    assert not [name for name, value in vars(module).items() if isinstance(value, (tuple, list, dict)) and not name.startswith("__")]


def test_a_generated_samples_result_carries_its_gold_skeleton_as_cluster_and_a_human_ones_none() -> None:
    human = sample()
    generated = human.model_copy(update={"synthetic": {"shape": "chain"}})
    renamed = generated.model_copy(update={"gold_code": GOLD.replace("response_obj", "r").replace("Twin Peaks", "Lost")})
    assert score_sample(human, GOLD).cluster is None and missing_result(human).cluster is None
    cluster = score_sample(generated, GOLD).cluster
    assert cluster is not None and cluster == missing_result(renamed).cluster  # same program, other names and literals
    stated = generated.model_copy(update={"synthetic": {"shape": "chain", "cluster": "family-7"}})
    assert score_sample(stated, GOLD).cluster == "family-7"  # a sample that states its cluster keeps it
