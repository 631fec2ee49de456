"""Errata entries and `domains check` problems explain each other exactly (no stale or missing entries)."""

from __future__ import annotations

import pytest

from gqlbench.dataset import Errata, load_errata
from gqlbench.records import Problem
from gqlbench.scoring.checks import check_domain, known_reason, split_known

FUNCTION_KEYS = ("spec_disagreements", "non_identifier_parameters")


@pytest.fixture(scope="module")
def problems() -> dict[str, list[Problem]]:
    return {domain: check_domain(domain) for domain in ("spotify", "tmdb")}


def test_bundled_benchmark_has_no_new_problems(problems: dict[str, list[Problem]]) -> None:
    for domain, found in problems.items():
        new, known = split_known(found, domain)
        assert new == [], domain
        assert known, domain  # the dataset's defects are still found, and counted as known


def test_every_function_level_errata_entry_is_a_problem_check_finds(problems: dict[str, list[Problem]]) -> None:
    errata = load_errata()
    documented = {name for key in FUNCTION_KEYS for name in errata.other[key]}
    found = {name for name in documented if any(p.subject == name and f": {name}: " in str(p) for ps in problems.values() for p in ps)}
    assert found == documented


def test_known_reason_matches_by_subject_only() -> None:
    errata = Errata(other={"non_executable_gold": {"test/1": "refused: uses type"}, "spec_disagreements": {"GET_x": "variants"}})
    assert (
        known_reason(Problem(subject="test/1", where="sample test/1 (graphqlrestbench): line 2", message="fails"), errata)
        == "non_executable_gold: refused: uses type"
    )
    assert known_reason(Problem(subject="test/10", where="sample test/10 (graphqlrestbench): line 2", message="fails"), errata) is None
    assert (
        known_reason(Problem(subject="GET_x", where="/a/specs/d.json: GET_x", message="samples disagree"), errata)
        == "spec_disagreements: variants"
    )
    assert known_reason(Problem(subject="GET_xy", where="/a/specs/d.json: GET_xy", message="samples disagree"), errata) is None
    # the subject decides, not what the text happens to contain
    assert known_reason(Problem(subject=None, where="d", message="test/1: GET_x: the endpoint schemas do not merge"), errata) is None


def test_a_problem_prints_as_one_line() -> None:
    assert (
        str(Problem(subject="GET_x", where="/a/specs/d.json: GET_x", message="samples disagree"))
        == "/a/specs/d.json: GET_x: samples disagree"
    )
    assert str(Problem(subject=None, where="", message="/a/specs/d.json: unreadable")) == "/a/specs/d.json: unreadable"
