"""Presets (gqlbench.run.presets): the paper's runs as one option, overridable, recorded."""

from __future__ import annotations

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.run.config import RunSettings
from gqlbench.run.presets import PRESETS, apply_preset, describe_preset, get_preset

BASE = {"model": "/models/mine", "prompt": "cot", "shots": 3, "temperature": 0.0, "model_args": {}}


def _settings(name: str, explicit: dict | None = None, model_args: dict | None = None) -> RunSettings:
    given = {**BASE, **(explicit or {}), "model_args": model_args or {}}
    return RunSettings(**apply_preset(get_preset(name), given, set(explicit or ()) | ({"model_args"} if model_args else set())))


def test_the_paper_presets_state_the_papers_settings() -> None:
    assert len(PRESETS) == 6
    for model in ("codellama-34b-instruct", "deepseek-coder-33b-instruct"):
        for prompt in ("cot", "react"):
            run = _settings(f"paper:{model}:{prompt}")
            assert (run.prompt, run.shots, run.shot_rule, run.temperature, run.split) == (prompt, 3, "fixed", 0.05, "test")
            assert run.model_args == {"max_model_len": 16384} and run.obfuscate == "none" and run.model == "/models/mine"
    cot, react = _settings("paper:granite-34b-code-instruct:cot"), _settings("paper:granite-34b-code-instruct:react")
    assert (cot.shots, cot.model_args, cot.obfuscate) == (2, {"max_model_len": 8192}, "none")
    # "the function descriptions were stripped out from the function specs": the functions' and the parameters' (docs/settings.md)
    assert (react.prompt, react.shots, react.obfuscate, react.model_args) == ("react", 3, "spec-descriptions", {"max_model_len": 8192})
    assert react.to_json()["preset"] == {"name": "paper:granite-34b-code-instruct:react", "overrides": {}}


def test_explicit_options_win_and_are_recorded_as_overrides() -> None:
    run = _settings("paper:codellama-34b-instruct:react", {"temperature": 0.0, "shots": 3}, {"max_model_len": 4096, "dtype": "float32"})
    assert (run.temperature, run.shots, run.model_args) == (0.0, 3, {"max_model_len": 4096, "dtype": "float32"})
    assert run.preset == {
        "name": "paper:codellama-34b-instruct:react",
        "overrides": {"temperature": 0.0, "model_args.max_model_len": 4096},
    }  # shots=3 is the preset's own value
    assert "overridden: temperature=0.0, model_args.max_model_len=4096" in describe_preset(run.preset)
    assert "preset" not in RunSettings(model="m").to_json()  # folders without a preset keep their keys


def test_a_bad_preset_name_is_one_line_with_the_closest_and_the_list() -> None:
    with pytest.raises(GqlbenchError, match=r"did you mean paper:granite-34b-code-instruct:react\? choose one of paper:codellama"):
        get_preset("paper:granite-34b-code:react")
    with pytest.raises(GqlbenchError, match=r"unknown preset; choose one of .*paper:deepseek-coder-33b-instruct:cot"):
        get_preset("gpt4")
