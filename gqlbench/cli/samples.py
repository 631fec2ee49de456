"""``gqlbench samples``: ``generate`` verified synthetic samples for any catalog domain (issue #23); ``measure`` how
a samples file reads and what it tests (issue #32)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from gqlbench.display import escape_controls
from gqlbench.errors import GqlbenchError
from gqlbench.synthetic.by_intent import INTENT_SHAPES
from gqlbench.synthetic.sampler import SHAPES

__all__ = ["samples", "generate", "measure"]


@click.group("samples")
def samples() -> None:
    """Make and measure samples: verified synthetic requests and gold programs for a domain."""


@samples.command("generate")
@click.argument("domain")
@click.option("--n", "n", type=int, default=100, show_default=True, help="How many verified samples to write.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sampler: the same seed writes the same file.")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSONL file to write (name it test.jsonl in a folder to use it with --data).",
)
@click.option(
    "--shapes",
    default=None,
    help="Shapes to take in turn, comma-separated [default: all of the domain's route: "
    f"{','.join(INTENT_SHAPES)} for a domain with a lexicon (spotify, tmdb), else {','.join(SHAPES)}].",
)
@click.option("--force", is_flag=True, help="Overwrite OUT if it exists.")
@click.option(
    "--paraphrase-model",
    default=None,
    help="Have this model (a bundled name, folder or id; see `gqlbench models`) write each request from the program and "
    "the world's answers; it replaces the template text only if it states every literal and names nothing the program "
    "looks up or returns (see --verify-model).",
)
@click.option(
    "--paraphrase-backend",
    default="auto",
    show_default=True,
    help="Backend of --paraphrase-model: any name `gqlbench run --backend` takes (openai with --base-url).",
)
@click.option("--paraphrase-args", default="", help="Backend arguments of --paraphrase-model, k=v,...")
@click.option(
    "--verify-model",
    default=None,
    help="With --paraphrase-model: a second model that writes a program from each request alone, prompted as a default "
    "run prompts; a sample is kept only if that program executes like the gold. Never the model the set will evaluate.",
)
@click.option("--verify-backend", default="auto", show_default=True, help="Backend of --verify-model (as --paraphrase-backend).")
@click.option("--verify-args", default="", help="Backend arguments of --verify-model, k=v,...")
@click.option("--base-url", default=None, help="openai backend of --paraphrase-model and --verify-model: the server's URL.")
@click.option("--api-key-env", default=None, help="openai backend of --paraphrase-model and --verify-model: variable holding the API key.")
def generate(
    domain: str,
    n: int,
    seed: int,
    out: Path,
    shapes: str | None,
    force: bool,
    paraphrase_model: str | None,
    paraphrase_backend: str,
    paraphrase_args: str,
    verify_model: str | None,
    verify_backend: str,
    verify_args: str,
    base_url: str | None,
    api_key_env: str | None,
) -> None:
    """Write N verified samples of DOMAIN to OUT, in the dataset's line format.

    Each gold program ran to the end on DOMAIN's mock world (world seed 0,
    the utterance as the request) and scores 1.0 against itself; each
    utterance states every literal the program passes. Drafts that fail are
    dropped; the counts by reason are printed. Each line carries a
    "synthetic" object: shape, calls, edges, depth, seed, paraphrased, and
    with --paraphrase-model a "paraphrase" object (model, verify_model,
    verdict). The paraphrase model writes each request from the program and
    the world's answers (docs/synthetic-samples.md, A model in the loop).
    """
    from gqlbench.synthetic import generate_samples

    if out.exists() and not force:
        raise GqlbenchError(f"{out}: exists; pass --force to overwrite it or choose another --out")
    if not out.parent.is_dir():
        raise GqlbenchError(f"{out.parent}: no such folder for --out; create it first")
    if verify_model is not None and paraphrase_model is None:
        raise GqlbenchError("--verify-model checks the requests --paraphrase-model writes; give --paraphrase-model too")
    chosen = None if shapes is None else tuple(s.strip() for s in shapes.split(",") if s.strip())
    if paraphrase_model is None:
        result = generate_samples(domain, n, seed, chosen)
    else:
        from gqlbench.generators.backends.factory import build_backend, parse_model_args
        from gqlbench.synthetic.paraphrase import Rewriter, backend_paraphraser
        from gqlbench.synthetic.roundtrip import backend_round_trip

        backends = [
            build_backend(
                paraphrase_backend, paraphrase_model, parse_model_args(paraphrase_args), base_url=base_url, api_key_env=api_key_env
            )
        ]
        try:
            if verify_model is not None and (verify_backend, verify_model, verify_args) == (
                paraphrase_backend,
                paraphrase_model,
                paraphrase_args,
            ):
                backends.append(backends[0])  # the same model loaded once
            elif verify_model is not None:
                backends.append(
                    build_backend(verify_backend, verify_model, parse_model_args(verify_args), base_url=base_url, api_key_env=api_key_env)
                )
            rewriter = Rewriter(
                backend_paraphraser(backends[0], seed),
                paraphrase_model,
                backend_round_trip(backends[1], verify_model, seed) if verify_model is not None else None,
                verify_model,
            )
            result = generate_samples(domain, n, seed, chosen, paraphrase=rewriter)
        finally:
            for backend in dict.fromkeys(backends):
                backend.close()
    out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in result.rows), encoding="utf-8")
    shown = escape_controls(domain)
    click.echo(f"{shown}: {len(result.rows)} verified samples -> {out} ({result.runs} sandbox runs)")
    for reason, count in sorted(result.drops.items()):
        click.echo(f"  dropped {count}: {escape_controls(reason)}")
    if paraphrase_model is not None:
        rejected = ", ".join(
            f"{count} {escape_controls(reason)}" for reason, count in sorted(result.paraphrases.items()) if reason != "kept" and count
        )
        click.echo(f"  paraphrased {result.paraphrases['kept']} of {len(result.rows)} (rejected: {rejected or 'none'})")
    for kind, count in sorted(result.rejected_steps.items()):
        click.echo(f"  steps the world refused while sampling {count}: {escape_controls(kind)}")
    if len(result.rows) < n:
        click.echo(
            f"warning: only {len(result.rows)} of {n} samples could be made for {shown}; "
            "the domain's graph may have too few edges or starts for these shapes",
            err=True,
        )


@samples.command("measure")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--human",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The human test split whose functions each file should cover [default: the bundled GraphQLRestBench test.jsonl].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the measures as JSON instead of a table.")
@click.option("--format", "fmt", default="github", show_default=True, help="Table format (any tabulate format).")
def measure(files: tuple[Path, ...], human: Path | None, as_json: bool, fmt: str) -> None:
    """Measure how the requests of each samples FILE read and what their programs test.

    Per file: words per utterance, mechanical phrasing, 4-word copies of the
    gold functions' descriptions, items per program skeleton, distinct word
    trigrams, calls, constructs, and the human test split's functions never
    called. A test.jsonl given with the train.jsonl of its folder also gets the
    test items whose skeleton train has. Definitions: docs/synthetic-samples.md.
    """
    from dataclasses import asdict

    from gqlbench.dataset import default_data_dir
    from gqlbench.synthetic.quality import measure_files, quality_table

    found = measure_files(list(files), human if human is not None else default_data_dir() / "test.jsonl")
    if as_json:
        click.echo(json.dumps([asdict(q) for q in found], indent=2))
    else:
        click.echo(escape_controls(quality_table(found, fmt)))
