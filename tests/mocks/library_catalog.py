"""A test helper: the bundled library domain copied into a catalog folder, with a world file of the test's."""

from __future__ import annotations

from pathlib import Path


def library_catalog(folder: Path, world: str) -> Path:
    """``folder`` as a catalog holding the library's specs and schemas and ``world`` as ``worlds/library.json``."""
    from gqlbench.specs.catalog import bundled_root

    root = bundled_root()
    (folder / "specs").mkdir(parents=True)
    (folder / "specs" / "library.json").write_text((root.specs_dir / "library.json").read_text())
    (folder / "schemas" / "library").mkdir(parents=True)
    for sdl in (root.schemas_dir / "library").glob("*.graphql"):
        (folder / "schemas" / "library" / sdl.name).write_text(sdl.read_text())
    (folder / "worlds").mkdir()
    (folder / "worlds" / "library.json").write_text(world)
    return folder
