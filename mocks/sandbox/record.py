"""What a sandbox worker records of a program: bounded text built from the program's objects.

Runs inside a worker, while the job's limits still hold (see
:func:`gqlbench.mocks.sandbox.worker._run`): a program's values can be made
cheaply and become huge only when written out (``[s] * 300`` is 300
references to one string, and 300 copies as JSON; an integer of 20,000
digits cannot be written as decimal at all). So nothing here writes a value
whole and cuts it afterwards; each function stops writing at its bound:

* an argument whose JSON text is longer than ``SandboxLimits.max_argument_chars``
  is recorded as the start of that text (a string) with a note, and its
  name is listed in the call's ``truncated``; an integer too large to write
  becomes ``<int of about N digits>`` (listed too);
* a trace records calls until their JSON reaches ``SandboxLimits.max_trace_chars``;
  the calls after that are counted (``Trace.calls_left_out``), not recorded;
* an error message is at most :data:`MAX_MESSAGE_CHARS`, written from a
  bounded ``repr`` of the exception's arguments.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Iterable, Mapping
from typing import Any

from gqlbench.mocks.sandbox.limits import SandboxLimits, cut

__all__ = ["MAX_MESSAGE_CHARS", "json_text", "record_calls", "message_text", "short_repr"]

MAX_MESSAGE_CHARS = 2_000  # an error message, a call's error
_MAX_NAME_CHARS = 200  # a function or argument name, an id of a response
_MAX_IDS = 20  # response ids per call (the runtime's own bound, enforced again here)
_MAX_DEPTH = 50  # nesting written before a value is cut


class _Full(Exception):
    """The text reached its bound."""


class _Writer:
    """Collects JSON text and stops (raises :class:`_Full`) once it is longer than ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.cut = False  # something was replaced by a placeholder, or the text was cut

    def emit(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size > self.limit:
            self.cut = True
            raise _Full

    def room(self) -> int:
        return max(self.limit - self.size, 0) + 1  # one more character than fits: then it is known not to fit

    def placeholder(self, text: str) -> None:
        self.cut = True
        self.emit(text)

    def value(self, value: Any, depth: int = 0) -> None:
        if depth > _MAX_DEPTH:
            self.placeholder("<nested too deeply>")
        elif value is None or isinstance(value, bool):
            self.emit({None: "null", True: "true", False: "false"}[value])
        elif isinstance(value, str):
            self.emit(json.dumps(value[: self.room()], ensure_ascii=False))
        elif isinstance(value, int):
            self.integer(value)
        elif isinstance(value, float):
            self.emit(json.dumps(value))
        elif isinstance(value, Mapping):
            self.emit("{")
            for number, (key, inner) in enumerate(value.items()):
                self.emit(", " if number else "")
                self.emit(json.dumps(_key(key)[: self.room()], ensure_ascii=False) + ": ")
                self.value(inner, depth + 1)
            self.emit("}")
        elif isinstance(value, (list, tuple)):
            self.emit("[")
            for number, inner in enumerate(value):
                self.emit(", " if number else "")
                self.value(inner, depth + 1)
            self.emit("]")
        else:  # what JSON does not know is written as its str(), as json.dumps(default=str) does
            try:
                text = str(value)
            except Exception:
                text = f"<unprintable {type(value).__name__}>"
            self.emit(json.dumps(text[: self.room()], ensure_ascii=False))

    def integer(self, value: int) -> None:
        digits = int(abs(value).bit_length() * 0.30103) + 1  # decimal digits, give or take one
        if digits > self.room():
            self.placeholder(f"<int of about {digits} digits>")
            return
        try:
            self.emit(str(int(value)))
        except ValueError:  # over Python's limit for writing an int as decimal (4,300 digits)
            self.placeholder(f"<int of about {digits} digits>")


def _key(key: Any) -> str:
    """A mapping key as JSON writes it (``True`` -> ``"true"``, ``1`` -> ``"1"``), else its ``str``."""
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, str):
        return key
    if isinstance(key, (int, float)):
        return json_text(key, _MAX_NAME_CHARS)[0]
    try:
        return str(key)[:_MAX_NAME_CHARS]
    except Exception:
        return f"<unprintable {type(key).__name__}>"


def json_text(value: Any, limit: int) -> tuple[str, bool]:
    """``(text, cut)``: ``value``'s JSON text, cut with a note when longer than ``limit`` characters.

    ``cut`` is also true when part of the value could not be written (an
    integer too large, nesting too deep) and a placeholder stands for it; the
    text is then no longer JSON. Work and memory are proportional to
    ``limit``, not to the value.
    """
    writer = _Writer(limit)
    try:
        writer.value(value)
    except _Full:
        return cut("".join(writer.parts), limit), True
    except RecursionError:  # a value nested in a way _MAX_DEPTH did not catch (a custom mapping)
        return cut("".join(writer.parts) + "<nested too deeply>", limit), True
    return "".join(writer.parts), writer.cut


def _field(call: Any, name: str, default: Any) -> Any:
    return call.get(name, default) if isinstance(call, Mapping) else getattr(call, name, default)


def _record_call(call: Any, limits: SandboxLimits, room: int) -> dict[str, Any]:
    """One call as a JSON-ready record whose arguments fit ``room`` characters in all."""
    arguments: dict[str, Any] = {}
    truncated: list[str] = []
    given = _field(call, "arguments", None) or {}
    items = given.items() if isinstance(given, Mapping) else [("arguments", given)]
    for name, value in items:
        key = _key(name)[:_MAX_NAME_CHARS]
        text, was_cut = json_text(value, max(min(limits.max_argument_chars, room), 0))
        room -= len(text)
        if was_cut:
            truncated.append(key)
            arguments[key] = text
        else:
            arguments[key] = json.loads(text)  # small; JSON's own form (tuples are lists, objects their str)
    ids = _field(call, "response_ids", None) or []
    error = _field(call, "error", None)
    record: dict[str, Any] = {
        "function": cut(str(_field(call, "function", "")), _MAX_NAME_CHARS),
        "arguments": arguments,
        "response_ids": [cut(str(i), _MAX_NAME_CHARS) for i in list(ids)[:_MAX_IDS]],
        "error": None if error is None else cut(str(error), MAX_MESSAGE_CHARS),
    }
    if truncated:
        record["truncated"] = truncated
    return record


def record_calls(calls: Iterable[Any], limits: SandboxLimits) -> tuple[list[dict[str, Any]], int]:
    """``(records, left_out)``: the calls as bounded JSON-ready records, and how many did not fit.

    A call is a :class:`~gqlbench.records.TraceCall` or a mapping with its
    fields. Records are kept while their JSON text (as a list) fits in
    ``limits.max_trace_chars``; an argument is cut to the room left, and
    the first call that does not fit ends the record.
    """
    records: list[dict[str, Any]] = []
    room = limits.max_trace_chars
    left_out = 0
    for call in calls:
        if not left_out:
            record = _record_call(call, limits, room)
            size = len(json.dumps(record, ensure_ascii=False)) + 2  # and its separator in the list
            if size <= room:
                records.append(record)
                room -= size
                continue
        left_out += 1
    return records, left_out


class _BoundedRepr(reprlib.Repr):
    """``repr`` with every part bounded, integers included (``repr`` of a huge int raises)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = self.maxlong = MAX_MESSAGE_CHARS
        self.maxlevel = 4
        self.maxtuple = self.maxlist = self.maxset = self.maxfrozenset = self.maxdeque = self.maxarray = 10
        self.maxdict = 10

    def repr_int(self, x: int, level: int) -> str:
        text, _ = json_text(x, self.maxlong)
        return text


_REPR = _BoundedRepr()


def short_repr(value: Any, limit: int) -> str:
    """``repr(value)`` cut at ``limit`` characters, written from a bounded ``repr`` (never the whole value)."""
    try:
        text = _REPR.repr(value)
    except Exception:
        text = f"<unprintable {type(value).__name__}>"
    return text[:limit]


_ARGS_STR = {BaseException.__str__: str, KeyError.__str__: _REPR.repr}  # how these types write one argument


def message_text(exc: BaseException, limit: int = MAX_MESSAGE_CHARS, *, with_type: bool = False) -> str:
    """``str(exc)`` (after ``Type: `` ``with_type``), at most ``limit`` characters and a note, never written whole.

    Built-in exceptions are written from a bounded ``repr`` of their arguments
    (``KeyError(huge_tuple)`` would otherwise write the whole tuple); other
    types' own ``__str__`` is called, under the job's limits.
    """
    try:
        writes_one = _ARGS_STR.get(type(exc).__str__)
        if writes_one is None:
            text = str(exc)
        elif not exc.args:
            text = ""
        elif len(exc.args) == 1:
            arg = exc.args[0]
            text = arg[: limit + 1] if isinstance(arg, str) and writes_one is str else _REPR.repr(arg)
        else:
            text = _REPR.repr(exc.args)
    except Exception:  # MemoryError included: a message too large to build under the job's limits
        text = f"<the message of this {type(exc).__name__} could not be written within the job's limits>"
    if with_type:
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return cut(text, limit)
