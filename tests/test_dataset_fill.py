"""Samples that leave out function_specs / GraphQL_schema get them from the domain's catalog."""

from __future__ import annotations

import json
from pathlib import Path

from graphql import build_ast_schema, parse

from gqlbench.dataset import called_functions, default_data_dir, load_split
from gqlbench.schemas import merge_sdl
from gqlbench.specs import get_spec

CODE = """r = GET_me_loans()
x = [GET_books__book_id__editions(book_id=b) for b in GET_search_books(q="a").docs]
DELETE_loans__loan_id_(loan_id=r.loans[0].loan_id)
len(x)
"""


def test_called_functions_in_order_of_first_appearance() -> None:
    known = {"GET_me_loans", "GET_books__book_id__editions", "GET_search_books", "DELETE_loans__loan_id_"}
    assert called_functions(CODE, known) == ["GET_me_loans", "GET_books__book_id__editions", "GET_search_books", "DELETE_loans__loan_id_"]
    assert called_functions("GET_me_loans(", known) == []


def write(folder: Path, rows: list[dict]) -> Path:
    folder.mkdir()
    (folder / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_left_out_fields_are_filled_from_the_catalog(tmp_path: Path) -> None:
    data = write(
        tmp_path / "mine",
        [
            {"domain": "library", "utterance": "u", "output": CODE},
            {"domain": "library", "utterance": "u", "output": CODE, "function_specs": "[]", "GraphQL_schema": ""},
            {"domain": "nowhere", "utterance": "u", "output": "GET_x()"},
        ],
    )
    filled, given, unknown = load_split("test", data)
    assert filled.function_names == ["GET_me_loans", "GET_books__book_id__editions", "GET_search_books", "DELETE_loans__loan_id_"]
    assert filled.function_specs[2] == get_spec("library", "GET_search_books")
    assert filled.graphql_schema.count("type Query") == 3  # DELETE /loans/{loan_id} has no response schema
    schema = build_ast_schema(parse(merge_sdl([filled.graphql_schema])))
    assert set(schema.query_type.fields) == {"GET_me_loans", "GET_books__book_id__editions", "GET_search_books"}
    assert given.function_specs == [] and given.graphql_schema == ""  # what a line gives is kept
    assert unknown.function_specs == [] and unknown.graphql_schema == ""  # no catalog to fill from


def test_the_library_samples_ship_without_specs_or_schema() -> None:
    folder = default_data_dir().parent / "library"
    rows = [json.loads(line) for split in ("train", "test") for line in (folder / f"{split}.jsonl").open()]
    assert len(rows) >= 10 and all(set(r) == {"domain", "utterance", "output"} for r in rows)
    assert all(s.function_specs and s.graphql_schema for s in load_split("test", folder))
