"""RunSettings and RunConfig: what config.json holds, in which order, and what stops a resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.run.config import RunConfig, RunSettings

KEYS = [
    "model",
    "prompt",
    "split",
    "settings",
    "generation",
    "sample_ids",
    "data_hash",
    "versions",
    "git",
    "command",
    "created",
    "backend",
    "catalog",
]


def test_style_defaults_come_from_the_prompt_style() -> None:
    cot, react = RunSettings(model="m"), RunSettings(model="m", prompt="react")
    assert (cot.new_tokens, react.new_tokens) == (512, 192)
    assert cot.generation_config().stop == ("\nUser:", "\n```\n") and react.generation_config().stop[0] == "\nObservation:"
    assert cot.to_json()["max_steps"] is None and react.to_json()["max_steps"] == 8
    with pytest.raises(GqlbenchError, match="--prompt socratic: unknown prompt style"):
        RunSettings(model="m", prompt="socratic")


def test_config_json_keeps_its_keys_and_order_and_reads_back(tmp_path: Path) -> None:
    from gqlbench.dataset import load_split

    settings = RunSettings(model="m", limit=2)
    config = RunConfig.new(settings, load_split("test")[:2])
    written = config.to_json()
    assert list(written) == KEYS and written["settings"] == settings.to_json() and written["sample_ids"] == ["test/0", "test/1"]
    config.record_backend({"backend": "a"})
    config.record_backend({"backend": "a"})
    assert "resumed_with" not in config.to_json()
    config.record_backend({"backend": "b"})  # a resume with another engine stays visible
    again = RunConfig.from_json(json.loads(json.dumps({**config.to_json(), "future_key": 1})), tmp_path / "config.json")
    assert list(again.to_json()) == [*KEYS, "resumed_with", "future_key"] and again.resumed_with == [{"backend": "b"}]
    assert again.backend == {"backend": "a"}
    with pytest.raises(GqlbenchError, match=r"config.json: 'model' is not a string"):
        RunConfig.from_json({"model": 5}, tmp_path / "config.json")
    from gqlbench.run.folder import read_config

    (tmp_path / "config.json").write_text(json.dumps({"prompt": "cot", "split": "test"}))
    with pytest.raises(GqlbenchError, match=r"config.json: 'model' is missing; fix it or use --overwrite"):
        read_config(tmp_path)  # a run resumes only a folder whose config names its model (the reports label it by the folder)


def test_differences_name_each_setting_and_the_data() -> None:
    config = RunConfig.from_json({"model": "m", "prompt": "cot", "split": "test", "settings": {"shots": 3}, "data_hash": "d1"}, Path("c"))
    assert config.differences({"shots": 3}, "d1") == []
    assert config.differences({"shots": 2, "seed": 0}, "d2") == [
        "seed: None in the folder, 0 now",
        "shots: 3 in the folder, 2 now",
        "data_hash: d1 in the folder, d2 now (the benchmark files changed)",
    ]


def test_prompt_settings_are_recorded_and_an_older_folder_resumes_at_their_defaults() -> None:
    settings = RunSettings(model="m", functions="distractors:4:connected", obfuscate="names", schema="none")
    stored = settings.to_json()
    assert (stored["functions"], stored["obfuscate"], stored["schema"]) == ("distractors:4:connected", "names", "none")
    older = {k: v for k, v in RunSettings(model="m").to_json().items() if k not in ("functions", "obfuscate", "schema")}
    config = RunConfig.from_json({"model": "m", "prompt": "cot", "split": "test", "settings": older, "data_hash": "d"}, Path("c"))
    assert config.differences(RunSettings(model="m").to_json(), "d") == []
    assert config.differences(RunSettings(model="m", schema="none").to_json(), "d") == ["schema: 'full' in the folder, 'none' now"]
    with pytest.raises(GqlbenchError, match="--obfuscate 'names,params'"):
        RunSettings(model="m", obfuscate="names,params")


def test_relevance_combines_with_a_wider_offer_and_other_prompt_settings() -> None:
    stored = RunSettings(model="m", relevance=True, functions="distractors:3:connected").to_json()
    assert (stored["relevance"], stored["functions"]) == (True, "distractors:3:connected")  # resumed only under both
    assert RunSettings(model="m", relevance=True, obfuscate="all").relevance
    with pytest.raises(GqlbenchError, match="--functions 'distractors:x'"):
        RunSettings(model="m", relevance=True, functions="distractors:x")


def test_the_catalog_a_run_used_is_recorded_and_a_changed_world_stops_a_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from gqlbench.dataset import load_split
    from gqlbench.specs.catalog import bundled_root

    catalog = tmp_path / "catalog"
    bundled = bundled_root()
    (catalog / "specs").mkdir(parents=True)
    shutil.copy(bundled.specs_dir / "library.json", catalog / "specs")
    shutil.copytree(bundled.schemas_dir / "library", catalog / "schemas" / "library")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(catalog))
    samples = load_split("test", Path(__file__).parents[2] / "data" / "library")[:2]
    config = RunConfig.new(RunSettings(model="m"), samples)
    assert config.catalog["library"]["specs"] == str(catalog / "specs" / "library.json")
    settings, digest = config.settings, config.data_hash or ""
    assert config.differences(settings, digest) == []
    (catalog / "worlds").mkdir()
    (catalog / "worlds" / "library.json").write_text('{"entities": {}}')  # a new mock world: execution scores change
    assert config.differences(settings, digest) == [
        f"catalog: library files changed ({catalog / 'specs' / 'library.json'} then, {catalog / 'specs' / 'library.json'} now)"
    ]


def test_the_default_shot_rule_is_the_fixed_set_and_a_folder_that_recorded_its_old_name_resumes() -> None:
    assert RunSettings(model="m").to_json()["shot_rule"] == "fixed"
    assert RunSettings(model="m", shot_rule="diverse").to_json()["shot_rule"] == "fixed"  # one name per rule in config.json
    older = {**RunSettings(model="m").to_json(), "shot_rule": "diverse"}
    config = RunConfig.from_json({"model": "m", "prompt": "cot", "split": "test", "settings": older, "data_hash": "d"}, Path("c"))
    assert config.differences(RunSettings(model="m").to_json(), "d") == []
    assert config.differences(RunSettings(model="m", shot_rule="similar").to_json(), "d") == [
        "shot_rule: 'fixed' in the folder, 'similar' now"
    ]
    with pytest.raises(GqlbenchError, match="unknown shot rule 'random'"):
        RunSettings(model="m", shot_rule="random")


def _option_defaults() -> dict[str, object]:
    """Each ``gqlbench run`` option that sets a RunSettings field, and the expression its ``default=`` is written as."""
    import ast
    import dataclasses

    source = Path(__file__).resolve().parents[2] / "gqlbench" / "cli" / "run.py"
    fields = {f.name for f in dataclasses.fields(RunSettings)}
    renamed = {"prompt_style": "prompt", "n_samples": "samples", "exec": "execute"}
    found: dict[str, object] = {}
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "option":
            names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            dest = next((n for n in names if not n.startswith("-")), names[0].split("/")[0].lstrip("-").replace("-", "_"))
            default = next((k.value for k in node.keywords if k.arg == "default"), None)
            if renamed.get(dest, dest) in fields and default is not None:
                found[renamed.get(dest, dest)] = default
    return found


def test_every_run_option_reads_its_default_from_run_settings() -> None:
    """One source per default: an option that wrote its own literal could drift from RunSettings (and config.json)."""
    import ast

    from gqlbench.run.config import SETTING_DEFAULTS, setting_default

    written = _option_defaults()
    assert {"backend", "split", "temperature", "top_p", "seed", "functions", "obfuscate", "schema", "samples", "execute"} <= set(written)
    literal = {
        name: ast.unparse(d)
        for name, d in written.items()  # type: ignore[arg-type]
        if isinstance(d, ast.Constant) and d.value not in (None, "")
    }
    assert not literal, f"options with their own default (use setting_default): {literal}"
    assert all(SETTING_DEFAULTS[k] == setting_default(k) == RunSettings("m").__getattribute__(k) for k in SETTING_DEFAULTS)


def test_a_tools_run_records_the_bound_of_its_results_from_the_context_or_the_setting_and_keeps_it_on_resume(tmp_path: Path) -> None:
    from gqlbench.run.config import LEGACY_TOOL_RESULT_CHARS, tool_result_bound

    tools = RunSettings(model="m", backend="openai", prompt="tools")
    fresh = RunConfig.new(tools, [])
    derived = tool_result_bound(tools, fresh, 32768, resumed=False)
    assert derived == {"max_chars": 16384, "source": "max_model_len 32768 x 2 characters per token / 4"}
    assert tool_result_bound(tools, fresh, 8192, resumed=False)["max_chars"] == 4096  # type: ignore[index]
    fresh.tool_results = derived
    again = RunConfig.from_json(json.loads(json.dumps(fresh.to_json())), tmp_path / "config.json")
    assert again.to_json()["tool_results"] == derived
    assert tool_result_bound(tools, again, 2048, resumed=True) == derived  # a resume on a smaller context keeps the run's bound
    older = RunConfig.new(tools, [])  # begun by a gqlbench with the fixed bound: its completions were shown 4,000 characters
    assert tool_result_bound(tools, older, 32768, resumed=True)["max_chars"] == LEGACY_TOOL_RESULT_CHARS  # type: ignore[index]
    chosen = RunSettings(model="m", backend="openai", prompt="tools", tool_result_chars=1500)
    assert tool_result_bound(chosen, fresh, 32768, resumed=True) == {"max_chars": 1500, "source": "--tool-result-chars"}
    assert chosen.to_json()["tool_result_chars"] == 1500 and "tool_result_chars" not in tools.to_json()
    assert RunConfig.new(RunSettings(model="m"), []).to_json().get("tool_results") is None
    assert tool_result_bound(RunSettings(model="m", tool_result_chars=1500), fresh, 8192, resumed=False) is None  # cot shows no results
    assert "tool_result_chars" not in RunSettings(model="m", tool_result_chars=1500).to_json()
    with pytest.raises(GqlbenchError, match="--tool-result-chars 10: a result needs at least 100 characters"):
        RunSettings(model="m", backend="openai", prompt="tools", tool_result_chars=10)
