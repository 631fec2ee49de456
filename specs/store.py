"""Reading and writing ``specs/<domain>.json``, and looking signatures up.

A specs file is either a plain JSON list of signatures in the dataset's
BFCL/OpenAI style (the simplest way to add a domain by hand), or an object::

    {"domain": "spotify", "about": "...",
     "functions": [<one signature per endpoint>],
     "variants": {"PUT_me_pause": [{"samples": ["train/21", ...], "spec": {...}}, ...]}}

``functions`` holds one canonical signature per endpoint. ``variants`` records,
for an endpoint whose samples disagree, every distinct signature and the samples
that use it: the disagreement stays visible (``gqlbench domains check`` reports
it) and each sample's own signatures can be rebuilt exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gqlbench.errors import GqlbenchError, closest
from gqlbench.records import FunctionSpec, Problem
from gqlbench.specs.catalog import list_domains, specs_path, unknown_domain
from gqlbench.specs.names import parameter_name, reserved_name_problem

__all__ = [
    "SpecVariant",
    "SpecsFile",
    "read_specs_file",
    "specs_file_text",
    "load_specs",
    "get_spec",
    "specs_for",
    "spec_problems",
    "describe_disagreement",
]


@dataclass(frozen=True)
class SpecVariant:
    """One distinct signature of an endpoint and the samples that use it."""

    spec: FunctionSpec
    samples: tuple[str, ...]


@dataclass(frozen=True)
class SpecsFile:
    """A parsed specs file: canonical signatures by name plus recorded variants."""

    path: Path
    functions: dict[str, FunctionSpec]
    variants: dict[str, tuple[SpecVariant, ...]] = field(default_factory=dict)

    def spec_for_sample(self, name: str, sample_id: str | None) -> FunctionSpec:
        """The variant ``sample_id`` used, else the canonical signature."""
        for variant in self.variants.get(name, ()):
            if sample_id in variant.samples:
                return variant.spec
        return self.functions[name]


def _spec(raw: object, where: str) -> FunctionSpec:
    try:
        return FunctionSpec.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(map(str, first["loc"])) or "(top level)"
        raise GqlbenchError(f"{where}: bad function signature at {loc}: {first['msg']}") from None


def _parse(path: Path, raw: object) -> SpecsFile:
    if isinstance(raw, list):
        raw = {"functions": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("functions"), list):
        raise GqlbenchError(f"{path}: expected a JSON list of signatures or an object with a 'functions' list")
    functions: dict[str, FunctionSpec] = {}
    for i, item in enumerate(raw["functions"]):
        spec = _spec(item, f"{path}: functions[{i}]")
        if spec.name in functions:
            raise GqlbenchError(f"{path}: functions[{i}]: {spec.name!r} is defined twice; keep one (record disagreements under 'variants')")
        functions[spec.name] = spec
    variants: dict[str, tuple[SpecVariant, ...]] = {}
    for name, items in (raw.get("variants") or {}).items():
        if name not in functions:
            raise GqlbenchError(f"{path}: variants lists {name!r}, which is not among the functions; add it or remove its variants")
        if not isinstance(items, list) or not all(isinstance(v, dict) and "spec" in v for v in items):
            raise GqlbenchError(f"{path}: variants[{name!r}] must be a list of {{'samples': [...], 'spec': {{...}}}}")
        variants[name] = tuple(
            SpecVariant(_spec(v["spec"], f"{path}: variants[{name!r}][{j}]"), tuple(v.get("samples", ()))) for j, v in enumerate(items)
        )
    return SpecsFile(path, functions, variants)


@cache
def _read_cached(path: Path, mtime_ns: int, size: int) -> SpecsFile:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    return _parse(path, raw)


def read_specs_file(path: Path | str) -> SpecsFile:
    """Parse one specs file (cached until the file changes)."""
    path = Path(path).resolve()
    stat = path.stat()
    return _read_cached(path, stat.st_mtime_ns, stat.st_size)


def specs_file_text(
    functions: Iterable[FunctionSpec],
    variants: Mapping[str, Iterable[SpecVariant]] | None = None,
    *,
    domain: str | None = None,
    about: str | None = None,
) -> str:
    """The canonical text of a specs file (stable key order, 2-space indent)."""
    doc: dict[str, Any] = {}
    if domain is not None:
        doc["domain"] = domain
    if about is not None:
        doc["about"] = about
    doc["functions"] = [f.model_dump() for f in functions]
    if variants:
        doc["variants"] = {name: [{"samples": list(v.samples), "spec": v.spec.model_dump()} for v in vs] for name, vs in variants.items()}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _domain_file(domain: str) -> SpecsFile:
    path = specs_path(domain)
    if path is None and domain in list_domains():  # a schemas folder alone: the signatures are what is missing
        raise GqlbenchError(
            f"domain {domain!r} has response schemas but no signatures (no specs/{domain}.json in any catalog folder); "
            "make them with `gqlbench domains import-openapi`, or write them as docs/add-your-own-api.md shows"
        )
    if path is None:
        raise unknown_domain(domain)
    return read_specs_file(path)


def load_specs(domain: str) -> dict[str, FunctionSpec]:
    """The canonical signature of every endpoint of ``domain``, in file order."""
    return dict(_domain_file(domain).functions)


def _unknown_function(domain: str, name: str, known: Iterable[str]) -> GqlbenchError:
    close = closest(name, known)
    hint = f"closest: {', '.join(close)}" if close else "run `gqlbench domains list " + domain + "` to see them"
    return GqlbenchError(f"domain {domain!r} has no function {name!r}; {hint}")


def get_spec(domain: str, name: str) -> FunctionSpec:
    """One endpoint's canonical signature; the error names the closest endpoints."""
    functions = _domain_file(domain).functions
    if name not in functions:
        raise _unknown_function(domain, name, functions)
    return functions[name]


def specs_for(domain: str, names: Iterable[str], sample_id: str | None = None) -> list[FunctionSpec]:
    """Signatures for ``names`` in that order; with ``sample_id``, the variant that sample used.

    This is how a sample's ``function_specs`` are rebuilt from the catalog.
    """
    specs = _domain_file(domain)
    result = []
    for name in names:
        if name not in specs.functions:
            raise _unknown_function(domain, name, specs.functions)
        result.append(specs.spec_for_sample(name, sample_id))
    return result


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Dotted paths where two JSON values differ (key order counts for properties)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}{k}" for k in [*a, *(k for k in b if k not in a)] if (k in a) != (k in b)]
        for k in a:
            if k in b:
                out += _differences(a[k], b[k], f"{path}{k}.")
        if not out and list(a) != list(b):
            out.append(f"{path.rstrip('.') or '(top)'} (order)")
        return out
    return [] if a == b else [path.rstrip(".") or "(value)"]


def disagreement_message(name: str, variants: Iterable[SpecVariant], chosen: FunctionSpec) -> str:
    """Which samples disagree on ``name``, where, and which variant the catalog uses."""
    variants = list(variants)
    base = variants[0].spec.model_dump()
    diffs = sorted({d for v in variants[1:] for d in _differences(base, v.spec.model_dump())})
    groups = " | ".join(",".join(v.samples) or "?" for v in variants)
    used = next((",".join(v.samples) for v in variants if v.spec == chosen), "none of them")
    return f"samples disagree ({len(variants)} variants: {groups}) in {', '.join(diffs)}; the catalog's signature is the one of {used}"


def describe_disagreement(path: Path | str, name: str, variants: Iterable[SpecVariant], chosen: FunctionSpec) -> str:
    """One line saying which samples disagree on ``name``, where, and which variant the catalog uses."""
    return f"{path}: {name}: {disagreement_message(name, variants, chosen)}"


_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "dict", "list", "float", "int", "bool", "any", "null"}


def _malformed(specs: SpecsFile) -> list[Problem]:
    problems = []
    for name, spec in specs.functions.items():
        found: list[str] = []
        if not name.isidentifier():
            found.append("the name is not a Python identifier, so generated code cannot call it")
        elif reserved_name_problem(name):
            found.append(f"the name {reserved_name_problem(name)}; rename the function")
        props = spec.parameters.properties
        found += [f"required parameter {p!r} is not among its properties" for p in spec.parameters.required if p not in props]
        not_identifiers = [p for p in props if not p.isidentifier()]
        if not_identifiers:
            found.append(
                f"{len(not_identifiers)} parameter name(s) are not Python identifiers "
                f"({', '.join(not_identifiers)}); generated code can pass them only as **{{...}}"
            )
        found += [
            f"parameter {p!r} {problem}; rename it to {parameter_name(p)!r} and keep {p!r} as its request_name "
            "(re-importing the OpenAPI file does this)"
            for p in props
            if (problem := reserved_name_problem(p))
        ]
        found += [
            f"parameter {p!r} has unknown type {ps.type!r} (use a JSON-schema type)"
            for p, ps in props.items()
            if ps.type not in _JSON_TYPES
        ]
        body = getattr(spec.parameters, "body_params", None) or []
        found += [f"body parameter {p!r} is not among its properties" for p in body if p not in props]
        problems += [Problem(subject=name, where=f"{specs.path}: {name}", message=m) for m in found]
    return problems


def spec_problems(domain: str) -> list[Problem]:
    """Each problem with ``domain``'s signatures: malformed ones and sample disagreements.

    An unreadable file is itself reported as a problem rather than raised.
    """
    path = specs_path(domain)
    if path is None:
        return []
    try:
        specs = read_specs_file(path)
    except GqlbenchError as exc:
        return [Problem(subject=None, where="", message=str(exc))]
    problems = _malformed(specs)
    for name, variants in specs.variants.items():
        if len(variants) > 1:
            problems.append(
                Problem(subject=name, where=f"{specs.path}: {name}", message=disagreement_message(name, variants, specs.functions[name]))
            )
    return problems
