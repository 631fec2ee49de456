"""The paper's Table 2 as reference data, and a run read against it.

Table 2 of GraphQLRestBench (test split: 32 samples, 12 spotify and 20
tmdb; 77 gold calls, 31 and 46) gives, per model, prompt style and domain,
Arg Match (full), Arg Match (functions), Seq Match (full) and Seq Match
(conn. subseq.). The values below are the published ones, all 18 rows.

.. note:: Every overall row equals the sample-weighted (call-weighted for
   Arg Match (functions)) mean of its spotify and tmdb rows except granite
   CoT: its tmdb row reads 1.0000 everywhere, while its overall row implies
   0.9500 / 0.9783 / 0.9500 / 1.0000 (19 of 20 samples, 45 of 46 calls).
   The published row is most likely a typo; it is kept as published and
   flagged with what the overall row implies.

:func:`paper_split_problem` says whether a run is on the paper's test split
(only such a run is read against Table 2); :func:`check_against_paper` says, per metric and domain, whether the paper's
number lies inside a run's 95% interval, read from the run's results.json
(``ci.<metric>``): the run's own interval method, never recomputed here.

A ``--split all`` run (every human sample but the few-shot examples, about
149) is another set of samples than Table 2's 32: :func:`beside_table2` puts
its values next to the published ones under a heading of its own, with no
verdict, and nothing of it enters Table 2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError

__all__ = [
    "TABLE2_METRICS",
    "PaperRow",
    "TABLE2",
    "PAPER_MODELS",
    "PAPER_PROMPTS",
    "paper_rows",
    "paper_reference",
    "paper_split_problem",
    "Check",
    "check_against_paper",
    "beside_table2",
]

TABLE2_METRICS: tuple[str, ...] = ("arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn")


@dataclass(frozen=True)
class PaperRow:
    """One row of Table 2: the published values, and a note where they do not add up."""

    model: str
    prompt: str  # cot | react, as --prompt names them
    domain: str  # overall | spotify | tmdb
    values: Mapping[str, float]
    note: str | None = None
    implied: Mapping[str, float] = field(default_factory=dict)  # what the rest of the table implies, where it disagrees


def _row(model: str, prompt: str, domain: str, *values: float, note: str | None = None, implied: Sequence[float] = ()) -> PaperRow:
    return PaperRow(
        model,
        prompt,
        domain,
        dict(zip(TABLE2_METRICS, values, strict=True)),
        note,
        dict(zip(TABLE2_METRICS, implied, strict=True)) if implied else {},
    )


_GRANITE_TYPO = (
    "published as 1.0000 everywhere, but the overall row implies 0.9500 / 0.9783 / 0.9500 / 1.0000 "
    "(19 of 20 samples, 45 of 46 calls): most likely a typo"
)

TABLE2: tuple[PaperRow, ...] = (
    _row("codellama-34b-instruct", "cot", "overall", 0.6875, 0.8051, 0.9062, 0.9375),
    _row("deepseek-coder-33b-instruct", "cot", "overall", 0.7500, 0.8701, 0.9687, 1.0000),
    _row("granite-34b-code-instruct", "cot", "overall", 0.7812, 0.8701, 0.9375, 0.9687),
    _row("codellama-34b-instruct", "react", "overall", 0.7188, 0.8182, 0.9062, 0.8750),
    _row("deepseek-coder-33b-instruct", "react", "overall", 0.7500, 0.8312, 0.9375, 0.8438),
    _row("granite-34b-code-instruct", "react", "overall", 0.7812, 0.8571, 0.8750, 0.8750),
    _row("codellama-34b-instruct", "cot", "spotify", 0.5833, 0.7741, 0.9166, 0.9166),
    _row("deepseek-coder-33b-instruct", "cot", "spotify", 0.5833, 0.7741, 1.0000, 1.0000),
    _row("granite-34b-code-instruct", "cot", "spotify", 0.5000, 0.7096, 0.9166, 0.9166),
    _row("codellama-34b-instruct", "react", "spotify", 0.4167, 0.7097, 0.8333, 0.7500),
    _row("deepseek-coder-33b-instruct", "react", "spotify", 0.5000, 0.7419, 1.0000, 0.7500),
    _row("granite-34b-code-instruct", "react", "spotify", 0.5000, 0.6774, 0.8333, 0.8333),
    _row("codellama-34b-instruct", "cot", "tmdb", 0.7500, 0.8260, 0.9000, 0.9500),
    _row("deepseek-coder-33b-instruct", "cot", "tmdb", 0.8500, 0.9347, 0.9500, 1.0000),
    _row(
        "granite-34b-code-instruct",
        "cot",
        "tmdb",
        1.0000,
        1.0000,
        1.0000,
        1.0000,
        note=_GRANITE_TYPO,
        implied=(0.9500, 0.9783, 0.9500, 1.0000),
    ),
    _row("codellama-34b-instruct", "react", "tmdb", 0.9000, 0.8913, 0.9500, 0.9500),
    _row("deepseek-coder-33b-instruct", "react", "tmdb", 0.9000, 0.8913, 0.9000, 0.9000),
    _row("granite-34b-code-instruct", "react", "tmdb", 0.9500, 0.9783, 0.9000, 0.9000),
)

PAPER_MODELS: tuple[str, ...] = tuple(dict.fromkeys(row.model for row in TABLE2))
PAPER_PROMPTS: tuple[str, ...] = ("cot", "react")

# How a run's model name (a Hub id, a folder) is recognised as one of the paper's: the family and size in it.
_MODEL_PATTERNS = {
    "codellama-34b-instruct": re.compile(r"code-?llama.*34b", re.I),
    "deepseek-coder-33b-instruct": re.compile(r"deepseek-?coder.*33b", re.I),
    "granite-34b-code-instruct": re.compile(r"granite.*34b", re.I),
}


def paper_rows(model: str, prompt: str) -> dict[str, PaperRow]:
    """The paper's rows of ``model`` and ``prompt``, by domain; an unknown pair is a one-line error listing the known ones."""
    rows = {row.domain: row for row in TABLE2 if row.model == model and row.prompt == prompt}
    if not rows:
        raise GqlbenchError(
            f"the paper has no Table 2 rows for {model!r} with prompt {prompt!r}; models: "
            f"{', '.join(PAPER_MODELS)}; prompts: {', '.join(PAPER_PROMPTS)}"
        )
    return rows


def paper_split_problem(split: str, data: str | None) -> str | None:
    """Why a run with this split and data hash is not on the paper's test split (None: it is).

    Table 2 is the test split of the bundled GraphQLRestBench: the run's split
    must be ``test`` and its ``data_hash`` that of the bundled data (another
    benchmark, such as the synthetic set, or edited files, is never read against it).
    """
    from gqlbench.dataset import data_hash, default_data_dir

    if split != "test":
        return f"split {split!r}; the paper's Table 2 is the test split, so compare a test run"
    bundled = data_hash(default_data_dir())
    if data != bundled:
        found = f"data {data}" if data else "no data hash in its results.json"
        return (
            f"{found}, not the bundled GraphQLRestBench ({bundled}): the paper's Table 2 is that benchmark's test split, "
            "never another data set"
        )
    return None


def paper_reference(against: str, config: Mapping[str, Any], where: str) -> tuple[str, str]:
    """(model, prompt) of the Table 2 rows ``--against`` names for a run with ``config`` (its config.json).

    ``paper`` takes the model from the run's preset, else from its model name,
    and the prompt style the run used; ``paper:MODEL:PROMPT`` names them. ``where`` names the run in errors.
    """
    if against.startswith("paper:"):
        parts = against.split(":")
        if len(parts) != 3:
            raise GqlbenchError(f"--against {against!r}: write paper or paper:MODEL:PROMPT, e.g. paper:{PAPER_MODELS[0]}:cot")
        paper_rows(parts[1], parts[2])
        return parts[1], parts[2]
    if against != "paper":
        raise GqlbenchError(f"--against {against!r}: write paper or paper:MODEL:PROMPT, e.g. paper:{PAPER_MODELS[0]}:cot")
    settings = config.get("settings")
    preset = settings.get("preset") if isinstance(settings, dict) else None
    name, prompt = str(config.get("model") or ""), str(config.get("prompt") or "")
    if isinstance(preset, dict) and str(preset.get("name", "")).startswith("paper:"):
        _, model, *rest = str(preset["name"]).split(":")
        preset_prompt = rest[0] if len(rest) == 1 else ""
        chosen = prompt if prompt in PAPER_PROMPTS else preset_prompt  # a --prompt given over the preset is what ran
        if model in PAPER_MODELS and chosen in PAPER_PROMPTS:
            return model, chosen
        raise GqlbenchError(
            f"{where}: preset {str(preset['name'])[:80]!r} with prompt {prompt[:20]!r} names no row of the paper's Table 2; "
            f"name the row with --against paper:MODEL:PROMPT (models: {', '.join(PAPER_MODELS)}; prompts: {', '.join(PAPER_PROMPTS)})"
        )
    found = [model for model, pattern in _MODEL_PATTERNS.items() if pattern.search(name)]
    if len(found) != 1 or prompt not in PAPER_PROMPTS:
        raise GqlbenchError(
            f"{where}: model {name!r} with prompt {prompt!r} is not one of the paper's runs; "
            f"name the row with --against paper:MODEL:PROMPT (models: {', '.join(PAPER_MODELS)})"
        )
    return found[0], prompt


@dataclass(frozen=True)
class Check:
    """One metric of one domain: the paper's value against the run's value and 95% interval."""

    domain: str
    metric: str
    paper: float
    run: float | None
    interval: tuple[float, float] | None  # None: results.json has none for it
    note: str | None = None
    implied: float | None = None  # what the rest of the table implies, for a flagged row

    @property
    def inside(self) -> bool | None:
        """Whether the paper's value lies in the run's interval (None: no interval to judge by)."""
        return None if self.interval is None else self.interval[0] <= self.paper <= self.interval[1]

    @property
    def implied_inside(self) -> bool | None:
        if self.interval is None or self.implied is None:
            return None
        return self.interval[0] <= self.implied <= self.interval[1]


def _interval(value: object) -> tuple[float, float] | None:
    """A results.json interval: ``[lo, hi]`` (or an object with ``lo``/``hi``); anything else is no interval."""
    if isinstance(value, Mapping):
        value = [value.get("lo", value.get("low")), value.get("hi", value.get("high"))]
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return float(value[0]), float(value[1])
    return None


def check_against_paper(metrics: Mapping[str, Mapping[str, Any]], model: str, prompt: str) -> list[Check]:
    """Per domain of the run that the paper reports, and per Table 2 metric: is the paper's number inside the run's interval?"""
    rows = paper_rows(model, prompt)
    checks = []
    for domain, row in rows.items():
        group = metrics.get(domain)
        if not isinstance(group, Mapping):
            continue
        ci = group.get("ci")
        intervals: Mapping[str, Any] = ci if isinstance(ci, Mapping) else {}
        for metric in TABLE2_METRICS:
            value = group.get(metric)
            checks.append(
                Check(
                    domain,
                    metric,
                    row.values[metric],
                    float(value) if isinstance(value, (int, float)) else None,
                    _interval(intervals.get(metric)),
                    row.note,
                    row.implied.get(metric),
                )
            )
    return checks


def beside_table2(metrics: Mapping[str, Mapping[str, Any]], model: str, prompt: str) -> list[dict[str, Any]]:
    """A ``--split all`` run's value and 95% interval beside the paper's Table 2 value, per domain and metric.

    The samples differ from Table 2's (the test split is a part of them), so
    no row says whether the paper's value is inside the interval.
    """
    return [
        {"domain": c.domain, "metric": c.metric, "run": c.run, "ci": list(c.interval) if c.interval else None, "table2": c.paper}
        for c in check_against_paper(metrics, model, prompt)
    ]
