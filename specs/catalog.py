"""Where domains live: the bundled catalog plus the user's catalog folders.

A catalog folder holds ``specs/<domain>.json`` (signatures) and/or
``schemas/<domain>/<function>.graphql`` (response SDL, one file per endpoint).
Users add domains without touching site-packages by listing their folders in
the ``GQLBENCH_CATALOG`` environment variable (``os.pathsep``-separated). User
folders are searched first, in the order given, so a user folder can shadow a
bundled domain; the folder a domain was found in is always shown by
``gqlbench domains``.

A catalog's files are read only from inside it: a file or folder that is a
link leading out of its catalog's ``specs/``, ``schemas/`` or ``worlds/`` is
refused with one line (a linked schema file was read, and its parse error
quoted the first token of whatever it pointed at).
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

from gqlbench.errors import GqlbenchError, closest

__all__ = [
    "CATALOG_ENV",
    "CatalogRoot",
    "bundled_root",
    "catalog_roots",
    "check_domain_name",
    "contained",
    "endpoint_sdl_file",
    "is_domain_name",
    "list_domains",
    "specs_path",
    "schemas_path",
    "unknown_domain",
]

CATALOG_ENV = "GQLBENCH_CATALOG"

_DOMAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def is_domain_name(domain: str) -> bool:
    """Whether ``domain`` is a name (letters, digits, ``_`` and ``-``): it names catalog files, so it is never a path."""
    return isinstance(domain, str) and _DOMAIN_NAME.fullmatch(domain) is not None


def check_domain_name(domain: str) -> str:
    """``domain``, or a one-line error when it is not a name (``../../x/evil`` read signatures outside every catalog)."""
    if not is_domain_name(domain):
        raise GqlbenchError(f"domain {domain!r} is not a domain name: use letters, digits, _ and - (a domain is a name, never a path)")
    return domain


@dataclass(frozen=True)
class CatalogRoot:
    """One catalog folder: its ``specs/`` and ``schemas/`` subfolders."""

    specs_dir: Path
    schemas_dir: Path
    bundled: bool = False

    @classmethod
    def at(cls, folder: Path | str) -> CatalogRoot:
        folder = Path(folder)
        return cls(folder / "specs", folder / "schemas")

    def domains(self) -> set[str]:
        found = {p.stem for p in self.specs_dir.glob("*.json")} if self.specs_dir.is_dir() else set()
        if self.schemas_dir.is_dir():
            found |= {p.name for p in self.schemas_dir.iterdir() if p.is_dir() and any(p.glob("*.graphql"))}
        return found


def bundled_root() -> CatalogRoot:
    """The catalog shipped inside the package (``gqlbench.specs``/``gqlbench.schemas``)."""
    # find_spec locates the sibling package without importing it (schemas imports specs).
    spec = importlib.util.find_spec("gqlbench.schemas")
    assert spec is not None and spec.submodule_search_locations, "gqlbench.schemas is part of the package"
    schemas_dir = Path(list(spec.submodule_search_locations)[0]).resolve()
    return CatalogRoot(Path(__file__).resolve().parent, schemas_dir, bundled=True)


def catalog_roots() -> list[CatalogRoot]:
    """User folders from ``GQLBENCH_CATALOG`` (in order), then the bundled catalog."""
    roots = []
    for entry in os.environ.get(CATALOG_ENV, "").split(os.pathsep):
        if not entry.strip():
            continue
        folder = Path(entry).expanduser()
        if not folder.is_dir():
            raise GqlbenchError(f"{CATALOG_ENV} lists {folder}, which is not a folder; fix or remove that entry")
        roots.append(CatalogRoot.at(folder))
    return [*roots, bundled_root()]


def list_domains() -> list[str]:
    """Every domain that has a specs file or a schemas folder, sorted."""
    return sorted(set().union(*(root.domains() for root in catalog_roots())))


def contained(path: Path, folder: Path) -> Path:
    """``path``, or a one-line error when it resolves outside ``folder`` (a link leaving the catalog)."""
    target = path.resolve()
    if not target.is_relative_to(folder.resolve()):
        raise GqlbenchError(f"{path}: a link to {target}, outside the catalog folder {folder}; copy the file into the catalog instead")
    return path


def specs_path(domain: str) -> Path | None:
    """The specs file of ``domain`` that wins on the search path, if any."""
    check_domain_name(domain)
    for root in catalog_roots():
        path = root.specs_dir / f"{domain}.json"
        if path.is_file():
            return contained(path, root.specs_dir)
    return None


def schemas_path(domain: str) -> Path | None:
    """The per-endpoint SDL folder of ``domain`` that wins on the search path, if any."""
    check_domain_name(domain)
    for root in catalog_roots():
        path = root.schemas_dir / domain
        if path.is_dir() and any(path.glob("*.graphql")):
            return contained(path, root.schemas_dir)
    return None


def endpoint_sdl_file(domain: str, function: str) -> Path | None:
    """The SDL file of one endpoint of ``domain``, or None when it has none (a link out of the catalog is refused)."""
    folder = schemas_path(domain)
    path = folder / f"{function}.graphql" if folder is not None else None
    return contained(path, folder) if path is not None and folder is not None and path.is_file() else None


def unknown_domain(domain: str) -> GqlbenchError:
    """The error for a domain that is in no catalog folder, naming the known ones."""
    known = list_domains()
    close = closest(domain, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return GqlbenchError(
        f"unknown domain {domain!r}: {hint}known domains are {', '.join(known) or '(none)'}; "
        f"add a catalog folder to {CATALOG_ENV} to define more"
    )
