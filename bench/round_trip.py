"""How a model does as back-instruction writer and round-trip verifier of synthetic samples: a verdict per sample.

Draws ``--n`` verified samples of a domain from the templates (no model),
then for each asks ``--model`` (on ``--backend``) to write the request from
the program and the world's answers and, as the verifier, to write the
program back from that request alone (the route of ``samples generate
--paraphrase-model M --verify-model M``, one sample at a time so that every
verdict is shown, dropped ones too): the request, the verdict, the seconds.

    .venv/bin/python bench/round_trip.py --domain spotify --n 10 --model smollm2 --backend hf

Figures from it belong in docs/synthetic-samples.md, never in unit tests.
"""

from __future__ import annotations

import argparse
import ast
import json
import time
from collections import Counter

from gqlbench.generators.backends.factory import make_backend
from gqlbench.mocks.sandbox.pool import SandboxPool
from gqlbench.synthetic import generate_samples
from gqlbench.synthetic.paraphrase import Rewriter, Task, backend_paraphraser, rewrite
from gqlbench.synthetic.roundtrip import backend_round_trip


def literals(code: str) -> tuple[str | int, ...]:
    """The literal keyword arguments of a generated program's calls, in order."""
    calls = sorted((n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Call)), key=lambda c: c.lineno)
    found = [k.value.value for call in calls for k in call.keywords if isinstance(k.value, ast.Constant)]
    return tuple(v for v in found if isinstance(v, str | int))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="spotify")
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shapes", default="single,chain")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--backend", default="hf")
    args = parser.parse_args()
    with SandboxPool(workers=1, max_result_chars=2_000_000) as pool:
        rows = generate_samples(args.domain, args.n, args.seed, tuple(args.shapes.split(",")), pool=pool).rows
        backend = make_backend(args.backend, args.model)
        try:
            rewriter = Rewriter(
                backend_paraphraser(backend, args.seed), args.model, backend_round_trip(backend, args.model, args.seed), args.model
            )
            verdicts: Counter[str] = Counter()
            for row in rows:
                started = time.perf_counter()
                task = Task(row["domain"], row["output"], literals(row["output"]))
                outcome = rewrite(rewriter, task, pool, 0, set())
                verdicts[outcome.verdict] += 1
                shown = {"code": row["output"], "verdict": outcome.verdict, "seconds": round(time.perf_counter() - started, 1)}
                print(json.dumps(shown | {"request": outcome.written}, ensure_ascii=False), flush=True)
        finally:
            backend.close()
    print(json.dumps({"samples": len(rows), "verdicts": dict(verdicts)}))


if __name__ == "__main__":
    main()
