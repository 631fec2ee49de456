"""``gqlbench domains check [NAME]``: validate a domain, one line per problem."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gqlbench.display import escape_controls
from gqlbench.scoring.checks import check_domain, split_known
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
@click.option("--show-known", is_flag=True, help="Also print each problem the benchmark's errata.json documents.")
@click.option("--pairs", is_flag=True, help="Also print every endpoint pair of the world's self-test, passed or failed, and the pass rate.")
def check(name: str | None, data_dir: Path | None, show_known: bool, pairs: bool) -> None:
    """Check domain NAME (default: every domain) and print each problem.

    The checks include the mock world's self-test: endpoint pairs chained
    the way programs chain them (list then get, create then get, an unknown
    key...), each failing pair one problem naming the declaration that fixes it.
    Problems the benchmark's errata.json already documents (defects of the
    dataset itself) are counted as known and listed with --show-known; the
    exit status is 1 when any problem is new.
    """
    names = [name] if name else list_domains()
    new_total = 0
    for domain in names:
        if pairs:
            _print_pairs(domain)
        new, known = split_known(check_domain(domain, data_dir), domain, data_dir)
        for problem in new:
            click.echo(escape_controls(str(problem)))  # problems quote samples' text
        if show_known:
            for problem, reason in known:
                click.echo(escape_controls(f"known: {problem} [errata: {reason}]"))
        summary = f"{domain}: {len(new) or 'no'} new problem{'' if len(new) == 1 else 's'}"
        if known:
            summary += f", {len(known)} known from errata.json" + ("" if show_known else " (--show-known lists them)")
        click.echo(summary, err=True)
        new_total += len(new)
    if new_total:
        sys.exit(1)  # SystemExit, not ctx.exit: gqlbench.cli.main runs click with standalone_mode=False


def _print_pairs(domain: str) -> None:
    """Every probe of the world's self-test, then its pass rate."""
    from gqlbench.mocks.coherence import probe_in_sandbox

    found = probe_in_sandbox(domain)
    for pair in found:
        click.echo(escape_controls(f"{'passed' if pair.passed else 'FAILED'}: {pair.label}: {pair.reason}"))
    passed = sum(pair.passed for pair in found)
    click.echo(f"{domain}: {passed} of {len(found)} endpoint pairs pass the world's self-test", err=True)
