"""Which catalog a run used: for each domain, the folder it came from and a hash of its files.

The benchmark's data has ``data_hash``; the catalog (signatures, response
SDL, the mock world's fixture and any behaviour file beside it) decides the
prompts and the execution scores just as much, and a user's catalog lives
outside the package (``GQLBENCH_CATALOG``). A run records this next to its
data hash, and a resume with other catalog files is refused like one with
other data.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["catalog_record", "catalog_differences"]


def _files(domain: str) -> list[Path]:
    from gqlbench.mocks.engine.fixtures import fixture_file
    from gqlbench.specs.catalog import schemas_path, specs_path

    specs, schemas, world = specs_path(domain), schemas_path(domain), fixture_file(domain)
    files = [specs] if specs is not None else []
    files += sorted(schemas.glob("*.graphql")) if schemas is not None else []
    files += [world] if world.is_file() else []
    files += sorted(world.parent.glob("*.py")) if world.is_file() else []  # a behaviour next to the fixture is part of it
    return files


@lru_cache(maxsize=64)
def _digest(stamped: tuple[tuple[str, int, int], ...]) -> str:
    """sha256 of the files, read once per version: choosing a run folder compares every earlier run's record."""
    digest = hashlib.sha256()
    for path, _, _ in stamped:
        digest.update(f"{Path(path).name}\0".encode())
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:16]


def catalog_record(domains: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``{domain: {"specs": file, "hash": sha256 of its catalog files}}`` for each domain the catalog has."""
    from gqlbench.specs.catalog import specs_path

    record: dict[str, dict[str, Any]] = {}
    for domain in sorted(set(domains)):
        specs = specs_path(domain)
        if specs is None:
            continue
        stamped = tuple((str(f), (st := f.stat()).st_mtime_ns, st.st_size) for f in _files(domain))
        record[domain] = {"specs": str(specs), "hash": _digest(stamped)}
    return record


def catalog_differences(recorded: dict[str, Any]) -> list[str]:
    """How the catalog now differs from a run's record (empty: the same files)."""
    now = catalog_record(recorded)
    found = []
    for domain, then in recorded.items():
        if not isinstance(then, dict):
            continue
        current = now.get(domain)
        if current is None:
            found.append(f"catalog: domain {domain!r} ({then.get('specs')}) is not in the catalog now")
        elif current.get("hash") != then.get("hash"):
            found.append(f"catalog: {domain} files changed ({then.get('specs')} then, {current['specs']} now)")
    return found
