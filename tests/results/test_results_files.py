"""Run files: samples.jsonl, results.json, report.md, and the tables made from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.records import Explanation, SampleResult, Scores
from gqlbench.results.files import (
    append_sample,
    ensure_writable,
    read_results,
    read_samples,
    render_table,
    repair_samples,
    run_meta,
    write_results,
    write_run,
)

RESULTS = [
    SampleResult(
        id="test/0", domain="spotify", scores=Scores(arg_match_full=1, matched_calls=2, gold_calls=2, seq_match_full=1, seq_match_conn=1)
    ),
    SampleResult(id="test/1", domain="tmdb", scores=Scores(matched_calls=1, gold_calls=3)),
    SampleResult(id="test/2", domain="tmdb", scores=Scores(), skipped="gold program does not parse (line 1: x)"),
]


def test_write_run_writes_three_files(tmp_path: Path) -> None:
    out = tmp_path / "run"
    document = write_run(out, RESULTS, missing=["test/1"], meta=run_meta(command="gqlbench evaluate p.jsonl", data_hash="abc"))
    assert read_samples(out / "samples.jsonl") == RESULTS
    saved = read_results(out / "results.json")
    assert saved == document
    assert saved.metrics["overall"]["arg_match_functions"] == pytest.approx(3 / 5)
    assert [s.model_dump() for s in saved.skipped] == [{"id": "test/2", "reason": "gold program does not parse (line 1: x)"}]
    assert saved.missing == ["test/1"]
    assert saved.meta["command"] == "gqlbench evaluate p.jsonl" and saved.meta["gqlbench_version"]
    report = (out / "report.md").read_text()
    assert render_table(saved.metrics) in report
    assert "`test/2`" in report and "`test/1`" in report


def test_existing_results_are_never_overwritten_silently(tmp_path: Path) -> None:
    write_run(tmp_path, RESULTS)
    with pytest.raises(GqlbenchError, match="--overwrite"):
        write_run(tmp_path, RESULTS[:1])
    assert len(read_samples(tmp_path / "samples.jsonl")) == 3
    write_run(tmp_path, RESULTS[:1], overwrite=True)
    assert len(read_samples(tmp_path / "samples.jsonl")) == 1
    ensure_writable(tmp_path / "fresh")  # a folder that does not exist yet is fine


def test_samples_are_appended_with_extra_fields(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    for result in RESULTS[:2]:
        append_sample(path, result.model_copy(update={"tokens_out": 12}))
    back = read_samples(path)
    assert [r.id for r in back] == ["test/0", "test/1"]
    assert back[0].model_extra == {"tokens_out": 12}


def test_corrupt_samples_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text(RESULTS[0].model_dump_json() + '\n{"id": 3}\n')
    with pytest.raises(GqlbenchError, match=r"samples.jsonl:2: "):
        read_samples(path)


def test_table_has_the_paper_layout_with_four_decimals() -> None:
    metrics = {
        "overall": {"arg_match_full": 0.5, "arg_match_functions": 1 / 3, "seq_match_full": 0.25, "seq_match_conn": 1.0},
        "spotify": {"arg_match_full": 0.0, "arg_match_functions": 0.0, "seq_match_full": 0.0, "seq_match_conn": 0.0},
    }
    lines = render_table(metrics).splitlines()
    # a column per metric the groups hold (results.json of a run older than a metric has no column for it)
    assert [c.strip() for c in lines[0].strip("|").split("|")] == [
        "Domain",
        "Arg Match (full)",
        "Arg Match (functions)",
        "Seq Match (full)",
        "Seq Match (connected subsequences)",
    ]
    assert [c.strip() for c in lines[2].strip("|").split("|")] == ["overall", "0.5000", "0.3333", "0.2500", "1.0000"]
    assert lines[3].split("|")[1].strip() == "spotify"


def test_table_adds_execution_columns_when_present() -> None:
    metrics = {
        "overall": {
            "arg_match_full": 1.0,
            "arg_match_functions": 1.0,
            "seq_match_full": 1.0,
            "seq_match_conn": 1.0,
            "exec_success": 0.75,
            "exec_match": None,
        },
    }
    header, _, row = render_table(metrics).splitlines()
    assert "Exec Success" in header and "Exec Match" not in header
    assert "0.7500" in row


def test_unreadable_results_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text("{not json")
    with pytest.raises(GqlbenchError, match=r"results.json:1: not valid JSON"):
        read_results(tmp_path / "results.json")
    (tmp_path / "results.json").write_text("{}")
    with pytest.raises(GqlbenchError, match="no 'metrics'"):
        read_results(tmp_path / "results.json")


def test_a_failure_mid_way_through_samples_leaves_the_previous_run(tmp_path: Path) -> None:
    write_run(tmp_path, RESULTS)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    unwritable = RESULTS[1].model_copy(update={"handle": object()})  # fails after the first line is serialized
    with pytest.raises(ValueError, match="unknown type"):
        write_run(tmp_path, [RESULTS[0], unwritable, RESULTS[2]], overwrite=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    with pytest.raises(ValueError, match="unknown type"):
        write_run(tmp_path / "new", [RESULTS[0], unwritable])
    assert not (tmp_path / "new").exists()


def test_lone_surrogates_are_written_as_replacement_characters(tmp_path: Path) -> None:
    explanation = Explanation.model_validate({"stdout": "\ud800!", "code": "k\udc00"})
    odd = RESULTS[0].model_copy(update={"explanation": explanation, "note": "\udfff"})
    write_run(tmp_path, [odd], meta={"predictions": "p\udcff.jsonl"})
    line = json.loads((tmp_path / "samples.jsonl").read_bytes().decode("utf-8"))
    assert line["explanation"] == {"stdout": "\ufffd!", "code": "k\ufffd"} and line["note"] == "\ufffd"
    assert read_results(tmp_path / "results.json").meta["predictions"] == "p\ufffd.jsonl"
    assert "p\ufffd.jsonl" in (tmp_path / "report.md").read_bytes().decode("utf-8")
    path = tmp_path / "samples.jsonl"
    append_sample(path, odd.model_copy(update={"id": "test/9"}))
    assert [r.explanation.to_json()["stdout"] for r in read_samples(path)] == ["\ufffd!", "\ufffd!"]


def test_surrogate_escapes_and_bad_bytes_written_by_others_are_read(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    line = json.loads(RESULTS[0].model_dump_json())
    line["explanation"] = {"stdout": "\ud800"}
    path.write_text(json.dumps(line) + "\n", encoding="ascii")  # "\ud800" as an escape, which pydantic's parser refuses
    assert read_samples(path)[0].explanation.to_json() == {"stdout": "\ufffd"}
    path.write_bytes(path.read_bytes() + b'{"id": "\xff"}\n')
    with pytest.raises(
        GqlbenchError, match=r"samples.jsonl:2: not valid UTF-8: byte 0xff at offset \d+ of the file \(byte 9 of the line\)"
    ):
        read_samples(path)


def test_a_line_cut_by_a_kill_is_left_out_and_repaired_away(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    whole = "".join(r.model_dump_json() + "\n" for r in RESULTS[:2])
    path.write_text(whole + RESULTS[2].model_dump_json()[:30])
    assert [r.id for r in read_samples(path)] == ["test/0", "test/1"]
    assert repair_samples(path) == f"{path}: dropped an unfinished last line (30 bytes; the previous run was interrupted while writing it)"
    assert path.read_text() == whole and repair_samples(path) is None
    append_sample(path, RESULTS[2])
    assert read_samples(path) == RESULTS


def test_a_whole_last_line_without_its_newline_is_kept_and_repair_ends_it(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text(RESULTS[0].model_dump_json() + "\n" + RESULTS[1].model_dump_json())
    assert read_samples(path) == RESULTS[:2]
    assert repair_samples(path) is None and path.read_text().endswith("}\n")
    append_sample(path, RESULTS[2])
    assert read_samples(path) == RESULTS
    assert repair_samples(tmp_path / "absent.jsonl") is None


def test_one_result_per_id_and_a_byte_order_mark_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    first = RESULTS[0]
    edited = first.model_copy(update={"domain": "tmdb"})
    path.write_bytes(b"\xef\xbb\xbf" + (first.model_dump_json() + "\n" + edited.model_dump_json() + "\n").encode())
    assert read_samples(path) == [first]  # a hand edit that repeats an id: the first line wins


@pytest.mark.parametrize("name", ["test-exec", "test-noexec", "library-exec"])
def test_saved_results_files_round_trip_through_the_record(name: str, tmp_path: Path) -> None:
    saved = Path(__file__).parents[1] / "data" / "regression" / name / "results.json"
    document = read_results(saved)
    assert isinstance(document.metrics["overall"]["n_samples"], int)
    assert document.model_dump() == json.loads(saved.read_text(encoding="utf-8"))
    write_results(tmp_path / "results.json", document)
    assert (tmp_path / "results.json").read_text(encoding="utf-8") == saved.read_text(encoding="utf-8")


def test_a_results_file_with_a_wrong_field_names_it(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({"metrics": {"overall": {}}, "skipped": [{"id": "test/0"}]}))
    with pytest.raises(GqlbenchError, match=r"results.json: skipped.0.reason: Field required"):
        read_results(tmp_path / "results.json")


def test_read_config_is_the_public_reader_of_a_run_config(tmp_path: Path) -> None:
    from gqlbench.results.files import read_config
    from gqlbench.run.folder import read_config as read_run_config

    assert read_config(tmp_path) is None  # an evaluate --out folder has none
    (tmp_path / "config.json").write_text('{"model": "m", "prompt": "cot", "split": "test", "text": "\\ud800"}', encoding="utf-8")
    config = read_config(tmp_path)
    assert config is not None and (config.model, config.extra) == ("m", {"text": "\ufffd"})  # typed, unknown keys kept
    assert read_run_config(tmp_path) == config  # one reader: the run's resume reads the same record
    (tmp_path / "config.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(GqlbenchError, match=r"config\.json: not a JSON object"):
        read_config(tmp_path)
    (tmp_path / "config.json").write_text('{\n "model": }', encoding="utf-8")
    with pytest.raises(GqlbenchError, match=r"config\.json:2: not valid JSON"):
        read_config(tmp_path)


def test_the_viewer_uses_no_private_name_of_results() -> None:
    import ast

    viewer = Path(__file__).resolve().parents[2] / "gqlbench" / "viewer"
    for path in viewer.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "gqlbench.results.files":
                assert not [a.name for a in node.names if a.name.startswith("_")], path


def test_a_shortfall_of_few_shot_examples_is_said_only_when_some_sample_got_fewer_than_asked() -> None:
    from gqlbench.results.files import shots_shortfall

    assert shots_shortfall({"shots": 3, "shots_shown": {"3": 20, "2": 10, "1": 2}}) == (
        "asked for 3 few-shot examples; 20 samples got 3, 10 samples got 2, 2 samples got 1 (the context kept fewer)"
    )
    assert shots_shortfall({"shots": 3, "shots_shown": {"3": 32}}) is None
    assert shots_shortfall({"shots": 0}) is None and shots_shortfall({}) is None  # evaluate's folders: nothing asked
