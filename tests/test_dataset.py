"""The bundled GraphQLRestBench loads with stable ids, typed fields and errata."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest

from gqlbench.dataset import data_hash, default_data_dir, get_sample, load_errata, load_samples, load_split
from gqlbench.errors import GqlbenchError


def test_split_sizes_and_ids() -> None:
    sizes = {split: len(load_split(split)) for split in ("train", "valid", "test")}
    assert sizes == {"train": 107, "valid": 16, "test": 32}
    test = load_split("test")
    assert [s.id for s in test] == [f"test/{i}" for i in range(32)]
    assert {s.domain for s in load_samples()} == {"spotify", "tmdb"}


def test_sample_fields_are_typed() -> None:
    sample = get_sample("test/0")
    assert sample.domain == "spotify"
    assert sample.utterance.startswith("Make me a playlist")
    assert "GET_search" in sample.function_names
    assert sample.function_specs[0].parameters.required == ["q", "type"]
    assert "type Query" in sample.graphql_schema
    # the dataset's ready-made prompt ends with the utterance
    assert sample.input.rstrip().endswith(sample.utterance)


def test_errata_lists_exactly_the_invalid_gold() -> None:
    errata = load_errata()
    unparsable = set()
    for sample in load_samples():
        try:
            ast.parse(sample.gold_code)
        except SyntaxError:
            unparsable.add(sample.id)
    assert unparsable == set(errata.invalid_gold) == {"train/84", "valid/0"}


def test_errata_positional_args_are_real() -> None:
    errata = load_errata()
    for sample_id in errata.positional_gold_args:
        tree = ast.parse(get_sample(sample_id).gold_code)
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        assert any(c.args and c.func.id[:3] in {"GET", "PUT", "POS", "DEL"} for c in calls), sample_id


def test_data_hash_is_stable_and_content_sensitive(tmp_path: Path) -> None:
    assert data_hash() == data_hash()
    for name in ("test.jsonl", "train.jsonl"):
        (tmp_path / name).write_bytes((default_data_dir() / name).read_bytes())
    before = data_hash(tmp_path)
    with (tmp_path / "test.jsonl").open("a") as fh:
        fh.write(json.dumps({"domain": "tmdb", "utterance": "x", "output": "GET_tv_popular()"}) + "\n")
    assert data_hash(tmp_path) != before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "test.jsonl:2: not valid JSON"),
        (json.dumps({"domain": "tmdb"}), "test.jsonl:2: missing field(s) utterance, output"),
        ("", "test.jsonl:2: empty line"),
        (json.dumps({"domain": "tmdb", "utterance": "u", "output": "x", "function_specs": "[oops"}), "function_specs is not valid JSON"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    good = json.dumps({"domain": "tmdb", "utterance": "u", "output": "GET_tv_popular()"})
    (tmp_path / "test.jsonl").write_text(good + "\n" + line + "\n")
    with pytest.raises(GqlbenchError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        load_split("test", tmp_path)


def test_unknown_sample_and_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match="split 'test' has 32 samples"):
        get_sample("test/32")
    with pytest.raises(GqlbenchError, match="not of the form"):
        get_sample("test-3")
    with pytest.raises(GqlbenchError, match="no such benchmark folder"):
        load_split("test", tmp_path / "missing")


def test_minimal_rows_get_empty_specs_and_schema(tmp_path: Path) -> None:
    (tmp_path / "test.jsonl").write_text(json.dumps({"domain": "d", "utterance": "u", "output": "GET_x()"}) + "\n")
    (sample,) = load_split("test", tmp_path)
    assert sample.function_specs == [] and sample.graphql_schema == "" and sample.benchmark == tmp_path.name


def test_errata_lists_exactly_the_gold_calls_without_a_sample_signature() -> None:
    lacking = set()
    for sample in load_samples():
        try:
            tree = ast.parse(sample.gold_code)
        except SyntaxError:
            continue
        called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        if {name for name in called if name.split("_")[0] in {"GET", "POST", "PUT", "DELETE"}} - set(sample.function_names):
            lacking.add(sample.id)
    assert lacking == set(load_errata().other["missing_function_specs"])


def test_a_missing_train_split_says_what_it_is_for_and_how_to_run_without_it(tmp_path: Path) -> None:
    from gqlbench.dataset import load_split

    (tmp_path / "test.jsonl").write_text('{"domain": "library", "utterance": "u", "output": "GET_me_loans()"}\n')
    with pytest.raises(GqlbenchError, match=r"train.jsonl: no such split file .*few-shot examples.*--shots 0"):
        load_split("train", tmp_path)
    with pytest.raises(GqlbenchError, match=r"valid.jsonl: no such split file .*check --data and --split"):
        load_split("valid", tmp_path)


def test_a_domain_that_is_a_path_is_refused_naming_the_sample_before_any_catalog_file_is_read(tmp_path: Path) -> None:
    # With --no-exec, a sample whose domain was ../../x/evil had its signatures read from outside every catalog and
    # shown in the model's prompt.
    from gqlbench.mocks.engine.fixtures import fixture_file
    from gqlbench.specs import bundled_root, schemas_path, specs_path

    evil = tmp_path / "x" / "evil.json"
    evil.parent.mkdir()
    evil.write_text(json.dumps({"functions": [{"name": "GET_secret", "description": "SECRET", "parameters": {}}]}), encoding="utf-8")
    domain = os.path.relpath(evil.with_suffix(""), bundled_root().specs_dir)
    data = tmp_path / "data"
    data.mkdir()
    (data / "test.jsonl").write_text(json.dumps({"domain": domain, "utterance": "u", "output": "GET_secret()"}) + "\n")
    with pytest.raises(GqlbenchError) as caught:
        load_split("test", data)
    assert str(caught.value) == (
        f"{data / 'test.jsonl'}:1: domain {domain!r} is not a domain name; write the name of a catalog domain "
        "(letters, digits, _ and -), never a path"
    )
    for name in (domain, "a/b", "..", "", "a.b", "a\\b"):
        for read in (specs_path, schemas_path, fixture_file):
            with pytest.raises(GqlbenchError, match="is not a domain name: use letters, digits, _ and - .a domain is a name, never a path"):
                read(name)
