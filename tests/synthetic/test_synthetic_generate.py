"""Generated samples are verified: gold runs, literals are stated, seeds repeat, nothing copies a human sample."""

from __future__ import annotations

import ast
import collections
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.metrics import analyze
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.schemas.domain_import import import_openapi_domain
from gqlbench.specs import load_specs
from gqlbench.synthetic import Generation, generate_samples
from gqlbench.synthetic.by_intent import INTENT_SHAPES, PER_SKELETON, skeleton
from gqlbench.synthetic.generate import missing_literals
from gqlbench.synthetic.human import human_utterances, normalize
from gqlbench.synthetic.lexicons import lexicon_for
from gqlbench.synthetic.quality import constructs
from gqlbench.synthetic.sampler import SHAPES

FLEET = Path(__file__).parents[1] / "data" / "worlds" / "fleet.yaml"
APIS = Path(os.environ.get("GQLBENCH_TEST_APIS") or Path(sys.prefix) / "share" / "gqlbench-test-apis")
SPACETRADERS = APIS / "api" / "spacetraders.io.json"
BUNDLED = ("spotify", "tmdb", "library")
N = 15
MISSING = {
    "tmdb": {"fan_in"},  # no TMDB endpoint takes two ids (discover's with_* want strings, the ids are integers)
    "library": {"long_chain"},
}  # ten endpoints: no walk of five calls without reading back a value it passed


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(workers=1, max_result_chars=2_000_000) as shared:
        yield shared


@pytest.fixture(scope="module")
def generated(pool: SandboxPool) -> dict[str, Generation]:
    return {domain: generate_samples(domain, N, seed=3, pool=pool) for domain in BUNDLED}


@pytest.fixture()
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    import_openapi_domain(FLEET, "fleet", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    return "fleet"


def _call_literals(code: str) -> list[str | int]:
    """Every string or number passed as an argument (list indices are positions, not literals)."""
    return [
        kw.value.value
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str | int) and not isinstance(kw.value.value, bool)
    ]


def _assert_gold_runs(rows: list[dict], pool: SandboxPool) -> None:
    traces = pool.run_many(
        [Job(code=r["output"], domain=r["domain"], seed=r["synthetic"]["world_seed"], request=r["utterance"]) for r in rows]
    )
    for row, trace in zip(rows, traces, strict=True):
        assert trace.error is None, (row["output"], trace.error)
        assert not [c.error for c in trace.calls if c.error], row["output"]
        assert len(trace.calls) == row["synthetic"]["calls"], row["output"]


@pytest.mark.parametrize("domain", BUNDLED)
def test_every_gold_program_runs_to_the_end_on_the_world(domain: str, generated: dict[str, Generation], pool: SandboxPool) -> None:
    rows = generated[domain].rows
    assert len(rows) == N
    _assert_gold_runs(rows, pool)


@pytest.mark.parametrize("domain", BUNDLED)
def test_every_literal_the_gold_passes_is_stated_in_the_utterance(domain: str, generated: dict[str, Generation]) -> None:
    rows = generated[domain].rows
    named = [_named(domain, _call_literals(r["output"])) for r in rows]
    assert any(named)  # the check has something to check
    for row, literals in zip(rows, named, strict=True):
        assert not missing_literals(literals, row["utterance"]), row


def _named(domain: str, literals: list[str | int]) -> list[str | int]:
    """The literals a request must state: with a lexicon, a code word (``type="track"``, ``time_window="day"``) is
    implied by the words ("the song", "today"), as in the human split; names and numbers must be stated."""
    if lexicon_for(domain) is None:
        return literals
    return [v for v in literals if not (isinstance(v, str) and v.isidentifier() and v == v.lower())]


def test_a_literal_left_out_of_the_utterance_is_found() -> None:
    assert missing_literals(["Dune", 5], 'Search for "Dune", at most 5') == []
    assert missing_literals(["Dune", 5], 'Search for "Dune"') == [5]


@pytest.mark.parametrize("domain", BUNDLED)
def test_no_utterance_copies_a_human_one_or_repeats(domain: str, generated: dict[str, Generation]) -> None:
    texts = [normalize(r["utterance"]) for r in generated[domain].rows]
    assert not set(texts) & human_utterances()
    assert len(set(texts)) == len(texts)
    assert len({r["output"] for r in generated[domain].rows}) == len(texts)


def _assert_shapes_and_labels(domain: str, rows: list[dict], seed: int, expected: set[str] | None = None) -> None:
    """Shapes taken in turn (each within one of the others' count) and labels that match the program."""
    shapes = collections.Counter(r["synthetic"]["shape"] for r in rows)
    if lexicon_for(domain) is not None:
        _assert_intent_shapes(domain, rows, shapes)
        return
    assert set(shapes) == (expected or set(SHAPES) - MISSING.get(domain, set())), shapes
    assert max(shapes.values()) - min(shapes.values()) <= 1, shapes
    functions = load_specs(domain)
    for row in rows:
        labels = row["synthetic"]
        analysis = analyze(row["output"], functions, limits=None)
        assert labels["calls"] == len(analysis.calls)
        assert labels["edges"] == len(analysis.edges)
        assert labels["seed"] == seed and labels["paraphrased"] is False
        calls, depth, edges = labels["calls"], labels["depth"], labels["edges"]
        shape = labels["shape"]
        if shape in ("single", "fan_out"):
            assert (calls, depth) == {"single": (1, 1), "fan_out": (3, 2)}[shape], row
        elif shape == "fan_in":  # two branches of one or two calls meet in one call
            final = analysis.calls[-1]
            assert 3 <= calls <= 5 and 2 <= depth <= 3 and edges >= 2, row
            assert len({ref.split("#")[0] for ref in final.args.values() if "#" in ref}) == 2, row
        else:
            low, high = (2, 4) if shape == "chain" else (5, 6)
            assert low <= calls == depth <= high, row


def _assert_intent_shapes(domain: str, rows: list[dict], shapes: collections.Counter[str]) -> None:
    """A domain phrased by intent: every shape, each matching its program, at most PER_SKELETON per skeleton."""
    assert set(shapes) == set(INTENT_SHAPES) - ({"combine"} if domain == "tmdb" else set()), shapes  # no TMDB ask of two things
    functions = load_specs(domain)
    for row in rows:
        labels, used = row["synthetic"], constructs(row["output"])
        assert labels["calls"] == len(analyze(row["output"], functions, limits=None).calls)
        shape = labels["shape"]
        assert (labels["calls"] == 1) == (shape == "single"), row
        assert shape != "two_parts" or "independent_parts" in used, row
        assert shape != "combine" or "combine" in used, row
    assert max(collections.Counter(skeleton(r["output"]) for r in rows).values()) <= PER_SKELETON


@pytest.mark.parametrize("domain", BUNDLED)
def test_every_shape_appears_and_the_labels_match_the_program(domain: str, generated: dict[str, Generation]) -> None:
    _assert_shapes_and_labels(domain, generated[domain].rows, seed=3)


def test_the_same_seed_writes_the_same_samples_and_another_seed_others(pool: SandboxPool) -> None:
    first = generate_samples("tmdb", 6, seed=11, pool=pool).rows
    assert generate_samples("tmdb", 6, seed=11, pool=pool).rows == first
    assert generate_samples("tmdb", 6, seed=12, pool=pool).rows != first


def _assert_imported(domain: str, n: int, shapes: set[str] | None = None) -> None:
    """All four checks on a domain imported from an OpenAPI file: gold runs, literals stated, no copies, shapes, seeds."""
    with SandboxPool(workers=1, max_result_chars=2_000_000) as own:  # the workers must see this catalog
        result = generate_samples(domain, n, seed=1, pool=own)
        assert len(result.rows) == n
        _assert_gold_runs(result.rows, own)
        _assert_shapes_and_labels(domain, result.rows, seed=1, expected=shapes)
        for row in result.rows:
            assert not missing_literals(_call_literals(row["output"]), row["utterance"]), row
        assert not {normalize(r["utterance"]) for r in result.rows} & human_utterances()
        assert len({normalize(r["utterance"]) for r in result.rows}) == n
        assert generate_samples(domain, 5, seed=1, pool=own).rows == result.rows[:5]


def test_an_imported_domain_gets_verified_samples(fleet: str) -> None:
    _assert_imported(fleet, 9, {"single", "chain", "fan_out"})  # six endpoints: no walk of five, no call taking two ids


@pytest.mark.skipif(not SPACETRADERS.is_file(), reason=f"{SPACETRADERS} missing: run scripts/install.sh (needs npm)")
def test_a_published_third_party_api_gets_verified_samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import_openapi_domain(SPACETRADERS, "spacetraders", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    _assert_imported("spacetraders", 10, set(SHAPES) - {"long_chain"})  # its walks end within four calls
