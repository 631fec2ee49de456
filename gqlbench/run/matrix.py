"""Grids of runs: ``gqlbench run --matrix key=v1,v2 [--matrix key=...]``.

A grid is the product of the values given for any :class:`RunSettings` fields
(names and values are checked for every cell before any work). The engine is
loaded once, on the first cell that has something to generate, and reused by
every cell: fields that decide the engine itself (model, backend, model args,
server) cannot vary in a grid. Each cell is an ordinary run folder named from
its values (``GRID/shots-0__prompt-react``), so a cell is resumed like any run
and ``gqlbench report GRID/*`` prints the ablation table. The engine is closed
once, after the grid, with its shutdown output sent to the engine.log of the last
cell that used it (never to the terminal).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend
from gqlbench.run.config import RunOptions, RunSettings

__all__ = ["ENGINE_FIELDS", "Axis", "parse_matrix", "grid_cells", "cell_name", "run_matrix", "varying_settings", "render_ablation"]

ENGINE_FIELDS = ("model", "backend", "model_args", "base_url", "api_key_env")
_NOT_AXES = {*ENGINE_FIELDS, "ids"}  # ids: give --ids once for the whole grid
_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}

Axis = tuple[str, tuple[Any, ...]]


def _convert(key: str, text: str, kind: Any) -> Any:
    """One value of ``key`` read as its field's type (``none``/``null`` for an optional field)."""
    args = typing.get_args(kind)
    if type(None) in args:
        if text.lower() in ("none", "null"):
            return None
        kind = next(a for a in args if a is not type(None))
    try:
        if kind is bool:
            if text.lower() not in _TRUE | _FALSE:
                raise ValueError
            return text.lower() in _TRUE
        return kind(text) if kind in (int, float, str) else text
    except ValueError:
        raise GqlbenchError(f"--matrix {key}: {text!r} is not a valid {getattr(kind, '__name__', kind)}") from None


def parse_matrix(items: Sequence[str]) -> list[Axis]:
    """``["shots=0,3", "prompt=cot,react"]`` as axes, in the given order; bad names and values are one-line errors."""
    hints = typing.get_type_hints(RunSettings)
    names = [f.name for f in dataclasses.fields(RunSettings)]
    axes: list[Axis] = []
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not values.strip():
            raise GqlbenchError(f"--matrix {item!r}: expected key=value1,value2 (e.g. --matrix shots=0,3)")
        if key not in names:
            raise GqlbenchError(f"--matrix {item!r}: no run setting {key!r}; settings: {', '.join(n for n in names if n not in _NOT_AXES)}")
        if key in _NOT_AXES:
            raise GqlbenchError(f"--matrix {key}: cannot vary in a grid (one engine load serves every cell); run separate commands")
        if key in dict(axes):
            raise GqlbenchError(f"--matrix {key}: given twice; list all its values once, comma-separated")
        parsed = tuple(_convert(key, v.strip(), hints[key]) for v in values.split(",") if v.strip())
        if len(set(map(repr, parsed))) != len(parsed):
            raise GqlbenchError(f"--matrix {key}: a value is listed twice")
        axes.append((key, parsed))
    return axes


def cell_name(cell: Mapping[str, Any]) -> str:
    """The folder name of a cell: ``key-value`` pairs joined by ``__``, safe on any file system."""
    from gqlbench.run.folder import _slug

    return "__".join(f"{key}-{_slug(str(value)) or 'none'}" for key, value in cell.items())


def grid_cells(base: RunSettings, axes: Sequence[Axis]) -> list[tuple[str, RunSettings]]:
    """Every cell's name and settings, each checked now (an invalid combination names its cell)."""
    cells = []
    for values in itertools.product(*(v for _, v in axes)):
        cell = dict(zip((k for k, _ in axes), values, strict=True))
        name = cell_name(cell)
        try:
            cells.append((name, dataclasses.replace(base, **cell)))
        except GqlbenchError as exc:
            raise GqlbenchError(f"--matrix cell {name}: {exc}") from None
    return cells


class _SharedBackend:
    """The grid's one engine, handed to each cell's run; closing it is the grid's job, not the cell's."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    def close(self) -> None:
        """A cell finished; the engine stays loaded for the next one."""


def _close(backend: Backend, run_dir: Path, *, verbose: bool) -> None:
    """Shut the grid's engine down with its output sent where a run's engine chatter goes: the last user's engine.log.

    A single run closes its engine inside its own redirection; a grid's engine outlives
    the cells, so without this its shutdown warnings would reach the terminal.
    """
    from gqlbench.run.engine_log import engine_output

    with engine_output(run_dir, verbose=verbose):
        backend.close()


def run_matrix(
    base: RunSettings,
    axes: Sequence[Axis],
    options: RunOptions,
    *,
    backend_factory: Callable[[RunSettings], Backend] | None = None,
) -> list[Any]:
    """Run (or resume) every cell into ``<grid>/<cell name>``; the grid is ``--out`` or ``runs/<model>/grid_<keys>``."""
    from gqlbench.run.folder import model_slug
    from gqlbench.run.runner import load_backend, run

    cells = grid_cells(base, axes)
    root = options.out or options.runs_root / model_slug(base.model) / f"grid_{'+'.join(k for k, _ in axes)}"
    factory = backend_factory or load_backend
    loaded: list[Backend] = []
    cell_dirs: list[Path] = []  # the cell being run is the last
    users: list[Path] = []  # the cells that used the engine, in order

    def shared(settings: RunSettings) -> Backend:
        if not loaded:
            loaded.append(factory(settings))
        users.append(cell_dirs[-1])
        return _SharedBackend(loaded[0])

    outcomes = []
    try:
        for name, settings in cells:
            cell_dirs.append(root / name)
            outcomes.append(run(settings, dataclasses.replace(options, out=root / name), backend_factory=shared))
    finally:
        if loaded:
            _close(loaded[0], users[-1], verbose=options.verbose)
    return outcomes


def _settings_of(run_dir: Path) -> dict[str, Any]:
    from gqlbench.results.files import read_config  # checks the file: a hand-edited one is a one-line error

    config = read_config(run_dir)
    return config.settings if config is not None else {}


def varying_settings(run_dirs: Sequence[Path]) -> list[str]:
    """The settings whose values differ between the runs (in config.json order), the ablation's columns."""
    settings = [_settings_of(d) for d in run_dirs]
    keys = list(dict.fromkeys(k for s in settings for k in s))
    return [k for k in keys if len({json.dumps(s.get(k), sort_keys=True) for s in settings}) > 1]


def render_ablation(run_dirs: Sequence[Path], metrics: Sequence[str], titles: Mapping[str, str], fmt: str = "github") -> str | None:
    """One row per run: the settings that differ, then each overall metric with its 95% interval (None: nothing varies)."""
    from tabulate import tabulate

    from gqlbench.results.files import RESULTS_FILE, read_results
    from gqlbench.results.uncertainty import with_ci

    keys = varying_settings(run_dirs)
    if not keys:
        return None
    rows = []
    for run_dir in run_dirs:
        settings = _settings_of(run_dir)
        overall = read_results(run_dir / RESULTS_FILE).metrics.get("overall", {})
        ci = overall.get("ci", {})
        rows.append(
            [
                *(json.dumps(settings.get(k)) if not isinstance(settings.get(k), str) else settings[k] for k in keys),
                *(with_ci(overall.get(m), ci.get(m)) for m in metrics),
            ]
        )
    table = tabulate(rows, headers=[*keys, *(titles.get(m, m) for m in metrics)], tablefmt=fmt, disable_numparse=True)
    return f"Ablation: the settings that differ between the runs, overall scores with 95% intervals\n\n{table}"
