"""ReAct: step parsing, the schema observer, and the step-synchronous loop."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from gqlbench.dataset import get_sample
from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
from gqlbench.generators.budget import fit_prompt
from gqlbench.generators.react import (
    ReactPrompter,
    SchemaObserver,
    parse_step,
    react_program,
    react_transcript,
    run_react,
)
from gqlbench.records import Completion, Message, Prompt, Sample


class ScriptedBackend:
    """Answers each sample's n-th step with the n-th scripted text; records every generate call."""

    name = "scripted"

    def __init__(self, scripts: dict[str, list[str]], max_model_len: int = 10**9, errors: dict[str, int] | None = None) -> None:
        self.scripts = scripts
        self.max_model_len = max_model_len
        self.errors = errors or {}
        self.calls: list[list[GenerationRequest]] = []

    def render(self, messages: Sequence[Message], assistant_prefix: str = "") -> str:
        return "".join(f"{m.role}: {m.content}\n" for m in messages) + assistant_prefix

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(self, requests: Sequence[GenerationRequest], config: GenerationConfig) -> Iterator[Completion]:
        self.calls.append(list(requests))
        step = len(self.calls) - 1
        for r in requests:
            if self.errors.get(r.sample_id) == step:
                yield Completion(sample_id=r.sample_id, error="boom")
                continue
            script = self.scripts[r.sample_id]
            text = script[min(step, len(script) - 1)]
            yield Completion(
                sample_id=r.sample_id,
                text=text,
                tokens_in=self.count_tokens(self.render(r.messages, r.assistant_prefix)),
                tokens_out=len(text.split()),
                latency_s=0.5,
            )


class RecordingObserver:
    name = "recording"
    explains = "what the recorder saw"

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[str], str]] = []

    def observe(self, sample: Sample, actions_so_far: list[str], action: str) -> str:
        self.seen.append((sample.id, actions_so_far, action))
        return f"ok {len(actions_so_far)}"


def _work(*ids: str) -> list[tuple[Sample, Prompt]]:
    return [(get_sample(i), Prompt(sample_id=i, style="react", messages=[Message(role="user", content=f"task {i}")])) for i in ids]


def _act(line: str) -> str:
    return f" reasoning\nAction: {line}\nObservation: made up by the model\nThought: more"


FINISH = " done\nAction: finish"
CONFIG = GenerationConfig(max_new_tokens=10)


def test_parse_step_reads_the_first_action_only() -> None:
    step = parse_step("Thought: I search.\nAction: r = GET_search(q='x')\nObservation: fake\nAction: GET_b()")
    assert (step.thought, step.action, step.finished) == ("I search.", "r = GET_search(q='x')", False)
    assert parse_step("Thought: done\nAction: finish").finished
    assert parse_step("Thought: done\nAction: Finish[]").finished
    assert parse_step("Thought: x\nAction:\n```python\nGET_a()\n```").action == "GET_a()"
    assert parse_step("Thought: x\nAction: `GET_a()`").action == "GET_a()"
    silent = parse_step("Thought: I think I am done here.")
    assert silent.action is None and silent.finished
    assert not parse_step("Thought: x\nAction: finisher = GET_a()").finished


def test_samples_advance_together_one_batched_call_per_step() -> None:
    backend = ScriptedBackend(
        {
            "test/0": [FINISH],
            "test/1": [_act("a = GET_a()"), FINISH],
            "test/2": [_act("a = GET_a()"), _act("GET_b(x=a.id)"), FINISH],
        }
    )
    observer = RecordingObserver()
    done = {c.sample_id: c for c in run_react(_work("test/0", "test/1", "test/2"), backend, CONFIG, observer, max_steps=8)}
    assert [[r.sample_id for r in call] for call in backend.calls] == [["test/0", "test/1", "test/2"], ["test/1", "test/2"], ["test/2"]]
    assert {c.finish_reason for c in done.values()} == {"finish"}
    assert react_program(done["test/0"]) == ""
    assert react_program(done["test/2"]) == "a = GET_a()\nGET_b(x=a.id)"
    assert observer.seen[-1] == ("test/2", ["a = GET_a()"], "GET_b(x=a.id)")
    assert done["test/2"].tokens_out == sum(s.tokens_out for s in done["test/2"].steps)
    assert done["test/2"].latency_s == pytest.approx(1.5)


def test_the_scratchpad_is_continued_and_the_models_invented_observation_dropped() -> None:
    backend = ScriptedBackend({"test/1": [_act("a = GET_a()"), FINISH]})
    completion = next(run_react(_work("test/1"), backend, CONFIG, RecordingObserver()))
    second = backend.calls[1][0].assistant_prefix
    assert second == "Thought: reasoning\nAction: a = GET_a()\nObservation: ok 0\nThought:"
    assert "made up" not in completion.text and completion.text.endswith("Action: finish\n")


def test_max_steps_stops_a_model_that_never_finishes() -> None:
    backend = ScriptedBackend({"test/0": [_act("GET_a()")], "test/1": [FINISH]})
    done = {c.sample_id: c for c in run_react(_work("test/0", "test/1"), backend, CONFIG, RecordingObserver(), max_steps=3)}
    assert len(backend.calls) == 3
    assert done["test/0"].finish_reason == "max_steps" and react_program(done["test/0"]) == "GET_a()\nGET_a()\nGET_a()"


def test_no_action_ends_the_sample_and_an_error_fails_only_that_sample() -> None:
    backend = ScriptedBackend(
        {"test/0": [" I give up."], "test/1": [_act("GET_a()"), FINISH], "test/2": [_act("GET_a()"), FINISH]}, errors={"test/2": 1}
    )
    done = {c.sample_id: c for c in run_react(_work("test/0", "test/1", "test/2"), backend, CONFIG, RecordingObserver())}
    assert done["test/0"].finish_reason == "no_action" and done["test/0"].error is None
    assert done["test/1"].finish_reason == "finish"
    assert done["test/2"].error == "boom" and done["test/2"].finish_reason == "error"


def test_a_sample_stops_when_the_next_step_would_not_fit() -> None:
    work = _work("test/0")
    long_action = _act("GET_a(" + "x=1, " * 30 + ")")
    backend = ScriptedBackend({"test/0": [long_action]}, max_model_len=60)
    done = list(run_react(work, backend, GenerationConfig(max_new_tokens=20), RecordingObserver(), max_steps=8))
    assert len(backend.calls) == 1 and done[0].finish_reason == "context"


def test_schema_observer_names_the_returned_type_and_its_fields() -> None:
    observer = SchemaObserver()
    sample = get_sample("test/3")
    text = observer.observe(sample, [], "response_obj = GET_me_player_currently_playing()")
    assert text.startswith("response_obj has type GET_me_player_currently_playing_Root:\ntype GET_me_player_currently_playing_Root {")
    assert "item:" in text and "type Query" not in text
    assert observer.observe(sample, [], 'DELETE_me_following(type="artist", ids="1")') == "DELETE_me_following returns no data to read."
    assert observer.observe(sample, [], "GET_nothing()").startswith("GET_nothing is not one of the given functions")
    assert observer.observe(sample, [], "x = (").startswith("SyntaxError")
    assert observer.observe(sample, [], "x = 1") == "No API function was called."


def test_schema_observer_falls_back_to_the_samples_schema_for_unknown_domains() -> None:
    sample = get_sample("test/3").model_copy(update={"domain": "not-in-the-catalog"})
    text = SchemaObserver().observe(sample, [], "r = GET_me_player_currently_playing()")
    assert text.startswith("r has type GET_me_player_currently_playing_Root:")


def test_long_observations_are_cut_visibly() -> None:
    text = SchemaObserver(max_chars=200).observe(get_sample("test/3"), [], "r = GET_me_player_currently_playing()")
    assert len(text) < 300 and text.endswith("more characters of the schema not shown)")


def test_react_shot_transcripts_replay_the_gold_code_step_by_step() -> None:
    shot = get_sample("train/0")
    observer = RecordingObserver()
    transcript = react_transcript(shot, observer)
    lines = shot.gold_code.strip().splitlines()
    actions = [line.removeprefix("Action: ") for line in transcript.splitlines() if line.startswith("Action: ")]
    assert actions == [*lines, "finish"]
    assert [seen[1] for seen in observer.seen] == [lines[:i] for i in range(len(lines))]


def test_react_prompts_fit_the_budget_with_the_thought_prefix() -> None:
    prompter = ReactPrompter(SchemaObserver())
    sample, shots = get_sample("test/3"), [get_sample("train/0"), get_sample("train/1")]
    backend = ScriptedBackend({})
    prompt = fit_prompt(sample, shots, prompter, backend, style="react", reserve=100, assistant_prefix="Thought:")
    assert prompt.shots == ["train/0", "train/1"] and prompt.text.endswith("Thought:")
    assert [m.role for m in prompt.messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "Action: finish" in prompt.messages[2].content and "Observation: response_obj has type" in prompt.messages[2].content


def test_a_batch_observer_gets_each_step_of_all_samples_in_one_call() -> None:
    class BatchRecorder(RecordingObserver):
        def __init__(self) -> None:
            super().__init__()
            self.batches: list[list[str]] = []

        def observe_many(self, requests: Sequence[tuple[Sample, list[str], str]]) -> list[str]:
            self.batches.append([sample.id for sample, _, _ in requests])
            return [self.observe(*request) for request in requests]

    backend = ScriptedBackend({"test/0": [_act("a = GET_a()"), FINISH], "test/1": [_act("b = GET_b()"), _act("GET_c(x=b.id)"), FINISH]})
    observer = BatchRecorder()
    done = {c.sample_id: c for c in run_react(_work("test/0", "test/1"), backend, CONFIG, observer)}
    assert observer.batches == [["test/0", "test/1"], ["test/1"]]
    assert done["test/1"].steps[1].observation == "ok 1"


def test_mock_observations_let_the_model_see_and_fix_its_error() -> None:
    from gqlbench.run.observers import MockObserver

    script = [
        _act("response_obj = GET_me_player_devices()"),
        _act("device = response_obj.devices[0].nmae"),  # a typo the observation names
        _act("device = response_obj.devices[0].name"),
        FINISH,
    ]
    observer = MockObserver()
    try:
        done = next(run_react(_work("test/7"), ScriptedBackend({"test/7": script}), CONFIG, observer))
    finally:
        observer.close()
    observations = [step.observation for step in done.steps]
    assert '"name":"My PC"' in observations[0]
    assert observations[1].startswith("Error (unknown_field): ") and "did you mean name" in observations[1]
    assert observations[2] == '"My PC"' and observations[3] is None
    assert done.finish_reason == "finish" and "Observation: Error (unknown_field)" in done.text


def test_a_react_step_is_written_with_the_same_keys_as_before() -> None:
    from gqlbench.records import ReactStep

    final = ReactStep(thought="done", action="finish", finished=True, raw=" done", tokens_in=3, tokens_out=2)
    assert list(final.model_dump(mode="json")) == ["thought", "action", "finished", "raw", "tokens_in", "tokens_out"]
    observed = final.model_copy(update={"finished": False, "action": "a = GET_a()", "observation": "ok"})
    assert observed.model_dump(mode="json")["observation"] == "ok"
    assert ReactStep.model_validate(observed.model_dump(mode="json")) == observed
