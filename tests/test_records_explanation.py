"""A sample's explanation is a typed record that reads and writes the keys samples.jsonl has always had."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.records import ExecExplanation, Explanation, SampleResult, ShortenedResult
from gqlbench.results.files import read_samples

SAVED = Path(__file__).resolve().parent / "data" / "regression"


@pytest.mark.parametrize("run", ["test-exec", "test-noexec", "library-exec"])
def test_saved_lines_read_and_write_back_with_the_same_keys_in_the_same_order(run: str) -> None:
    for raw in (SAVED / run / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        written = SampleResult.model_validate_json(raw).model_dump(mode="json")
        assert list(written["explanation"]) == list(line["explanation"]), line["id"]
        old_exec, new_exec = line["explanation"].get("exec"), written["explanation"].get("exec")
        if old_exec is not None:
            assert list(new_exec) == list(old_exec), line["id"]
            assert {k: v for k, v in new_exec.items() if not k.endswith("_trace")} == {
                k: v for k, v in old_exec.items() if not k.endswith("_trace")
            }
        assert {k: v for k, v in written["explanation"].items() if k != "exec"} == {
            k: v for k, v in line["explanation"].items() if k != "exec"
        }


def test_only_the_parts_a_stage_set_are_written_and_null_ones_are_kept() -> None:
    explanation = Explanation(code="GET_me()", parse_error=None)
    assert explanation.to_json() == {"code": "GET_me()", "parse_error": None}  # no null for what no stage wrote
    merged = explanation.with_parts({"exec": ExecExplanation(not_run="no mock world")})
    assert merged.to_json() == {"code": "GET_me()", "parse_error": None, "exec": {"not_run": "no mock world"}}
    assert merged.exec is not None and merged.exec.not_run == "no mock world"


def test_keys_this_version_does_not_know_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    line = {"id": "test/0", "domain": "spotify", "scores": {}, "explanation": {"code": "x", "from_a_newer_gqlbench": [1]}}
    path.write_text(json.dumps(line) + "\n")
    (result,) = read_samples(path)
    assert result.explanation.code == "x" and result.explanation.to_json() == line["explanation"]


@pytest.mark.parametrize(
    ("explanation", "field"),
    [
        ({"gold_sequence": 5}, "explanation.gold_sequence"),
        ({"exec": {"same_calls": "perhaps"}}, "explanation.exec.same_calls"),
        ({"f1_counts": {"dataflow": ["a", 1, 2]}}, "explanation.f1_counts.dataflow.0"),
        (
            {"shortened_tool_results": [{"step": 1, "call": 1, "function": "f", "chars": "many", "shown_chars": 9}]},
            "explanation.shortened_tool_results.0.chars",
        ),
    ],
)
def test_a_known_part_of_the_wrong_shape_is_one_line_naming_file_and_field(tmp_path: Path, explanation: dict, field: str) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"id": "test/0", "domain": "spotify", "scores": {}, "explanation": explanation}) + "\n")
    with pytest.raises(GqlbenchError) as caught:
        read_samples(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:1: not a sample result ({field}:") and "\n" not in message


def test_a_shortened_tool_result_reads_back_typed_and_a_line_from_before_has_none(tmp_path: Path) -> None:
    record = {"step": 2, "call": 2, "function": "GET_playlists__playlist_id_", "chars": 9136, "shown_chars": 1817, "items_left_out": 23}
    path = tmp_path / "samples.jsonl"
    lines = [
        {"id": f"test/{i}", "domain": "spotify", "scores": {}, "explanation": e}
        for i, e in enumerate([{}, {"shortened_tool_results": [record]}])
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before, after = read_samples(path)
    assert before.explanation.shortened_tool_results is None and "shortened_tool_results" not in before.explanation.to_json()
    (shortened,) = after.explanation.shortened_tool_results or []
    assert isinstance(shortened, ShortenedResult) and (shortened.items_left_out, shortened.chars_left_out) == (23, 0)
    assert after.explanation.to_json()["shortened_tool_results"] == [record | {"chars_left_out": 0}]
