"""The library domain on the generic world, bundled and freshly imported from OpenAPI.

Every gold program runs; a prediction that passes another entity's id, or
reads an id from the wrong response, gets Exec Match 0 where the gold gets 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.dataset import load_samples
from gqlbench.metrics.traces import trace_scores
from gqlbench.mocks.execution import execute_samples
from gqlbench.mocks.sandbox.pool import SandboxPool

REPO = Path(__file__).resolve().parents[2]
SAMPLES = load_samples(REPO / "data" / "library")

# (sample, gold text, replacement): another entity of the same kind, or an id read from the wrong response
OTHER_ENTITY = [
    ("test/0", "authors[0].author_id", "authors[1].author_id"),
    ("test/1", "response_obj1.entries[0].edition_id", "response_obj1.entries[1].edition_id"),
    ("test/5", "works[0].book_id", "works[1].book_id"),
    ("train/3", "works[0].authors[0]", "works[0].authors[1]"),
]
WRONG_RESPONSE = [
    ("test/0", "response_obj.docs[0].authors[0].author_id", "response_obj.docs[0].book_id"),
    ("test/2", "edition_id=response_obj1.entries[0].edition_id", "edition_id=response_obj.docs[0].book_id"),
    ("test/6", "branch_id=response_obj2.branches[0].branch_id", "branch_id=response_obj1.entries[0].edition_id"),
    ("train/1", "response_obj.loans[0].edition_id", "response_obj.loans[0].loan_id"),
]


@pytest.fixture(scope="module", params=["bundled", "imported"])
def pool(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxPool]:
    """A sandbox whose workers see the bundled library domain, or one imported from the example OpenAPI file."""
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "imported":
            catalog = tmp_path_factory.mktemp("catalog")
            assert (
                main(
                    [
                        "domains",
                        "import-openapi",
                        str(REPO / "examples" / "library" / "openapi.yaml"),
                        "--name",
                        "library",
                        "--out",
                        str(catalog),
                    ]
                )
                == 0
            )
            patch.setenv("GQLBENCH_CATALOG", str(catalog))
        with SandboxPool(workers=2) as sandbox:
            yield sandbox


def _mutated(edits: list[tuple[str, str, str]]) -> dict[str, str]:
    by_id = {s.id: s for s in SAMPLES}
    code = {}
    for sample_id, old, new in edits:
        gold = by_id[sample_id].gold_code
        assert old in gold, f"{sample_id}: the gold code no longer has {old!r}"
        code[sample_id] = gold.replace(old, new, 1)
    return code


def _scores(pool: SandboxPool, code: dict[str, str]) -> dict[str, tuple[int, int | None]]:
    outcomes = execute_samples([s for s in SAMPLES if s.id in code], code, seed=0, pool=pool)
    scores = {i: trace_scores(pair.gold, pair.pred)[0] for i, pair in outcomes.items()}
    return {i: (s["exec_success"], s["exec_match"]) for i, s in scores.items()}


def test_every_gold_program_runs_and_matches_itself(pool: SandboxPool) -> None:
    assert len(SAMPLES) == 12
    scores = _scores(pool, {s.id: s.gold_code for s in SAMPLES})
    assert scores == {s.id: (1, 1) for s in SAMPLES}


def test_another_entitys_id_runs_but_does_not_match(pool: SandboxPool) -> None:
    scores = _scores(pool, _mutated(OTHER_ENTITY))
    assert scores == {sample_id: (1, 0) for sample_id, _, _ in OTHER_ENTITY}


def test_an_id_from_the_wrong_response_does_not_match(pool: SandboxPool) -> None:
    scores = _scores(pool, _mutated(WRONG_RESPONSE))
    assert all(match == 0 for _, match in scores.values()) and len(scores) == len(WRONG_RESPONSE)
    assert all(success == 0 for success, _ in scores.values())  # an id of another kind is not found
