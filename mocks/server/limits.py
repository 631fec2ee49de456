"""Limits on one GraphQL request to the mock server, checked before it runs.

One query with 5,000 aliased searches once kept ``gqlbench mock serve`` busy
for minutes. A request is now measured on its syntax tree, fragments expanded
(each fragment measured once, so a fragment spread many times costs nothing
extra to measure): its depth, its aliases, and its cost (one per field, plus
:data:`CALL_COST` per endpoint call, the root fields that run the world). A
request over a limit gets one GraphQL error naming the limit, the request's
value and the command-line option that raises it; nothing runs. The same
:class:`QueryLimits` carries the HTTP bounds checked before a request is
parsed (body size, time to arrive: :mod:`gqlbench.mocks.server.http_edge`),
and the bounds on what runs: the size of each argument of a call (what a
write may store: a 900 KB playlist name read back through 100 aliases made an
8 KB query an 88 MB answer) and of the answer, counted as it is built.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    parse,
    validate,
)
from graphql.validation import ASTValidationRule, ValidationContext

from gqlbench.mocks.errors import BadArguments

__all__ = [
    "CALL_COST",
    "SEED_RANGE",
    "QueryLimits",
    "QueryMeasure",
    "answer_bytes",
    "check_argument_sizes",
    "limits_rule",
    "measure",
    "parse_limited",
    "validate_limited",
]

CALL_COST = 10
"""Extra cost of a root field: it runs an endpoint's handler, not just a lookup."""

SEED_RANGE = (-(2**31), 2**31 - 1)
"""Seeds the server takes (``--seed``, ``POST /reset``): GraphQL's ``Int``, as ``resetWorld(seed:)`` has."""


@dataclass(frozen=True)
class QueryLimits:
    """What one request may ask for; the defaults let any gold-sized query and GraphiQL's introspection through."""

    max_depth: int = 20
    max_aliases: int = 100
    max_cost: int = 5000
    max_tokens: int = 10_000
    max_seconds: float = 30.0
    max_body_bytes: int = 1_048_576
    read_timeout: float = 10.0
    max_argument_chars: int = 10_000
    max_answer_bytes: int = 10_000_000


@dataclass(frozen=True)
class QueryMeasure:
    """The size of a request's largest operation."""

    depth: int
    aliases: int
    cost: int


_OPTIONS = {"max_depth": "--max-depth", "max_aliases": "--max-aliases", "max_cost": "--max-cost"}
_SAYING = {"max_depth": "the query is {} fields deep", "max_aliases": "the query has {} aliases", "max_cost": "the query costs {}"}


class _Walker:
    """Measures selections, with each fragment's own measure computed once."""

    def __init__(self, fragments: dict[str, FragmentDefinitionNode]) -> None:
        self.fragments = fragments
        self.done: dict[str, tuple[int, int, int]] = {}
        self.open: set[str] = set()  # a fragment cycle is the standard rules' error; measure it as empty

    def selections(self, node: SelectionSetNode | None, root: bool) -> tuple[int, int, int]:
        """(depth, aliases, cost) of a selection set."""
        depth = aliases = cost = 0
        for selection in node.selections if node is not None else ():
            if isinstance(selection, FieldNode):
                inner_depth, inner_aliases, inner_cost = self.selections(selection.selection_set, False)
                depth = max(depth, 1 + inner_depth)
                aliases += inner_aliases + (selection.alias is not None)
                cost += inner_cost + 1 + (CALL_COST if root and not selection.name.value.startswith("__") else 0)
                continue
            if isinstance(selection, InlineFragmentNode):
                found = self.selections(selection.selection_set, root)
            elif isinstance(selection, FragmentSpreadNode):
                found = self.fragment(selection.name.value, root)
            else:  # pragma: no cover - graphql-core has no other selection kinds
                continue
            depth, aliases, cost = max(depth, found[0]), aliases + found[1], cost + found[2]
        return depth, aliases, cost

    def fragment(self, name: str, root: bool) -> tuple[int, int, int]:
        key = f"{name}@root" if root else name
        if key not in self.done:
            definition = self.fragments.get(name)
            if definition is None or key in self.open:
                return 0, 0, 0
            self.open.add(key)
            self.done[key] = self.selections(definition.selection_set, root)
            self.open.discard(key)
        return self.done[key]


def measure(document: DocumentNode) -> QueryMeasure:
    """Depth, aliases and cost of the document's largest operation (each the maximum over operations)."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    walker = _Walker(fragments)
    found = [walker.selections(d.selection_set, True) for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    return QueryMeasure(*(max((f[i] for f in found), default=0) for i in range(3)))


def limit_errors(found: QueryMeasure, limits: QueryLimits) -> list[GraphQLError]:
    """One error per limit the request exceeds, naming it, the value and the option that raises it."""
    errors = []
    for name, value in (("max_depth", found.depth), ("max_aliases", found.aliases), ("max_cost", found.cost)):
        maximum = getattr(limits, name)
        if value > maximum:
            errors.append(
                GraphQLError(
                    f"{_SAYING[name].format(value)}, over the server's limit of {maximum} ({_OPTIONS[name]}); "
                    "split it into smaller requests",
                    extensions={"kind": "limit", "limit": name, "value": value, "maximum": maximum},
                )
            )
    return errors


def limits_rule(limits: QueryLimits) -> type[ASTValidationRule]:
    """A graphql-core validation rule that reports every limit the document exceeds."""

    class QueryLimitsRule(ASTValidationRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            for error in limit_errors(measure(context.document), limits):
                context.report_error(error)

    return QueryLimitsRule


def validate_limited(limits: QueryLimits) -> Callable[..., list[GraphQLError]]:
    """An ariadne ``query_validator``: the limits alone first, the standard rules only on a request within them.

    The standard rules cost time per field too, so an oversized request is
    refused after one cheap walk of its tree.
    """
    rule = limits_rule(limits)

    def run(
        schema: GraphQLSchema,
        document: DocumentNode,
        rules: Collection[type[ASTValidationRule]] | None = None,
        max_errors: int | None = None,
        **kwargs: Any,
    ) -> list[GraphQLError]:
        errors = validate(schema, document, rules=[rule])
        if errors:
            return errors
        others = [r for r in rules or () if r is not rule]
        return validate(schema, document, rules=others or None, max_errors=max_errors, **kwargs)

    return run


def parse_limited(limits: QueryLimits) -> Callable[[Any, dict[str, Any]], DocumentNode]:
    """An ariadne ``query_parser`` that stops reading a query after ``max_tokens`` tokens."""

    def run(_context: Any, data: dict[str, Any]) -> DocumentNode:
        try:
            return parse(data["query"], max_tokens=limits.max_tokens)
        except GraphQLError as error:
            if "tokens" not in error.message:
                raise
            raise GraphQLError(
                f"the query has more than {limits.max_tokens} tokens, the server's limit (--max-tokens); split it into smaller requests",
                extensions={"kind": "limit", "limit": "max_tokens", "maximum": limits.max_tokens},
            ) from None

    return run


def check_argument_sizes(arguments: Mapping[str, Any], limits: QueryLimits) -> None:
    """:class:`BadArguments` naming the first argument whose text (a list or object: as JSON) is over ``max_argument_chars``."""
    for name, value in arguments.items():
        size = len(value) if isinstance(value, str) else len(json.dumps(value, default=str))
        if size > limits.max_argument_chars:
            raise BadArguments(
                f"{name} is {size:,} characters long, over the server's limit of {limits.max_argument_chars:,} "
                "(--max-argument-chars); pass less in one call"
            )


def answer_bytes(value: Any, leaf: bool) -> int:
    """About the bytes a field's value adds to the JSON answer, counted as the answer is built.

    All of a ``leaf`` (scalar or enum) value; of an object or a list of
    objects only the brackets, since their own fields are counted as they resolve.
    """
    if leaf:
        return len(value) + 2 if isinstance(value, str) else len(json.dumps(value, default=str))
    return 2 + 2 * len(value) if isinstance(value, list) else 2
