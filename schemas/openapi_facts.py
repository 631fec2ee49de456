"""What an OpenAPI file says about each response field, kept beside the SDL so the mock world need not guess it.

The SDL a model reads holds names and types only (StepZen's style, and what
the prompts show). An OpenAPI file says more: a field's ``enum``, its
``example``/``examples``, its ``default`` and ``format`` (``date-time``,
``email``, ``uri``...), and which component (``$ref`` target) an object is.
:func:`response_facts` walks an operation's response schema the way
:func:`gqlbench.schemas.openapi.schema_shape` does and records those facts
by the *path* of each field in the response (``owner.login``,
``items[].state``, ``[].name`` for a top-level array); the SDL writer tells
which type each path became, so the import stores them per SDL type and
field in a side-car file, ``schemas/<domain>/openapi_facts.json``
(:data:`FACTS_FILE`)::

    {"version": 1,
     "types": {"GET_repos__owner___repo__Root": {"component": "full-repository",
                                                  "fields": {"visibility": {"enum": ["public", "private"]},
                                                             "created_at": {"format": "date-time",
                                                                            "examples": ["2011-01-26T19:01:12Z"]}}}}}

A side-car, not SDL directives: the SDL is merged, split and printed into
prompts, and none of that should carry (or be able to lose) these facts. A
domain without the file (every catalog made before it, the bundled ones)
reads as having no facts, and a newer ``version`` than :data:`FACTS_VERSION`
is refused with the fix. Example values of a field also come from the
operation's example response bodies. Values are bounded (:data:`MAX_VALUES`
enum values and :data:`MAX_EXAMPLES` examples per field, :data:`MAX_TEXT`
characters per string), so a huge enum or example
cannot bloat the catalog.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.specs.openapi import resolve

__all__ = [
    "FACTS_FILE",
    "FACTS_VERSION",
    "MAX_TEXT",
    "MAX_VALUES",
    "MAX_EXAMPLES",
    "FIELD_KEYS",
    "PathFacts",
    "response_facts",
    "example_facts",
    "type_facts",
    "merge_facts_text",
    "read_facts",
]

FACTS_FILE = "openapi_facts.json"
"""The side-car file's name in ``schemas/<domain>/``."""
FACTS_VERSION = 1
MAX_VALUES = 100
"""Most enum values kept per field."""
MAX_EXAMPLES = 3
"""Most examples kept per field (a big spec's example responses repeat a field's values many times over)."""
MAX_TEXT = 200
"""Longest string value kept (longer examples are prose, not values to reuse)."""
FIELD_KEYS = ("enum", "examples", "default", "format")
"""What a field's entry may hold."""
_COMPONENT_PREFIX = "#/components/schemas/"
_MAX_DEPTH = 32
_MAX_NODES = 20_000

PathFacts = dict[str, dict[str, Any]]
"""Response path (``owner.login``; ``""`` for the root object) -> facts; an object's facts may hold ``component``."""


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _value(value: Any) -> bool:
    """Whether a value is worth keeping: a JSON scalar, not a long text."""
    if isinstance(value, str):
        return len(value) <= MAX_TEXT
    return isinstance(value, (int, float, bool))


def _add(facts: PathFacts, path: str, key: str, values: list[Any]) -> None:
    entry = facts.setdefault(path, {})
    kept = entry.setdefault(key, [])
    most = MAX_EXAMPLES if key == "examples" else MAX_VALUES
    for value in values:
        if _value(value) and value not in kept and len(kept) < most:
            kept.append(value)
    if not kept:
        del entry[key]


def _leaf(facts: PathFacts, path: str, schema: dict[str, Any]) -> None:
    """Record a scalar schema's enum, examples, default and format at ``path``."""
    if isinstance(schema.get("enum"), list):
        _add(facts, path, "enum", [v for v in schema["enum"] if v is not None])
    examples = [schema["example"]] if "example" in schema else []
    if isinstance(schema.get("examples"), list):  # 3.1: a JSON Schema list of examples
        examples += schema["examples"]
    _add(facts, path, "examples", examples)
    entry = facts.setdefault(path, {})
    if "default" in schema and _value(schema["default"]):
        entry.setdefault("default", schema["default"])
    if isinstance(schema.get("format"), str):
        entry.setdefault("format", schema["format"])
    if not entry:
        del facts[path]


class _Walk:
    """One response schema's walk; ``nodes`` bounds it like :class:`~gqlbench.schemas.openapi.SchemaBudget`."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.facts: PathFacts = {}
        self.nodes = 0

    def walk(self, schema: Any, path: str, refs: tuple[str, ...] = (), depth: int = 0, listed: bool = False) -> None:
        self.nodes += 1
        if self.nodes > _MAX_NODES or depth > _MAX_DEPTH or not isinstance(schema, dict):
            return
        if isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            if ref in refs:
                return
            if ref.startswith(_COMPONENT_PREFIX):
                self.facts.setdefault(path, {}).setdefault("component", ref[len(_COMPONENT_PREFIX) :])
            self.walk(resolve(self.doc, schema), path, (*refs, ref), depth, listed)
            return
        for key in ("allOf", "oneOf", "anyOf"):
            for part in schema.get(key) or ():
                self.walk(part, path, refs, depth + 1, listed)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind == "array" or (kind is None and "items" in schema):
            self.walk(schema.get("items"), path if listed else f"{path}[]", refs, depth + 1, listed=True)
        elif isinstance(schema.get("properties"), dict):
            for name, sub in schema["properties"].items():
                self.walk(sub, _child(path, str(name)), refs, depth + 1)
        elif kind in ("string", "integer", "number", "boolean"):
            _leaf(self.facts, path.removesuffix("[]") if listed else path, schema)


def response_facts(doc: dict[str, Any], schema: Any) -> PathFacts:
    """The facts of every field of a response schema, by response path (``""`` is the root)."""
    walk = _Walk(doc)
    walk.walk(schema, "")
    return {path: entry for path, entry in walk.facts.items() if entry}


def example_facts(bodies: list[Any], known: PathFacts | None = None) -> PathFacts:
    """``known`` plus the scalar values the example response bodies show, by response path (as ``examples``)."""
    facts: PathFacts = {path: {k: list(v) if isinstance(v, list) else v for k, v in entry.items()} for path, entry in (known or {}).items()}

    def visit(value: Any, path: str, depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        if isinstance(value, dict):
            for name, inner in value.items():
                visit(inner, _child(path, str(name)), depth + 1)
        elif isinstance(value, list):
            for item in value[:MAX_VALUES]:
                if isinstance(item, (dict, list)):
                    visit(item, path if path.endswith("[]") else f"{path}[]", depth + 1)
                else:
                    _add(facts, path, "examples", [item])
        elif value is not None:
            _add(facts, path, "examples", [value])

    for body in bodies:
        visit(body, "", 0)
    return {path: entry for path, entry in facts.items() if entry}


def type_facts(facts: PathFacts, types: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Path facts as SDL type facts: ``types`` maps an object's path to the type the writer named for it.

    A field's facts go to the type of its parent path, under the field's name;
    an object's ``component`` goes to its own type. Paths whose type was not
    written (a field left out, an object typed ``JSON``) are dropped.
    """
    out: dict[str, dict[str, Any]] = {}
    for path, entry in sorted(facts.items()):
        component = entry.get("component")
        if component is not None and path in types:
            out.setdefault(types[path], {})["component"] = component
        field_entry = {k: entry[k] for k in FIELD_KEYS if k in entry}
        if not field_entry:
            continue
        parent, _, name = path.rpartition(".")
        if parent in types and name:
            out.setdefault(types[parent], {}).setdefault("fields", {})[name] = field_entry
    return out


def merge_facts_text(old: str | None, new: dict[str, dict[str, Any]]) -> str:
    """The side-car's text: the old file's types, those of ``new`` replacing theirs (an import of more endpoints)."""
    types = dict(_parse(old, FACTS_FILE)["types"]) if old else {}
    types.update(new)
    return json.dumps({"version": FACTS_VERSION, "types": dict(sorted(types.items()))}, indent=0, sort_keys=True, default=str) + "\n"


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{where}:{exc.lineno}: not valid JSON ({exc.msg}); import the domain again to rewrite it") from None
    if not isinstance(data, dict) or not isinstance(data.get("types"), dict):
        raise GqlbenchError(f'{where}: expected {{"version": {FACTS_VERSION}, "types": {{...}}}}; import the domain again to rewrite it')
    version = data.get("version")
    if not isinstance(version, int) or version > FACTS_VERSION:
        raise GqlbenchError(f"{where}: version {version!r} is newer than this gqlbench reads ({FACTS_VERSION}); upgrade gqlbench")
    return data


def read_facts(folder: Path | None) -> dict[str, dict[str, Any]]:
    """The type facts of a domain's schemas folder; ``{}`` when it has no side-car (catalogs made before it)."""
    file = folder / FACTS_FILE if folder is not None else None
    if file is None or not file.is_file():
        return {}
    return dict(_parse(file.read_text(encoding="utf-8"), str(file))["types"])
