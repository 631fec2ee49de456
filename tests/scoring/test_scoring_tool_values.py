"""Tool-call arguments credited as gold's reference when their value is gold's on the same world (gqlbench.scoring.tool_values)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from gqlbench.dataset import get_sample
from gqlbench.metrics import score_sample
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.records import Trace
from gqlbench.scoring.tool_values import CREDITED_BECAUSE, credit_equal_values

PAUSE = get_sample(
    "test/7"
)  # gold: PUT_me_player_pause(device_id=[device.id for device in response_obj.devices if device.name == "My PC"][0])
DEVICES = "response_obj = GET_me_player_devices()"


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool() as pool:
        yield pool


def _devices(pool: SandboxPool) -> list[dict[str, Any]]:
    """The devices of the world a run with seed 0 sees."""
    trace = pool.run_many([Job(code=DEVICES, domain="spotify", observe_last=True, request=PAUSE.utterance)])[0]
    return list(json.loads(trace.result)["devices"])


def _by_index(pool: SandboxPool, named: bool) -> tuple[str, list[dict[str, Any]]]:
    """The trajectory's program when the model picked a device by index (the one named "My PC", or another), and its provenance."""
    devices = _devices(pool)
    index = next(i for i, d in enumerate(devices) if (d["name"] == "My PC") == named)
    source = f"response_obj.devices[{index}].id"
    entry = {"call": 2, "function": "PUT_me_player_pause", "argument": "device_id", "value": devices[index]["id"], "source": source}
    return f"{DEVICES}\nresponse_obj1 = PUT_me_player_pause(device_id={source})", [entry]


def test_the_device_picked_by_name_is_credited_as_gold_s_filter(pool: SandboxPool) -> None:
    code, provenance = _by_index(pool, named=True)
    assert score_sample(PAUSE, code).scores.arg_match_full == 0  # as the trajectory wrote it, Arg Match cannot credit it
    credited, entries = credit_equal_values(PAUSE, code, provenance, pool=lambda: pool)
    written = "[x0.id for x0 in response_obj.devices if x0.name == 'My PC'][0]"
    assert credited.splitlines() == [DEVICES, f"response_obj1 = PUT_me_player_pause(device_id={written})"]
    assert entries == [provenance[0] | {"source": written, "read_from": provenance[0]["source"], "chosen_because": CREDITED_BECAUSE}]
    scores = score_sample(PAUSE, credited).scores
    assert (scores.arg_match_full, scores.seq_match_full, scores.seq_match_conn) == (1, 1, 1)


def test_another_device_is_not_credited(pool: SandboxPool) -> None:
    code, provenance = _by_index(pool, named=False)
    assert credit_equal_values(PAUSE, code, provenance, pool=lambda: pool) == (code, provenance)


def test_a_value_the_model_typed_is_never_credited_even_when_it_is_gold_s(pool: SandboxPool) -> None:
    device = next(d for d in _devices(pool) if d["name"] == "My PC")
    code = f"{DEVICES}\nresponse_obj1 = PUT_me_player_pause(device_id={device['id']!r})"
    provenance = [{"call": 2, "function": "PUT_me_player_pause", "argument": "device_id", "value": device["id"], "source": "literal"}]
    assert credit_equal_values(PAUSE, code, provenance, pool=lambda: pytest.fail("nothing needs to run")) == (code, provenance)


def test_a_reference_where_gold_has_a_literal_is_left_alone_without_running_anything() -> None:
    search = get_sample("test/0")  # gold: GET_search(q="Mariah Carey", type="track"), ...
    code = (
        "response_obj = GET_search(q='Mariah Carey', type='track')\n"
        "response_obj1 = GET_search(q='Mariah Carey', type=response_obj.tracks.items[0].type)"
    )
    provenance = [
        {"call": 1, "function": "GET_search", "argument": "q", "value": "Mariah Carey", "source": "literal"},
        {"call": 1, "function": "GET_search", "argument": "type", "value": "track", "source": "literal"},
        {"call": 2, "function": "GET_search", "argument": "q", "value": "Mariah Carey", "source": "literal"},
        {"call": 2, "function": "GET_search", "argument": "type", "value": "track", "source": "response_obj.tracks.items[0].type"},
    ]
    assert credit_equal_values(search, code, provenance, pool=lambda: pytest.fail("nothing needs to run")) == (code, provenance)


class _RerunDiffers:
    """The real pool, except that the program with the credits leaves the world in another state."""

    def __init__(self, pool: SandboxPool) -> None:
        self.pool, self.runs = pool, 0

    def run_many(self, jobs: list[Job]) -> list[Trace]:
        self.runs += 1
        traces = self.pool.run_many(jobs)
        return traces if self.runs == 1 else [t.model_copy(update={"world_digest": "another"}) for t in traces]


def test_a_credit_whose_program_would_run_differently_is_refused(pool: SandboxPool) -> None:
    code, provenance = _by_index(pool, named=True)
    differing = _RerunDiffers(pool)
    assert credit_equal_values(PAUSE, code, provenance, pool=lambda: differing) == (code, provenance)  # type: ignore[arg-type,return-value]
    assert differing.runs == 2  # gold and the program, then the program with the credit


def test_values_are_equal_as_json_values() -> None:
    from gqlbench.scoring.tool_values import _same

    assert _same({"a": [1, "x"], "b": 2}, {"b": 2.0, "a": [1.0, "x"]})
    assert not _same(1, True) and not _same("1", 1) and not _same(None, 0) and not _same([1, 2], [2, 1])
