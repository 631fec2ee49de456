"""Every error of a predicted program, by kind: a deterministic taxonomy (docs/errors.md).

:func:`classify` reads the gold and predicted :class:`~.calls.ProgramAnalysis`
and the domain's :class:`~.fields.Catalog` (signatures and response types)
and lists one :class:`ErrorRecord` per problem, in a fixed order:

1. the program as a whole: ``parse_error`` (or ``too_large``), then nothing else
   is read;
2. functions: ``hallucinated_function`` (not in the catalog, or, when the
   prompt's offer is known, in it but neither offered nor in the gold), ``wrong_function``
   (in the catalog, not in the gold), ``missing_call`` and ``extra_call`` (per
   gold function, by count);
3. arguments of each predicted call paired with a gold call of the same
   function (matched calls first, then the closest by agreeing arguments):
   ``missing_argument``, ``wrong_source``, ``wrong_type``, ``wrong_value``; and
   of every predicted call against its signature: ``unknown_argument``,
   ``missing_argument`` (required), ``wrong_type``;
4. ``invalid_field`` and ``wrong_order`` from the response types (:mod:`.fields`)
   and from the order of paired calls on the gold's dataflow edges;
5. when the program was run, the sandbox's own error kind (``refused``,
   ``bad_arguments``, ``unknown_field``, ``not_found``, ``timeout``, ...).

Each defect is counted once: a record that follows from another (a
``wrong_source`` on an argument that passes on an ``invalid_field`` access or
reads the response of a ``hallucinated_function``/``wrong_function`` call)
keeps its place in the list with ``consequence_of`` naming the root cause's
kind, and :func:`count_kinds` leaves it out; so does a sandbox error whose
defect a static record already names (an ``unknown_field`` where the types
forbade the access is that ``invalid_field``). Every headline score below 1 has
at least one root-cause record (calls in another order than the gold's give a
``wrong_order`` even when no dataflow edge is reversed).

A gold program classified against itself has no errors.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, replace

from gqlbench.errors import closest
from gqlbench.metrics.calls import ApiCall, ProgramAnalysis
from gqlbench.metrics.fields import Catalog, FieldProblem, check_fields
from gqlbench.metrics.matching import match_calls
from gqlbench.program import read_program
from gqlbench.records import FunctionSpec, Trace

__all__ = [
    "KINDS",
    "ErrorRecord",
    "classify",
    "exec_errors",
    "mark_exec_consequences",
    "pair_calls",
    "fits_type",
    "count_kinds",
    "root_causes",
]

KINDS: tuple[str, ...] = (
    "parse_error",
    "too_large",
    "hallucinated_function",
    "wrong_function",
    "missing_call",
    "extra_call",
    "missing_argument",
    "unknown_argument",
    "wrong_type",
    "wrong_value",
    "wrong_source",
    "invalid_field",
    "wrong_order",
)
"""The static kinds; execution kinds are the sandbox's own names and come after these."""


@dataclass(frozen=True)
class ErrorRecord:
    """One error: its kind, the call and argument it concerns, and what was expected/got."""

    kind: str
    call: str | None = None  # a call token ("GET_search#2"), predicted unless the call is missing
    argument: str | None = None
    expected: str | None = None
    got: str | None = None
    detail: str | None = None
    consequence_of: str | None = None  # the kind of the root-cause record this one follows from (then it is not counted)

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple, str),  # the dataset passes arrays as comma-separated strings
    "object": (dict,),
}


def fits_type(value: object, json_type: str) -> bool:
    """Whether a literal fits a JSON-schema type (unknown types and ``None`` always fit)."""
    allowed = _JSON_TYPES.get(json_type)
    if allowed is None or value is None:
        return True
    if isinstance(value, bool) and bool not in allowed:
        return False
    return isinstance(value, allowed)


def pair_calls(gold: Sequence[ApiCall], predicted: Sequence[ApiCall]) -> dict[int, ApiCall]:
    """Gold call index -> the predicted call of the same function it is compared with.

    Calls that satisfy a gold call (:func:`.matching.match_calls`) pair first;
    each remaining gold call takes the free predicted call of its function
    that agrees on the most of its arguments (the earliest on ties).
    """
    pairs = {m.gold.index: m.predicted for m in match_calls(gold, predicted) if m.predicted is not None}
    taken = {p.index for p in pairs.values()}
    for g in gold:
        if g.index in pairs:
            continue
        free = [p for p in predicted if p.name == g.name and p.index not in taken]
        if free:
            best = max(free, key=lambda p: (sum(p.args.get(k) == v for k, v in g.args.items()), -p.index))
            pairs[g.index] = best
            taken.add(best.index)
    return pairs


def _function_errors(
    gold: ProgramAnalysis, predicted: ProgramAnalysis, catalog: Catalog, pairs: Mapping[int, ApiCall], offered: Collection[str] | None
) -> list[ErrorRecord]:
    errors = []
    gold_names = Counter(gold.names)
    paired = {p.index for p in pairs.values()}
    for p in predicted.calls:
        if p.name not in catalog.functions:
            near = closest(p.name, sorted(catalog.functions))
            errors.append(
                ErrorRecord(
                    "hallucinated_function",
                    p.token,
                    got=p.name,
                    detail="not in the domain's catalog" + (f"; closest: {', '.join(near)}" if near else ""),
                )
            )
        elif offered is not None and p.name not in offered and p.name not in gold_names:
            errors.append(
                ErrorRecord("hallucinated_function", p.token, got=p.name, detail="in the domain's catalog but not offered to this sample")
            )
        elif p.name not in gold_names:
            errors.append(
                ErrorRecord(
                    "wrong_function", p.token, got=p.name, detail=f"the gold calls {', '.join(dict.fromkeys(gold.names)) or 'nothing'}"
                )
            )
        elif p.index not in paired:
            errors.append(
                ErrorRecord("extra_call", p.token, got=p.render(), detail=f"the gold calls {p.name} {gold_names[p.name]} time(s)")
            )
    for g in gold.calls:
        if g.index not in pairs:
            errors.append(ErrorRecord("missing_call", g.token, expected=g.render(), detail=f"no predicted {g.name} call left to pair with"))
    return errors


_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def _argument_errors(gold: ApiCall, pred: ApiCall, spec: FunctionSpec | None, late: set[str]) -> list[ErrorRecord]:
    """``late``: response variables the program reads before assigning them (their use is an order error)."""
    errors = []
    for key, expected in gold.args.items():
        got = pred.args.get(key)
        if got is None:
            errors.append(ErrorRecord("missing_argument", pred.token, key, expected, None, "the gold passes it"))
            continue
        if got == expected:
            continue
        gold_refs, pred_refs = gold.argument(key).references, pred.argument(key).references
        early = sorted(late.intersection(_IDENTIFIER.findall(got)))
        if gold_refs and early:
            errors.append(
                ErrorRecord("wrong_order", pred.token, key, expected, got, f"reads {', '.join(early)} before the call that assigns it")
            )
            continue
        if gold_refs and gold_refs != pred_refs:
            where = ", ".join(t + p for t, p in pred_refs) or "no response"
            errors.append(ErrorRecord("wrong_source", pred.token, key, expected, got, f"reads {where}"))
            continue
        argument = pred.argument(key)
        literal, value = argument.literal, argument.value
        declared = spec.parameters.properties[key].type if spec is not None and key in spec.parameters.properties else None
        if literal and declared is not None and not fits_type(value, declared):
            errors.append(ErrorRecord("wrong_type", pred.token, key, expected, got, f"{type(value).__name__} where {declared} is declared"))
        else:
            errors.append(ErrorRecord("wrong_value", pred.token, key, expected, got, None))
    return errors


def _signature_errors(
    pred: ApiCall, spec: FunctionSpec, gold: ApiCall | None, reported: set[tuple[str | None, str | None]]
) -> list[ErrorRecord]:
    """Against the signature alone; what the paired gold call does the same way is not an error."""
    errors = []
    gold_args = gold.args if gold is not None else {}
    properties = spec.parameters.properties
    for key, got in pred.args.items():
        if (pred.token, key) in reported or gold_args.get(key) == got:
            continue
        if key not in properties:
            near = closest(key, list(properties))
            errors.append(
                ErrorRecord(
                    "unknown_argument",
                    pred.token,
                    key,
                    None,
                    got,
                    f"{pred.name} has no parameter {key!r}" + (f"; closest: {', '.join(near)}" if near else ""),
                )
            )
            continue
        argument = pred.argument(key)
        literal, value = argument.literal, argument.value
        if literal and not fits_type(value, properties[key].type):
            errors.append(
                ErrorRecord("wrong_type", pred.token, key, None, got, f"{type(value).__name__} where {properties[key].type} is declared")
            )
    for key in spec.parameters.required:
        if key not in pred.args and (gold is None or key in gold_args) and (pred.token, key) not in reported:
            errors.append(ErrorRecord("missing_argument", pred.token, key, None, None, "required by the signature"))
    return errors


def _order_errors(gold: ProgramAnalysis, pairs: Mapping[int, ApiCall]) -> list[ErrorRecord]:
    errors = []
    for producer, consumer in gold.edges:
        p, c = pairs.get(producer), pairs.get(consumer)
        if p is not None and c is not None and c.index < p.index:
            errors.append(
                ErrorRecord(
                    "wrong_order",
                    c.token,
                    expected=f"after {p.token}",
                    got=f"before {p.token}",
                    detail=f"the gold's {gold.calls[consumer].token} uses the response of {gold.calls[producer].token}",
                )
            )
    return errors


def _sequence_error(gold: ProgramAnalysis, predicted: ProgramAnalysis) -> list[ErrorRecord]:
    """The same calls in another order than the gold's (Seq Match (full) 0), when no other record says why."""
    if predicted.names == gold.names or Counter(predicted.names) != Counter(gold.names):
        return []  # equal, or a missing/extra/wrong call already explains the difference
    first = next(i for i, (g, p) in enumerate(zip(gold.names, predicted.names, strict=True)) if g != p)
    return [
        ErrorRecord(
            "wrong_order",
            predicted.calls[first].token,
            expected=gold.names[first],
            got=predicted.names[first],
            detail=f"call {first + 1} is {predicted.names[first]}; the gold calls {' -> '.join(gold.names)}",
        )
    ]


def _field_suffix(access: str) -> str:
    """``r.results[0].idd`` -> ``.results[0].idd``: the path an invalid access reads, without its variable."""
    match = re.match(r"[A-Za-z_]\w*", access)
    return access[match.end() :] if match else ""


def _mark_consequences(errors: list[ErrorRecord], problems: Sequence[FieldProblem], predicted: ProgramAnalysis) -> list[ErrorRecord]:
    """``errors`` with each ``wrong_source`` that follows from another record marked ``consequence_of``.

    An argument that passes on an access the types forbid (``GET_x#1.results[0].idd``) is wrong
    because of that ``invalid_field``; one that reads the response of a call to a function that
    should not be called (a misspelled name) because of that call's function error.
    """
    bad_calls = {e.call: e.kind for e in errors if e.kind in ("hallucinated_function", "wrong_function")}
    suffixes = [s for s in (_field_suffix(p.access) for p in problems if p.kind == "invalid_field") if s]
    calls = {c.token: c for c in predicted.calls}
    marked = []
    for e in errors:
        got = e.got
        if e.kind == "wrong_source" and got is not None and e.consequence_of is None:
            if any(re.search(re.escape(s) + r"(?![\w\[.])", got) for s in suffixes):
                e = replace(e, consequence_of="invalid_field")
            else:
                read = calls[e.call].argument(e.argument).references if e.call in calls and e.argument is not None else ()
                root = next((bad_calls[t] for t, _ in read if t in bad_calls), None)
                e = replace(e, consequence_of=root) if root else e
        marked.append(e)
    return marked


_FIELD_KINDS = ("invalid_field", "wrong_order")
"""The walk's kinds that are error records; a read of a response without a schema is left to the sandbox's verdict."""


def _field_problems(gold: ProgramAnalysis, predicted: ProgramAnalysis, catalog: Catalog) -> list[FieldProblem]:
    """Response accesses the types forbid, and responses read too early; what the gold program
    does the same way is the dataset's defect (see the errata), not the prediction's."""
    names = {c.name for c in (*gold.calls, *predicted.calls)}

    def is_api(name: str) -> bool:
        return name in catalog.functions or name in names

    found = [p for p in check_fields(read_program(predicted.code), catalog, is_api) if p.kind in _FIELD_KINDS]
    if not found:
        return []
    in_gold = {(p.kind, p.access) for p in check_fields(read_program(gold.code), catalog, is_api)}
    return [p for p in found if (p.kind, p.access) not in in_gold]


def exec_errors(trace: Trace | None) -> list[ErrorRecord]:
    """The sandbox run's error as a record of the sandbox's kind (none when it ran clean)."""
    if trace is None or trace.error is None or trace.error.kind == "parse_error":  # already the static kind
        return []
    failed = [c for c in trace.calls if c.error]
    call = failed[-1].function if failed else None
    where = f" (line {trace.error.line})" if trace.error.line is not None else ""
    return [ErrorRecord(trace.error.kind, call, detail=trace.error.message + where)]


_EXEC_ROOTS: dict[str, tuple[str, ...]] = {
    "unknown_field": ("invalid_field",),
    "unknown_function": ("hallucinated_function",),
    "bad_arguments": ("unknown_argument", "missing_argument", "wrong_type"),
}
"""Sandbox kinds, and the static kinds that already name the defect the sandbox stopped on."""


def _kind_and_function(e: ErrorRecord | Mapping[str, object]) -> tuple[str, str | None]:
    kind, call = (e.kind, e.call) if isinstance(e, ErrorRecord) else (str(e.get("kind")), e.get("call"))
    return kind, str(call).partition("#")[0] if call is not None else None


def mark_exec_consequences(static: Sequence[ErrorRecord | Mapping[str, object]], found: Sequence[ErrorRecord]) -> list[ErrorRecord]:
    """``found`` (the sandbox's records) with each one whose defect a static record already names marked ``consequence_of``.

    An ``unknown_field`` where the types forbade an access is that ``invalid_field``;
    a ``bad_arguments`` or ``unknown_function`` of a function the static records
    fault for its arguments or its name is that record's defect.
    """
    roots = [_kind_and_function(e) for e in root_causes(static)]
    marked = []
    for e in found:
        kinds = _EXEC_ROOTS.get(e.kind, ())
        root = next((k for k, f in roots if k in kinds and (e.call is None or f is None or f == e.call)), None)
        marked.append(replace(e, consequence_of=root) if root else e)
    return marked


def classify(
    gold: ProgramAnalysis, predicted: ProgramAnalysis, catalog: Catalog, trace: Trace | None = None, offered: Collection[str] | None = None
) -> list[ErrorRecord]:
    """Every error of ``predicted`` against ``gold``, in the order of the module docstring.

    ``trace`` is the predicted program's sandbox run, when it was executed.
    ``offered``: the functions the prompt offered, when a prompt setting chose
    them (None: the sample's own, and a catalog function outside the gold is
    a ``wrong_function``, so default runs keep their error counts).
    """
    if predicted.too_large is not None:
        return [ErrorRecord("too_large", detail=predicted.too_large)]
    if predicted.parse_error is not None:
        return [ErrorRecord("parse_error", detail=predicted.parse_error), *exec_errors(trace)]  # e.g. a refusal
    pairs = pair_calls(gold.calls, predicted.calls)
    problems = _field_problems(gold, predicted, catalog)
    late = {p.access for p in problems if p.kind == "wrong_order"}
    errors = _function_errors(gold, predicted, catalog, pairs, offered)
    reported: set[tuple[str | None, str | None]] = set()
    paired_gold = {p.index: gold.calls[g] for g, p in pairs.items()}
    for g, p in sorted(pairs.items(), key=lambda item: item[1].index):
        found = _argument_errors(gold.calls[g], p, catalog.functions.get(p.name), late)
        reported |= {(e.call, e.argument) for e in found}
        errors += found
    for p in predicted.calls:
        spec = catalog.functions.get(p.name)
        if spec is not None:
            errors += _signature_errors(p, spec, paired_gold.get(p.index), reported)
    # A variable read too early is reported once: on the argument it feeds, when it feeds one.
    early_args = {e.got for e in errors if e.kind == "wrong_order"}
    for problem in problems:
        if problem.kind == "invalid_field" or not any(problem.access in _IDENTIFIER.findall(got or "") for got in early_args):
            errors.append(ErrorRecord(problem.kind, got=problem.access, detail=f"line {problem.line}: {problem.detail}"))
    ordered = {e.call for e in errors if e.kind == "wrong_order"}
    errors += [e for e in _order_errors(gold, pairs) if e.call not in ordered]
    if not any(e.kind == "wrong_order" for e in errors):
        errors += _sequence_error(gold, predicted)
    static = _mark_consequences(errors, problems, predicted)
    return static + mark_exec_consequences(static, exec_errors(trace))


def root_causes(errors: Sequence[ErrorRecord | Mapping[str, object]]) -> list[ErrorRecord | Mapping[str, object]]:
    """The records that are not a consequence of another one (see the module docstring)."""
    return [e for e in errors if (e.consequence_of if isinstance(e, ErrorRecord) else e.get("consequence_of")) is None]


def count_kinds(errors: Sequence[ErrorRecord | Mapping[str, object]]) -> dict[str, int]:
    """``{kind: count}`` of the root causes, static kinds in taxonomy order, then execution kinds alphabetically."""
    counts = Counter(e.kind if isinstance(e, ErrorRecord) else str(e["kind"]) for e in root_causes(errors))
    order = {k: i for i, k in enumerate(KINDS)}
    return {k: counts[k] for k in sorted(counts, key=lambda k: (order.get(k, len(order)), k))}
