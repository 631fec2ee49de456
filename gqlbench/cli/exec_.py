"""``gqlbench exec``: run one program against a mock world, in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import click

from gqlbench.display import escape_controls
from gqlbench.errors import GqlbenchError
from gqlbench.records import Trace

__all__ = ["exec_program", "format_trace"]


def _call_text(function: str, arguments: dict) -> str:
    return f"{function}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def format_trace(trace: Trace) -> str:
    """The trace as a person reads it: numbered calls, then the outcome (control characters escaped)."""
    lines = [f"trace ({trace.domain}, seed {trace.seed}):"]
    for number, call in enumerate(trace.calls, start=1):
        outcome = f"error: {call.error}" if call.error else f"ids {', '.join(call.response_ids) or '-'}"
        cut = f" (cut: {', '.join(call.truncated)})" if call.truncated else ""
        lines.append(f"  {number}. {_call_text(call.function, call.arguments)}{cut} -> {outcome}")
    if trace.calls_left_out:
        lines.append(f"  ... and {trace.calls_left_out} more call(s), counted but not recorded (the trace's size bound)")
    if not trace.calls and not trace.calls_left_out:
        lines.append("  (no calls)")
    if trace.stdout:
        lines.append("stdout:")
        lines.extend(f"  {line}" for line in trace.stdout.rstrip("\n").splitlines())
    if trace.error is None:
        lines.append(
            f"result: ran to the end, {len(trace.calls) + trace.calls_left_out} call(s) in {trace.elapsed_s:.3f} s; "
            f"final world {(trace.world_digest or '-')[:16]}"
        )
    else:
        where = f" (line {trace.error.line})" if trace.error.line else ""
        lines.append(f"result: failed after {len(trace.calls) + trace.calls_left_out} call(s)")
        lines.append(f"error: {trace.error.kind}{where}: {trace.error.message}")
    return escape_controls("\n".join(lines))


@click.command("exec")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--domain", required=True, help="Domain whose functions the program calls (see `gqlbench domains`).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the fresh mock world.")
@click.option("--request", default="", help="The user's request the program answers: ids and names written in it exist in the world.")
@click.option("--json", "as_json", is_flag=True, help="Print the trace as JSON instead.")
def exec_program(file: Path, domain: str, seed: int, request: str, as_json: bool) -> None:
    """Run the Python program in FILE against DOMAIN's mock world and print its trace.

    The program runs in the sandbox exactly as predictions are scored: the
    static check first, then a limited worker process on a fresh world.
    Exits with status 1 when the program fails.
    """
    from gqlbench.mocks.sandbox.pool import Job, run_program
    from gqlbench.specs import load_specs

    if not file.is_file():
        raise GqlbenchError(f"{file}: no such file; pass the path of a Python program")
    try:
        code = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise GqlbenchError(f"{file}: not UTF-8 text; save the program as UTF-8") from None
    load_specs(domain)  # an unknown domain fails here, naming the known ones
    trace = run_program(Job(code=code, domain=domain, seed=seed, request=request))
    click.echo(json.dumps(trace.model_dump(), indent=2) if as_json else format_trace(trace))
    if trace.error is not None:
        raise click.exceptions.Exit(1)
