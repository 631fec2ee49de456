"""The report's charts as files for papers: SVG and PNG, drawn with matplotlib (an optional extra).

matplotlib is imported only here, and only when ``gqlbench view --plots`` asks for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.metrics import metric_titles
from gqlbench.viewer.data import RunView, error_counts
from gqlbench.viewer.runpage import is_number, metric_columns
from gqlbench.viewer.text import clean

__all__ = ["write_plots"]


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise GqlbenchError("--plots needs matplotlib; install it with: pip install 'gqlbench[plots]'") from None
    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def _plain(text: str) -> str:
    """A label matplotlib draws as written: ``$`` would start mathtext (a model name ``a$b$`` fails to draw)."""
    return clean(text).replace("$", r"\$")


def _bars(plt: Any, data: Mapping[str, Mapping[str, float]], title: str, xlabel: str, stem: Path) -> list[Path]:
    data = {_plain(g): {_plain(name): v for name, v in values.items()} for g, values in data.items()}
    title = _plain(title)
    groups = list(data)
    series = list(dict.fromkeys(s for g in data.values() for s in g))
    height = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.35 * len(groups) * max(len(series), 1)))
    for i, name in enumerate(series):
        ys = [g + i * height for g in range(len(groups))]
        ax.barh(ys, [data[g].get(name, 0) for g in groups], height=height, label=name)
    ax.set_yticks([g + height * (len(series) - 1) / 2 for g in range(len(groups))], groups)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    if len(series) > 1:
        ax.legend(fontsize="small")
    fig.tight_layout()
    written = []
    for suffix in (".svg", ".png"):
        path = stem.with_suffix(suffix)
        fig.savefig(path, dpi=150)
        written.append(path)
    plt.close(fig)
    return written


def _number(value: object) -> float:
    """A metric as a bar's length: 0 for what is not a finite number (a hand-edited results.json)."""
    try:
        number = float(value) if is_number(value) else 0.0  # type: ignore[arg-type]
    except OverflowError:
        return 0.0
    return number if math.isfinite(number) else 0.0


def write_plots(runs: Sequence[RunView], out_dir: Path) -> list[Path]:
    """``metrics.svg/png`` (overall metrics per run) and, per run with errors, ``errors-<n>.svg/png``."""
    titles = metric_titles()
    plt = _pyplot()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GqlbenchError(f"{out_dir}: cannot create the plots folder ({exc.strerror or exc})") from None
    columns = [c for c in metric_columns([run.metrics.get("overall", {}) for run in runs]) if c in titles]
    metrics = {titles[c]: {run.label: _number(run.metrics["overall"].get(c)) for run in runs} for c in columns}
    written = _bars(plt, metrics, "Overall metrics", "score", out_dir / "metrics")
    for i, run in enumerate(runs):
        counts = error_counts(run)
        by_kind: dict[str, dict[str, float]] = {}
        for domain, kinds in counts.items():
            for kind, n in kinds.items():
                by_kind.setdefault(kind, {})[domain] = n
        if by_kind:
            written += _bars(plt, dict(sorted(by_kind.items())), f"Error kinds: {run.label}", "samples", out_dir / f"errors-{i}")
    return written
