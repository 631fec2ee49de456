"""Presets: one ``--preset`` that sets every run setting a published run used.

The paper's runs (GraphQLRestBench, section on experiments) are
``paper:<model>:<cot|react>``: the test split, the fixed representative shots
of each domain, greedy decoding "and a temperature setting of 0.05", and per
model what the paper states:

- ``codellama-34b-instruct`` and ``deepseek-coder-33b-instruct``: 3 shots,
  16K context, for CoT and ReAct;
- ``granite-34b-code-instruct`` (8K context): 2 shots for CoT; for ReAct
  "the function descriptions were stripped out from the function specs",
  read as every description of the specs, the functions' and their
  parameters' (``--obfuscate spec-descriptions``; docs/settings.md says why).
  The paper gives no shot count for it, so it keeps the paper's 3.

A preset asks; the context budget decides what fits. Each sample's line in
samples.jsonl records the examples its prompt showed (``shots``), and
results.json and report.md count them (``shots_shown``): on the test split
at 8K, SmolLM2's tokenizer fits 2 of the 3 ReAct examples for most spotify
samples, all 3 for tmdb.

A preset never names the model's weights: ``--model`` stays the user's. An
option the user gives explicitly wins over the preset and is recorded as an
override next to the preset's name in config.json
(``settings.preset = {"name": ..., "overrides": {...}}``), so a run says
both what it meant to reproduce and where it departed from it.

.. note:: Our backends treat any temperature above 0 as sampling, so 0.05 is
   sampling that almost always picks the most likely token, reproducible with
   ``--seed``; ``--temperature 0`` is strict greedy decoding (recorded as an
   override).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError, closest

__all__ = ["PAPER_TEMPERATURE", "Preset", "PRESETS", "get_preset", "apply_preset", "describe_preset"]

PAPER_TEMPERATURE = 0.05


@dataclass(frozen=True)
class Preset:
    """Run settings (``RunSettings`` field names) and engine arguments that reproduce one published run."""

    name: str
    settings: Mapping[str, Any]
    model_args: Mapping[str, Any] = field(default_factory=dict)
    reference: tuple[str, str] | None = None  # (model, prompt) of the paper's Table 2 row it reproduces


# model -> (context window, shots for CoT, shots for ReAct, --obfuscate for ReAct), as the paper states them
_PAPER_MODELS: dict[str, tuple[int, int, int, str]] = {
    "codellama-34b-instruct": (16384, 3, 3, "none"),
    "deepseek-coder-33b-instruct": (16384, 3, 3, "none"),
    "granite-34b-code-instruct": (8192, 2, 3, "spec-descriptions"),
}


def _paper_presets() -> dict[str, Preset]:
    presets = {}
    for model, (context, cot_shots, react_shots, react_obfuscate) in _PAPER_MODELS.items():
        for prompt, shots, obfuscate in (("cot", cot_shots, "none"), ("react", react_shots, react_obfuscate)):
            name = f"paper:{model}:{prompt}"
            settings = {
                "prompt": prompt,
                "split": "test",
                "shots": shots,
                "shot_rule": "fixed",
                "temperature": PAPER_TEMPERATURE,
                "functions": "gold",
                "obfuscate": obfuscate,
                "schema": "full",
            }
            presets[name] = Preset(name, settings, {"max_model_len": context}, (model, prompt))
    return presets


PRESETS: dict[str, Preset] = _paper_presets()


def get_preset(name: str) -> Preset:
    """The preset ``name``; an unknown one is a one-line error with the closest names and the full list."""
    if name in PRESETS:
        return PRESETS[name]
    close = closest(name, PRESETS, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    raise GqlbenchError(f"--preset {name!r}: unknown preset; {hint}choose one of {', '.join(PRESETS)}")


def apply_preset(preset: Preset, given: Mapping[str, Any], explicit: Collection[str]) -> dict[str, Any]:
    """``RunSettings`` keyword arguments: ``given`` with the preset's values where the user set nothing explicitly.

    ``explicit`` names the settings the user gave on the command line; where
    one differs from the preset it wins and is recorded in ``preset.overrides``
    (engine arguments by key, as ``model_args.<key>``).
    """
    merged = dict(given)
    overrides: dict[str, Any] = {}
    for key, value in preset.settings.items():
        if key in explicit:
            if given.get(key) != value:
                overrides[key] = given.get(key)
        else:
            merged[key] = value
    model_args = dict(given.get("model_args") or {})
    for key, value in preset.model_args.items():
        if key in model_args and model_args[key] != value:
            overrides[f"model_args.{key}"] = model_args[key]
        model_args.setdefault(key, value)
    merged["model_args"] = model_args
    merged["preset"] = {"name": preset.name, "overrides": overrides}
    return merged


def describe_preset(record: Mapping[str, Any]) -> str:
    """One line for ``--dry-run`` and reports: the preset, what it sets, and what the user overrode."""
    preset = get_preset(str(record.get("name")))
    sets = [f"{k}={v}" for k, v in preset.settings.items()] + [f"model_args.{k}={v}" for k, v in preset.model_args.items()]
    overrides = record.get("overrides") or {}
    changed = f"; overridden: {', '.join(f'{k}={v}' for k, v in overrides.items())}" if overrides else ""
    return f"preset {preset.name}: {', '.join(sets)}{changed}"
