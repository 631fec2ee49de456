"""Endpoint rules inferred from paths, parameters and response types."""

from __future__ import annotations

from gqlbench.mocks.engine.generic import domain_schema
from gqlbench.mocks.engine.rules import infer_rules
from gqlbench.specs import load_specs


def test_rules_are_inferred_from_paths_and_parameters() -> None:
    rules = infer_rules(domain_schema("library"), load_specs("library"))
    summary = {name: (r.action, r.kind, r.id_param, r.parent) for name, r in rules.items()}
    assert summary["GET_books__book_id_"] == ("lookup", "book", "book_id", None)
    assert summary["GET_authors__author_id__books"] == ("children", "book", "author_id", "author")
    assert summary["GET_editions__edition_id__availability"] == ("lookup", "edition", "edition_id", None)
    assert summary["GET_search_books"][:2] == ("search", "book")
    assert summary["GET_me_loans"][:2] == ("list", "loan")
    assert summary["POST_loans"][:2] == ("create", "loan")
    assert summary["DELETE_loans__loan_id_"] == ("delete", "loan", "loan_id", None)
    assert not rules["GET_subjects__subject_"].open  # any key exists only where the fixture declares "open" (library.json does)
