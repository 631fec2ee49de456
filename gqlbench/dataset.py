"""Loading benchmark samples from JSONL files.

A benchmark is a folder of ``<split>.jsonl`` files in the GraphQLRestBench
format (``domain``, ``utterance``, ``function_specs``, ``GraphQL_schema``,
``input``, ``output``) and an optional ``errata.json``. The bundled one is
GraphQLRestBench, shipped in ``gqlbench.data``. Sample ids are
``"<split>/<i>"`` with ``i`` the 0-based line number, so they never change
when the loader does.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from gqlbench.errors import GqlbenchError
from gqlbench.program import read_program
from gqlbench.records import SPLITS, FunctionSpec, Sample

__all__ = [
    "DEFAULT_BENCHMARK",
    "Errata",
    "default_data_dir",
    "load_split",
    "load_samples",
    "get_sample",
    "load_errata",
    "data_hash",
    "split_of",
    "called_functions",
    "fill_from_catalog",
]

DEFAULT_BENCHMARK = "graphqlrestbench"


def default_data_dir() -> Path:
    """The bundled GraphQLRestBench folder inside the installed package."""
    return Path(str(resources.files("gqlbench.data") / DEFAULT_BENCHMARK))


@dataclass(frozen=True)
class Errata:
    """Known defects of a benchmark's gold programs, shipped beside the data."""

    invalid_gold: dict[str, str] = field(default_factory=dict)
    positional_gold_args: dict[str, str] = field(default_factory=dict)
    other: dict[str, dict[str, str]] = field(default_factory=dict)

    def why_invalid(self, sample_id: str) -> str | None:
        return self.invalid_gold.get(sample_id)

    def about(self, subject: str) -> str | None:
        """Every documented defect of a sample id or function name, joined; None when there is none."""
        categories = {"invalid_gold": self.invalid_gold, "positional_gold_args": self.positional_gold_args, **self.other}
        reasons = [f"{category}: {entries[subject]}" for category, entries in categories.items() if subject in entries]
        return "; ".join(reasons) or None


def _resolve(data_dir: Path | str | None) -> Path:
    path = Path(data_dir) if data_dir is not None else default_data_dir()
    if not path.is_dir():
        raise GqlbenchError(f"{path}: no such benchmark folder (expected a folder of <split>.jsonl files)")
    return path


def split_of(sample_id: str) -> str:
    """``"test/3"`` -> ``"test"``; raises a clear error for a malformed id."""
    split, sep, index = sample_id.partition("/")
    if not sep or not index.isdigit():
        raise GqlbenchError(f"sample id {sample_id!r} is not of the form '<split>/<line index>', e.g. 'test/0'")
    return split


def _parse_specs(raw: object, where: str) -> list[FunctionSpec]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else []
        except json.JSONDecodeError as exc:
            raise GqlbenchError(f"{where}: function_specs is not valid JSON ({exc.msg}); fix the string or leave the field out") from None
    if not isinstance(raw, list):
        raise GqlbenchError(f"{where}: function_specs must be a list of signatures")
    try:
        return [FunctionSpec.model_validate(f) for f in raw]
    except ValidationError as exc:
        first = exc.errors()[0]
        raise GqlbenchError(f"{where}: bad function spec at {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def called_functions(code: str, known: set[str]) -> list[str]:
    """The ``known`` functions that ``code`` calls, in order of first appearance.

    Code that does not parse calls nothing here; the checks report it.
    """
    return list(dict.fromkeys(c.name for c in read_program(code).calls if c.name in known))


def fill_from_catalog(sample: Sample, specs: bool = True, schema: bool = True) -> Sample:
    """Fill a sample's left-out ``function_specs``/``GraphQL_schema`` from its domain's catalog.

    A new domain's samples need only domain, utterance and output: the
    signatures and SDL of the functions the gold code calls are the catalog's.
    A domain without a specs file in any catalog folder leaves them empty.
    """
    from gqlbench.schemas import endpoint_sdl  # the catalog sits below the dataset; imported on use
    from gqlbench.specs import load_specs, specs_for, specs_path

    if specs_path(sample.domain) is None:
        return sample  # nothing to fill from; `gqlbench domains check` reports the unknown calls
    names = called_functions(sample.gold_code, set(load_specs(sample.domain)))
    update: dict[str, object] = {}
    if specs:
        update["function_specs"] = specs_for(sample.domain, names)
    if schema:
        update["graphql_schema"] = "\n".join(filter(None, (endpoint_sdl(sample.domain, n) for n in names)))
    return sample.model_copy(update=update)


def _sample_from_row(row: dict, split: str, index: int, benchmark: str, where: str) -> Sample:
    from gqlbench.specs.catalog import is_domain_name

    missing = [k for k in ("domain", "utterance", "output") if k not in row]
    if missing:
        raise GqlbenchError(f"{where}: missing field(s) {', '.join(missing)}; each line needs domain, utterance and output")
    if not is_domain_name(row["domain"]):
        raise GqlbenchError(
            f"{where}: domain {row['domain']!r} is not a domain name; write the name of a catalog domain "
            "(letters, digits, _ and -), never a path"
        )
    sample = Sample(
        id=f"{split}/{index}",
        split=split,
        index=index,
        benchmark=benchmark,
        domain=str(row["domain"]),
        utterance=str(row["utterance"]),
        gold_code=str(row["output"]),
        function_specs=_parse_specs(row.get("function_specs", []), where),
        graphql_schema=str(row.get("GraphQL_schema", "") or ""),
        input=str(row.get("input", "") or ""),
        synthetic=row["synthetic"] if isinstance(row.get("synthetic"), dict) else None,
    )
    if "function_specs" not in row or "GraphQL_schema" not in row:
        sample = fill_from_catalog(sample, specs="function_specs" not in row, schema="GraphQL_schema" not in row)
    return sample


@cache
def _load_split_cached(path: Path, split: str) -> tuple[Sample, ...]:
    file = path / f"{split}.jsonl"
    if not file.is_file():
        hint = (
            " train holds the few-shot examples a prompt shows; add some, or pass --shots 0 to run without them" if split == "train" else ""
        )
        raise GqlbenchError(f"{file}: no such split file (splits are train, valid, test);{hint or ' check --data and --split'}")
    samples = []
    with file.open(encoding="utf-8") as fh:
        for index, line in enumerate(fh):
            where = f"{file}:{index + 1}"
            if not line.strip():
                raise GqlbenchError(f"{where}: empty line; sample ids are line numbers, so remove it")
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise GqlbenchError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            samples.append(_sample_from_row(row, split, index, path.name, where))
    return tuple(samples)


def load_split(split: str, data_dir: Path | str | None = None) -> list[Sample]:
    """All samples of one split, in file order."""
    return list(_load_split_cached(_resolve(data_dir).resolve(), split))


def load_samples(data_dir: Path | str | None = None, splits: tuple[str, ...] | None = None) -> list[Sample]:
    """Samples of several splits (default: every split file present)."""
    path = _resolve(data_dir)
    if splits is None:
        splits = tuple(s for s in SPLITS if (path / f"{s}.jsonl").is_file())
    return [s for split in splits for s in load_split(split, path)]


def get_sample(sample_id: str, data_dir: Path | str | None = None) -> Sample:
    split = split_of(sample_id)
    samples = load_split(split, data_dir)
    index = int(sample_id.partition("/")[2])
    if index >= len(samples):
        raise GqlbenchError(f"sample {sample_id!r} does not exist: split {split!r} has {len(samples)} samples (0..{len(samples) - 1})")
    return samples[index]


def load_errata(data_dir: Path | str | None = None) -> Errata:
    """The benchmark's errata file, or empty errata when it has none."""
    file = _resolve(data_dir) / "errata.json"
    if not file.is_file():
        return Errata()
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{file}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    known = {"invalid_gold", "positional_gold_args"}
    other = {k: v for k, v in raw.items() if k not in known and isinstance(v, dict)}
    return Errata(raw.get("invalid_gold", {}), raw.get("positional_gold_args", {}), other)


def data_hash(data_dir: Path | str | None = None) -> str:
    """SHA-256 over the split files and errata, to tie a run to its exact data."""
    path = _resolve(data_dir)
    digest = hashlib.sha256()
    for file in sorted(path.glob("*.jsonl")) + sorted(path.glob("errata.json")):
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]
