"""The naming rules: an endpoint's function name ``<HTTP method>_<path>``, and plain parameter names.

The dataset names every endpoint after its method and path
(``GET_tv__tv_id_``), and so does ``gqlbench domains import-openapi``. The
metrics use the rule to count a call the catalog does not know as an API call
(a hallucinated endpoint), the domain checks to flag such names in gold
programs, and the sandbox to tell "an endpoint this domain lacks" apart from a
plain undefined name. Standard library only: the sandbox's workers import it.

A parameter name reaches two languages: generated Python passes it as a
keyword (``f(class=1)`` does not parse) and the response SDL declares it as a
GraphQL argument (names starting with ``__`` are reserved there). An imported
API's names that break either are renamed by :func:`parameter_name`, and
``gqlbench domains check`` reports them in an existing catalog
(:func:`reserved_name_problem`).
"""

from __future__ import annotations

import keyword
import re

__all__ = ["HTTP_METHODS", "ENDPOINT_NAME", "looks_like_endpoint_name", "endpoint_function_name", "parameter_name", "reserved_name_problem"]

HTTP_METHODS: tuple[str, ...] = ("get", "put", "post", "delete", "patch")
"""The methods an endpoint may have, as OpenAPI spells them (lower case)."""

ENDPOINT_NAME = re.compile(rf"^({'|'.join(m.upper() for m in HTTP_METHODS)})_")
_NOT_NAME_CHARS = re.compile(r"[^0-9A-Za-z_]")


def looks_like_endpoint_name(name: str) -> bool:
    """Whether ``name`` is spelled like an endpoint (``GET_...``, ``POST_...``), known or not."""
    return ENDPOINT_NAME.match(name) is not None


def endpoint_function_name(method: str, path: str) -> str:
    """``("GET", "/tv/{tv_id}")`` -> ``"GET_tv__tv_id_"``, the dataset's naming.

    Every character of the path that cannot be in a Python name (``/``,
    ``{``, ``}``, ``-``, ``.``...) becomes ``_``; the bare root ``/`` is
    ``GET_root`` rather than ``GET_``.
    """
    tail = _NOT_NAME_CHARS.sub("_", path)
    return method.upper() + (tail if tail.strip("_") else "_root")


def parameter_name(name: str) -> str:
    """The name generated code passes (and the SDL declares) for a request parameter called ``name``.

    A dunder loses its underscores (``__class__`` -> ``class_``,
    ``__typename`` -> ``typename``) and a Python keyword gains a trailing
    ``_`` (``class`` -> ``class_``); any other name is kept as written.
    """
    if name.startswith("__"):
        name = (name.strip("_") if name.endswith("__") else name.lstrip("_")) or "param"
    return name + "_" if keyword.iskeyword(name) else name


def reserved_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a parameter or function of generated code, or None when it can."""
    if name.startswith("__"):
        return "begins with '__', which GraphQL reserves, so the response SDL cannot declare it"
    if keyword.iskeyword(name):
        return "is a Python keyword, so generated code cannot pass it"
    return None
