"""How a samples file reads and what it tests, measured (issue #32): the figures a generated set is judged by.

A reviewer reads a sample for whether a person could have written it
(``../shared/SAMPLE-QUALITY.md``); these are the counts behind that reading,
so a rebuilt set can be compared with the old one and with the human test
split by one command (``gqlbench samples measure``). Definitions:

- **words**: ``[\\w']+`` runs of the case-folded utterance; the mean per item.
- **mechanical**: an item matches some pattern of :data:`MECHANICAL` (each
  with its own count in ``patterns``).
- **description copy**: the item's word 4-grams meet the word 4-grams of the
  description of some function its gold calls (the catalog's signature,
  :mod:`gqlbench.specs`; the line's own ``function_specs`` for a domain the
  catalog lacks).
- **skeletons**: gold programs with literals masked and variables renamed
  (:attr:`gqlbench.program.ParsedProgram.skeleton`); items per skeleton (max,
  mean, size-weighted mean ``sum(m**2) / n``, the share of items in skeletons
  of more than :data:`CROWDED` items); for a ``test.jsonl`` measured with the
  ``train.jsonl`` of its folder, the test items whose skeleton train also has.
- **distinct trigrams**: distinct word trigrams (within utterances) over all of them.
- **constructs** (:func:`constructs`), per item, and **functions**: which
  endpoint functions the human test split's gold calls that the file's never does.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gqlbench.errors import GqlbenchError
from gqlbench.program import ParsedProgram, read_program
from gqlbench.results.statistics import mean_cluster_size
from gqlbench.specs.names import looks_like_endpoint_name

__all__ = [
    "MECHANICAL",
    "CROWDED",
    "CONSTRUCTS",
    "MeasuredItem",
    "FileQuality",
    "read_items",
    "words",
    "mechanical_patterns",
    "constructs",
    "measure_items",
    "measure_files",
    "quality_table",
]

MECHANICAL: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("the first of the", re.compile(r"\bthe (?:first|second|third|last) of the\b", re.I), 1),
    ("(limited to", re.compile(r"\(limited to\b", re.I), 1),
    ("(at most", re.compile(r"\(at most\b", re.I), 1),
    ("(only N of them)", re.compile(r"\(only \d+ of them\)", re.I), 1),
    ("stacked parentheticals", re.compile(r"\)\s*\("), 1),
    ("4+ 'of the' links", re.compile(r"\bof the\b", re.I), 4),
)
"""(name, pattern, how many matches make it mechanical): phrasing no person types, from the audit of issue #32."""

CROWDED = 3
"""A skeleton with more items than this is over-represented (issue #32 asks for at most about three)."""

CONSTRUCTS = ("filter", "slice", "combine", "reads_write", "independent_parts")
"""The constructs the human test split tests; :func:`constructs` says how each is recognised."""

_WORD = re.compile(r"[\w']+")
_WRITES = ("POST_", "PUT_", "DELETE_", "PATCH_")


@dataclass(frozen=True)
class MeasuredItem:
    """One line of a samples file: what the measures read."""

    domain: str
    utterance: str
    code: str
    descriptions: Mapping[str, str] = field(default_factory=dict)  # the line's own function_specs, name -> description


def read_items(path: Path) -> list[MeasuredItem]:
    """The lines of a samples JSONL file (``domain``, ``utterance``, ``output``); a bad line is a one-line error."""
    if not path.is_file():
        raise GqlbenchError(f"{path}: no such samples file")
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise GqlbenchError(f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("domain", "utterance", "output")):
            raise GqlbenchError(f"{path}:{number}: each line needs string fields domain, utterance and output")
        items.append(MeasuredItem(row["domain"], row["utterance"], row["output"], _own_descriptions(row.get("function_specs"))))
    return items


def _own_descriptions(raw: object) -> dict[str, str]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return {}
    if not isinstance(raw, list):
        return {}
    return {f["name"]: str(f.get("description", "")) for f in raw if isinstance(f, dict) and isinstance(f.get("name"), str)}


def words(text: str) -> list[str]:
    """The case-folded words of ``text``."""
    return _WORD.findall(text.casefold())


def _grams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def mechanical_patterns(utterance: str) -> list[str]:
    """The names of the :data:`MECHANICAL` patterns ``utterance`` matches."""
    return [name for name, pattern, least in MECHANICAL if len(pattern.findall(utterance)) >= least]


def _endpoint_calls(program: ParsedProgram) -> list[str]:
    return [c.name for c in program.calls if looks_like_endpoint_name(c.name)]


def constructs(code: str) -> set[str]:
    """Which of :data:`CONSTRUCTS` a program uses.

    ``filter``: a comprehension with a comparison in its ``if``
    (``[x for x in r.items if x.name == v]``); ``slice``: a subscript with a
    slice (``[:k]``); ``combine``: one call whose arguments read two responses;
    ``reads_write``: a write's (POST/PUT/DELETE/PATCH) response is read later;
    ``independent_parts``: the endpoint calls fall into two or more groups no
    response links.
    """
    program = read_program(code)
    if program.tree is None:
        return set()
    found: set[str] = set()
    for node in ast.walk(program.tree):
        if isinstance(node, ast.comprehension) and any(isinstance(n, ast.Compare) for test in node.ifs for n in ast.walk(test)):
            found.add("filter")
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            found.add("slice")
    calls = [c for c in program.top_level_calls if looks_like_endpoint_name(c.function)]
    made: dict[str, int] = {}  # response variable -> index of the call that made it
    parent = list(range(len(calls)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, call in enumerate(calls):
        sources = {made[name] for name in call.reads if name in made}
        if len(sources) >= 2:
            found.add("combine")
        for j in sources:
            parent[root(j)] = root(i)
            if calls[j].function.startswith(_WRITES):
                found.add("reads_write")
        if call.target is not None:
            made[call.target] = i
    if len({root(i) for i in range(len(calls))}) >= 2:
        found.add("independent_parts")
    return found


@dataclass(frozen=True)
class FileQuality:
    """The measures of one samples file (definitions: the module docstring)."""

    path: str
    items: int
    mean_words: float
    mechanical: float  # share of items
    patterns: dict[str, int]  # items matching each pattern
    description_copy: float  # share of items
    skeletons: int
    skeleton_max: int
    skeleton_mean: float  # items per skeleton
    skeleton_weighted_mean: float  # sum(m**2) / n: the size of the skeleton an item is in, on average (Kish)
    crowded: float  # share of items in skeletons of more than CROWDED items
    distinct_trigrams: float
    mean_calls: float
    single_calls: float  # share of items with one endpoint call
    constructs: dict[str, float]  # share of items using each construct
    missing_functions: list[str]  # functions the human test split calls that no item here calls
    missing_function_items: int  # human test items that call one of them
    shared_with_train: int | None = None  # test items whose skeleton the train file beside it also has


def _descriptions(item: MeasuredItem) -> dict[str, str]:
    from gqlbench.specs import load_specs, specs_path

    if specs_path(item.domain) is not None:
        return {name: spec.description for name, spec in load_specs(item.domain).items()}
    return dict(item.descriptions)


def _copies_description(item: MeasuredItem, called: Sequence[str]) -> bool:
    described = _descriptions(item)
    grams = set(_grams(words(item.utterance), 4))
    return any(grams & set(_grams(words(described.get(name, "")), 4)) for name in called)


def measure_items(path: str, items: Sequence[MeasuredItem], human: Sequence[MeasuredItem]) -> FileQuality:
    """The measures of ``items`` (read from ``path``), with coverage against the ``human`` test split."""
    n = max(len(items), 1)
    programs = [read_program(item.code) for item in items]
    called = [_endpoint_calls(p) for p in programs]
    patterns = Counter(name for item in items for name in mechanical_patterns(item.utterance))
    mechanical = sum(1 for item in items if mechanical_patterns(item.utterance))
    skeletons = Counter(p.skeleton if p.skeleton is not None else item.code for p, item in zip(programs, items, strict=True))
    sizes = list(skeletons.values()) or [0]
    trigrams = [g for item in items for g in _grams(words(item.utterance), 3)]
    uses = [constructs(item.code) for item in items]
    mine = {name for names in called for name in names}
    human_calls = [set(_endpoint_calls(read_program(h.code))) for h in human]
    missing = sorted({name for names in human_calls for name in names} - mine)
    return FileQuality(
        path=path,
        items=len(items),
        mean_words=sum(len(words(item.utterance)) for item in items) / n,
        mechanical=mechanical / n,
        patterns={name: patterns[name] for name, _, _ in MECHANICAL},
        description_copy=sum(_copies_description(item, names) for item, names in zip(items, called, strict=True)) / n,
        skeletons=len(skeletons),
        skeleton_max=max(sizes),
        skeleton_mean=len(items) / max(len(skeletons), 1),
        skeleton_weighted_mean=mean_cluster_size(sizes) if items else 0.0,
        crowded=sum(m for m in sizes if m > CROWDED) / n,
        distinct_trigrams=len(set(trigrams)) / max(len(trigrams), 1),
        mean_calls=sum(len(names) for names in called) / n,
        single_calls=sum(1 for names in called if len(names) == 1) / n,
        constructs={name: sum(1 for used in uses if name in used) / n for name in CONSTRUCTS},
        missing_functions=missing,
        missing_function_items=sum(1 for names in human_calls if names & set(missing)),
    )


def measure_files(paths: Sequence[Path], human: Path) -> list[FileQuality]:
    """:func:`measure_items` for each file, against the ``human`` test split.

    A ``test.jsonl`` given together with the ``train.jsonl`` of its folder also gets ``shared_with_train``.
    """
    human_items = read_items(human)
    read = {path: read_items(path) for path in paths}
    found = []
    for path in paths:
        quality = measure_items(str(path), read[path], human_items)
        train = next((p for p in paths if p.name == "train.jsonl" and p.resolve().parent == path.resolve().parent), None)
        if path.name == "test.jsonl" and train is not None:
            train_skeletons = {read_program(item.code).skeleton for item in read[train]}
            shared = sum(1 for item in read[path] if read_program(item.code).skeleton in train_skeletons)
            quality = replace(quality, shared_with_train=shared)
        found.append(quality)
    return found


def _share(value: float) -> str:
    return f"{value:.0%}" if value == 0 or value >= 0.01 else f"{value:.1%}"


def quality_table(found: Sequence[FileQuality], fmt: str = "github") -> str:
    """One column per file, one row per measure (shares as percentages of the file's items)."""
    from tabulate import tabulate

    rows: list[Sequence[object]] = [
        ["items", *(q.items for q in found)],
        ["words per utterance (mean)", *(f"{q.mean_words:.1f}" for q in found)],
        ["mechanical phrasing", *(_share(q.mechanical) for q in found)],
        *([f"pattern: {name}", *(q.patterns[name] for q in found)] for name, _, _ in MECHANICAL),
        ["4-word copy of a gold function's description", *(_share(q.description_copy) for q in found)],
        ["skeletons", *(q.skeletons for q in found)],
        ["items per skeleton: max / mean", *(f"{q.skeleton_max} / {q.skeleton_mean:.2f}" for q in found)],
        ["items per skeleton: sum(m^2)/n", *(f"{q.skeleton_weighted_mean:.2f}" for q in found)],
        [f"items in skeletons of > {CROWDED} items", *(_share(q.crowded) for q in found)],
        ["test items sharing a skeleton with train", *("-" if q.shared_with_train is None else q.shared_with_train for q in found)],
        ["distinct word trigrams / all", *(_share(q.distinct_trigrams) for q in found)],
        ["endpoint calls (mean)", *(f"{q.mean_calls:.2f}" for q in found)],
        ["single call", *(_share(q.single_calls) for q in found)],
        *([f"construct: {name}", *(_share(q.constructs[name]) for q in found)] for name in CONSTRUCTS),
        [
            "human test functions never called (human items using them)",
            *(f"{len(q.missing_functions)} ({q.missing_function_items})" for q in found),
        ],
    ]
    return tabulate(rows, headers=["measure", *(q.path for q in found)], tablefmt=fmt, disable_numparse=True)
