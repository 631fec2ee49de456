"""Finished run folders read back for reports: each run's label and settings, and one table across runs.

``gqlbench report`` and the viewer compare runs by these summaries; a column
appears for each prompt setting that some run changed from the paper's default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tabulate import tabulate

from gqlbench.errors import GqlbenchError
from gqlbench.results.files import RESULTS_FILE, read_config, read_results, table_columns

__all__ = ["RunSummary", "load_run", "setting_columns", "render_comparison"]


@dataclass(frozen=True)
class RunSummary:
    """One run folder, labelled for a comparison table."""

    path: Path
    model: str
    prompt: str
    split: str
    metrics: dict[str, dict]
    settings: dict[str, str] = field(default_factory=dict)  # prompt settings (--functions, ...) as config.json has them
    cost: dict | None = None  # a run's cost and latency blocks (gqlbench.run.usage); None for evaluate's folders
    latency: dict | None = None
    data_hash: str | None = None  # which benchmark files the run scored (results.json meta, else config.json)


LABEL_CHARS = 120  # a label from config.json (a model name) is cut here: it heads tables and pages


def _label(value: object) -> str:
    text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def load_run(run_dir: Path) -> RunSummary:
    """Read a run's ``results.json`` and, when present, the ``config.json`` that labels it."""
    if not run_dir.is_dir():
        raise GqlbenchError(f"{run_dir}: no such run folder")
    document = read_results(run_dir / RESULTS_FILE)
    config = read_config(run_dir)
    meta = document.meta
    return RunSummary(
        path=run_dir,
        model=_label((config.model if config else None) or _evaluated(meta) or run_dir.name),
        prompt=_label((config.prompt if config else None) or "-"),
        split=_label((config.split if config else None) or meta.get("splits") or "-"),
        metrics=document.metrics,
        settings=_prompt_settings(config.settings if config else {}),
        cost=document.cost,
        latency=document.latency,
        data_hash=_data_hash(meta.get("data_hash")) or _data_hash(config.data_hash if config else None),
    )


def _data_hash(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _evaluated(meta: dict) -> str | None:
    """An ``evaluate`` folder (no config.json) is named after the predictions file it scored, not after itself."""
    predictions = meta.get("predictions")
    return Path(predictions).name if isinstance(predictions, str) and predictions else None


def _prompt_settings(stored: dict) -> dict[str, str]:
    """The run's prompt settings; a config.json from before they existed ran at the defaults."""
    from gqlbench.run.config import SETTING_DEFAULTS

    return {key: _label(stored.get(key, default)) for key, default in SETTING_DEFAULTS.items()}


def setting_columns(runs: Sequence[RunSummary]) -> list[str]:
    """Prompt settings that some run changed from the default: each gets a column (none for paper-setting runs)."""
    from gqlbench.run.config import SETTING_DEFAULTS

    return [key for key, default in SETTING_DEFAULTS.items() if any(run.settings.get(key, default) != default for run in runs)]


def render_comparison(runs: Sequence[RunSummary], fmt: str = "github", table2_only: bool = False) -> str:
    """One table across runs: a row per run and split (overall, domains), a column per registered metric."""
    columns = table_columns((group for run in runs for group in run.metrics.values()), table2_only)
    settings = setting_columns(runs)
    rows = []
    for run in runs:
        label = [run.model, run.prompt, run.split, *(run.settings.get(key, "") for key in settings)]
        for i, (domain, group) in enumerate(run.metrics.items()):
            # the run's label on its first row only, so runs read as blocks
            rows.append([*(label if i == 0 else [""] * len(label)), domain, *(group.get(c.name) for c in columns)])
    headers = ["Model", "Prompt", "Split", *(key.capitalize() for key in settings), "Domain", *(c.title for c in columns)]
    return tabulate(rows, headers=headers, tablefmt=fmt, floatfmt=".4f", missingval="-")
