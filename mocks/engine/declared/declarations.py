"""A fixture's declared behaviour: endpoints answered by templates, and fields generated when an entity is completed.

Besides ``entities`` and ``endpoints``, a fixture may hold:

* ``"shapes"``: named templates (:mod:`gqlbench.mocks.engine.declared.templates`) that are
  not one entity's view (a page of credits, an episode made up from its show), for
  endpoints, views and other shapes to use with the names they give them;
* ``"vocab"``: lists and tables the templates pick from or look up in;
* ``"generate"``: per kind, fields a record gets the first time it is looked
  up, when it has none (``{"movie": {"runtime": {"$int": ["$id", "runtime"], "lo": 85, "hi": 175}}}``),
  in order, each seeing the record's fields so far;
* ``"grow"``: when entities are made on demand: the lists a record is filled
  to when first looked up, after ``generate`` (:mod:`gqlbench.mocks.engine.declared.growth`;
  how a new entity looks is its kind's ``make`` recipe, :mod:`gqlbench.mocks.engine.declared.make`).

An endpoint whose rule has ``"respond"`` (a template) is answered by it, its
arguments being the names the template sees. The behaviour may add
``functions`` for ``{"$call": ...}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import gqlbench.mocks.engine.declared.computed
import gqlbench.mocks.engine.declared.listing
import gqlbench.mocks.engine.declared.lists
import gqlbench.mocks.engine.declared.make
import gqlbench.mocks.engine.declared.ranges
import gqlbench.mocks.engine.declared.relations
import gqlbench.mocks.engine.declared.views
import gqlbench.mocks.engine.declared.writes  # noqa: F401  (their operations)
from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared import growth
from gqlbench.mocks.engine.declared.templates import Scope, check, evaluate
from gqlbench.mocks.engine.world import Handler, World

__all__ = ["Declarations"]


@dataclass(frozen=True)
class Declarations:
    """The fixture's shapes, vocabularies and generated fields, with the behaviour's template functions."""

    shapes: Mapping[str, Any] = field(default_factory=dict)
    vocab: Mapping[str, Any] = field(default_factory=dict)
    generate: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    functions: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    fill: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)  # grow.fill: per kind, its steps
    fixture: Mapping[str, Any] = field(default_factory=dict)  # its views, for "$view" (mocks/engine/declared/views.py)

    @classmethod
    def read(cls, fixture: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]] | None, where: str) -> Declarations:
        """The declarations of a fixture that :func:`gqlbench.mocks.engine.worldfile.check_world` accepted."""
        fill = fixture.get("grow", {}).get("fill") or {}
        return cls(fixture.get("shapes", {}), fixture.get("vocab", {}), fixture.get("generate", {}), dict(functions or {}), fill, fixture)

    def scope(self, world: World, names: Mapping[str, Any]) -> Scope:
        return Scope(world, dict(names), self.shapes, self.vocab, self.functions, self.fixture)

    def handler(self, template: Any, where: str) -> Handler:
        """What answers an endpoint declared with ``"respond"`` (its operations checked now, not when called)."""
        check(template, where)

        def run(world: World, args: Mapping[str, Any]) -> Any:
            try:
                return evaluate(template, self.scope(world, args))
            except RecursionError:  # names that make a shape or an entity use itself, which no load-time check sees
                raise GqlbenchError(f"{where}: the template uses itself without end (a shape or kind named by a computed name)") from None

        return run

    def complete(self, world: World, kind: str, record: dict[str, Any]) -> None:
        """Give a record the generated fields it lacks, then fill its lists (``grow``)."""
        for name, template in self.generate.get(kind, {}).items():
            if name not in record:
                record[name] = evaluate(template, self.scope(world, record))
        if kind in self.fill:
            growth.grow(kind, self.fill[kind], record, self.scope(world, record))
