"""The bundled verified set ``data/synthetic/``: loads as a split source, its gold runs, and test and train stay apart."""

from __future__ import annotations

import ast
import json
import random
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from gqlbench.dataset import load_split
from gqlbench.metrics import analyze
from gqlbench.mocks.sandbox.pool import SandboxPool
from gqlbench.specs import load_specs
from gqlbench.synthetic.by_intent import INTENT_SHAPES, PER_SKELETON, idle_write, skeleton
from gqlbench.synthetic.generate import missing_literals, verify
from gqlbench.synthetic.human import human_utterances, normalize
from gqlbench.synthetic.quality import measure_items, read_items

FOLDER = Path(str(resources.files("gqlbench.data") / "synthetic"))
HUMAN = Path(str(resources.files("gqlbench.data") / "graphqlrestbench" / "test.jsonl"))


def _rows(split: str) -> list[dict]:
    return [json.loads(line) for line in (FOLDER / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("split", ["test", "train"])
def test_every_line_loads_as_a_sample_and_every_gold_program_parses(split: str) -> None:
    samples = load_split(split, FOLDER)
    assert len(samples) == len(_rows(split))
    for sample in samples:
        program = analyze(sample.gold_code, {f.name: f for f in sample.function_specs})
        assert program.parse_error is None, sample.id
        assert program.names and set(program.names) <= set(load_specs(sample.domain)), sample.id


def test_the_test_split_is_large_and_balanced_over_domains_and_shapes() -> None:
    rows = _rows("test")
    assert len(rows) >= 500
    domains = Counter(r["domain"] for r in rows)
    assert set(domains) == {"spotify", "tmdb"} and max(domains.values()) - min(domains.values()) <= len(rows) // 20
    for domain in domains:
        shapes = Counter(r["synthetic"]["shape"] for r in rows if r["domain"] == domain)
        assert set(shapes) == set(INTENT_SHAPES) - ({"combine"} if domain == "tmdb" else set())  # no TMDB ask of two things
        assert min(shapes.values()) >= 0.08 * domains[domain], shapes  # no shape is a rounding error (singles: 9% in the human split)
        depth = Counter(r["synthetic"]["depth"] for r in rows if r["domain"] == domain)
        assert sum(n for d, n in depth.items() if d <= 3) >= 0.9 * domains[domain], depth  # mostly 1-3 hops, as people ask


def test_at_most_three_items_per_skeleton_and_train_and_test_share_none() -> None:
    test, train = ({skeleton(r["output"]) for r in _rows(s)} for s in ("test", "train"))
    assert not test & train
    for split in ("test", "train"):
        assert max(Counter(skeleton(r["output"]) for r in _rows(split)).values()) <= PER_SKELETON


def test_the_requests_read_like_a_person_and_cover_the_human_test_split() -> None:
    items = read_items(FOLDER / "test.jsonl")
    quality = measure_items("test", items, read_items(HUMAN))
    assert quality.mechanical < 0.05 and quality.description_copy < 0.05, quality
    assert quality.distinct_trigrams > 0.3 and quality.skeleton_max <= PER_SKELETON, quality
    assert quality.missing_functions == [], quality.missing_functions
    assert all(share > 0 for share in quality.constructs.values()), quality.constructs


def test_train_shares_no_utterance_or_program_with_test_and_none_copies_a_human_sample() -> None:
    test, train = _rows("test"), _rows("train")
    assert len(train) >= 100
    for rows in (test, train):
        assert len({normalize(r["utterance"]) for r in rows}) == len(rows)
        assert len({r["output"] for r in rows}) == len(rows)
    assert not {normalize(r["utterance"]) for r in test} & {normalize(r["utterance"]) for r in train}
    assert not {r["output"] for r in test} & {r["output"] for r in train}
    assert not {normalize(r["utterance"]) for r in test + train} & human_utterances()


def test_every_utterance_states_the_literals_of_its_program() -> None:
    """Names and numbers; a code word (``type="track"``) is implied by the words ("the song"), as in the human split."""
    for row in _rows("test") + _rows("train"):
        constants = [node.value for node in ast.walk(ast.parse(row["output"])) if isinstance(node, ast.keyword)]
        literals = [c.value for c in constants if isinstance(c, ast.Constant) and type(c.value) in (str, int)]
        literals = [v for v in literals if not (isinstance(v, str) and v.isidentifier() and v == v.lower())]  # code words
        assert not missing_literals(literals, row["utterance"]), row["utterance"]


def test_a_random_subset_of_the_gold_runs_on_the_world_and_scores_one_against_itself() -> None:
    rows = _rows("test") + _rows("train")
    with SandboxPool(workers=1, max_result_chars=2_000_000) as pool:
        for row in random.Random(23).sample(rows, 30):
            assert verify(row["domain"], row["output"], row["utterance"], pool, row["synthetic"]["world_seed"]) is None, row["output"]


def test_every_gold_write_changes_the_world() -> None:
    """A write that changes nothing (a follow of an artist already followed) scores the same as leaving it out."""
    with SandboxPool(workers=1) as pool:
        idle = [r["utterance"] for r in _rows("test") + _rows("train") if idle_write(r["output"], r["utterance"], r["domain"], pool, 0)[0]]
    assert idle == []


def test_no_utterance_spells_out_the_dataflow_or_pastes_api_boilerplate() -> None:
    for row in _rows("test") + _rows("train"):
        text = row["utterance"].lower()
        assert not any(word in text for word in ("using the", "the id of", "response", "matching", "catalog information")), text
        assert row["synthetic"]["paraphrased"] is False  # the bundled set is the lexicons' own text
