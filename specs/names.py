"""The one rule for what an endpoint's function name looks like: ``<HTTP method>_<path>``.

The dataset names every endpoint after its method and path
(``GET_tv__tv_id_``), and so does ``gqlbench domains import-openapi``. The
metrics use the rule to count a call the catalog does not know as an API call
(a hallucinated endpoint), the domain checks to flag such names in gold
programs, and the sandbox to tell "an endpoint this domain lacks" apart from a
plain undefined name. Standard library only: the sandbox's workers import it.
"""

from __future__ import annotations

import re

__all__ = ["HTTP_METHODS", "ENDPOINT_NAME", "looks_like_endpoint_name"]

HTTP_METHODS: tuple[str, ...] = ("get", "put", "post", "delete", "patch")
"""The methods an endpoint may have, as OpenAPI spells them (lower case)."""

ENDPOINT_NAME = re.compile(rf"^({'|'.join(m.upper() for m in HTTP_METHODS)})_")


def looks_like_endpoint_name(name: str) -> bool:
    """Whether ``name`` is spelled like an endpoint (``GET_...``, ``POST_...``), known or not."""
    return ENDPOINT_NAME.match(name) is not None
