"""Printing SDL in StepZen's style, keeping source text wherever it is unchanged.

A definition or field that comes straight from a parsed SDL text is printed
verbatim from its source location, so StepZen's formatting (multi-line
``@rest(...)`` arguments, block descriptions) survives splitting and merging.
Only nodes the merge created are printed by us, in the same style (block
descriptions on their own lines, two-space indent, one field per line).
"""

from __future__ import annotations

from collections.abc import Iterable

from graphql import print_ast
from graphql.language import FieldDefinitionNode, Node, ObjectTypeDefinitionNode, StringValueNode

__all__ = ["print_definitions", "print_definition", "source_text"]

INDENT = "  "


def source_text(node: Node) -> str | None:
    """The exact source text of a parsed node, or None for a node built in code."""
    loc = node.loc
    if loc is None or loc.source is None:
        return None
    return loc.source.body[loc.start : loc.end]


def _description(desc: StringValueNode | None, indent: str) -> str:
    if desc is None:
        return ""
    if not desc.block:
        return f"{indent}{print_ast(desc)}\n"
    body = "\n".join(f"{indent}{line}" if line else "" for line in desc.value.splitlines())
    return f'{indent}"""\n{body}\n{indent}"""\n'


def _field(field: FieldDefinitionNode) -> str:
    verbatim = source_text(field)
    if verbatim is not None:
        return INDENT + verbatim
    args = f"({', '.join(print_ast(a) for a in field.arguments)})" if field.arguments else ""
    directives = "".join(" " + print_ast(d) for d in field.directives or ())
    return f"{_description(field.description, INDENT)}{INDENT}{field.name.value}{args}: {print_ast(field.type)}{directives}"


def print_definition(node: Node) -> str:
    """One definition: verbatim if parsed, else StepZen-style (object types) or graphql-core's printer."""
    verbatim = source_text(node)
    if verbatim is not None:
        return verbatim
    if not isinstance(node, ObjectTypeDefinitionNode):
        return print_ast(node)
    interfaces = " implements " + " & ".join(i.name.value for i in node.interfaces) if node.interfaces else ""
    directives = "".join(" " + print_ast(d) for d in node.directives or ())
    fields = "\n".join(_field(f) for f in node.fields or ())
    return f"{_description(node.description, '')}type {node.name.value}{interfaces}{directives} {{\n{fields}\n}}"


def print_definitions(nodes: Iterable[Node]) -> str:
    """Definitions separated by blank lines, ending with a newline."""
    return "\n\n".join(print_definition(n) for n in nodes) + "\n"
