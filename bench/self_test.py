"""The world's self-test (``gqlbench domains check``) on a whole published spec, before and after, side by side.

A whole file (by default Gitea's, 346 operations, 206 endpoint pairs) is
imported into a temporary catalog as ``gqlbench domains import-openapi`` does;
then the self-test runs in this process twice, with the probes module
(``mocks/coherence.py``) as it was at ``--before`` (a git revision, read with
``git show`` and loaded beside the current one) and as it is now, on the same
catalog and the same world engine. Each is given its CPU seconds, best of
``--repeat`` runs, after one untimed run that builds the cached schema and
world model both share.

    .venv/bin/python bench/self_test.py                      # gitea, before = 422bffe
    .venv/bin/python bench/self_test.py --spec github.com/api.github.com.json --name github

Figures depend on the machine and its load; this is a script, not a test.
docs/performance.md has the numbers.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
APIS = Path(os.environ.get("GQLBENCH_TEST_APIS") or Path(sys.prefix) / "share" / "gqlbench-test-apis") / "api"


def _module_at(revision: str) -> ModuleType:
    """``mocks/coherence.py`` as it was at ``revision``, as a module of its own."""
    source = subprocess.run(["git", "show", f"{revision}:mocks/coherence.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="gqlbench-before-"))
    (folder / "coherence_before.py").write_text(source)
    spec = importlib.util.spec_from_file_location("coherence_before", folder / "coherence_before.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["coherence_before"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _import(spec: Path, name: str, out: Path) -> None:
    from gqlbench.mocks.engine.fixtures import starter_fixture_files
    from gqlbench.schemas.domain_import import import_openapi_domain

    def starter_world(specs: list[dict], sdls: dict[str, str], facts: dict) -> dict[Path, str]:
        return starter_fixture_files(out, name, specs, sdls, facts)

    import_openapi_domain(spec, name, out, extra_files=starter_world)


def _timed(module: ModuleType, name: str, repeat: int) -> tuple[float, list[tuple[str, bool]]]:
    best, pairs = float("inf"), []
    for _ in range(repeat):
        started = time.process_time()
        found = module.probe_domain(name)
        best = min(best, time.process_time() - started)
        pairs = [(p.label, p.passed) for p in found]
    return best, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="gitea.io.json", help="an OpenAPI file under the test APIs (scripts/install.sh)")
    parser.add_argument("--name", default="gitea", help="the domain name to import it as")
    parser.add_argument("--before", default="422bffe", help="the git revision of mocks/coherence.py to compare with")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    spec = APIS / args.spec
    if not spec.is_file():
        sys.exit(f"{spec} missing: run scripts/install.sh (needs npm)")
    with tempfile.TemporaryDirectory() as folder:
        _import(spec, args.name, Path(folder))
        os.environ["GQLBENCH_CATALOG"] = folder
        from gqlbench.mocks import coherence

        before = _module_at(args.before)
        coherence.probe_domain(args.name)  # untimed: the schema and world model, cached for both
        old, old_pairs = _timed(before, args.name, args.repeat)
        new, new_pairs = _timed(coherence, args.name, args.repeat)
    passed = sum(ok for _, ok in new_pairs)
    print(f"{args.name}: {len(new_pairs)} pairs, {passed} pass (before: {sum(ok for _, ok in old_pairs)} of {len(old_pairs)})")
    print(f"self-test CPU s, best of {args.repeat}: before {old:.1f}, now {new:.1f} ({old / new:.1f}x)")
    if old_pairs != new_pairs:
        print("the pairs differ:", sorted(set(old_pairs) ^ set(new_pairs)))


if __name__ == "__main__":
    main()
