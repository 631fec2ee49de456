"""The relevance block: an empty or prose answer on an impossible case is no abstention."""

from __future__ import annotations

from gqlbench.dataset import get_sample, load_errata
from gqlbench.metrics import score_sample
from gqlbench.records import SampleResult
from gqlbench.scoring.relevance import relevance_set
from gqlbench.scoring.relevance_scores import RATES, relevance_block, render_relevance, render_relevance_runs


def _answered(sample_id: str, code: str, raw: str) -> SampleResult:
    return SampleResult.model_validate(
        {**score_sample(get_sample(sample_id), code).model_dump(mode="json"), "code": code, "raw_output": raw}
    )


def test_explicit_abstention_and_no_call_are_apart_and_explicit_abstention_is_the_headline() -> None:
    cases, _ = relevance_set([get_sample(f"test/{i}") for i in range(8)], load_errata())
    impossible = [c.impossible for c in cases][:4]
    answers = {  # the requested marker, a refusal in words, an empty answer, prose that says nothing
        impossible[0].id: ('raise NotSupported("no lyrics endpoint")\n', '```python\nraise NotSupported("no lyrics endpoint")\n```'),
        impossible[1].id: ("I cannot fulfil this request with these functions.", "I cannot fulfil this request with these functions."),
        impossible[2].id: ("", ""),
        impossible[3].id: ("Let me look at the data first.", "Let me look at the data first."),
    }
    results = {sid: _answered(sid.replace("-impossible", ""), code, raw) for sid, (code, raw) in answers.items()}
    results = {sid: r.model_copy(update={"id": sid}) for sid, r in results.items()}
    block = relevance_block(impossible, results, resamples=10)
    assert (block["explicit_abstention"], block["no_call"]) == (0.5, 0.5)
    assert [c["explicit_abstention"] for c in block["cases"]] == [True, True, False, False]
    assert [c["no_call"] for c in block["cases"]] == [False, False, True, True]
    assert next(iter(RATES)) == "explicit_abstention"
    table = render_relevance(block)
    assert table.index("Explicit abstention") < table.index("No call")


def test_an_older_block_keeps_its_unsplit_rate_under_its_own_title() -> None:
    old = {"n_impossible": 2, "abstention_rate": 1.0, "false_abstention_rate": 0.0, "ci": {}}
    assert "older run, not split" in render_relevance(old) and "older run, not split" in render_relevance_runs([("old", old)])
