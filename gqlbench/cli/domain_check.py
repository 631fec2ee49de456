"""``gqlbench domains check [NAME]``: validate a domain, one line per problem."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gqlbench.checks import check_domain
from gqlbench.specs import list_domains

__all__ = ["check"]


@click.command()
@click.argument("name", required=False)
@click.option(
    "--data",
    "data_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Benchmark folder whose samples to check (default: the bundled one).",
)
def check(name: str | None, data_dir: Path | None) -> None:
    """Check domain NAME (default: every domain) and print each problem.

    Exits with status 1 when any problem is found.
    """
    names = [name] if name else list_domains()
    total = 0
    for domain in names:
        problems = check_domain(domain, data_dir)
        for problem in problems:
            click.echo(problem)
        total += len(problems)
        click.echo(f"{domain}: {len(problems) or 'no'} problem{'' if len(problems) == 1 else 's'}", err=True)
    if total:
        sys.exit(1)  # SystemExit, not ctx.exit: gqlbench.cli.main runs click with standalone_mode=False
