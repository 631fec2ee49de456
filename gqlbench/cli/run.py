"""``gqlbench run``: generate with a model, score, and write a resumable run folder."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click

from gqlbench.cli.options import bootstrap_option
from gqlbench.display import escape_controls
from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.factory import BACKEND_REGISTRY
from gqlbench.generators.obfuscate import OBFUSCATE_CHOICES
from gqlbench.generators.sdl_view import SCHEMA_CHOICES
from gqlbench.generators.shots import SHOT_RULE_ALIASES, SHOT_RULES
from gqlbench.generators.styles import STYLES
from gqlbench.run.config import DEFAULT_BATCH_SIZE, OBSERVE_MODES, RunOptions, RunSettings, setting_default

__all__ = ["run"]

_BUDGETS = ", ".join(f"{style.default_max_new_tokens} for {name}" for name, style in STYLES.registered().items())


@click.command("run")
@click.option("--model", required=True, help="Model folder, Hugging Face id, or a bundled name such as smollm2 (see `gqlbench models`).")
@click.option(
    "--preset",
    default=None,
    metavar="NAME",
    help="Every setting of a published run, e.g. paper:granite-34b-code-instruct:react (paper:<model>:<cot|react> for "
    "codellama-34b-instruct, deepseek-coder-33b-instruct, granite-34b-code-instruct); --model stays yours, options you "
    "give win and are recorded as overrides in config.json.",
)
@click.option(
    "--backend",
    default=setting_default("backend"),
    show_default=True,
    help=f"{' | '.join(BACKEND_REGISTRY.names())} (auto: vLLM when importable, else transformers) | module:Class for your own backend "
    "(a class implementing gqlbench.generators.Backend, called as Class(model, **model_args); module may be path/to/file.py; "
    "installed packages add names through the gqlbench.backends entry point group).",
)
@click.option(
    "--prompt",
    "prompt_style",
    default=setting_default("prompt"),
    show_default=True,
    help=f"Prompt style: {' | '.join(STYLES.names())} | module:object for your own "
    "(a gqlbench.generators.styles.PromptStyle; installed packages add names through the gqlbench.prompt_styles entry point group).",
)
@click.option(
    "--split",
    default=setting_default("split"),
    show_default=True,
    help="Split to evaluate: test | valid | train (needs --shots 0) | all (every sample of every split except each "
    "domain's fixed few-shot examples, which it lists; reported beside, never in, Table 2); "
    "<split>-relevance is the same as --relevance on <split>.",
)
@click.option(
    "--relevance",
    is_flag=True,
    help="Cases that cannot be done: each sample twice, with its gold functions and with one of them removed; "
    "the prompt explains how to decline (raise NotSupported). Scored as their own results.json block. With a wider "
    "--functions, endpoints that could stand in for the removed function are not offered.",
)
@click.option("--limit", type=int, default=None, help="Only the first N samples.")
@click.option("--ids", default="", help="Comma-separated sample ids, e.g. test/0,test/3.")
@click.option(
    "--shots",
    type=int,
    default=setting_default("shots"),
    show_default=True,
    help="Few-shot examples from the train split of the same domain.",
)
@click.option(
    "--shot-rule",
    type=click.Choice(SHOT_RULES + tuple(SHOT_RULE_ALIASES)),
    default=setting_default("shot_rule"),
    show_default=True,
    help="fixed: one representative set per domain, the paper's setting (the train samples covering the most "
    "functions; diverse is its earlier name); similar: per sample, most word overlap with the utterance.",
)
@click.option(
    "--max-steps",
    type=int,
    default=setting_default("max_steps"),
    show_default=True,
    help="ReAct (a style with steps): most steps per sample.",
)
@click.option(
    "--observe",
    type=click.Choice(OBSERVE_MODES),
    default=setting_default("observe"),
    show_default=True,
    help="ReAct observation: the GraphQL type of the returned value, or the executed mock response.",
)
@click.option(
    "--functions",
    default=setting_default("functions"),
    show_default=True,
    help="Functions the prompt offers: gold (the paper's) | domain (every endpoint of the domain) | distractors:K "
    "(gold plus K others, seeded) | distractors:K:connected "
    "(prefer ones a gold response could feed an id to, or that could feed one to a gold call).",
)
@click.option(
    "--obfuscate",
    type=click.Choice(OBFUSCATE_CHOICES),
    default=setting_default("obfuscate"),
    show_default=True,
    help="Hide function names (api_N), parameter names (arg_N), descriptions, or all; answers are mapped back before scoring.",
)
@click.option(
    "--schema",
    type=click.Choice(SCHEMA_CHOICES),
    default=setting_default("schema"),
    show_default=True,
    help="Response schema in the prompt: full SDL, types-only (no descriptions, no @rest), or none.",
)
@click.option(
    "--tool-result-chars",
    type=int,
    default=setting_default("tool_result_chars"),
    help="--prompt tools: characters of each tool result the model is shown; a longer response is shortened, still JSON, "
    "saying inside it what was left out (default: a quarter of the model's context at 2 characters per token, "
    "at least 1000; recorded in config.json as tool_results).",
)
@click.option("--dry-run", is_flag=True, help="Print the first sample's rendered prompt and its token count; load no model, write nothing.")
@click.option(
    "--exec/--no-exec",
    "execute",
    default=setting_default("execute"),
    show_default=True,
    help="Also run gold and predicted programs in the sandbox against mock worlds seeded with --seed (Exec Success, Exec Match).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Run folder (default: runs/<model>/<timestamp>_<split>_<prompt>/, resuming the latest with the same settings).",
)
@click.option("--model-args", default="", help="Backend/engine arguments, k=v,... (e.g. tensor_parallel_size=2,max_model_len=8192).")
@click.option(
    "--temperature",
    type=float,
    default=setting_default("temperature"),
    show_default=True,
    help="0 is greedy decoding; the paper used 0.05.",
)
@click.option("--top-p", type=float, default=setting_default("top_p"), show_default=True)
@click.option("--max-new-tokens", type=int, default=None, help=f"Generation budget per call (default: the prompt style's, {_BUDGETS}).")
@click.option(
    "--seed",
    type=int,
    default=setting_default("seed"),
    show_default=True,
    help="Sampling seed, and the seed of the mock worlds (--exec, --observe mock).",
)
@click.option("--base-url", default=None, help="openai backend: the server's URL, e.g. http://localhost:8000/v1.")
@click.option("--api-key-env", default=None, help="openai backend: environment variable holding the API key.")
@click.option(
    "--data",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Benchmark folder (default: the bundled GraphQLRestBench).",
)
@click.option(
    "--samples",
    "n_samples",
    type=click.IntRange(min=1),
    default=setting_default("samples"),
    show_default=True,
    help="Completions per sample (K, needs --temperature > 0): pass@k and pass^k for k = 1..K; "
    "the Table 2 scores are those of completion 0.",
)
@bootstrap_option
@click.option("--price-in", type=click.FloatRange(min=0), default=None, help="USD per million prompt tokens, for the cost estimate.")
@click.option("--price-out", type=click.FloatRange(min=0), default=None, help="USD per million completion tokens.")
@click.option(
    "--gpu-hour-price",
    type=click.FloatRange(min=0),
    default=None,
    help="USD per GPU hour: cost = price x the run's wall time (used when no token prices are given).",
)
@click.option(
    "--batch-size",
    type=int,
    default=DEFAULT_BATCH_SIZE,
    show_default=True,
    help="Samples per batched generation; a killed run loses at most one batch.",
)
@click.option("--overwrite", is_flag=True, help="Start the run over (says which files it removes).")
@click.option("--quiet", is_flag=True, help="No progress bar (batch jobs).")
@click.option("--verbose", is_flag=True, help="Show the engine's own logs live (by default they go to engine.log in the run folder).")
@click.option("--html", is_flag=True, help="Also write report.html in the run folder (see `gqlbench view`).")
@click.option(
    "--matrix",
    "matrix",
    multiple=True,
    metavar="KEY=V1,V2",
    help="Run a grid over any run setting (repeatable: the product of all), e.g. --matrix shots=0,3 --matrix prompt=cot,react. "
    "One engine load for every cell; one run folder per cell under --out (default runs/<model>/grid_<keys>); "
    "prints the ablation table.",
)
def run(
    model: str,
    preset: str | None,
    backend: str,
    prompt_style: str,
    split: str,
    relevance: bool,
    limit: int | None,
    ids: str,
    shots: int,
    shot_rule: str,
    max_steps: int,
    observe: str,
    functions: str,
    obfuscate: str,
    schema: str,
    tool_result_chars: int | None,
    dry_run: bool,
    execute: bool,
    out: Path | None,
    model_args: str,
    temperature: float,
    top_p: float,
    max_new_tokens: int | None,
    seed: int,
    base_url: str | None,
    api_key_env: str | None,
    data: Path | None,
    n_samples: int,
    bootstrap: int | None,
    price_in: float | None,
    price_out: float | None,
    gpu_hour_price: float | None,
    batch_size: int,
    overwrite: bool,
    quiet: bool,
    verbose: bool,
    html: bool,
    matrix: tuple[str, ...],
) -> None:
    """Run a model on a split, score it, and print the report.

    Re-running the same command resumes the latest unfinished run with the same
    settings; failed generations are retried then.
    """
    from gqlbench.generators.backends.factory import parse_model_args
    from gqlbench.run.runner import run as run_benchmark
    from gqlbench.run.usage import Prices

    if split.endswith("-relevance"):  # --split test-relevance: the documented alias of --relevance
        split, relevance = split.removesuffix("-relevance"), True
    chosen: dict[str, Any] = dict(
        model=model,
        backend=backend,
        prompt=prompt_style,
        split=split,
        ids=tuple(i.strip() for i in ids.split(",") if i.strip()),
        limit=limit,
        shots=shots,
        shot_rule=shot_rule,
        max_steps=max_steps,
        observe=observe,
        execute=execute,
        model_args=parse_model_args(model_args),
        temperature=temperature,
        top_p=top_p,
        max_new_tokens=max_new_tokens,
        seed=seed,
        base_url=base_url,
        api_key_env=api_key_env,
        data=str(data.resolve()) if data else None,
        functions=functions,
        obfuscate=obfuscate,
        schema=schema,
        relevance=relevance,
        samples=n_samples,
        tool_result_chars=tool_result_chars,
    )
    if preset is not None:
        from gqlbench.run.presets import apply_preset, get_preset

        chosen = apply_preset(get_preset(preset), chosen, _explicit_options())
    if chosen["shots"] and "shots" in _explicit_options():
        RunSettings.refuse_tool_shots(chosen["prompt"], chosen["shots"])  # not dropped silently when asked for
    settings = RunSettings(**chosen)
    if dry_run:
        from gqlbench.run.dry_run import dry_run as render_dry_run

        click.echo(escape_controls(render_dry_run(settings)))  # quotes a dataset utterance
        return
    prices = Prices(price_in, price_out, gpu_hour_price)
    options = RunOptions(
        out=out,
        overwrite=overwrite,
        quiet=quiet,
        batch_size=batch_size,
        verbose=verbose,
        bootstrap=bootstrap,
        prices=prices,
        notify=terminal_notices(),
    )
    if matrix:
        _run_grid(settings, options, matrix, html)
        return
    outcome = run_benchmark(settings, options)
    if outcome.already_complete and outcome.resumed_from:
        click.echo(f"already complete: {outcome.run_dir} (use --overwrite to redo it)", err=True)
    from gqlbench.scoring.join import not_run_domains

    not_run = not_run_domains(outcome.results)
    if not_run:
        click.echo(f"warning: no execution scores for domain(s) {', '.join(not_run)}: not in the catalog (see GQLBENCH_CATALOG)", err=True)
    noted = [r.id for r in outcome.results if (r.model_extra or {}).get("generation_note")]
    if noted:  # continued after a bare opening fence, cut inside a block, or cut to the stored bound
        shown = escape_controls(", ".join(noted[:10]))
        click.echo(f"note: {len(noted)} completions have a generation_note in samples.jsonl: {shown}", err=True)
    report = outcome.run_dir / "report.md"
    if report.is_file():
        click.echo(report.read_text(encoding="utf-8").rstrip())
    if outcome.timings:
        from gqlbench.run.timings import format_timings

        click.echo(f"\n{format_timings(outcome.timings)}")
    click.echo(f"run folder: {outcome.run_dir}")
    if html:
        from gqlbench.viewer.page import write_run_html

        click.echo(f"html report: {write_run_html(outcome.run_dir)}")
    if outcome.missing:
        total = len(set(outcome.missing) | {r.id for r in outcome.results})
        raise GqlbenchError(
            f"{len(outcome.missing)} of {total} samples failed to generate{' (some of their completions)' if n_samples > 1 else ''} "
            f"(see {outcome.run_dir / 'errors.jsonl'}); re-run the same command to retry them"
        )


def terminal_notices() -> Callable[[str], None]:
    """Where a run's notices are shown: the terminal's stderr, even while the run sends fd 2 to engine.log.

    The stream is a duplicate of fd 2 made now, before any redirection, and
    closed with the command; when stderr has no file descriptor (a test's
    captured stream) it is stderr itself.
    """
    stream: IO[str] | None = None
    try:
        terminal = os.fdopen(os.dup(sys.stderr.fileno()), "w", buffering=1, encoding="utf-8", errors="replace")
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    else:
        click.get_current_context().call_on_close(terminal.close)
        stream = terminal

    def notify(message: str) -> None:
        click.echo(escape_controls(message), file=stream or sys.stderr)  # paths and reasons may come from data

    return notify


def _explicit_options() -> set[str]:
    """The run settings the user gave on the command line (a preset never overrides these)."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    renamed = {"prompt_style": "prompt", "n_samples": "samples"}
    return {renamed.get(name, name) for name in ctx.params if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE}


def _run_grid(settings: RunSettings, options: RunOptions, matrix: tuple[str, ...], html: bool) -> None:
    """``--matrix``: every cell, then the ablation table; failed generations fail the command once all cells ran."""
    from gqlbench.metrics import all_metrics, metric_titles
    from gqlbench.run.matrix import parse_matrix, render_ablation, run_matrix

    outcomes = run_matrix(settings, parse_matrix(matrix), options)
    for outcome in outcomes:
        state = "already complete" if outcome.already_complete else f"{len(outcome.results)} samples"
        click.echo(f"{outcome.run_dir}: {state}" + (f", {len(outcome.missing)} failed" if outcome.missing else ""))
        if html:
            from gqlbench.viewer.page import write_run_html

            write_run_html(outcome.run_dir)
    table2 = [m.name for m in all_metrics() if m.table2]
    ablation = render_ablation([o.run_dir for o in outcomes], table2, metric_titles())
    if ablation:
        click.echo("\n" + ablation)
    failed = sum(len(o.missing) for o in outcomes)
    if failed:
        raise GqlbenchError(
            f"{failed} samples failed to generate (see errors.jsonl of the cells above); re-run the same command to retry them"
        )
