"""Utterances for drafts, from templates built from the endpoints' descriptions and the literals.

Every literal the program passes is written in the utterance (a search text
in quotes, another parameter as ``param "value"``), so a model is never asked
to guess a value; a value read from a response is described by where it sits
(``the first author``), never written. A few phrasings per shape; the seeded
RNG chooses.
"""

from __future__ import annotations

import random
import re

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
    """A string in plain double quotes (as written, so the program's value appears verbatim), a number as is."""
    return f'"{value}"' if isinstance(value, str) else str(value)


_VERBS = frozenset({
    "get", "list", "search", "create", "add", "remove", "delete", "return", "borrow", "check", "change", "update", "discover",
    "save", "follow", "unfollow", "pause", "start", "resume", "skip", "set", "seek", "transfer", "toggle", "find", "fetch",
    "show", "retrieve", "replace", "upload", "rate", "navigate", "move", "fly", "dock", "orbit", "refuel", "cancel", "reorder",
    "view", "attempt", "activate", "command", "jettison", "accept", "deliver", "fulfill", "fulfil", "extract", "purchase",
    "sell", "refine", "register", "jump", "warp", "chart", "survey", "scan", "buy", "send", "post", "put", "read", "look",
})
_CONDITION = re.compile(r"^(?:if|when|to)\b[^,]*,\s*(?:you can\s+|you may\s+)?", re.IGNORECASE)  # "If you want X, you can survey..."


def _action(description: str) -> str:
    """The description as an instruction: ``Get an album`` stays, a noun phrase (``Every tag``) becomes ``get every tag``.

    A leading condition is dropped ("If you want to target specific yields,
    you can survey a waypoint" -> "survey a waypoint").
    """
    stripped = _CONDITION.sub("", description, count=1)
    description = stripped if stripped and stripped != description and stripped.split(" ", 1)[0].lower() in _VERBS else description
    text = description[:1].lower() + description[1:]
    first, _, rest = text.partition(" ")
    word = first.strip(",.;:").lower()
    if word in _VERBS:
        return text
    for stem in (word[:-1], word[:-2]):  # "Skips to next track": skip to next track
        if word.endswith("s") and stem in _VERBS:
            return f"{stem} {rest}".strip()
    return f"get {text}"


def _describe(graph: DataflowGraph, call: Call) -> str:
    """The endpoint's description with the call's literals stated."""
    endpoint = graph.endpoints[call.function]
    text = _action(endpoint.description)
    literals = call.literals()
    search = [v for p, v in literals if p == endpoint.text_param]
    others = [f'{p} {_literal(v)}' for p, v in literals if p != endpoint.text_param]
    if search:
        text += f" matching {_literal(search[0])}"
    if others:
        text += f" ({', '.join(others)})"
    return text


def _ordinal(index: int) -> str:
    return _ORDINALS[index] if index < len(_ORDINALS) else f"#{index + 1}"


def _where(ref: Ref) -> str:
    """Where a value sits, outermost last: ``items[0].track.artists[0].id`` -> ``the id of the first artist of the first track``.

    A generic holder (``items``, ``results``) names its element by the field
    inside it (``items[0].track`` is the first track) or by the field that
    holds it (``artists.items[0]`` is the first artist), else "result".
    """
    parts: list[tuple[str, int | None]] = []
    for part in ref.path[:-1]:
        if isinstance(part, int):
            parts[-1] = (parts[-1][0], part)
        else:
            parts.append((singular(part), None))
    merged: list[tuple[str, int | None]] = []
    for noun, index in parts:
        if merged and is_generic(merged[-1][0]) and not is_generic(noun) and (merged[-1][1] is None or index is None):
            merged[-1] = (noun, merged[-1][1] if merged[-1][1] is not None else index)  # items[0].track: the first track
        elif merged and not is_generic(merged[-1][0]) and merged[-1][1] is None and is_generic(noun):
            merged[-1] = (merged[-1][0], index)  # artists.items[0]: the first artist
        else:
            merged.append((noun, index))
    if not merged:
        return f"its {ref.path[-1]}"
    named = [("result" if is_generic(noun) else noun.replace("_", " "), index) for noun, index in merged]
    places = [f"the {_ordinal(index)} {noun}" if index is not None else f"the {noun}" for noun, index in reversed(named)]
    return f"the {ref.path[-1]} of " + " of ".join(places)


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
