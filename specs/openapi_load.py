"""Reading an OpenAPI document as published: one file or several, into one bounded in-memory document.

APIs often publish their description as several files (SpaceTraders:
``reference/SpaceTraders.json`` with ``$ref: '../models/Ship.json'``;
others ``other.yaml#/components/schemas/X``). :func:`load_openapi` reads the
document and every local file its ``$ref`` s reach, each resolved relative to
the file that refers to it, and gives back one document in which every
reference is a local JSON pointer: a referred file is stored under
``x-gqlbench-files`` and its references are rewritten to point there, so the
rest of the import follows ``#/...`` pointers only (:func:`gqlbench.specs.openapi.resolve`).

What it refuses, each with one line naming the file and the reference, when
the import follows that reference (a reference nothing uses, such as one inside
a vendor extension to a file that was not published, is left alone):

* a reference with a scheme (``https://...``, ``file://...``): the network
  is never read; save the file and refer to it by relative path;
* an absolute path, a missing file, something that is not a regular file
  (``/dev/zero``, a FIFO), a file over :data:`MAX_FILE_BYTES`, a fragment
  that points to nothing; and, at once, more than :data:`MAX_FILES` files;
* YAML whose aliases (``*name``) would add more than
  :data:`MAX_ALIAS_NODES` nodes when expanded (an "alias bomb": a few hundred
  bytes that stand for billions of nodes). Aliases stay shared objects after
  loading, but everything that walks the document (the response schema, its
  examples) would expand them, so the bound is checked on the composed YAML
  before any Python object is built.

Reference cycles between files are fine here (each file is read once); the
schema walk stops at a reference it is already inside, and bounds the total
expansion of ``$ref`` s by nodes (``gqlbench.schemas.openapi.MAX_SCHEMA_NODES``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from gqlbench.errors import GqlbenchError

__all__ = [
    "FILES_KEY",
    "UNREAD_KEY",
    "MAX_ALIAS_NODES",
    "MAX_FILE_BYTES",
    "MAX_FILES",
    "follow_pointer",
    "load_openapi",
    "read_structured_file",
    "unread_reason",
]

FILES_KEY = "x-gqlbench-files"
"""Where the referred files live in the loaded document (an OpenAPI extension key)."""

UNREAD_KEY = "x-gqlbench-unread"
"""Where the loaded document keeps, per reference it could not read, the reason (raised when the reference is followed)."""

MAX_ALIAS_NODES = 100_000
"""How many nodes the YAML aliases of one file may add when expanded."""

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest file read (room for the largest public OpenAPI documents, which stay in the tens of megabytes)."""

MAX_FILES = 2_000
"""How many files one document may refer to."""

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _yaml_alias_nodes(root: yaml.Node) -> int:
    """How many nodes the aliases under ``root`` add when expanded (shared nodes counted once per use)."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        sizes[key] = 1  # a node inside itself (a recursive alias) counts once
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            children = []
        sizes[key] = 1 + sum(size(child) for child in children)
        return sizes[key]

    return size(root) - len(sizes)


def _load_yaml(text: str, where: str) -> Any:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        added = _yaml_alias_nodes(node)
        if added > MAX_ALIAS_NODES:
            raise GqlbenchError(
                f"{where}: YAML aliases (*name) would expand this file by {added:,} nodes, past the bound of "
                f"{MAX_ALIAS_NODES:,}; write the repeated parts once under components and refer to them with $ref"
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def read_structured_file(path: Path, where: str) -> Any:
    """The JSON (``.json``) or YAML (anything else) value in ``path``; ``where`` names it in errors."""
    if not path.exists():
        raise GqlbenchError(f"{where}: no such file")
    if not path.is_file():
        raise GqlbenchError(f"{where}: not a regular file; only plain JSON or YAML files are read")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise GqlbenchError(f"{where}: {size:,} bytes, past the bound of {MAX_FILE_BYTES:,} for one file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise GqlbenchError(f"{where}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    try:
        return json.loads(text) if path.suffix.lower() == ".json" else _load_yaml(text, where)
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{where}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise GqlbenchError(f"{where}{line}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    except RecursionError:
        raise GqlbenchError(f"{where}: nested too deeply to read") from None


def load_openapi(path: Path | str) -> dict[str, Any]:
    """Read an OpenAPI 3.0/3.1 document (JSON or YAML, with the local files it refers to), checking the version."""
    path = Path(path)
    if not path.exists():
        raise GqlbenchError(f"{path}: no such file (expected an OpenAPI 3.0/3.1 document in JSON or YAML)")
    doc = read_structured_file(path, str(path))
    if not isinstance(doc, dict):
        raise GqlbenchError(f"{path}: the document must be a JSON/YAML object with 'openapi' and 'paths'")
    version = str(doc.get("openapi", ""))
    if not re.match(r"3\.[01](\.|$)", version):
        found = f"'swagger: {doc['swagger']}'" if "swagger" in doc else f"openapi {version!r}" if version else "no 'openapi' field"
        raise GqlbenchError(f"{path}: found {found}; only OpenAPI 3.0 and 3.1 are supported (convert Swagger 2.0 files first)")
    if not isinstance(doc.get("paths"), dict):
        raise GqlbenchError(f"{path}: no 'paths' object; the document defines no operations")
    _Bundler(path, doc).run()
    return doc


def _pointer_token(text: str) -> str:
    return text.replace("~", "~0").replace("/", "~1")


def follow_pointer(doc: Any, pointer: str) -> Any:
    """The node a JSON pointer (``/components/schemas/X``) names in ``doc``; LookupError when there is none."""
    target = doc
    for part in pointer[1:].split("/"):
        # a URI fragment is percent-encoded ('%7BshipSymbol%7D' for '{shipSymbol}'), then JSON-pointer-escaped
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            raise LookupError(pointer)
    return target


class _Unread(Exception):
    """A reference that cannot be followed (the message says why); an error only when the import follows it."""


def unread_reason(doc: dict[str, Any], ref: str) -> str | None:
    """Why ``ref`` (a pointer :func:`load_openapi` made for a reference it could not read) was not read, else None."""
    prefix = f"#/{UNREAD_KEY}/"
    reasons = doc.get(UNREAD_KEY)
    if not ref.startswith(prefix) or not isinstance(reasons, dict):
        return None
    return reasons.get(ref[len(prefix) :])


class _Bundler:
    """Reads the files a document refers to and rewrites every reference to a local pointer."""

    def __init__(self, path: Path, doc: dict[str, Any]) -> None:
        self.root = path.resolve()
        self.shown_dir = path.parent
        self.doc = doc
        self.prefixes: dict[Path, str] = {self.root: ""}  # file -> JSON pointer of its content in the document
        self.names: dict[Path, str] = {self.root: str(path)}  # file -> how errors name it
        self.contents: dict[Path, Any] = {self.root: doc}
        self.files: dict[str, Any] = {}
        self.unread: dict[str, str] = {}

    def run(self) -> None:
        pending = [self.root]
        while pending:
            current = pending.pop()
            pending += self._rewrite(current)
        if self.files:
            self.doc[FILES_KEY] = self.files
        if self.unread:
            self.doc[UNREAD_KEY] = self.unread

    def _rewrite(self, path: Path) -> list[Path]:
        """Rewrite the references of one file (each shared node once); returns the files met for the first time."""
        new: list[Path] = []
        stack: list[Any] = [self.contents[path]]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, dict):
                if isinstance(node.get("$ref"), str):
                    node["$ref"] = self._rewritten(path, node["$ref"], new)
                stack += [v for v in node.values() if isinstance(v, (dict, list))]
            elif isinstance(node, list):
                stack += [v for v in node if isinstance(v, (dict, list))]
        return new

    def _rewritten(self, path: Path, ref: str, new: list[Path]) -> str:
        """The local pointer for ``ref``; one to the reason in :data:`UNREAD_KEY` when the file cannot be read."""
        try:
            return self._local(path, ref, new)
        except _Unread as exc:
            key = str(len(self.unread))
            self.unread[key] = str(exc)
            return f"#/{UNREAD_KEY}/{key}"

    def _local(self, path: Path, ref: str, new: list[Path]) -> str:
        where = f"{self.names[path]}: $ref {ref!r}"
        if _SCHEME.match(ref):
            raise _Unread(
                f"{where}: only local files are read, never the network; "
                "save the referred file next to the document and refer to it by relative path"
            )
        file_part, _, fragment = ref.partition("#")
        if fragment and not fragment.startswith("/"):
            raise _Unread(f"{where}: only JSON-pointer fragments ('#/...') are supported")
        if not file_part:
            return ref if path == self.root else "#" + self.prefixes[path] + fragment
        relative = unquote(file_part)
        if os.path.isabs(relative):
            raise _Unread(f"{where}: use a path relative to the referring file, not an absolute one")
        target = (path.parent / relative).resolve()
        if target not in self.prefixes:
            if len(self.prefixes) > MAX_FILES:
                raise GqlbenchError(f"{where}: the document refers to more than {MAX_FILES:,} files, past the bound")
            key = os.path.relpath(target, self.root.parent)
            shown = os.path.normpath(os.path.join(self.shown_dir, key))
            try:
                content = read_structured_file(target, f"{where}: {shown}")
            except GqlbenchError as exc:
                raise _Unread(str(exc)) from None
            self.names[target], self.contents[target] = shown, content
            self.prefixes[target] = f"/{FILES_KEY}/{_pointer_token(key)}"
            self.files[key] = self.contents[target]
            new.append(target)
        if fragment:
            try:
                follow_pointer(self.contents[target], fragment)
            except LookupError:
                raise _Unread(f"{where}: '#{fragment}' points to nothing in {self.names[target]}; fix the reference") from None
        return "#" + self.prefixes[target] + fragment
