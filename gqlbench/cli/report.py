"""``gqlbench report``: one comparison table across scored runs, paired tests between them."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate_formats

from gqlbench.display import escape_controls
from gqlbench.errors import GqlbenchError
from gqlbench.metrics import metric_titles
from gqlbench.records import ALL_SPLIT
from gqlbench.results.compare import (
    Clustering,
    compare_with_first,
    file_clusters,
    power_table,
    render_pair,
    render_power,
    render_seed_spread,
    run_clustering,
    seed_groups,
)
from gqlbench.results.files import SAMPLES_FILE, read_samples
from gqlbench.results.statistics import DEFAULT_RESAMPLES
from gqlbench.results.summary import RunSummary, load_run, render_comparison, setting_columns
from gqlbench.run.usage import Prices, recost, usage_row, usage_table

__all__ = ["report"]


@click.command(short_help="Compare scored runs: one table, then paired tests.")
@click.argument("run_dirs", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
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
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the comparisons (and power note) to this JSON file.",
)
@click.option(
    "--power",
    is_flag=True,
    help="Print how large a difference in a 0/1 metric the samples can detect at 80% power of McNemar's exact test.",
)
@click.option("--power-n", type=click.IntRange(min=1), help="Samples for --power [default: the first run's, else 32].")
@click.option(
    "--icc",
    type=click.FloatRange(0, 1),
    default=None,
    help="--power: intraclass correlation of outcomes within a cluster of samples [default: estimated from the first "
    "run's Arg Match (full) when its samples carry clusters, else 1, the worst case].",
)
@click.option(
    "--cluster-size",
    type=click.FloatRange(min=1),
    default=None,
    help="--power: mean cluster size m (sum of squared sizes / n) [default: the first run's clusters, else 1: independent samples].",
)
@click.option(
    "--power-clusters",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="--power: a samples file (e.g. data/synthetic/test.jsonl) whose line count is n and whose program skeletons "
    "are the clusters, as a run on it would score them (the ICC is 1 unless --icc says otherwise).",
)
@click.option(
    "--bootstrap",
    default=DEFAULT_RESAMPLES,
    show_default=True,
    type=click.IntRange(min=1),
    help="Resamples of the paired bootstrap intervals, and draws of permutation tests too large to enumerate.",
)
@click.option(
    "--against",
    default=None,
    metavar="paper[:MODEL:PROMPT]",
    help="Per metric and domain, whether the paper's Table 2 value lies inside each run's 95% interval (from its "
    "results.json); paper takes the row from the run's --preset or model name, paper:MODEL:PROMPT names it.",
)
@click.option("--price-in", type=click.FloatRange(min=0), default=None, help="USD per million prompt tokens: recompute each run's cost.")
@click.option("--price-out", type=click.FloatRange(min=0), default=None, help="USD per million completion tokens.")
@click.option("--gpu-hour-price", type=click.FloatRange(min=0), default=None, help="USD per GPU hour x each run's wall time.")
def report(
    run_dirs: tuple[Path, ...],
    fmt: str,
    table2_only: bool,
    json_out: Path | None,
    power: bool,
    power_n: int | None,
    icc: float | None,
    cluster_size: float | None,
    power_clusters: Path | None,
    bootstrap: int,
    price_in: float | None,
    price_out: float | None,
    gpu_hour_price: float | None,
    against: str | None,
) -> None:
    """Compare runs: one row per run and domain, a column per registered metric the runs have.

    Each RUN_DIR is a folder written by `gqlbench run` or `gqlbench evaluate --out`.
    Runs are labelled by model, prompt style and split from their config.json,
    or by the folder name when there is none. With two or more runs, each run
    on the same data as the first (its data hash) is compared with it on their
    shared samples (with a warning when they share fewer than all): per metric
    the difference, its 95% interval, one test's p-value (McNemar's exact test
    for 0/1 metrics, a paired permutation test otherwise), that p-value
    Holm-adjusted across every test of the report, and the verdict the adjusted
    p-value gives. A run on other data is not paired, and the report says so.
    Runs with the same label (e.g. different --seed) are also summarised as mean ± sd.
    """
    if not run_dirs and not power:
        raise click.UsageError("give at least one RUN_DIR, or --power")
    if power_clusters is not None and (cluster_size is not None or power_n is not None or not power):
        raise click.UsageError(
            "--power-clusters takes n and the cluster size from its file: give it with --power, without --power-n or --cluster-size"
        )
    runs = [load_run(d) for d in run_dirs]
    document: dict[str, Any] = {"runs": [str(d) for d in run_dirs], "comparisons": [], "seed_spread": []}
    titles = metric_titles()
    if runs:
        click.echo(escape_controls(render_comparison(runs, fmt=fmt, table2_only=table2_only)))  # labels come from config.json
        _settings_sections(run_dirs, [f"{r.model} / {r.prompt} / {r.split} ({r.path})" for r in runs], fmt, table2_only)
        usage = _usage(runs, Prices(price_in, price_out, gpu_hour_price), fmt)
        if usage is not None:
            click.echo("\nCost and latency (latency per completion; see `latency.attribution` in results.json):\n")
            click.echo(escape_controls(usage[0]))
            document["usage"] = usage[1]
    if against is not None:
        document["against"] = [_against_paper(run, against, fmt, titles) for run in runs]
    if len(runs) > 1:
        samples = [_samples(d) for d in run_dirs]
        varied = set(setting_columns(runs))  # runs differing in a prompt setting are not repeats of one configuration
        keys = [(r.model, r.prompt, r.split, *(f"{k}={v}" for k, v in r.settings.items() if k in varied)) for r in runs]
        labels = [f"{' / '.join(key)} ({r.path})" for key, r in zip(keys, runs, strict=True)]
        comparisons = compare_with_first(samples, [r.data_hash for r in runs], resamples=bootstrap)
        for index, comparison in enumerate(comparisons, start=1):
            click.echo("\n" + escape_controls(render_pair(labels[0], labels[index], comparison, titles)))
            document["comparisons"].append({"a": str(run_dirs[0]), "b": str(run_dirs[index]), **comparison})
        for members in seed_groups([(*key, r.data_hash or "") for key, r in zip(keys, runs, strict=True)]).values():
            label = keys[members[0]]  # repeats of one configuration on the same data, never across benchmarks
            click.echo("\n" + escape_controls(render_seed_spread(" / ".join(label), [runs[i].metrics for i in members], titles)))
            document["seed_spread"].append({"label": list(label), "runs": [str(run_dirs[i]) for i in members]})
    if power:
        stored = runs[0].metrics.get("overall", {}).get("n_samples") if runs else None
        n = power_n or (stored if isinstance(stored, int) and not isinstance(stored, bool) and stored > 0 else 32)
        clustering = run_clustering(_samples(run_dirs[0]), icc) if runs and cluster_size is None else Clustering()
        if power_clusters is not None:
            n, cluster_size = file_clusters(power_clusters)
        if cluster_size is not None:
            clustering = Clustering(cluster_size, 1.0 if icc is None else icc, "assumed" if icc is None else "stated")
        rows = power_table(n, clustering=clustering)
        click.echo("\n" + render_power(rows, clustering))
        document["power"] = rows
        document["power_clustering"] = {**asdict(clustering), "design_effect": clustering.design_effect}
        document["power_test"] = "mcnemar_exact, power computed exactly by enumeration"
    if json_out is not None:
        json_out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        click.echo(f"wrote {json_out}")


def _yes_no(inside: bool | None) -> str:
    return "-" if inside is None else ("yes" if inside else "no")


def _against_paper(run: RunSummary, against: str, fmt: str, titles: dict[str, str]) -> dict[str, Any]:
    """Print whether the paper's Table 2 values lie inside the run's 95% intervals; return the same as JSON."""
    from tabulate import tabulate

    from gqlbench.display import escape_controls
    from gqlbench.results.files import read_config
    from gqlbench.results.paper import check_against_paper, paper_reference, paper_split_problem

    if run.split == ALL_SPLIT:  # its own heading, never a Table 2 check
        return _beside_paper(run, against, fmt, titles)
    problem = paper_split_problem(run.split, run.data_hash)
    if problem is not None:
        raise GqlbenchError(f"{run.path}: {problem}")
    config = read_config(run.path)
    model, prompt = paper_reference(against, config.to_json() if config is not None else {}, str(run.path))
    checks = check_against_paper(run.metrics, model, prompt)
    rows, notes = [], []
    for c in checks:
        inside = _yes_no(c.inside)
        if c.implied is not None and c.implied != c.paper:
            inside += f" (implied {c.implied:.4f}: {_yes_no(c.implied_inside)})"
        interval = f"[{c.interval[0]:.4f}, {c.interval[1]:.4f}]" if c.interval else "-"
        rows.append(
            [c.domain, titles.get(c.metric, c.metric), f"{c.paper:.4f}", "-" if c.run is None else f"{c.run:.4f}", interval, inside]
        )
        if c.note and f"{c.domain}: {c.note}" not in notes:
            notes.append(f"{c.domain}: {c.note}")
    inside_count = sum(c.inside is True for c in checks)
    judged = sum(c.inside is not None for c in checks)
    label = escape_controls(f"{run.model} / {run.prompt} ({run.path})")
    click.echo(
        f"\nAgainst the paper's Table 2 ({model}, {prompt}): {label}; "
        f"the paper's value inside the run's 95% interval for {inside_count} of {judged}\n"
    )
    click.echo(
        tabulate(rows, headers=["Domain", "Metric", "Paper", "Run", "95% interval", "Paper inside"], tablefmt=fmt, disable_numparse=True)
    )
    for note in notes:
        click.echo(f"note: the paper's {model} {prompt} row for {note}")
    return {
        "run": str(run.path),
        "model": model,
        "prompt": prompt,
        "checks": [
            {
                "domain": c.domain,
                "metric": c.metric,
                "paper": c.paper,
                "run": c.run,
                "ci": list(c.interval) if c.interval else None,
                "inside": c.inside,
                **({"implied": c.implied, "implied_inside": c.implied_inside, "note": c.note} if c.note else {}),
            }
            for c in checks
        ],
    }


def _beside_paper(run: RunSummary, against: str, fmt: str, titles: dict[str, str]) -> dict[str, Any]:
    """A ``--split all`` run under its own heading beside Table 2: its values, the paper's, no verdict; and what it left out."""
    from tabulate import tabulate

    from gqlbench.dataset import data_hash, default_data_dir
    from gqlbench.results.files import RESULTS_FILE, read_config, read_results
    from gqlbench.results.paper import beside_table2, paper_reference

    config = read_config(run.path)
    bundled = data_hash(default_data_dir())
    if config is None or config.data_hash != bundled:  # the synthetic set's all split, or edited files: never beside Table 2
        found = f"data {config.data_hash}" if config is not None and config.data_hash else "no data hash in its config.json"
        raise GqlbenchError(f"{run.path}: {found}, not the bundled GraphQLRestBench ({bundled}); only its samples go beside Table 2")
    model, prompt = paper_reference(against, config.to_json(), str(run.path))
    rows = beside_table2(run.metrics, model, prompt)
    excluded = read_results(run.path / RESULTS_FILE).meta.get("excluded_shots") or config.excluded_shots
    n = run.metrics.get("overall", {}).get("n_samples", "?")
    label = escape_controls(f"{run.model} / {run.prompt} ({run.path})")
    click.echo(
        f"\nBeside the paper's Table 2 ({model}, {prompt}), not part of it: {label}, split all: {n} scored samples "
        "of those outside the few-shot examples, not Table 2's 32 test samples, so no verdict\n"
    )
    table = [
        [
            r["domain"],
            titles.get(r["metric"], r["metric"]),
            "-" if r["run"] is None else f"{r['run']:.4f}",
            f"[{r['ci'][0]:.4f}, {r['ci'][1]:.4f}]" if r["ci"] else "-",
            f"{r['table2']:.4f}",
        ]
        for r in rows
    ]
    headers = ["Domain", "Metric", "Run (split all)", "95% interval", "Table 2 (test)"]
    click.echo(tabulate(table, headers=headers, tablefmt=fmt, disable_numparse=True))
    shown = ", ".join(map(str, excluded)) if isinstance(excluded, list) and excluded else "none"
    click.echo(escape_controls(f"excluded (the run's few-shot examples, never evaluated): {shown}"))
    return {"run": str(run.path), "model": model, "prompt": prompt, "split": ALL_SPLIT, "beside_table2": rows, "excluded_shots": excluded}


def _settings_sections(run_dirs: tuple[Path, ...], labels: list[str], fmt: str, table2_only: bool) -> None:
    """The ablation table when the runs differ in settings (e.g. a --matrix grid), and the relevance runs' block."""
    from gqlbench.metrics import all_metrics
    from gqlbench.results.difficulty import difficulty_section
    from gqlbench.results.files import RESULTS_FILE, read_results, shots_shortfall
    from gqlbench.run.matrix import render_ablation
    from gqlbench.scoring.relevance_scores import render_relevance_runs

    if len(run_dirs) > 1:
        metrics = [m.name for m in all_metrics() if m.table2 or not table2_only]
        ablation = render_ablation(run_dirs, metrics, metric_titles(), fmt)
        if ablation:
            click.echo("\n" + escape_controls(ablation))
    documents = [(label, read_results(d / RESULTS_FILE)) for label, d in zip(labels, run_dirs, strict=True)]
    for label, doc in documents:  # a run whose prompts kept fewer examples than it asked for (a preset at 8K, say)
        shortfall = shots_shortfall(doc.meta)
        if shortfall:
            click.echo(escape_controls(f"note: {label}: {shortfall}"))
    relevance = [(label, doc.relevance) for label, doc in documents if doc.relevance is not None]
    if relevance:
        click.echo("\n" + escape_controls(render_relevance_runs(relevance, fmt)))
    for label, doc in documents:  # runs on generated samples: their metrics by shape and number of calls
        if doc.difficulty:
            click.echo("\n" + escape_controls("\n".join([label, *difficulty_section(doc.difficulty, fmt)])))


def _usage(runs: list[RunSummary], prices: Prices, fmt: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The cost and latency table across runs (None: no run recorded usage); given prices replace the runs' own."""
    if not any(r.cost and r.latency for r in runs):
        return None
    rows, blocks = [], []
    for r in runs:
        cost = recost(r.cost, r.latency, prices) if prices.given() and r.cost and r.latency else r.cost
        rows.append(usage_row([r.model, r.prompt, r.split], cost, r.latency))
        blocks.append({"run": str(r.path), "cost": cost, "latency": r.latency})
    return usage_table(rows, fmt), blocks


def _samples(run_dir: Path) -> list:
    path = run_dir / SAMPLES_FILE
    if not path.is_file():
        raise GqlbenchError(f"{path}: no such file; paired comparisons need each run's samples.jsonl")
    return read_samples(path)
