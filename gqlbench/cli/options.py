"""Options that several commands take, declared once so their bounds, defaults and help cannot drift apart."""

from __future__ import annotations

import click

from gqlbench.results.statistics import DEFAULT_RESAMPLES

__all__ = ["bootstrap_option", "interval_resamples"]

bootstrap_option = click.option(
    "--bootstrap",
    type=click.IntRange(min=0),
    default=None,  # not given: the default, and a run's meta does not record it
    help=f"Bootstrap resamples of results.json's 95% intervals (0: no intervals) [default: {DEFAULT_RESAMPLES}].",
)


def interval_resamples(bootstrap: int | None) -> int:
    """``--bootstrap`` as a number of resamples (not given: the default)."""
    return DEFAULT_RESAMPLES if bootstrap is None else bootstrap
