"""World fixtures: where a domain's lives, how it is read, and the starter one an import writes.

A catalog folder (see :mod:`gqlbench.specs.catalog`) keeps a domain's world
fixture at ``worlds/<domain>.json``, next to ``specs/`` and ``schemas/``; the
bundled catalog keeps them in the package at ``mocks/worlds/<domain>.json``.
The fixture is a JSON object:

* ``"entities"``: ``{"<kind>": [records]}``, the one place a file writes its own entities,
  in file order: a kind with a ``make`` recipe is made by it from each entry (a name or an
  object, :mod:`gqlbench.mocks.engine.declared.make`); any other record is stored as written,
  naming its key as its API does (``<kind>_id``, ``id``, ``symbol``, ``login``...), and an entity
  written inside another one (``"authors": [{"author_id": "A1", "name": "..."}]``) is loaded and linked;
* ``"endpoints"``: per-function overrides of the inferred rules
  (:mod:`gqlbench.mocks.engine.rules`);
* ``"shapes"``, ``"vocab"``, ``"generate"`` and an endpoint's ``"respond"``:
  responses and generated values declared as templates (:mod:`gqlbench.mocks.engine.declared.declarations`);
* ``"computed"``: computed fields per kind (:mod:`gqlbench.mocks.engine.declared.computed`);
* ``"views"``: the one way an entity is shown, with what it refers to (:mod:`gqlbench.mocks.engine.declared.views`);
* ``"make"``: per kind, how an entity is made from a readable entry (referring to others by name),
  whether the file writes it or the world makes it while it runs; ``"load"``: the names the world's
  state keeps (a saved list, the current user), resolved to ids (:mod:`gqlbench.mocks.engine.declared.make`);
* ``"behaviour"``: optional Python for what data cannot say, as
  ``"module:object"`` or ``"file.py:object"`` (a file relative to the fixture);
  see :mod:`gqlbench.mocks.engine.registry`;
* any other key is a section that a ``load`` step reads (``"from"``) or that the
  behaviour declares it reads (its ``sections``); every other key is refused.

Each section has a typed model, and every mistake of a file is reported at once
with its line (:mod:`gqlbench.mocks.engine.worldfile`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.jsonpos import duplicate_members
from gqlbench.mocks.engine.problems import dotted
from gqlbench.mocks.engine.worldfile import SECTIONS

__all__ = ["GENERIC_KEYS", "fixture_file", "load_fixture", "starter_fixture", "starter_fixture_files"]

GENERIC_KEYS = SECTIONS
"""The sections of a world file (one typed model each, :mod:`gqlbench.mocks.engine.worldfile`)."""


def _bundled_folder() -> Path:
    return Path(str(resources.files("gqlbench.mocks") / "worlds"))


def fixture_file(domain: str) -> Path:
    """Where the domain's fixture is (it may not exist): next to the catalog folder that has the domain."""
    from gqlbench.specs.catalog import check_domain_name

    return _fixture_file(check_domain_name(domain), os.environ.get("GQLBENCH_CATALOG", ""))


@lru_cache(maxsize=256)
def _fixture_file(domain: str, catalog: str) -> Path:
    """Cached per catalog setting: a worker makes a world per program, and listing folders costs."""
    from gqlbench.specs.catalog import catalog_roots, contained

    for root in catalog_roots():
        if domain in root.domains():
            if root.bundled:
                return _bundled_folder() / f"{domain}.json"
            path = root.specs_dir.parent / "worlds" / f"{domain}.json"
            return contained(path, root.specs_dir.parent) if path.exists() else path  # a link leaving the catalog is refused
    return _bundled_folder() / f"{domain}.json"


def load_fixture(domain: str, path: Path | str | None = None) -> dict[str, Any]:
    """The fixture as JSON; ``{}`` when a domain has none (an explicit ``path`` must exist)."""
    file = Path(path) if path is not None else fixture_file(domain)
    if not file.is_file():
        if path is not None:
            raise GqlbenchError(f"{file}: no such world fixture; pass an existing JSON file")
        return {}
    text = file.read_text(encoding="utf-8")
    twice: list[bool] = []  # set when an object has a key twice; duplicate_members then finds where
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: _members(pairs, twice))
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{file}:{exc.lineno}: the world fixture is not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise GqlbenchError(f"{file}: the world fixture is nested too deep to read; a world file is at most 64 levels deep") from None
    if twice:
        raise GqlbenchError(
            "\n".join(
                f"{file}:{line}: {dotted(path)}: written twice in one object (JSON keeps only the last); keep one"
                for path, line in duplicate_members(text)
            )
        )
    if not isinstance(data, dict):
        raise GqlbenchError(f"{file}: a world fixture must be a JSON object (keys: {', '.join(sorted(GENERIC_KEYS))})")
    return data  # its sections are checked by gqlbench.mocks.engine.worldfile when the world model is built


def _members(pairs: list[tuple[str, Any]], twice: list[bool]) -> dict[str, Any]:
    """An object of the file, noting a key written twice in it (a second definition would silently replace the first)."""
    members = dict(pairs)
    if len(members) < len(pairs):
        twice.append(True)
    return members


def starter_fixture(rules: Iterable[Any], keys: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A fixture that shows the inferred rule of every endpoint, and ``keys`` as kinds' declarations, ready to be edited."""
    return {
        "description": 'Mock world of this domain: add entities under \'entities\' ({"<kind>": [{"<kind>_id": ...}]}) '
        "and change an endpoint's rule under 'endpoints'; see docs/add-your-own-api.md",
        "entities": {},
        **({"kinds": {kind: {"key": key} for kind, key in keys.items()}} if keys else {}),
        "endpoints": {rule.function: rule.describe() for rule in rules},
    }


def starter_fixture_files(
    out: Path, domain: str, specs: Iterable[Mapping[str, Any]], sdls: Mapping[str, str], facts: Mapping[str, Any] | None = None
) -> dict[Path, str]:
    """The starter fixture of an imported domain as ``{path: text}`` (nothing if one exists already).

    ``specs`` are the signatures as JSON (the specs file's entries), ``sdls``
    each endpoint's SDL text and ``facts`` what the OpenAPI file says per SDL
    type (:mod:`gqlbench.schemas.openapi_facts`); the rules are inferred from
    them as the world will infer them (keys named by path parameters, one kind
    per component): the file pins them, so a rule inferred otherwise here
    would override the world's own.
    """
    from graphql import build_ast_schema, parse

    from gqlbench.mocks.engine.components import component_kinds, component_splits, shared_facts
    from gqlbench.mocks.engine.rules import infer_keys, infer_rules
    from gqlbench.records import FunctionSpec
    from gqlbench.schemas.merge import merge_sdl

    bundled = (out / "specs" / "__init__.py").is_file()
    target = (out / "mocks" / "worlds" if bundled else out / "worlds") / f"{domain}.json"
    if target.is_file():
        return {}
    schema = build_ast_schema(parse(merge_sdl(list(sdls.values())))) if sdls else None
    functions = {spec["name"]: FunctionSpec.model_validate(spec) for spec in specs}
    keys = infer_keys(schema, functions)
    same = component_kinds(schema, infer_rules(schema, functions, keys=keys), shared_facts(facts)) if facts else {}
    rules = infer_rules(schema, functions, where=str(target), keys=keys, same=same)
    moves = component_splits(schema, rules, shared_facts(facts)) if facts else {}
    split = {*moves.values(), *(rules[f].kind or "" for f in moves)}  # the kinds moved to and from
    if moves:  # endpoints of another component's kind: their keys and kinds written down, as inference by paths would not find them
        keys = infer_keys(schema, functions, kinds=moves)
        rules = infer_rules(schema, functions, {f: {"kind": k} for f, k in moves.items()}, str(target), keys, same)
    return {target: json.dumps(starter_fixture(rules.values(), {k: keys[k] for k in sorted(split & set(keys))}), indent=2) + "\n"}
