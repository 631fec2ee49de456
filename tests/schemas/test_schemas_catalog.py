"""Per-endpoint SDL files: the build, the shipped files and the schemas they give every sample."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from graphql import GraphQLObjectType, build_ast_schema, get_named_type
from graphql.language import DocumentNode, ObjectTypeDefinitionNode

from gqlbench.dataset import load_samples
from gqlbench.errors import GqlbenchError
from gqlbench.schemas import (
    PRELUDE,
    build_catalog,
    build_schema,
    endpoint_documents,
    endpoint_sdl,
    endpoints_with_sdl,
    merge_notes,
    parse_sdl,
    query_fields,
    reachable_types,
    response_type_name,
    schema_for_sample,
    write_catalog,
)
from gqlbench.schemas.split import referenced_types
from gqlbench.specs import CATALOG_ENV, bundled_root, load_specs

SAMPLES = load_samples()
WITH_SDL = [s for s in SAMPLES if s.graphql_schema.strip()]


@cache
def fresh_build():
    return build_catalog(SAMPLES)


def _shipped_files(domains: set[str]) -> dict[str, str]:
    root = bundled_root()
    files = {f"specs/{p.name}": p for p in root.specs_dir.glob("*.json") if p.stem in domains}
    files |= {f"schemas/{p.parent.name}/{p.name}": p for p in root.schemas_dir.glob("*/*.graphql") if p.parent.name in domains}
    return {rel: p.read_text(encoding="utf-8") for rel, p in files.items()}


def test_shipped_catalog_equals_a_fresh_build() -> None:
    """If this fails, run `gqlbench domains build --force` and review the diff.

    Other bundled domains (made with `gqlbench domains import-openapi`) are not built from samples.
    """
    build = fresh_build()
    domains = {rel.split("/")[1].removesuffix(".json") for rel in build.files}
    assert domains == {"spotify", "tmdb"}
    assert _shipped_files(domains) == build.files


def test_endpoint_counts() -> None:
    assert len(endpoints_with_sdl("spotify")) + len(endpoints_with_sdl("tmdb")) == 65
    for domain in ("spotify", "tmdb"):
        assert set(endpoints_with_sdl(domain)) <= set(load_specs(domain))


@pytest.mark.parametrize("domain", ["spotify", "tmdb"])
def test_every_endpoint_file_builds_alone_and_holds_only_its_reachable_types(domain: str) -> None:
    for function in endpoints_with_sdl(domain):
        text = endpoint_sdl(domain, function)
        document = parse_sdl(text, function)
        assert query_fields(document) == [function]
        schema = build_ast_schema(parse_sdl(PRELUDE + text))
        root = response_type_name(domain, function)
        assert get_named_type(schema.query_type.fields[function].type).name == root
        types = {d.name.value: d for d in document.definitions if d.name.value != "Query"}
        query = next(d for d in document.definitions if d.name.value == "Query")
        # a type whose fields the merge gave to another may end up unreferenced; the notes name it
        notes = " ".join(n for n in fresh_build().notes if n.startswith(f"schemas/{domain}/{function}.graphql:"))
        assert {t for t in set(types) - set(reachable_types(query, types)) if t not in notes.split()} == set()
    assert build_schema(domain).query_type is not None


@pytest.mark.parametrize("domain", ["spotify", "tmdb"])
def test_endpoint_files_of_a_domain_merge_without_any_decision(domain: str) -> None:
    """Types are per endpoint, so merging a whole domain needs no conflict rule."""
    assert merge_notes(endpoint_sdl(domain, f) for f in endpoints_with_sdl(domain)) == []


def test_split_uses_reachability_not_name_prefixes() -> None:
    sdl = """
type GET_me_Root {
  id: String
}

type Query {
  GET_me: GET_me_Root
}
type GET_me_player_Root {
  device: GET_me_player_Device
}

type GET_me_player_Device {
  id: String
}

type Query {
  GET_me_player: GET_me_player_Root
}
"""
    split = endpoint_documents(sdl)
    names = {k: [d.name.value for d in v.definitions] for k, v in split.items()}
    assert names == {"GET_me": ["GET_me_Root", "Query"], "GET_me_player": ["GET_me_player_Root", "GET_me_player_Device", "Query"]}


@pytest.mark.parametrize("sample", WITH_SDL, ids=lambda s: s.id)
def test_each_sample_sdl_splits_into_disjoint_endpoint_shares(sample) -> None:
    document = parse_sdl(sample.graphql_schema)
    all_types = {d.name.value for d in document.definitions if d.name.value != "Query"}
    shares = [
        {d.name.value for d in doc.definitions if d.name.value != "Query"} for doc in endpoint_documents(sample.graphql_schema).values()
    ]
    assert set().union(*shares) == all_types
    assert sum(map(len, shares)) == len(all_types)


def test_endpoints_whose_samples_agree_reproduce_the_dataset_text() -> None:
    """Concatenating the endpoint files gives the sample's SDL byte for byte."""
    merged = {note.split(":")[0] for note in fresh_build().notes}
    exact = 0
    for sample in WITH_SDL:
        files = [f"schemas/{sample.domain}/{name}.graphql" for name in query_fields(parse_sdl(sample.graphql_schema))]
        if not any(f in merged for f in files):
            assert "".join(fresh_build().files[f] for f in files) == sample.graphql_schema, sample.id
            exact += 1
    assert exact > len(WITH_SDL) // 4


def _missing_paths(document: DocumentNode, type_name: str, schema_type: GraphQLObjectType, path: str) -> list[str]:
    """Field paths below ``type_name`` in the sample's SDL that the rebuilt schema cannot follow."""
    definitions = {d.name.value: d for d in document.definitions if isinstance(d, ObjectTypeDefinitionNode)}
    missing = []
    for field in definitions[type_name].fields:
        name = field.name.value
        if name not in schema_type.fields:
            missing.append(f"{path}.{name}")
            continue
        inner = referenced_types(field.type)[0]
        target = get_named_type(schema_type.fields[name].type)
        if inner in definitions and isinstance(target, GraphQLObjectType):
            missing += _missing_paths(document, inner, target, f"{path}.{name}")
    return missing


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.id)
def test_sample_schema_has_every_type_field_and_path_of_the_sample_sdl(sample) -> None:
    schema = schema_for_sample(sample)
    if not sample.graphql_schema.strip():
        return
    document = parse_sdl(sample.graphql_schema)
    for definition in document.definitions:
        if definition.name.value == "Query":
            for field in definition.fields:
                assert field.name.value in schema.query_type.fields
                root = referenced_types(field.type)[0]
                assert _missing_paths(document, root, schema.type_map[root], field.name.value) == []
        else:
            rebuilt = schema.type_map[definition.name.value]
            assert {f.name.value for f in definition.fields} <= set(rebuilt.fields)


def test_lookups_for_endpoints_without_schema_and_unknown_names() -> None:
    assert endpoint_sdl("spotify", "PUT_me_player_pause") is None
    assert response_type_name("spotify", "PUT_me_player_pause") is None
    assert response_type_name("tmdb", "GET_tv__tv_id_") == "GET_tv__tv_id_Root"
    schema = build_schema("spotify", ["GET_me", "PUT_me_player_pause"])
    assert set(schema.query_type.fields) == {"GET_me"}
    with pytest.raises(GqlbenchError, match="has no function 'GET_mee'; closest: GET_me"):
        build_schema("spotify", ["GET_mee"])
    with pytest.raises(GqlbenchError, match="unknown domain 'spotfy'"):
        build_schema("spotfy")


def test_user_catalog_folder_adds_a_domain_with_schemas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "schemas" / "pets").mkdir(parents=True)
    (tmp_path / "schemas" / "pets" / "GET_pets.graphql").write_text(
        'type GET_pets_Root {\n  name: String\n  tag: JSON\n}\n\ntype Query {\n  GET_pets: GET_pets_Root @rest(endpoint: "https://pets.example/pets")\n}\n'
    )
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    assert endpoints_with_sdl("pets") == ["GET_pets"]
    assert set(build_schema("pets").type_map["GET_pets_Root"].fields) == {"name", "tag"}
    with pytest.raises(GqlbenchError, match=r"domain 'pets' has response schemas but no signatures \(no specs/pets.json"):
        load_specs("pets")  # once "unknown domain 'pets': did you mean 'pets'?"


def test_write_catalog_never_overwrites_differing_files_without_force(tmp_path: Path) -> None:
    build = build_catalog([s for s in SAMPLES if s.domain == "tmdb"])
    first = write_catalog(build, tmp_path)
    assert len(first.written) == len(build.files) and not first.unchanged
    target = tmp_path / "specs" / "tmdb.json"
    target.write_text("my edits")
    (tmp_path / "schemas" / "tmdb" / "GET_extra.graphql").write_text("type Query { GET_extra: Int }")
    with pytest.raises(GqlbenchError, match="refusing to overwrite 1 file.*--force"):
        write_catalog(build, tmp_path)
    assert target.read_text() == "my edits"
    forced = write_catalog(build, tmp_path, force=True)
    assert forced.written == [target] and forced.stale == [tmp_path / "schemas" / "tmdb" / "GET_extra.graphql"]
    assert (tmp_path / "schemas" / "tmdb" / "GET_extra.graphql").exists()  # stale files are reported, not deleted
