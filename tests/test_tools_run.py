"""`gqlbench run --prompt tools` end to end against a scripted OpenAI-compatible server on 127.0.0.1.

The server (tests/tool_server.py) makes each sample's gold calls as tool
calls, computing every argument from the tool results it was sent. Gold
arguments that are literals or field paths are what a tool call can carry
and provenance can turn back into references; a gold argument computed by
an expression (a filter, a join) reaches the program as the value it gave,
read from the field that holds it, and scoring credits it as gold's
expression when the two programs pass the same value (gqlbench.scoring.tool_values).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gqlbench.dataset import load_split
from gqlbench.errors import GqlbenchError
from gqlbench.generators.tool_input import MAX_ARGUMENT_DEPTH, MAX_ARGUMENTS_CHARS, MAX_CALLS_PER_TURN
from gqlbench.records import Sample
from gqlbench.run.runner import RunOptions, RunSettings, run
from gqlbench.scoring.tool_values import CREDITED_BECAUSE
from tests.stub_backends import STUB
from tests.tool_server import ToolServer, gold_steps, reply

SAMPLES = {s.id: s for s in load_split("test")}


def _settings(url: str, **changes: Any) -> RunSettings:
    base = {"model": "m", "backend": "openai", "base_url": url, "prompt": "tools", "split": "test"}
    return RunSettings(**{**base, **changes})


def _lines(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {d["id"]: d for d in map(json.loads, (run_dir / "samples.jsonl").read_text().splitlines())}


def _path(node: ast.expr) -> bool:
    """A literal, a field path of a response, or a list/dict of those: what a tool call's value can stand for."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_path(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(_path(v) for v in node.values)
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


def _expressible(sample: Sample) -> bool:
    return all(_path(node) for _, _, args in gold_steps(sample) for node in args.values())


def _reads_response(sample: Sample) -> bool:
    return any(isinstance(n, ast.Name) for _, _, args in gold_steps(sample) for node in args.values() for n in ast.walk(node))


@pytest.fixture
def server() -> Iterator[Any]:
    started: list[ToolServer] = []

    def start(mode: str = "gold", **kw: Any) -> ToolServer:
        started.append(ToolServer(mode, **kw))
        return started[-1]

    yield start
    for s in started:
        s.close()


def test_a_server_following_gold_scores_like_gold_where_gold_executes(server: Any, tmp_path: Path) -> None:
    srv = server("gold")
    outcome = run(_settings(srv.url), RunOptions(runs_root=tmp_path, quiet=True))
    assert outcome.run_dir.name.endswith("_test_tools")
    config = json.loads((outcome.run_dir / "config.json").read_text())
    assert config["prompt"] == "tools" and config["settings"]["observe"] == "mock" and config["settings"]["shots"] == 0
    lines = _lines(outcome.run_dir)
    assert set(lines) == set(SAMPLES)
    checked = 0
    for sid, line in lines.items():
        if line["explanation"]["exec"]["gold_trace"]["error"] is not None or not _expressible(SAMPLES[sid]):
            continue
        checked += 1
        scores = line["scores"]
        assert (scores["arg_match_full"], scores["seq_match_full"], scores["exec_success"]) == (1, 1, 1), (sid, line["code"])
    assert checked >= len(SAMPLES) // 2
    first = srv.bodies[0]
    assert first["tool_choice"] == "auto" and first["tools"]
    sample = next(s for s in SAMPLES.values() if s.utterance == ToolServer.request(first))
    assert [t["function"]["name"] for t in first["tools"]] == sample.function_names
    assert any("Returns " in t["function"]["description"] for t in first["tools"])
    provenance = [a for line in lines.values() for a in line["explanation"]["tool_arguments"]]
    assert {"call", "argument", "source"} <= set(provenance[0])
    ambiguous = [a for a in provenance if "candidates" in a]
    assert ambiguous and all(a["source"] in a["candidates"] and len(a["candidates"]) > 1 for a in ambiguous)


def test_a_constant_where_gold_reads_a_response_loses_arg_match_on_exactly_those_samples(server: Any, tmp_path: Path) -> None:
    ids = [sid for sid, s in SAMPLES.items() if _expressible(s)][:10]
    reading = {sid for sid in ids if _reads_response(SAMPLES[sid])}
    assert reading and set(ids) - reading  # both kinds are in the slice
    srv = server("constant")
    lines = _lines(run(_settings(srv.url, ids=tuple(ids), execute=False), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)
    lost = {sid for sid, line in lines.items() if line["scores"]["arg_match_full"] == 0}
    assert lost == reading
    for sid in reading:
        assert "wrong_source" in {e["kind"] for e in lines[sid]["explanation"]["errors"]}


def test_parallel_calls_of_one_turn_run_in_order_and_score_like_gold(server: Any, tmp_path: Path) -> None:
    ids = [sid for sid, s in SAMPLES.items() if _expressible(s)][:12]
    srv = server("parallel")
    lines = _lines(run(_settings(srv.url, ids=tuple(ids), execute=False), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)
    assert any(len(m.get("tool_calls") or []) > 1 for body in srv.bodies for m in body["messages"] if m["role"] == "assistant")
    followed = {sid: line for sid, line in lines.items() if "refused_tool_calls" not in line["explanation"]}  # gold ran
    assert len(followed) >= len(ids) - 2
    assert all(line["scores"]["arg_match_full"] == 1 and line["scores"]["seq_match_full"] == 1 for line in followed.values())


def test_unknown_tools_and_bad_arguments_get_the_error_as_result_and_are_recorded(server: Any, tmp_path: Path) -> None:
    sample = SAMPLES["test/3"]
    first = gold_steps(sample)[0][1]

    def script(n: int, body: dict[str, Any]) -> dict[str, Any]:
        if not any(m["role"] == "tool" for m in body["messages"]):
            return reply("trying", [("GET_lyrics", {"song": "x"}), (first, {"bogus": 1}), ("bad name", "{}"), (first, "not json")])
        return reply("Done.")

    srv = server(script=script)
    line = _lines(run(_settings(srv.url, ids=("test/3",)), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)["test/3"]
    results = [m["content"] for m in srv.bodies[1]["messages"] if m["role"] == "tool"]
    assert len(results) == 4 and all(r.startswith("Error (") for r in results)
    assert "unknown_function" in results[0] and "bad_arguments" in results[1] and "bad_arguments" in results[3]
    refused = line["explanation"]["refused_tool_calls"]
    assert [r["in_program"] for r in refused] == [True, True, False, False]
    assert line["code"].splitlines() == ["response_obj = GET_lyrics(song='x')", f"response_obj1 = {first}(bogus=1)"]
    assert line["scores"]["arg_match_full"] == 0 and line["finish_reason"] == "final"
    assert "hallucinated_function" in {e["kind"] for e in line["explanation"]["errors"]}


def test_a_model_that_never_calls_a_tool_is_scored_as_an_empty_program(server: Any, tmp_path: Path) -> None:
    srv = server(script=lambda n, body: reply("I would rather not."))
    line = _lines(run(_settings(srv.url, ids=("test/4",)), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)["test/4"]
    assert line["finish_reason"] == "no_calls" and line["code"] == "" and line["raw_output"] == "I would rather not."
    assert line["scores"]["arg_match_full"] == 0 and line["scores"]["gold_calls"] > 0 and len(srv.bodies) == 1


def test_max_steps_bounds_the_model_turns(server: Any, tmp_path: Path) -> None:
    sample = SAMPLES["test/3"]
    srv = server(script=lambda n, body: reply("again", [(gold_steps(sample)[0][1], {})]))
    line = _lines(run(_settings(srv.url, ids=("test/3",), max_steps=3), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)["test/3"]
    assert line["finish_reason"] == "max_steps" and len(srv.bodies) == 3 and len(line["code"].splitlines()) == 3


def test_a_run_resumes_in_the_middle_of_the_split(server: Any, tmp_path: Path) -> None:
    ids = ("test/3", "test/4", "test/8", "test/9")
    srv = server("gold", fail={SAMPLES[i].utterance for i in ids[2:]})
    out = tmp_path / "run"
    run(_settings(srv.url, ids=ids, execute=False), RunOptions(out=out, quiet=True))
    assert set(_lines(out)) == set(ids[:2]) and (out / "errors.jsonl").exists()
    srv.fail.clear()  # the server recovers
    before = len(srv.bodies)
    run(_settings(srv.url, ids=ids, execute=False), RunOptions(out=out, quiet=True))
    lines = _lines(out)
    assert set(lines) == set(ids) and all(line["scores"]["arg_match_full"] == 1 for line in lines.values())
    assert {ToolServer.request(b) for b in srv.bodies[before:]} == {SAMPLES[i].utterance for i in ids[2:]}


def test_a_server_without_tool_calling_gets_a_one_line_error_naming_the_flags(server: Any, tmp_path: Path) -> None:
    refusing = server(
        "gold",
        fail={SAMPLES["test/3"].utterance},
        fail_message='"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    )
    with pytest.raises(GqlbenchError, match="--enable-auto-tool-choice --tool-call-parser") as info:
        run(_settings(refusing.url, ids=("test/3",)), RunOptions(runs_root=tmp_path, quiet=True))
    assert "\n" not in str(info.value)


def test_a_server_that_writes_calls_as_text_finishes_the_run_and_is_told_once_after_it(server: Any, tmp_path: Path) -> None:
    as_text = server(script=lambda n, body: reply('<tool_call>{"name": "GET_me", "arguments": {}}</tool_call>'))
    told: list[str] = []
    ids = ("test/3", "test/4")
    outcome = run(_settings(as_text.url, ids=ids, execute=False), RunOptions(runs_root=tmp_path, quiet=True, notify=told.append))
    assert set(_lines(outcome.run_dir)) == set(ids) and all(
        line["finish_reason"] == "no_calls" for line in _lines(outcome.run_dir).values()
    )
    warnings = [line for line in told if "instead of returning tool_calls" in line]
    assert len(warnings) == 1 and "--enable-auto-tool-choice --tool-call-parser" in warnings[0] and "\n" not in warnings[0]
    assert told[-1] == warnings[0]  # after the run's samples


def test_a_final_answer_quoting_json_after_real_calls_is_an_answer(server: Any, tmp_path: Path) -> None:
    def script(n: int, body: dict[str, Any]) -> Any:
        if not any(m["role"] == "tool" for m in body["messages"]):
            return reply("", [("GET_me_player_currently_playing", {})])
        return reply('Here it is:\n{"name": "Love Mariah", "id": 1}')

    told: list[str] = []
    ids = ("test/3", "test/4")
    outcome = run(
        _settings(server(script=script).url, ids=ids, execute=False), RunOptions(runs_root=tmp_path, quiet=True, notify=told.append)
    )
    lines = _lines(outcome.run_dir)
    assert set(lines) == set(ids) and all(line["finish_reason"] == "final" and line["code"] for line in lines.values())
    assert not any("tool_calls" in line for line in told)


def test_a_later_turn_the_server_refuses_over_a_tool_call_is_that_sample_s_error_not_the_run_s(server: Any, tmp_path: Path) -> None:
    refusing, finishing = SAMPLES["test/3"], SAMPLES["test/4"]
    bad = {"error": {"message": "Invalid tool call arguments: Expecting value: line 1 column 2", "type": "error", "code": 400}}

    def script(n: int, body: dict[str, Any]) -> Any:
        if ToolServer.request(body) == finishing.utterance:
            return reply("Nothing to do.")
        if any(m["role"] == "tool" for m in body["messages"]):  # the model's arguments, sent back, are what the server refuses
            return (400, bad)
        return reply("", [("GET_me_player_currently_playing", "{not json")])

    out = tmp_path / "run"
    run(_settings(server(script=script).url, ids=(refusing.id, finishing.id), execute=False), RunOptions(out=out, quiet=True))
    assert set(_lines(out)) == {finishing.id}
    (error,) = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert error["id"] == refusing.id and error["error"].startswith("BadRequestError") and "Invalid tool call arguments" in error["error"]


def test_a_fatal_server_error_keeps_the_samples_that_finished_before_it(server: Any, tmp_path: Path) -> None:
    finishing, failing = SAMPLES["test/3"], SAMPLES["test/4"]

    def script(n: int, body: dict[str, Any]) -> Any:
        if ToolServer.request(body) == finishing.utterance:
            return reply("Nothing to do.")
        if any(m["role"] == "tool" for m in body["messages"]):  # the other sample's second turn: the key was revoked
            return (401, {"error": {"message": "invalid api key", "type": "error", "code": 401}})
        return reply("", [("GET_me_player_currently_playing", {})])

    out = tmp_path / "run"
    with pytest.raises(GqlbenchError, match="AuthenticationError"):
        run(_settings(server(script=script).url, ids=(finishing.id, failing.id), execute=False), RunOptions(out=out, quiet=True))
    assert set(_lines(out)) == {finishing.id}


def test_more_calls_in_one_turn_than_the_bound_end_the_sample_without_running_them(server: Any, tmp_path: Path) -> None:
    def script(n: int, body: dict[str, Any]) -> Any:
        made = sum(m["role"] == "tool" for m in body["messages"])
        calls = [("GET_me_player_currently_playing", {})] * (1 if made == 0 else MAX_CALLS_PER_TURN + 1)
        return reply("again", calls, start=made)

    srv = server(script=script)
    line = _lines(run(_settings(srv.url, ids=("test/3",), execute=False), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)["test/3"]
    assert line["finish_reason"] == "too_many_calls" and len(srv.bodies) == 2
    assert line["code"] == "response_obj = GET_me_player_currently_playing()"  # the turn before, scored
    assert f"{MAX_CALLS_PER_TURN + 1} tool calls" in line["generation_note"] and "none of them ran" in line["generation_note"]


def _one_call_then_done(name: str, arguments: str) -> Callable[[int, dict[str, Any]], Any]:
    def script(n: int, body: dict[str, Any]) -> Any:
        return reply("Done.") if any(m["role"] == "tool" for m in body["messages"]) else reply("", [(name, arguments)])

    return script


def test_huge_arguments_are_refused_and_stored_once_cut_with_their_length(server: Any, tmp_path: Path) -> None:
    arguments = json.dumps({"id": "x" * 2_000_000})
    srv = server(script=_one_call_then_done("GET_tracks__id_", arguments))
    out = run(_settings(srv.url, ids=("test/3",), execute=False), RunOptions(runs_root=tmp_path, quiet=True)).run_dir
    line = _lines(out)["test/3"]
    (refused,) = line["explanation"]["refused_tool_calls"]
    assert refused["arguments_chars"] == len(arguments) and len(refused["arguments"]) == MAX_ARGUMENTS_CHARS
    assert f"{len(arguments):,} characters" in refused["error"] and not refused["in_program"] and line["code"] == ""
    assert (out / "samples.jsonl").stat().st_size < 5 * MAX_ARGUMENTS_CHARS  # the 2 MB argument was stored six times
    sent = srv.bodies[1]["messages"]
    assert sent[-1]["content"] == refused["error"] and len(sent[-2]["tool_calls"][0]["function"]["arguments"]) == MAX_ARGUMENTS_CHARS


@pytest.mark.parametrize("depth", [300, 600, 100_000])
def test_arguments_nested_too_deep_are_that_call_s_error(server: Any, tmp_path: Path, depth: int) -> None:
    arguments = '{"id": ' + "[" * depth + "]" * depth + "}"
    if len(arguments) > MAX_ARGUMENTS_CHARS:  # the deepest is also too long: cut below the bound, it is too deep still
        arguments = '{"id": ' + "[" * (MAX_ARGUMENTS_CHARS // 2 - 10) + "]" * (MAX_ARGUMENTS_CHARS // 2 - 10) + "}"
    srv = server(script=_one_call_then_done("GET_tracks__id_", arguments))
    line = _lines(run(_settings(srv.url, ids=("test/3",), execute=False), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)["test/3"]
    (refused,) = line["explanation"]["refused_tool_calls"]
    assert refused["error"] == f"Error (bad_arguments): the arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
    assert line["finish_reason"] == "final" and line["code"] == ""


def test_a_lone_surrogate_in_arguments_is_stored_escaped_scored_and_never_retried(server: Any, tmp_path: Path) -> None:
    srv = server(script=_one_call_then_done("GET_me_player_currently_playing", '{"market": "\ud800US"}'))  # a lone surrogate character
    out = tmp_path / "run"
    settings = _settings(srv.url, ids=("test/3",))
    run(settings, RunOptions(out=out, quiet=True))
    line = _lines(out)["test/3"]
    assert line["code"] == r"response_obj = GET_me_player_currently_playing(market='\\ud800US')"  # the text \ud800US
    assert line["explanation"]["tool_arguments"][0]["value"] == r"\ud800US" and line["scores"]["exec_success"] == 1
    assert not (out / "errors.jsonl").exists()
    asked = len(srv.bodies)
    assert run(settings, RunOptions(out=out, quiet=True)).already_complete and len(srv.bodies) == asked


@pytest.mark.parametrize("backend", ["vllm", "hf", "auto"])
def test_an_in_process_backend_without_a_tool_parser_is_refused_before_any_model_loads(backend: str) -> None:
    with pytest.raises(GqlbenchError, match=r"needs a tool-call parser .*: pass --model-args tool_parser=NAME \(hermes, ") as info:
        RunSettings(model="m", backend=backend, prompt="tools")
    assert "\n" not in str(info.value)
    settings = RunSettings(model="m", backend=backend, prompt="tools", model_args={"tool_parser": "hermes"})
    assert settings.observe == "mock" and settings.shots == 0


def test_a_backend_without_tool_calling_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match="--prompt tools needs a backend with native tool calling; the stub backend") as info:
        run(RunSettings(model="m", backend=STUB, prompt="tools", ids=("test/3",)), RunOptions(runs_root=tmp_path, quiet=True))
    assert "\n" not in str(info.value)


def test_obfuscated_names_are_the_tool_names_and_the_program_is_scored_in_the_real_ones(server: Any, tmp_path: Path) -> None:
    ids = ("test/3", "test/4")
    srv = server("gold")  # it follows gold in the names the tools show (by the order of the sample's functions)
    run_dir = run(_settings(srv.url, ids=ids, obfuscate="names"), RunOptions(runs_root=tmp_path, quiet=True)).run_dir
    shown = {t["function"]["name"] for body in srv.bodies for t in body["tools"]}
    assert not shown & {f.name for i in ids for f in SAMPLES[i].function_specs}
    for sid, line in _lines(run_dir).items():
        assert line["scores"]["arg_match_full"] == 1 and line["scores"]["exec_success"] == 1
        assert [c.split("(")[0].split(" = ")[-1] for c in line["code"].splitlines()] == [f for _, f, _ in gold_steps(SAMPLES[sid])]


def test_a_relevance_run_asks_for_the_marker_and_a_declining_answer_is_an_explicit_abstention(server: Any, tmp_path: Path) -> None:
    def script(n: int, body: dict[str, Any]) -> dict[str, Any] | None:
        tools = {t["function"]["name"] for t in body["tools"]}
        missing = [f for _, f, _ in gold_steps(srv.samples[ToolServer.request(body)]) if f not in tools]
        return reply(f'I cannot. raise NotSupported("no tool for {missing[0]}")') if missing else None

    srv = server(script=script)
    run_dir = run(
        _settings(srv.url, ids=("test/3", "test/4"), relevance=True, execute=False), RunOptions(runs_root=tmp_path, quiet=True)
    ).run_dir
    assert all("NotSupported" in body["messages"][0]["content"] for body in srv.bodies)
    relevance = json.loads((run_dir / "results.json").read_text())["relevance"]
    assert relevance["n_impossible"] == 2 and relevance["explicit_abstention"] == 1.0 and relevance["false_abstention_rate"] == 0.0
    declined = [line for line in _lines(run_dir).values() if line["id"].startswith("test-impossible/")]
    assert all(line["code"].startswith("raise NotSupported(") for line in declined)


def test_a_trajectory_that_outgrows_the_context_is_scored_as_far_as_it_got(server: Any, tmp_path: Path) -> None:
    too_long = {"error": {"message": "This model's maximum context length is 8192 tokens", "type": "error", "code": 400}}

    def script(n: int, body: dict[str, Any]) -> Any:
        return (400, too_long) if sum(m["role"] == "tool" for m in body["messages"]) >= 2 else None

    srv = server(script=script)
    out = tmp_path / "run"
    line = _lines(run(_settings(srv.url, ids=("test/3",), execute=False), RunOptions(out=out, quiet=True)).run_dir)["test/3"]
    assert line["finish_reason"] == "context" and len(line["code"].splitlines()) == 2 and not (out / "errors.jsonl").exists()


def test_calls_of_one_turn_never_read_each_other_s_responses(server: Any, tmp_path: Path) -> None:
    def script(n: int, body: dict[str, Any]) -> Any:
        results = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
        if not results:
            return reply("", [("GET_me_player_currently_playing", {})])
        if len(results) == 1:  # two calls at once: the second passes an id the first call of this turn also returns
            track = results[0]["item"]["id"]
            return reply("", [("GET_me_player_currently_playing", {}), ("GET_tracks__id_", {"id": track})], start=1)
        return reply("Done.")

    srv = server(script=script)
    line = _lines(run(_settings(srv.url, ids=("test/3",), execute=False), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)["test/3"]
    assert line["code"].splitlines()[2] == "response_obj2 = GET_tracks__id_(id=response_obj.item.id)"
    assert "candidates" not in line["explanation"]["tool_arguments"][0]


def test_a_value_found_at_two_paths_matches_gold_when_gold_s_source_is_one_of_them(server: Any, tmp_path: Path) -> None:
    def script(n: int, body: dict[str, Any]) -> Any:  # the playing track fetched twice: its id is at two paths
        results = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
        if len(results) < 2:
            return reply("", [("GET_me_player_currently_playing", {})], start=len(results))
        if len(results) == 2:
            return reply("", [("GET_tracks__id_", {"id": results[0]["item"]["id"]})], start=2)
        if len(results) == 3:
            return reply("", [("DELETE_me_following", {"type": "artist", "ids": results[2]["artists"][0]["id"]})], start=3)
        return reply("Done.")

    srv = server(script=script)
    line = _lines(run(_settings(srv.url, ids=("test/3",), execute=False), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)["test/3"]
    track = next(a for a in line["explanation"]["tool_arguments"] if a["function"] == "GET_tracks__id_")
    assert track["candidates"][:2] == ["response_obj1.item.id", "response_obj.item.id"]  # the latest first; gold reads the first call
    assert track["source"] == "response_obj.item.id" and track["chosen_because"] == "gold's source is among the candidates"
    assert line["code"].splitlines()[2] == "response_obj2 = GET_tracks__id_(id=response_obj.item.id)"
    assert line["scores"]["arg_match_full"] == 1 and line["scores"]["seq_match_full"] == 0  # one call more than gold
    assert all(a["source"] in a.get("candidates", [a["source"]]) for a in line["explanation"]["tool_arguments"])


def test_a_result_longer_than_the_bound_reaches_the_model_as_json_and_the_sample_records_it(server: Any, tmp_path: Path) -> None:
    srv = server("gold")
    out = tmp_path / "short"
    run(_settings(srv.url, ids=("test/5",), execute=False, tool_result_chars=2000), RunOptions(out=out, quiet=True))
    messages = [m["content"] for m in srv.bodies[-1]["messages"] if m["role"] == "tool"]
    results = [m for m in messages if not m.startswith("Error (")]  # the delete's tracks are not all in the playlist shown: refused
    assert len(results) == 2 and all(json.loads(m) is not None and len(m) <= 2000 for m in results)  # each whole message is JSON
    assert any("items not shown" in m for m in messages)
    line = _lines(out)["test/5"]
    (record,) = [r for r in line["explanation"]["shortened_tool_results"] if r["function"] == "GET_playlists__playlist_id_"]
    assert record["chars"] > 2000 >= record["shown_chars"] and record["items_left_out"] > 0
    assert line["steps"][record["step"] - 1]["observation"] == messages[record["step"] - 1]
    assert json.loads((out / "config.json").read_text())["tool_results"] == {"max_chars": 2000, "source": "--tool-result-chars"}
    whole = tmp_path / "whole"  # the server reports a 32768-token context: the bound follows it, and the playlist fits
    run(_settings(srv.url, ids=("test/5",), execute=False), RunOptions(out=whole, quiet=True))
    assert json.loads((whole / "config.json").read_text())["tool_results"]["max_chars"] == 16384
    assert "shortened_tool_results" not in _lines(whole)["test/5"]["explanation"]


def test_a_value_gold_computes_is_credited_as_gold_s_expression_when_the_model_passes_it(server: Any, tmp_path: Path) -> None:
    """test/7 picks the device named "My PC" by a filter, test/5 deletes every track by a comprehension: the server reads
    the values off the results, as a model would, and the scored program reads them as gold does."""
    computed = ("test/5", "test/7")
    assert not any(_expressible(SAMPLES[sid]) for sid in computed)
    srv = server("gold")
    lines = _lines(run(_settings(srv.url, ids=computed), RunOptions(runs_root=tmp_path, quiet=True)).run_dir)
    for sid in computed:
        scores = lines[sid]["scores"]
        assert (scores["arg_match_full"], scores["exec_match"]) == (1, 1), (sid, lines[sid]["code"])
        credited = [a for a in lines[sid]["explanation"]["tool_arguments"] if a.get("chosen_because") == CREDITED_BECAUSE]
        assert credited and all(a["read_from"] != a["source"] for a in credited)
    assert "if x0.name == 'My PC'][0]" in lines["test/7"]["code"]
