"""Errata entries and `domains check` problems explain each other exactly (no stale or missing entries)."""

from __future__ import annotations

import pytest

from gqlbench.checks import check_domain, known_reason, split_known
from gqlbench.dataset import Errata, load_errata

FUNCTION_KEYS = ("spec_disagreements", "non_identifier_parameters")


@pytest.fixture(scope="module")
def problems() -> dict[str, list[str]]:
    return {domain: check_domain(domain) for domain in ("spotify", "tmdb")}


def test_bundled_benchmark_has_no_new_problems(problems: dict[str, list[str]]) -> None:
    for domain, found in problems.items():
        new, known = split_known(found, domain)
        assert new == [], domain
        assert known, domain  # the dataset's defects are still found, and counted as known


def test_every_function_level_errata_entry_is_a_problem_check_finds(problems: dict[str, list[str]]) -> None:
    errata = load_errata()
    documented = {name for key in FUNCTION_KEYS for name in errata.other[key]}
    found = {name for name in documented if any(f": {name}: " in p for ps in problems.values() for p in ps)}
    assert found == documented


def test_known_reason_matches_by_subject_only() -> None:
    errata = Errata(other={"non_executable_gold": {"test/1": "refused: uses type"}, "spec_disagreements": {"GET_x": "variants"}})
    assert known_reason("sample test/1 (graphqlrestbench): line 2: fails", errata) == "non_executable_gold: refused: uses type"
    assert known_reason("sample test/10 (graphqlrestbench): line 2: fails", errata) is None
    assert known_reason("/a/specs/d.json: GET_x: samples disagree", errata) == "spec_disagreements: variants"
    assert known_reason("/a/specs/d.json: GET_xy: samples disagree", errata) is None
    assert known_reason("d: the endpoint schemas do not merge: boom", errata) is None
