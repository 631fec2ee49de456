"""The catalog writer as a library: what an import makes, without the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.schemas.domain_import import import_openapi_domain, write_catalog_files

OPENAPI = Path(__file__).resolve().parents[2] / "examples" / "library" / "openapi.yaml"


def test_an_import_reports_what_it_made_and_wrote(tmp_path: Path) -> None:
    result = import_openapi_domain(OPENAPI, "shelf", tmp_path, "GET /search/books,DELETE /loans/{loan_id}")
    assert result.functions == ("GET_search_books", "DELETE_loans__loan_id_")
    assert result.without_sdl == ("DELETE_loans__loan_id_",) and result.sdl_count == 1
    schemas = tmp_path / "schemas" / "shelf"
    assert set(result.changed) == {tmp_path / "specs" / "shelf.json", schemas / "GET_search_books.graphql", schemas / "openapi_facts.json"}
    again = import_openapi_domain(OPENAPI, "shelf", tmp_path, "GET /search/books,DELETE /loans/{loan_id}")
    assert again.changed == () and again.unchanged == 3


def test_an_empty_document_is_refused_unless_allowed(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {}}')
    with pytest.raises(GqlbenchError, match=r"empty\.json: 'paths' has no operations"):
        import_openapi_domain(empty, "nothing", tmp_path / "out")
    assert import_openapi_domain(empty, "nothing", tmp_path / "out", allow_empty=True).functions == ()


def test_the_writer_refuses_a_change_before_writing_anything(tmp_path: Path) -> None:
    kept = tmp_path / "a.txt"
    kept.write_text("mine")
    with pytest.raises(GqlbenchError, match="a.txt already exists with different content; pass --force"):
        write_catalog_files({tmp_path / "b.txt": "new", kept: "theirs"}, force=False)
    assert kept.read_text() == "mine" and not (tmp_path / "b.txt").exists()
    assert write_catalog_files({kept: "theirs"}, force=True) == [kept]
