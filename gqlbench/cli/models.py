"""``gqlbench models``: prepare the bundled models and list what is in the cache."""

from __future__ import annotations

import click

__all__ = ["models"]


@click.group()
def models() -> None:
    """Bundled models: convert them once into Hugging Face folders, list the cache."""


@models.command("prepare")
@click.argument("name")
@click.option("--force", is_flag=True, help="Convert again even if the model is already prepared.")
def prepare_cmd(name: str, force: bool) -> None:
    """Convert registered model NAME (e.g. smollm2) into a Hugging Face folder in the cache.

    The folder is the same on every machine (bf16 weights); the compute dtype
    is chosen when a backend loads it, which casts the weights exactly.
    """
    from gqlbench.generators.backends.cpu import choose_dtype, cpu_flags
    from gqlbench.generators.backends.models import prepare

    click.echo(prepare(name, force=force, notify=lambda line: click.echo(line, err=True)))
    choice = choose_dtype(cpu_flags())
    click.echo(f"stored in bfloat16; runs here in {choice.dtype} on CPU, cast at load ({choice.reason})", err=True)


@models.command("list")
def list_cmd() -> None:
    """Registered models and where their prepared folders are."""
    from tabulate import tabulate

    from gqlbench.generators.backends.models import REGISTRY, cache_dir, list_prepared

    prepared = {m.name: m for m in list_prepared()}
    rows = []
    for name in sorted(set(REGISTRY) | set(prepared)):
        model = prepared.get(name)
        size = f"{model.size_bytes / 1e6:.0f} MB" if model else "-"
        path = str(model.path) if model else f"not prepared: gqlbench models prepare {name}"
        rows.append([name, size, path])
    click.echo(tabulate(rows, headers=["model", "size", "path"]))
    click.echo(f"\ncache: {cache_dir() / 'models'} (set GQLBENCH_HOME to move it)")


@models.command("check")
@click.argument("model")
@click.option("--backend", "kind", type=click.Choice(["auto", "vllm", "hf"]), default="auto", show_default=True)
@click.option("--prompt", default="What is the capital of France?", show_default=True)
def check_cmd(model: str, kind: str, prompt: str) -> None:
    """Load MODEL (a registered name or a folder) on a backend and answer one prompt: a setup smoke test."""
    import time

    from gqlbench.generators.backends.backend import GenerationConfig, GenerationRequest
    from gqlbench.generators.backends.factory import make_backend
    from gqlbench.records import Message

    started = time.perf_counter()
    backend = make_backend(kind, model)
    loaded = time.perf_counter()
    try:
        request = GenerationRequest("check", (Message(role="user", content=prompt),))
        (completion,) = backend.generate([request], GenerationConfig(max_new_tokens=64))
    finally:
        backend.close()
    if completion.error:
        raise click.ClickException(f"generation failed: {completion.error}")
    click.echo(completion.text.strip())
    click.echo(
        f"[{backend.name}: loaded in {loaded - started:.1f} s, {completion.tokens_out} tokens in {completion.latency_s:.1f} s]", err=True
    )
