"""A paraphrase replaces the template text only when every literal survives; the sample records which it kept."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gqlbench.cli import cli
from gqlbench.synthetic import generate_samples
from gqlbench.synthetic.generate import missing_literals
from gqlbench.synthetic.paraphrase import backend_paraphraser, first_line
from tests.stub_backends import STUB_PARAPHRASER, StubParaphraser


def test_a_paraphrase_that_drops_a_literal_is_rejected_and_the_template_text_kept() -> None:
    plain = generate_samples("library", 8, seed=3).rows
    result = generate_samples("library", 8, seed=3, paraphrase=backend_paraphraser(StubParaphraser(drop=2)))
    assert [r["output"] for r in result.rows] == [r["output"] for r in plain]  # paraphrasing changes no program
    kept = [r for r in result.rows if r["synthetic"]["paraphrased"]]
    assert kept and len(kept) < len(result.rows)
    assert result.paraphrases["kept"] == len(kept) and result.paraphrases["dropped_literal"] >= 1
    for row, template in zip(result.rows, plain, strict=True):
        if row["synthetic"]["paraphrased"]:
            assert row["utterance"].startswith("Hi! ") and row["utterance"] != template["utterance"]
        else:
            assert row["utterance"] == template["utterance"]
        literals = [v for line in row["output"].splitlines() for v in json.loads("[" + _literal_args(line) + "]")]
        assert not missing_literals(literals, row["utterance"]), row


def _literal_args(line: str) -> str:
    """The quoted or numeric arguments of one generated call line, as JSON list items."""
    args = line.partition("(")[2].rpartition(")")[0]
    values = [part.partition("=")[2] for part in args.split(", ") if "=" in part]
    return ", ".join(v for v in values if v[:1] == '"' or v.isdigit())


def test_a_case_change_is_accepted_only_for_code_words_and_numbers_are_whole() -> None:
    assert missing_literals(["track"], "Play the Track") == []
    assert missing_literals(["Anti-Hero"], "play anti-hero") == ["Anti-Hero"]
    assert missing_literals([5], "set it to 50") == [5]
    assert missing_literals([5], "at most 5.") == []


def test_the_paraphrase_is_read_from_the_first_line_of_the_answer() -> None:
    assert first_line('\n  Request: Show me "Dune".\nMore text') == 'Show me "Dune".'
    assert first_line("'Show me my loans'") == "Show me my loans"


def test_the_cli_paraphrases_with_any_backend_and_counts_kept_and_rejected(tmp_path: Path) -> None:
    out = tmp_path / "test.jsonl"
    log = tmp_path / "asked.txt"
    result = CliRunner().invoke(
        cli,
        [
            "samples",
            "generate",
            "library",
            "--n",
            "6",
            "--seed",
            "3",
            "--out",
            str(out),
            "--paraphrase-model",
            "stub",
            "--paraphrase-backend",
            STUB_PARAPHRASER,
            "--paraphrase-args",
            f"drop=2,log={log}",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    kept = sum(r["synthetic"]["paraphrased"] for r in rows)
    assert f"paraphrased {kept} of 6 (rejected: " in result.output and "dropped_literal" in result.output
    assert len(log.read_text().splitlines()) == 6  # one request per kept sample
