"""Field values from what the OpenAPI file says about them (``schemas/<domain>/openapi_facts.json``).

:func:`gqlbench.mocks.server.resolvers.generate_value` invents every value
the world does not store; for a domain imported from an OpenAPI file it
first asks :func:`spec_value`, which reads the field's facts
(:mod:`gqlbench.schemas.openapi_facts`) in this order:

1. ``enum``: one of its values, picked by the seed and the value's place;
2. ``format``: a value of that format (``date``, ``date-time``, ``time``,
   ``email``, ``uri``/``url``, ``uuid``, ``ipv4``, ``ipv6``, ``hostname``; when
   the schema names none, the one all examples are written in: URLs, emails,
   timestamps), borrowing the example's host (``octocat@github.com`` ->
   ``k3x9ab@github.com``, ``https://api.github.com/...`` ->
   ``https://api.github.com/k3x9ab``);
3. ``examples``: one of them; for a key-like field (:func:`is_keyish`:
   ``login``, ``name``, ``slug``, ``*_id``...) the example with a short suffix
   of the value's place (``octocat-k3x9``, ``example-k3x9.com``), so two
   entities never share a key, and a numeric key takes no example;
4. ``default``.

A field without facts gets the name-based value it always got, except that a
key-like string is written without spaces (``name-z0xdil``, not
``name Z0Xdil``): a value a later call may pass as a key looks like one.
Every choice is derived with SHA-256 from the seed and the place, like the
rest of the world. Domains without the side-car keep their values exactly
(the bundled catalogs' recorded traces depend on them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gqlbench.mocks.engine.world import World, stable_int, stable_token

__all__ = ["MISSING", "domain_facts", "field_facts", "is_keyish", "spec_value", "key_string"]

MISSING = object()
"""What :func:`spec_value` returns when the facts give no value of the field's type."""

_KEY_NAMES = ("id", "key", "login", "username", "slug", "symbol", "gid", "uuid", "sha", "name", "number", "handle", "code")
_CAMEL_TAIL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def is_keyish(name: str) -> bool:
    """Whether a field's value may be passed as a key (``login``, ``name``, ``task_gid``, ``shipSymbol``, ``node_id``)."""
    last = re.split(r"[_\-]", _CAMEL_TAIL.sub("_", name))[-1].lower()
    return last in _KEY_NAMES


def _typed(value: Any, scalar: str) -> bool:
    """Whether a JSON value fits a GraphQL scalar (``JSON`` takes any; ``Int`` is 32-bit, as GraphQL says)."""
    if scalar == "Int":
        return isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31
    if scalar == "Float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if scalar == "Boolean":
        return isinstance(value, bool)
    if scalar == "Date":
        return isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None
    if scalar in ("String", "ID", "DateTime"):
        return isinstance(value, str)
    return scalar == "JSON"


def _host(example: Any) -> str | None:
    """``https://api.github.com`` of a URL example, ``github.com`` of an email example."""
    if not isinstance(example, str):
        return None
    if "@" in example and " " not in example:
        return example.rsplit("@", 1)[1] or None
    found = re.match(r"^[a-z][a-z0-9+.-]*://[^/\s{}]+", example)
    return found.group(0) if found else None


def _formatted(fmt: str, n: int, token: str, hosts: list[str], domain: str) -> str | None:
    """A value of an OpenAPI string format, or None for a format without a generator here."""
    day = f"{1970 + n % 54}-{1 + n % 12:02d}-{1 + n % 28:02d}"
    clock = f"{n % 24:02d}:{n % 60:02d}:{(n // 60) % 60:02d}"
    fmt = fmt.lower()
    if fmt == "date":
        return day
    if fmt in ("date-time", "datetime"):
        return f"{day}T{clock}Z"
    if fmt in ("time", "partial-time"):
        return clock
    if fmt in ("email", "idn-email"):
        host = next((h for h in hosts if "://" not in h), "example.com")
        return f"{token[:6].lower()}@{host}"
    if fmt in ("uri", "url", "iri", "uri-reference", "iri-reference"):
        origin = next((h for h in hosts if "://" in h), f"https://{domain}.example")
        return f"{origin}/{token[:8].lower()}"
    if fmt == "uuid":
        hexed = f"{n:016x}{n ^ 0x5DEECE66D:016x}"[:32].rjust(32, "0")
        return f"{hexed[:8]}-{hexed[8:12]}-4{hexed[13:16]}-a{hexed[17:20]}-{hexed[20:32]}"
    if fmt == "ipv4":
        return f"10.{n % 256}.{(n >> 8) % 256}.{1 + (n >> 16) % 254}"
    if fmt == "ipv6":
        return f"2001:db8::{n % 65536:x}:{(n >> 16) % 65536:x}"
    if fmt in ("hostname", "idn-hostname"):
        return f"{token[:8].lower()}.example.com"
    return None


_SHAPES = (
    ("uri", re.compile(r"^https?://\S+$")),
    ("email", re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]+$")),
    ("date-time", re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")),
)


def _format_of(examples: list[Any]) -> str | None:
    """The format every example is written in (URLs, emails, timestamps), when the schema names none.

    An example URL names one entity (``.../repos/octocat/Hello-World``); shown
    for every entity it would be a wrong link, so such fields get values of
    the format instead, on the example's host.
    """
    strings = [e for e in examples if isinstance(e, str)]
    for fmt, shape in _SHAPES:
        if strings and all(shape.match(e) for e in strings):
            return fmt
    return None


def key_string(example: str, token: str) -> str:
    """A key-like example made unique for its place: ``octocat`` -> ``octocat-k3x9``, ``example.com`` -> ``example-k3x9.com``.

    A key goes into a URL path, so an example with spaces or slashes is slugified
    (``My Pub/Sub hook`` -> ``my-pub-sub-hook-k3x9``).
    """
    suffix = token[:4].lower()
    if re.search(r"[^\w.\-]", example):
        return f"{re.sub(r'[^a-z0-9]+', '-', example.lower()).strip('-') or 'key'}-{suffix}"
    head, dot, tail = example.partition(".")
    if dot and head and tail and "/" not in example:
        return f"{head}-{suffix}.{tail}"
    return f"{example}-{suffix}"


def domain_facts(world: World) -> Mapping[str, Any]:
    """The type facts of the world's domain (its model read them with the catalog); ``{}`` without a side-car."""
    return getattr(world.model, "facts", None) or {}


def field_facts(world: World, parent: str | None, name: str) -> Mapping[str, Any] | None:
    """What the OpenAPI file says about field ``name`` of type ``parent``, if anything."""
    if parent is None:
        return None
    entry = domain_facts(world).get(parent)
    return (entry.get("fields") or {}).get(name) if entry else None


def spec_value(facts: Mapping[str, Any], scalar: str, world: World, key: str, name: str) -> Any:
    """The field's value from its facts (see the module docstring), or :data:`MISSING`."""
    n = stable_int(world.domain, world.seed, key, "spec")
    token = stable_token(world.domain, world.seed, key, "spec", length=12)
    enum = [v for v in facts.get("enum") or () if _typed(v, scalar)]
    if enum:
        return enum[n % len(enum)]
    examples = list(facts.get("examples") or ())
    fmt = facts.get("format") or _format_of(examples)
    if isinstance(fmt, str) and scalar in ("String", "ID", "Date", "DateTime", "JSON"):
        value = _formatted(fmt, n, token, [h for e in examples if (h := _host(e))], world.domain)
        if value is not None:
            return value
    typed = [e for e in examples if _typed(e, scalar)]
    if typed and is_keyish(name):
        strings = [e for e in typed if isinstance(e, str) and e.strip() and len(e) <= 40]
        return key_string(strings[n % len(strings)], token) if strings else MISSING
    if typed:
        return typed[n % len(typed)]
    if "default" in facts and _typed(facts["default"], scalar):
        return facts["default"]
    return MISSING
