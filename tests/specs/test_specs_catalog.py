"""The signature catalog: bundled domains, lookups, sample rebuilds, user catalogs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.dataset import load_samples
from gqlbench.errors import GqlbenchError
from gqlbench.records import FunctionSpec
from gqlbench.specs import (
    CATALOG_ENV,
    collect_specs,
    get_spec,
    list_domains,
    load_specs,
    read_specs_file,
    spec_problems,
    specs_file_text,
    specs_for,
    specs_path,
)

SAMPLES = load_samples()


def test_bundled_domains_hold_every_function_of_the_dataset() -> None:
    assert {"spotify", "tmdb"} <= set(list_domains())
    for domain in ("spotify", "tmdb"):
        used = {f.name for s in SAMPLES if s.domain == domain for f in s.function_specs}
        assert set(load_specs(domain)) == used
    assert len(load_specs("spotify")) + len(load_specs("tmdb")) == 80


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.id)
def test_catalog_rebuilds_each_sample_specs_exactly(sample) -> None:
    """Same functions in the same order, equal as JSON text (key order included)."""
    rebuilt = specs_for(sample.domain, sample.function_names, sample.id)
    assert [f.model_dump_json() for f in rebuilt] == [f.model_dump_json() for f in sample.function_specs]


def test_disagreements_are_recorded_not_overwritten() -> None:
    specs = read_specs_file(specs_path("spotify"))
    for name, variants in specs.variants.items():
        # every sample that uses the function is listed under exactly one variant
        users = [s.id for s in SAMPLES if s.domain == "spotify" and name in s.function_names]
        assert sorted(i for v in variants for i in v.samples) == sorted(users)
        assert len({v.spec.model_dump_json() for v in variants}) == len(variants) > 1
        assert specs.functions[name] in [v.spec for v in variants]
    problems = spec_problems("spotify")
    for name in specs.variants:
        assert any(p.subject == name and f": {name}: samples disagree" in str(p) for p in problems)


def test_collect_specs_merges_identical_copies_and_reports_each_disagreement() -> None:
    collected = collect_specs(SAMPLES)
    disagreeing = {
        (s.domain, f.name)
        for s in SAMPLES
        for f in s.function_specs
        for t in SAMPLES
        for g in t.function_specs
        if s.domain == t.domain and f.name == g.name and f != g
    }
    found = {(d, name) for d, c in collected.items() for name in c.variants}
    assert found == disagreeing and found  # the dataset has some; each one is reported
    assert sum(len(c.problems) for c in collected.values()) == len(disagreeing)


def test_canonical_signature_is_the_most_complete_variant() -> None:
    for _domain, collected in collect_specs(SAMPLES).items():
        for name, variants in collected.variants.items():
            chosen = collected.functions[name]
            assert all(len(chosen.parameters.properties) >= len(v.spec.parameters.properties) for v in variants)


def test_unknown_names_get_close_matches() -> None:
    with pytest.raises(GqlbenchError, match="known domains are .*spotify.*tmdb"):
        load_specs("tmbd")
    with pytest.raises(GqlbenchError, match="closest: GET_tv__tv_id_"):
        get_spec("tmdb", "GET_tv_tv_id")
    assert get_spec("tmdb", "GET_tv__tv_id_").param_names == ["tv_id"]


def _spec(name: str, *params: str) -> FunctionSpec:
    return FunctionSpec.model_validate(
        {
            "name": name,
            "description": "d",
            "parameters": {
                "type": "dict",
                "properties": {p: {"type": "string", "description": p} for p in params},
                "required": list(params[:1]),
            },
        }
    )


def test_user_catalog_adds_a_domain_from_a_plain_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "pets.json").write_text(json.dumps([_spec("GET_pets__id_", "id").model_dump()]))
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    assert "pets" in list_domains() and "tmdb" in list_domains()
    assert get_spec("pets", "GET_pets__id_").param_names == ["id"]
    assert spec_problems("pets") == []


def test_specs_file_round_trips_and_bad_files_name_themselves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "specs").mkdir()
    good = tmp_path / "specs" / "pets.json"
    good.write_text(specs_file_text([_spec("GET_pets", "kind")], domain="pets"))
    assert read_specs_file(good).functions["GET_pets"] == _spec("GET_pets", "kind")
    bad = tmp_path / "specs" / "broken.json"
    bad.write_text('{"functions": [{"name": "GET_x", "parameters": {"properties": {"a": {}}}}]}')
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    with pytest.raises(GqlbenchError, match=r"broken.json: functions\[0\]: bad function signature at parameters.properties.a.type"):
        load_specs("broken")
    assert len(spec_problems("broken")) == 1  # reported, not raised, by the check
    bad.write_text(json.dumps([_spec("GET x", "a b").model_dump()]))
    assert {"name is not a Python identifier", "not Python identifiers"} <= {
        key for p in spec_problems("broken") for key in ("name is not a Python identifier", "not Python identifiers") if key in p.message
    }


def test_keyword_and_dunder_names_in_an_existing_catalog_are_flagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "odd.json").write_text(json.dumps([_spec("GET_x", "__class__", "class", "limit").model_dump()]))
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    messages = sorted(p.message for p in spec_problems("odd"))
    assert len(messages) == 2
    assert messages[0].startswith("parameter '__class__' begins with '__'") and "rename it to 'class_'" in messages[0]
    assert messages[1].startswith("parameter 'class' is a Python keyword") and "rename it to 'class_'" in messages[1]


def test_missing_catalog_folder_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(GqlbenchError, match=f"{CATALOG_ENV} lists .*nowhere.*not a folder"):
        list_domains()


def _linked_catalog(tmp_path: Path, link: str) -> tuple[Path, Path]:
    """A catalog with the library domain copied in as ``shelf``, where ``link`` (a relative path) points outside it."""
    catalog, outside = tmp_path / "catalog", tmp_path / "outside"
    bundled = Path(specs_path("library")).parent.parent  # type: ignore[arg-type]
    (catalog / "specs").mkdir(parents=True)
    (catalog / "specs" / "shelf.json").write_text(
        json.dumps({**json.loads((bundled / "specs" / "library.json").read_text(encoding="utf-8")), "domain": "shelf"}), encoding="utf-8"
    )
    (catalog / "schemas" / "shelf").mkdir(parents=True)
    for sdl in (bundled / "schemas" / "library").glob("*.graphql"):
        (catalog / "schemas" / "shelf" / sdl.name).write_text(sdl.read_text(encoding="utf-8"), encoding="utf-8")
    (catalog / "worlds").mkdir()
    outside.mkdir()
    linked = catalog / link
    target = outside / linked.name
    if linked.is_dir():
        target.mkdir()
        for child in linked.iterdir():
            (target / child.name).write_text(child.read_text(encoding="utf-8"), encoding="utf-8")
        for child in linked.iterdir():
            child.unlink()
        linked.rmdir()
    else:
        target.write_text("SECRET_FIRST_TOKEN of a private file\n", encoding="utf-8")
        linked.unlink(missing_ok=True)
    linked.symlink_to(target)
    return catalog, target


def _read(what: str) -> None:
    from gqlbench.mocks.engine.world import World
    from gqlbench.schemas import build_schema

    {"schemas": lambda: build_schema("shelf"), "specs": lambda: load_specs("shelf"), "worlds": lambda: World.create("shelf")}[what]()


@pytest.mark.parametrize("link", ["schemas/shelf/GET_me_loans.graphql", "schemas/shelf", "specs/shelf.json", "worlds/shelf.json"])
def test_a_catalog_file_or_folder_linked_outside_the_catalog_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str) -> None:
    # A schema file linked to a file outside the catalog was read, and the error quoted the target's first token.
    catalog, target = _linked_catalog(tmp_path, link)
    monkeypatch.setenv(CATALOG_ENV, str(catalog))
    with pytest.raises(GqlbenchError) as caught:
        _read(link.split("/")[0])
    message = str(caught.value)
    assert message.startswith(f"{catalog / link}: a link to {target.resolve()}, outside the catalog folder"), message
    assert "SECRET" not in message and "\n" not in message
