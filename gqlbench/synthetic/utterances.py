"""Utterances for drafts, from templates built from the endpoints' descriptions and the literals.

Every literal the program passes is written in the utterance (a search text
in quotes, another parameter as ``param "value"``), so a model is never asked
to guess a value; a value read from a response is described by where it sits
(``the first author``), never written. A few phrasings per shape; the seeded
RNG chooses.
"""

from __future__ import annotations

import json
import random

from gqlbench.mocks.kinds import is_generic, singular
from gqlbench.synthetic.graph import DataflowGraph
from gqlbench.synthetic.sampler import Call, Draft, Ref

__all__ = ["utterance"]

_SINGLE = ("{start}.", "Please {start_l}.", "I'd like you to {start_l}.")
_CHAIN = ("{start}, then {steps}.", "First {start_l}. After that, {steps}.", "{start}; using the result, {steps}.")
_FAN_OUT = ("{start}. With that, {a}, and also {b}.", "{start}, then both {a} and {b}.",
            "First {start_l}; from the same response, {a} and {b}.")


_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def _literal(value: str | int) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


_VERBS = frozenset({
    "get", "list", "search", "create", "add", "remove", "delete", "return", "borrow", "check", "change", "update", "discover",
    "save", "follow", "unfollow", "pause", "start", "resume", "skip", "set", "seek", "transfer", "toggle", "find", "fetch",
    "show", "retrieve", "replace", "upload", "rate", "navigate", "move", "fly", "dock", "orbit", "refuel", "cancel", "reorder",
})


def _action(description: str) -> str:
    """The description as an instruction: ``Get an album`` stays, a noun phrase (``Every tag``) becomes ``get every tag``."""
    text = description[:1].lower() + description[1:]
    first = text.split(" ", 1)[0].strip(",.;:").lower()
    return text if first in _VERBS else f"get {text}"


def _describe(graph: DataflowGraph, call: Call) -> str:
    """The endpoint's description with the call's literals stated."""
    endpoint = graph.endpoints[call.function]
    text = _action(endpoint.description)
    literals = call.literals()
    search = [v for p, v in literals if p == endpoint.text_param]
    others = [f'{p} {_literal(v)}' for p, v in literals if p != endpoint.text_param]
    if search:
        text += f" for {_literal(search[0])}"
    if others:
        text += f" ({', '.join(others)})"
    return text


def _where(ref: Ref) -> str:
    """``("docs", 0, "authors", 0, "author_id")`` -> ``the first author's author_id``."""
    holders = [p for p in ref.path[:-1] if isinstance(p, str)]
    named = [singular(h) for h in holders if not is_generic(singular(h))]
    key = str(ref.path[-1])
    if not holders:
        return f"its {key}"
    indices = [p for p in ref.path if isinstance(p, int)]
    thing = (named[-1] if named else "result").replace("_", " ")
    which = f"the {_ORDINALS[indices[-1]] if indices[-1] < len(_ORDINALS) else f'#{indices[-1] + 1}'}" if indices else "its"
    return f"the {key} of {which} {thing}"


def _step(graph: DataflowGraph, call: Call) -> str:
    refs = call.refs()
    where = " and ".join(_where(r) for _, r in refs)
    return f"{_describe(graph, call)}, using {where}"


def utterance(graph: DataflowGraph, draft: Draft, rng: random.Random) -> str:
    """The request a user would write for ``draft``."""
    start_l = _describe(graph, draft.calls[0])
    fields = {"start_l": start_l, "start": start_l[:1].upper() + start_l[1:]}
    if draft.shape == "single":
        template = rng.choice(_SINGLE)
    elif draft.shape == "fan_out":
        template = rng.choice(_FAN_OUT)
        fields |= {"a": _step(graph, draft.calls[1]), "b": _step(graph, draft.calls[2])}
    else:
        template = rng.choice(_CHAIN)
        fields["steps"] = ", then ".join(_step(graph, c) for c in draft.calls[1:])
    return " ".join(template.format(**fields).split())
