"""The mock observer: actions really run (in the sandbox), replayed step by step on a fresh world."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, cast

import pytest

from gqlbench.dataset import get_sample
from gqlbench.generators.backends.backend import Backend, GenerationConfig
from gqlbench.generators.react import BatchObserver, Observer
from gqlbench.generators.tools import ToolCall, ToolReply, ToolRequest, run_tools, tools_messages
from gqlbench.mocks.sandbox.pool import SandboxPool
from gqlbench.mocks.sandbox.process import WorkerProcess
from gqlbench.records import Prompt
from gqlbench.run.observers import MockObserver


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(workers=2, wall_seconds=20) as pool:
        yield pool


@pytest.fixture()
def observer(pool: SandboxPool) -> MockObserver:
    return MockObserver(pool=lambda: pool)


def test_it_is_a_batch_observer_by_shape() -> None:
    assert isinstance(MockObserver(), Observer) and isinstance(MockObserver(), BatchObserver)


def test_a_search_observes_the_real_json_response(observer: MockObserver) -> None:
    sample = get_sample("test/0")  # searches Mariah Carey's tracks, then makes a playlist of them
    action = sample.gold_code.splitlines()[0]
    assert action.startswith("response_obj = GET_search(")
    response = json.loads(MockObserver(max_chars=10**6, pool=observer.pool).observe(sample, [], action))
    assert response["tracks"]["items"] and all(item["uri"].startswith("spotify:track:") for item in response["tracks"]["items"])
    cut = observer.observe(sample, [], action)  # shortened as a tool result is: still JSON, saying inside what it left out
    shown = json.loads(cut)["tracks"]["items"]
    assert len(cut) <= 2000 and shown[0]["uri"] == response["tracks"]["items"][0]["uri"]
    assert shown[-1] == f"... {len(response['tracks']['items']) - len(shown) + 1} of {len(response['tracks']['items'])} items not shown"


def test_a_bad_field_is_a_clear_error_naming_the_valid_ones(observer: MockObserver) -> None:
    sample = get_sample("test/7")
    first = sample.gold_code.splitlines()[0]  # response_obj = GET_me_player_devices()
    text = observer.observe(sample, [first], "device = response_obj.devices[0].nmae")
    assert text.startswith("Error (unknown_field): ") and "'nmae'" in text and "name" in text
    assert observer.observe(sample, [], "GET_me_player_devices(colour='red')").startswith("Error (bad_arguments): ")
    assert observer.observe(sample, [], "import os") == (
        "Error (refused): import is not allowed: every function the program needs is already defined"
    )


def test_earlier_mutations_are_visible_to_the_next_step(observer: MockObserver) -> None:
    sample = get_sample("test/0")
    me = "me = GET_me()"
    create = 'playlist = POST_users__user_id__playlists(user_id=me.id, name="Road Trip")'
    created = json.loads(observer.observe(sample, [me], create))
    assert created["name"] == "Road Trip"
    listing = observer.observe(sample, [me, create], "GET_me_playlists()")
    assert created["id"] in listing and "Road Trip" in listing
    assert "Road Trip" not in observer.observe(sample, [me], "GET_me_playlists()")  # a fresh world each time


def test_a_failed_action_is_left_out_of_later_replays(observer: MockObserver) -> None:
    sample = get_sample("test/7")
    steps = ["r = GET_me_player_devices()", "x = r.devices[99]", "r.devices[0].name"]
    assert observer.observe(sample, steps[:1], steps[1]).startswith("Error (index_out_of_range): ")
    assert observer.observe(sample, steps[:2], steps[2]) == '"My PC"'
    fresh = MockObserver(pool=observer.pool)  # never saw the earlier steps: it works them out
    assert fresh.observe(sample, steps[:2], steps[2]) == '"My PC"'


def test_one_step_of_many_samples_is_one_batch(pool: SandboxPool) -> None:
    batches: list[int] = []

    class CountingPool:
        def run_many(self, jobs: list) -> list:
            batches.append(len(jobs))
            return pool.run_many(jobs)

    observer = MockObserver(pool=lambda: CountingPool())  # type: ignore[arg-type,return-value]
    requests = [(get_sample(i), [], "GET_me()") for i in ("test/0", "test/2", "test/3")]
    observations = observer.observe_many(requests)
    assert batches == [3] and len({json.loads(o)["id"] for o in observations}) == 1


def test_an_own_pool_starts_on_first_use_and_closes() -> None:
    observer = MockObserver()
    assert observer._own_pool is None
    assert observer.observe(get_sample("test/7"), [], "1 + 1") == "2"
    observer.close()
    assert observer._own_pool is None


class _Turns:
    """A tool backend that makes ``calls`` calls of ``function`` in each of ``turns`` turns, then answers."""

    name = "turns"
    max_model_len = 8192

    def __init__(self, function: str, calls: int, turns: int) -> None:
        self.function, self.calls, self.turns = function, calls, turns

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        for request in requests:
            made = sum(1 for m in request.messages if m["role"] == "assistant")
            calls = tuple(ToolCall(f"c{made}_{i}", self.function, "{}") for i in range(self.calls)) if made < self.turns else ()
            yield ToolReply(request.sample_id, "" if calls else "Done.", calls)


def test_a_turn_of_n_calls_is_one_sandbox_job_of_n_statements_after_one_replay(pool: SandboxPool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call was a job replaying every earlier call: two turns of 16 calls were 32 jobs running 528 statements."""
    jobs: list[int] = []  # statements per job sent to a worker: replayed lines and steps
    assign = WorkerProcess.assign

    def counted(worker: WorkerProcess, index: int, request: dict[str, Any]) -> None:
        jobs.append(sum(1 for line in request["code"].splitlines() if line.strip()) + len(request.get("steps", [])))
        assign(worker, index, request)

    monkeypatch.setattr(WorkerProcess, "assign", counted)
    sample = get_sample("test/7")
    prompt = Prompt(sample_id=sample.id, style="tools", messages=tools_messages(sample))
    backend = cast(Backend, _Turns("GET_me_player_devices", calls=16, turns=2))
    (completion,) = run_tools([(sample, prompt)], backend, GenerationConfig(), MockObserver(pool=lambda: pool), max_steps=4)
    assert completion.finish_reason == "final"
    observations = [json.loads(s.observation) for s in completion.steps if s.observation is not None]
    assert len(observations) == 32 and all(o["devices"][0]["name"] == "My PC" for o in observations)
    assert jobs == [16, 16 + 16]  # a job per turn: its calls, after the earlier turn's replayed once
