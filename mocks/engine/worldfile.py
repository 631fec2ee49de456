"""The world file, typed: one model per section, and every mistake reported at once with its line.

A world file (``worlds/<domain>.json``, :mod:`gqlbench.mocks.engine.fixtures`) is
checked when it loads, before any program runs, in two passes that never stop
at the first mistake:

1. its shape: each section is a pydantic model below (``extra="forbid"``, so a
   misspelt key is an error with a "did you mean"), validated whole;
2. its meaning: every template (:mod:`gqlbench.mocks.engine.declared.templates`)
   is walked with the operations' declared keys, and with the names it sees
   where they are known (an endpoint's ``respond`` sees the endpoint's
   parameters, a view's fields its kind's fields); references between
   sections (a view's ``base``, a recipe's ``children`` or a ref's ``create``,
   an endpoint's function) must name something defined.

:func:`check_world` returns the :class:`~gqlbench.mocks.engine.problems.FileProblem`
records; :func:`world_error` turns them into one error of one line per
problem, ``file:line: path: message``.

A top-level key that is no section below is refused, except the sections the
``load`` steps read (``"from"``) and those the behaviour declares it reads
(its ``sections`` attribute: Spotify's ``devices`` and ``player``).

A form that is gone says what to write instead, in one line: a ``load`` step
that makes a section (``"make"``; its entries go under ``entities.<kind>``,
made by the kind's recipe) and a step's ``"with"`` (the fields go in the
entries, or in ``make.<kind>.defaults``), as ``grow``'s old keys do.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path as FilePath
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, PositiveInt, ValidationError, field_validator, model_validator

from gqlbench.errors import GqlbenchError, closest
from gqlbench.mocks.engine.declared.templates import problems as template_problems
from gqlbench.mocks.engine.effects import check_effects
from gqlbench.mocks.engine.jsonpos import line_of, value_lines
from gqlbench.mocks.engine.kinds import KEY_WORDS, reference
from gqlbench.mocks.engine.problems import FileProblem, Path, did_you_mean, dotted
from gqlbench.mocks.engine.rules import ACTIONS

__all__ = ["SECTIONS", "WorldFile", "WorldFileError", "check_world", "world_error"]

Template = Any
"""A template (:mod:`gqlbench.mocks.engine.declared.templates`): checked in the second pass."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


# -- endpoints ------------------------------------------------------------------------
class ArgumentCheck(_Section):
    """The values one argument may take (:mod:`gqlbench.mocks.engine.declared.checks`)."""

    one_of: Annotated[list[Any], Field(min_length=1)] | None = None
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _some(self) -> ArgumentCheck:
        if self.one_of is None and self.min is None and self.max is None:
            raise ValueError('a check says "one_of", "min" or "max"')
        return self


class Paging(_Section):
    """The page that wraps a list (:mod:`gqlbench.mocks.engine.declared.paging`)."""

    style: Literal["offset", "cursor"] = "offset"
    href: str | None = None
    limit: PositiveInt | None = None
    max_limit: PositiveInt | None = None
    cursor: str | None = None
    key: str | None = None
    under: str | None = None


class EndpointRule(_Section):
    """One endpoint's rule, overriding the inferred one (:class:`gqlbench.mocks.engine.rules.Rule`, field for field)."""

    action: Literal[ACTIONS] | None = None  # type: ignore[valid-type]
    kind: str | None = None
    id_param: str | None = None
    parent: str | None = None
    list_field: str | None = None
    text_param: str | None = None
    open: bool = False
    envelope: str | None = None
    view: str | None = None
    scope: list[str] | None = None
    effects: dict[str, dict[str, Template]] | None = None
    respond: Template = None
    paging: Paging | None = None
    checks: dict[str, ArgumentCheck] | None = None
    collection: str | None = None
    stamp: str | None = None

    @model_validator(mode="after")
    def _effects(self) -> EndpointRule:
        if self.effects is not None:
            try:
                check_effects(self.effects, "effects")
            except GqlbenchError as exc:
                raise ValueError(str(exc).removeprefix("effects: ")) from None
        return self


# -- views, make, load, grow ------------------------------------------------------------
class View(_Section):
    """A named shape of an entity (:mod:`gqlbench.mocks.engine.declared.views`)."""

    kind: str
    base: str | None = None
    complete: bool = False
    fields: dict[str, Template] = {}


class RecipeRef(_Section):
    """A field of a made entry that names other entities (:mod:`gqlbench.mocks.engine.declared.make`)."""

    kind: str
    by: Template = None
    as_: Template = Field(None, alias="as")
    create: bool = False
    back: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) else value  # "artists": "artist"


class IdRange(_Section):
    lo: PositiveInt | None = None
    hi: PositiveInt | None = None


class Recipe(_Section):
    """How an entity of a kind is made (:mod:`gqlbench.mocks.engine.declared.make`)."""

    id: Template = None
    key: Template = None
    ids: IdRange | None = None
    name: str | None = None
    refs: dict[str, RecipeRef] = {}
    children: dict[str, str] = {}
    defaults: dict[str, Template] = {}
    complete: bool = True
    invent: Template = None


class LoadStep(_Section):
    """One step of ``load``: resolve each entry of a section (a name or an id) and keep the ids in the world's state."""

    refer: RecipeRef
    from_: str = Field(alias="from")
    state: str | None = None
    as_: Template = Field(None, alias="as")
    default: Template = None

    @model_validator(mode="before")
    @classmethod
    def _moved(cls, value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("make"), str):  # the old way of making a file's entities
            kind, section = value["make"], value.get("from", "...")
            kept = f'; keep their ids with {{"refer": "{kind}", "from": <a section of their names>, "state": ...}}'
            moved = f"a file's entities are written under entities: move {section!r} to entities.{kind} (made by make.{kind})"
            raise ValueError(moved + (kept if "state" in value else ""))
        if isinstance(value, dict) and "with" in value:
            raise ValueError("the fields an entry lacks are written in the entry under entities.<kind>, or in make.<kind>.defaults")
        return value


class Referring(_Section):
    kind: str
    in_: str = Field(alias="in")
    by: str | None = None


class GrowStep(_Section):
    """One step of ``grow.fill`` (:mod:`gqlbench.mocks.engine.declared.growth`)."""

    fill: str | None = None
    referring: Referring | None = None
    to: NonNegativeInt
    where: dict[str, list[Any]] | None = None
    at: int | None = None
    add: Template

    @model_validator(mode="after")
    def _one(self) -> GrowStep:
        if (self.fill is None) == (self.referring is None):
            raise ValueError('a step has "fill" (a list field) or "referring"')
        if self.at is not None and self.fill is None:
            raise ValueError('"at" is the position a "fill" step inserts at')
        return self


class Grow(_Section):
    fill: dict[str, list[GrowStep]] = {}

    @model_validator(mode="before")
    @classmethod
    def _moved(cls, value: Any) -> Any:
        if isinstance(value, dict) and {"new", "ids"} & set(value):  # the old places say where they went
            raise ValueError("a new entity's fields are make.<kind>.defaults, its id range make.<kind>.ids")
        return value


class KindSection(_Section):
    """What inference gets wrong about a kind's identity (:mod:`gqlbench.mocks.engine.declared.identity`).

    That a ``same`` name belongs to one kind only is checked across kinds (:func:`_kind_problems`).
    """

    key: str | None = None  # the field that holds the kind's key ("gid", "number")
    same: list[Annotated[str, Field(min_length=1)]] = []  # other kind names that are this kind ("repository" for "repo")

    @field_validator("key")
    @classmethod
    def _field_name(cls, key: str | None) -> str | None:
        if key is not None and not key.isidentifier():
            raise ValueError(f"must be a field name (a string like 'gid'), got {key!r}")
        return key


# -- the file -----------------------------------------------------------------------
class WorldFile(_Section):
    """A world file: one field per section (see :mod:`gqlbench.mocks.engine.fixtures`)."""

    description: str | None = None
    behaviour: str | None = None
    entities: dict[str, list[dict[str, Any] | str]] = {}  # a name only for a kind with a recipe (make)
    endpoints: dict[str, EndpointRule] = {}
    shapes: dict[str, Template] = {}
    vocab: dict[str, Any] = {}
    generate: dict[str, dict[str, Template]] = {}
    computed: dict[str, dict[str, Template]] = {}
    views: dict[str, View] = {}
    make: dict[str, Recipe] = {}
    load: list[LoadStep] = []
    grow: Grow | None = None
    kinds: dict[str, KindSection] = {}


SECTIONS = frozenset(field.alias or name for name, field in WorldFile.model_fields.items())


def check_world(
    data: Mapping[str, Any],
    *,
    parameters: Mapping[str, Iterable[str]] | None = None,
    kind_fields: Mapping[str, Iterable[str]] | None = None,
    own_sections: Iterable[str] = (),
) -> list[FileProblem]:
    """Every mistake of a world file's data (see the module docstring).

    ``parameters`` maps each function of the domain to its parameter names
    (None: not known, the endpoints' names are not checked); ``kind_fields``
    are fields the schema shows per kind (a view may name them); ``own_sections``
    the top-level keys the behaviour reads.
    """
    read = [step.get("from") if isinstance(step, dict) else None for step in _steps(data)]
    extra = set(own_sections) | {s for s in read if isinstance(s, str)}
    typed = {k: v for k, v in data.items() if k not in extra or k in SECTIONS}
    found: list[FileProblem] = []
    try:
        WorldFile.model_validate(typed)
    except ValidationError as exc:
        problems = [_problem(error, sorted(SECTIONS | extra)) for error in exc.errors()]
        if not all(isinstance(s, str) for s in read):  # a step without "from": which sections it reads is unknown
            problems = [p for p in problems if len(p.line_path()) > 1]
        found += problems
    found += _entity_problems(data.get("entities"), data.get("kinds"), _dicts(data.get("make")))
    found += _kind_problems(data.get("kinds"))
    found += _meaning(data, parameters, kind_fields or {})
    return found


def _problem(error: Any, top: list[str]) -> FileProblem:
    loc: Path = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        key = str(loc[-1])
        options = top if len(loc) == 1 else _keys_at(loc[:-1])
        return FileProblem(loc[:-1], f"unknown key {key!r}{did_you_mean(key, options)}", loc)
    if error["type"] == "missing":
        return FileProblem(loc[:-1], f"{loc[-1]!r} is missing")
    message = str(error["msg"]).removeprefix("Value error, ")
    got = "" if error["type"] == "value_error" else f", got {error['input']!r}"
    return FileProblem(loc, f"{message[:1].lower()}{message[1:]}{got}")


def _keys_at(loc: Path) -> list[str]:
    """The keys the model at ``loc`` takes (for a "did you mean")."""
    annotation: Any = WorldFile
    for step in loc:
        annotation = _model_or_item(annotation, step)
    model = _model_or_item(annotation, None)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return [field.alias or name for name, field in model.model_fields.items()]
    return []


def _model_or_item(annotation: Any, step: str | int | None) -> Any:
    """One step down a type: a model's field, a dict's value, a list's item (``None``: the model in an optional)."""
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return next((_model_or_item(a, step) for a in typing.get_args(annotation) if a is not type(None)), Any)
    if origin is Annotated:
        return _model_or_item(typing.get_args(annotation)[0], step)
    if step is None:
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = {field.alias or name: field.annotation for name, field in annotation.model_fields.items()}
        return fields.get(str(step), Any)
    if origin in (dict, list):
        return typing.get_args(annotation)[-1]
    return Any


def _entity_problems(entities: Any, kinds: Any, recipes: Mapping[str, Any]) -> list[FileProblem]:
    """An entity stored as written (its kind has no recipe) that has no key, or is a bare name."""
    found = []
    for kind, records in entities.items() if isinstance(entities, dict) else ():
        if kind in recipes:
            continue  # made by the recipe, which gives it its id
        own = kinds.get(kind) if isinstance(kinds, dict) else None
        declared = own.get("key") if isinstance(own, dict) else None
        for n, record in enumerate(records if isinstance(records, list) else []):
            if isinstance(record, str):
                message = f'a name makes an entity only by a recipe: declare "make": {{"{kind}": {{...}}}}, or write an object with its key'
                found.append(FileProblem(("entities", kind, n), message))
            elif isinstance(record, dict) and not any(
                name in KEY_WORDS or name == declared or reference(name) == (kind, "id") for name in record
            ):
                keys = declared or f"{kind}_id, id, symbol, slug, login, ..."
                found.append(
                    FileProblem(
                        ("entities", kind, n),
                        f"no key ({keys}); give each entity the key its API uses, "
                        f'or declare it: "kinds": {{"{kind}": {{"key": "<field>"}}}}',
                    )
                )
    return found


def _kind_problems(kinds: Any) -> list[FileProblem]:
    """A ``same`` name that is the kind itself, another declared kind, or another kind's ``same``: a name is one kind's."""
    found: list[FileProblem] = []
    owners: dict[str, str] = {}
    for kind, declared in _dicts(kinds).items():
        same = _dicts(declared).get("same")
        for other in same if isinstance(same, list) else []:
            if not isinstance(other, str):
                continue
            if other == kind or other in kinds or other in owners:
                taken = kind if other == kind else owners.get(other, other)
                message = f"{other!r} is already the kind {taken!r}; a kind name belongs to one kind"
                found.append(FileProblem(("kinds", kind, "same"), message))
            owners.setdefault(other, kind)
    return found


def _steps(data: Mapping[str, Any]) -> list[Any]:
    load = data.get("load")
    return load if isinstance(load, list) else []


def _dicts(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _meaning(
    data: Mapping[str, Any], parameters: Mapping[str, Iterable[str]] | None, kind_fields: Mapping[str, Iterable[str]]
) -> list[FileProblem]:
    """The second pass: templates, names and references between sections (whatever of them is well formed)."""
    found: list[FileProblem] = []
    views, recipes = _dicts(data.get("views")), _dicts(data.get("make"))
    for function, rule in _dicts(data.get("endpoints")).items():
        at: Path = ("endpoints", function)
        if parameters is not None and function not in parameters:
            found.append(FileProblem(at, f"the domain has no function {function!r}{did_you_mean(function, parameters)}", at))
            continue
        rule = _dicts(rule)
        names = frozenset(parameters[function]) if parameters is not None else None
        found += template_problems(rule.get("respond"), (*at, "respond"), names)
        found += _unknown_views(rule.get("respond"), (*at, "respond"), views)
        for operation, changes in _dicts(rule.get("effects")).items():
            found += template_problems(changes, (*at, "effects", operation), names)
            found += _unknown_views(changes, (*at, "effects", operation), views)
    for section in ("shapes", "generate", "computed"):
        found += template_problems(data.get(section), (section,))
        found += _unknown_views(data.get(section), (section,), views)
    for name, view in views.items():
        found += _view_problems(name, _dicts(view), data, views, kind_fields)
    for kind, recipe in recipes.items():
        recipe = _dicts(recipe)
        for part in ("id", "key", "defaults", "invent"):
            found += template_problems(recipe.get(part), ("make", kind, part))
        for field, ref in _dicts(recipe.get("refs")).items():
            ref = _dicts(ref)
            found += template_problems(ref.get("by"), ("make", kind, "refs", field, "by"))
            found += template_problems(ref.get("as"), ("make", kind, "refs", field, "as"))
            if ref.get("create") and ref.get("kind") not in recipes:
                found.append(
                    FileProblem(("make", kind, "refs", field), f"kind {ref.get('kind')!r} has no entry under make, so it cannot be created")
                )
        for field, child in _dicts(recipe.get("children")).items():
            if child not in recipes:
                found.append(
                    FileProblem(
                        ("make", kind, "children", field), f"kind {child!r} has no entry under make{did_you_mean(str(child), recipes)}"
                    )
                )
    for n, step in enumerate(_steps(data)):
        found += template_problems(_dicts(step).get("as"), ("load", n, "as"))
    for kind, steps in _dicts(_dicts(data.get("grow")).get("fill")).items():
        for n, step in enumerate(steps if isinstance(steps, list) else []):
            found += template_problems(_dicts(step).get("add"), ("grow", "fill", kind, n, "add"))
    return found


def _view_problems(
    name: str, view: dict[str, Any], data: Mapping[str, Any], views: Mapping[str, Any], kind_fields: Mapping[str, Iterable[str]]
) -> list[FileProblem]:
    at: Path = ("views", name)
    found = []
    if view.get("base") is not None and view["base"] not in views:
        found.append(FileProblem((*at, "base"), f"no view {view['base']!r} under views{did_you_mean(str(view['base']), views)}"))
    found += _unknown_views(view.get("fields"), (*at, "fields"), views)
    kind = view.get("kind")
    if not isinstance(kind, str):
        return found
    known = _fields_of(kind, data, kind_fields)
    for problem in template_problems(view.get("fields"), (*at, "fields"), known):
        # code may store fields the file does not name: an unknown name is a mistake when it is a near miss ("titel")
        if problem.unknown_name is None or closest(problem.unknown_name, known, n=1, cutoff=0.75):
            found.append(problem)
    return found


def _unknown_views(template: Any, path: Path, views: Mapping[str, Any]) -> list[FileProblem]:
    """A problem for each ``{"$view": name}`` in a template that names no view of the file."""
    return [
        FileProblem(at, f"no view {other!r} under views{did_you_mean(str(other), views)}")
        for at, other in _referred(template, path)
        if not _names_a_view(other, views)
    ]


def _names_a_view(name: Any, views: Mapping[str, Any]) -> bool:
    """Whether ``name`` is a view, or a name filled in when it renders (``"{kind}_brief"``) that can be one."""
    if not isinstance(name, str) or "{" not in name:
        return name in views
    pattern = re.compile(".+".join(re.escape(part) for part in re.split(r"\{[\w.]+\}", name)))
    return any(pattern.fullmatch(view) for view in views)


def _referred(template: Any, path: Path) -> list[tuple[Path, Any]]:
    """Each ``{"$view": name}`` in a template, with its path."""
    if isinstance(template, dict):
        own = [((*path, "$view"), template["$view"])] if "$view" in template else []
        return own + [found for key, value in template.items() for found in _referred(value, (*path, key))]
    if isinstance(template, list):
        return [found for n, value in enumerate(template) for found in _referred(value, (*path, n))]
    return []


def _fields_of(kind: str, data: Mapping[str, Any], kind_fields: Mapping[str, Iterable[str]]) -> frozenset[str]:
    """What an entity of ``kind`` may hold: the schema's fields, and every field the file gives or makes for it."""
    names = {"id", *kind_fields.get(kind, ())}
    for record in _dicts(data.get("entities")).get(kind) or []:
        names.update(_dicts(record))
    recipe = _dicts(_dicts(data.get("make")).get(kind))
    names.update(_dicts(recipe.get("refs")), _dicts(recipe.get("children")), _dicts(recipe.get("defaults")))
    names.add(str(recipe.get("name", "name")))
    for section in ("generate", "computed"):
        names.update(_dicts(_dicts(data.get(section)).get(kind)))
    for step in _dicts(_dicts(data.get("grow")).get("fill")).get(kind) or []:
        names.add(str(_dicts(step).get("fill")))
    return frozenset(names)


class WorldFileError(GqlbenchError):
    """A world file that does not load: one line per problem, ``file:line: path: message`` (:attr:`rows` apart)."""

    def __init__(self, rows: list[tuple[str, str]]) -> None:
        super().__init__("\n".join(f"{where}: {message}" for where, message in rows))
        self.rows = rows  # (file:line, "path: message") per problem


def world_error(found: list[FileProblem], file: FilePath | str | None) -> WorldFileError:
    """One error for all the problems, a line each: ``file:line: path: message`` (the line when the file can be read)."""
    lines: dict[Path, int] = {}
    if file is not None and FilePath(file).is_file():
        try:
            lines = value_lines(FilePath(file).read_text(encoding="utf-8"))
        except (ValueError, IndexError):
            lines = {}
    where = str(file) if file is not None else "world file"
    rows = []
    for problem in found:
        line = f":{line_of(lines, problem.line_path())}" if lines else ""
        rows.append((f"{where}{line}", f"{dotted(problem.path) or '(top level)'}: {problem.message}"))
    return WorldFileError(list(dict.fromkeys(rows)))
