"""Back-instruction: the paraphrase model writes the request from the program and the world's answers; a verifier's
round trip keeps a sample only when its program executes like the gold; each sample records the models and the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gqlbench.cli import cli
from gqlbench.mocks.sandbox.pool import SandboxPool
from gqlbench.synthetic import generate_samples
from gqlbench.synthetic.generate import missing_literals
from gqlbench.synthetic.paraphrase import Paraphrase, Rewriter, Task, backend_paraphraser, first_line, rewrite, task_prompt, world_answers
from gqlbench.synthetic.roundtrip import backend_round_trip
from tests.stub_backends import STUB_PARAPHRASER, STUB_VERIFIER, StubParaphraser, StubVerifier


@pytest.fixture(scope="module")
def pool() -> SandboxPool:
    with SandboxPool(workers=1, max_result_chars=2_000_000) as shared:
        yield shared


def test_the_prompt_shows_the_program_and_the_names_the_world_gave_it_not_a_template(pool: SandboxPool) -> None:
    code = 'response_obj = GET_search(q="Money", type="track")\nGET_artists__id__top_tracks(id=response_obj.tracks.items[0].artists[0].id)'
    task = world_answers(Task("spotify", code, ("Money", "track")), pool, 0)
    assert len(task.steps) == 2 and task.steps[0].startswith('GET_search(q="Money"')
    artist = task.looked_up[0]  # the artist of the first track, as the world names it
    assert f'is "{artist}"' in task.steps[1] and artist != "Money"
    assert "Money" in task.answer and artist not in task.answer  # the names of the top tracks, not of their artist
    prompt = task_prompt(task)
    assert code in prompt and '"Money", "track"' in prompt and f'Do not name "{artist}"' in prompt
    assert "the first of the" not in prompt  # no template text


@pytest.mark.parametrize(
    ("write", "verdict"),
    [
        (lambda task: f'Top tracks of {task.looked_up[0]}, the band of the track "Money"', "names_looked_up"),
        (
            lambda task: f'Is {[n for n in task.answer if n != "Money"][0]} among the top tracks of the band of the track "Money"?',
            "names_the_answer",
        ),
        (lambda task: 'Top tracks of the band behind the track "Money"', "kept"),
    ],
)
def test_a_request_that_names_what_the_program_finds_is_rejected(pool: SandboxPool, write: Paraphrase, verdict: str) -> None:
    code = 'response_obj = GET_search(q="Money", type="track")\nGET_artists__id__top_tracks(id=response_obj.tracks.items[0].artists[0].id)'
    outcome = rewrite(Rewriter(write, "writer"), Task("spotify", code, ("Money", "track")), pool, 0, set())
    assert outcome.verdict == verdict and outcome.dropped is False  # no verifier: the template text stays
    assert (outcome.text is None) == (verdict != "kept") and outcome.written is not None


def _rewriter(drop: int, log: Path | None = None, miss: int | None = None) -> Rewriter:
    paraphraser = StubParaphraser(drop=drop, log=str(log or ""))
    if miss is None:
        return Rewriter(backend_paraphraser(paraphraser), "stub-writer")
    verifier = StubVerifier(answers=str(log), miss=miss)
    return Rewriter(backend_paraphraser(paraphraser), "stub-writer", backend_round_trip(verifier, "stub-checker"), "stub-checker")


def test_without_a_verifier_a_rejected_request_keeps_the_template_text(tmp_path: Path) -> None:
    plain = generate_samples("library", 8, seed=3).rows
    result = generate_samples("library", 8, seed=3, paraphrase=_rewriter(drop=2))
    assert [r["output"] for r in result.rows] == [r["output"] for r in plain]  # no verifier: no sample is dropped
    kept = [r for r in result.rows if r["synthetic"]["paraphrased"]]
    assert kept and len(kept) < len(result.rows)
    assert result.paraphrases["kept"] == len(kept) and result.paraphrases["dropped_literal"] >= 1
    for row, template in zip(result.rows, plain, strict=True):
        record = row["synthetic"]["paraphrase"]
        assert record["model"] == "stub-writer" and record["verify_model"] is None
        if row["synthetic"]["paraphrased"]:
            assert record["verdict"] == "kept" and row["utterance"].startswith("Hi! Number ")
        else:
            assert record["verdict"] != "kept" and row["utterance"] == template["utterance"]
        literals = [v for line in row["output"].splitlines() for v in json.loads("[" + _literal_args(line) + "]")]
        assert not missing_literals(literals, row["utterance"]), row


def _literal_args(line: str) -> str:
    """The quoted or numeric arguments of one generated call line, as JSON list items."""
    args = line.partition("(")[2].rpartition(")")[0]
    values = [part.partition("=")[2] for part in args.split(", ") if "=" in part]
    return ", ".join(v for v in values if v[:1] == '"' or v.isdigit())


def test_the_round_trip_keeps_only_samples_whose_verifier_program_executes_like_the_gold(tmp_path: Path) -> None:
    log = tmp_path / "asked.jsonl"
    result = generate_samples("library", 8, seed=3, paraphrase=_rewriter(drop=0, log=log, miss=3))
    assert len(result.rows) == 8
    for row in result.rows:  # every kept sample passed: its request is the model's, and the verifier read it back
        assert row["synthetic"]["paraphrased"] is True and row["utterance"].startswith("Hi! Number ")
        assert row["synthetic"]["paraphrase"] == {"model": "stub-writer", "verify_model": "stub-checker", "verdict": "kept"}
    asked = len(log.read_text().splitlines())
    missed = asked // 3  # every third program the verifier wrote calls nothing
    assert missed >= 2 and result.drops["paraphrase_verifier_differs"] == result.paraphrases["verifier_differs"] == missed
    assert result.paraphrases["kept"] == 8 and asked == 8 + missed
    again = generate_samples("library", 8, seed=3, paraphrase=_rewriter(drop=0, log=tmp_path / "again.jsonl", miss=3))
    assert again.rows == result.rows and again.drops == result.drops  # deterministic


def test_with_a_verifier_a_request_that_drops_a_literal_drops_the_sample(tmp_path: Path) -> None:
    result = generate_samples("library", 4, seed=3, paraphrase=_rewriter(drop=2, log=tmp_path / "asked.jsonl", miss=0))
    assert result.drops["paraphrase_dropped_literal"] >= 2 and all(r["synthetic"]["paraphrased"] for r in result.rows)


def test_the_request_is_read_from_the_first_line_of_the_answer() -> None:
    assert first_line('\n  Request: Show me "Dune".\nMore text') == 'Show me "Dune".'
    assert first_line("'Show me my loans'") == "Show me my loans"


def test_a_case_change_is_accepted_only_for_code_words_and_numbers_are_whole() -> None:
    assert missing_literals(["track"], "Play the Track") == []
    assert missing_literals(["Anti-Hero"], "play anti-hero") == ["Anti-Hero"]
    assert missing_literals([5], "set it to 50") == [5]
    assert missing_literals([5], "at most 5.") == []


def _generate(tmp_path: Path, *extra: str) -> tuple[int, str, list[dict]]:
    out = tmp_path / "test.jsonl"
    args = ["samples", "generate", "library", "--n", "6", "--seed", "3", "--out", str(out), "--force"]
    result = CliRunner().invoke(cli, [*args, "--paraphrase-model", "writer", "--paraphrase-backend", STUB_PARAPHRASER, *extra])
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return result.exit_code, result.output, rows


def test_the_cli_records_both_models_and_counts_drops_by_reason(tmp_path: Path) -> None:
    log = tmp_path / "asked.jsonl"
    verify = ["--verify-model", "checker", "--verify-backend", STUB_VERIFIER, "--verify-args", f"answers={log},miss=4"]
    code, output, rows = _generate(tmp_path, "--paraphrase-args", f"drop=0,log={log}", *verify)
    assert code == 0, output
    assert len(rows) == 6 and {json.dumps(r["synthetic"]["paraphrase"]) for r in rows} == {
        json.dumps({"model": "writer", "verify_model": "checker", "verdict": "kept"})
    }
    assert (
        "dropped 1: paraphrase_verifier_differs" in output and "paraphrased 6 of 6 (rejected: 1 verifier_differs)" in output
    )  # 7 asked, the 4th missed


def test_the_cli_without_a_verifier_keeps_template_text_and_refuses_a_verifier_alone(tmp_path: Path) -> None:
    code, output, rows = _generate(tmp_path, "--paraphrase-args", "drop=2")
    kept = sum(r["synthetic"]["paraphrased"] for r in rows)
    assert code == 0 and f"paraphrased {kept} of 6 (rejected: " in output and "dropped_literal" in output
    alone = CliRunner().invoke(cli, ["samples", "generate", "library", "--out", str(tmp_path / "x.jsonl"), "--verify-model", "m"])
    assert alone.exit_code != 0 and "give --paraphrase-model too" in str(alone.exception)


def _call_literals(code: str) -> tuple[str | int, ...]:
    """The literal keyword arguments of a generated program's calls, in order (as the sampler's ``Draft.literals``)."""
    import ast

    calls = [node for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Call)]
    found = [k.value.value for call in sorted(calls, key=lambda c: c.lineno) for k in call.keywords if isinstance(k.value, ast.Constant)]
    return tuple(v for v in found if isinstance(v, str | int))


@pytest.mark.slow
def test_the_bundled_model_writes_and_reads_back_requests_with_every_verdict_recorded(pool: SandboxPool) -> None:
    """The mechanics on a real model (SmolLM2-135M as writer and verifier): most round trips fail, and each says why."""
    from gqlbench.generators.backends.factory import make_backend

    rows = generate_samples("spotify", 3, seed=1, shapes=("single", "chain"), pool=pool).rows
    backend = make_backend("hf", "smollm2")
    try:
        rewriter = Rewriter(backend_paraphraser(backend, 0), "smollm2", backend_round_trip(backend, "smollm2"), "smollm2")
        outcomes = [rewrite(rewriter, Task(row["domain"], row["output"], _call_literals(row["output"])), pool, 0, set()) for row in rows]
        task = world_answers(Task(rows[0]["domain"], rows[0]["output"], _call_literals(rows[0]["output"])), pool, 0)
        first, second = (backend_paraphraser(backend, 0)(task) for _ in range(2))
        # the verifier's half on its own, on a request that passes every check before it: the template's text
        read_back = backend_round_trip(backend, "smollm2")(rows[0]["domain"], rows[0]["output"], rows[0]["utterance"], pool, 0)
    finally:
        backend.close()
    known = {"kept", "no_answer", "dropped_literal", "names_looked_up", "names_the_answer", "copies_human", "duplicate"}
    known |= {"gold_fails_with_it"}
    known |= {"verifier_error", "verifier_no_program", "verifier_differs"}
    for outcome in outcomes:
        assert outcome.verdict in known or outcome.verdict.startswith("verifier_failed:"), outcome
        assert outcome.dropped == (outcome.verdict != "kept") and (outcome.text is None) == outcome.dropped
        assert outcome.record() == {"model": "smollm2", "verify_model": "smollm2", "verdict": outcome.verdict}
        assert outcome.runs >= 1
    assert first == second  # greedy decoding: the same request twice
    assert read_back in {None, "verifier_error", "verifier_no_program", "verifier_differs"} or read_back.startswith("verifier_failed:")
