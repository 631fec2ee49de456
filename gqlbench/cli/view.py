"""``gqlbench view``: one self-contained HTML report of scored runs (and, with --plots, chart files)."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["view"]


@click.command(short_help="Write an offline HTML report of scored runs.")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("report.html"), show_default=True, help="The HTML file to write."
)
@click.option(
    "--data",
    "data_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Benchmark folder the runs used [default: each run's config.json, else the bundled GraphQLRestBench].",
)
@click.option(
    "--plots",
    "plots_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write the charts as SVG and PNG files into this folder (needs matplotlib: pip install 'gqlbench[plots]').",
)
def view(run_dirs: tuple[Path, ...], out: Path, data_dir: Path | None, plots_dir: Path | None) -> None:
    """Write one HTML file showing RUN_DIR(s): metrics, every sample's programs,
    dataflow graphs, arguments, execution traces and errors; with several runs, a
    comparison page. The file needs no network: open it from disk or copy it anywhere.

    Each RUN_DIR is a folder written by `gqlbench run` or `gqlbench evaluate --out`.
    """
    from gqlbench.viewer.data import load_run_view
    from gqlbench.viewer.page import write_report

    runs = [load_run_view(d, data_dir) for d in run_dirs]
    size = write_report(runs, out)
    click.echo(f"wrote {out} ({size / 1e6:.2f} MB, {len(runs)} run(s))")
    if plots_dir is not None:
        from gqlbench.viewer.plots import write_plots

        for path in write_plots(runs, plots_dir):
            click.echo(f"wrote {path}")
