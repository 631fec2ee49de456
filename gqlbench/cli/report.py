"""``gqlbench report``: one comparison table across scored runs."""

from __future__ import annotations

from pathlib import Path

import click
from tabulate import tabulate_formats

from gqlbench.results import load_run, render_comparison

__all__ = ["report"]


@click.command(short_help="Compare scored runs in one table.")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tabulate_formats),
    default="github",
    show_default=True,
    show_choices=False,
    metavar="FORMAT",
    help="Table format: any tabulate format, e.g. github (Markdown), plain, latex_booktabs.",
)
@click.option("--table2", "table2_only", is_flag=True, help="Only the paper's Table 2 metrics (leave out execution and added metrics).")
def report(run_dirs: tuple[Path, ...], fmt: str, table2_only: bool) -> None:
    """Compare runs: one row per run and domain, a column per registered metric the runs have.

    Each RUN_DIR is a folder written by `gqlbench run` or `gqlbench evaluate --out`.
    Runs are labelled by model, prompt style and split from their config.json,
    or by the folder name when there is none.
    """
    click.echo(render_comparison([load_run(d) for d in run_dirs], fmt=fmt, table2_only=table2_only))
