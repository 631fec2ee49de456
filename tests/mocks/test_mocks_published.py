"""Worlds inferred from OpenAPI files written the way published ones are, with no declarations at all.

``tests/data/worlds/teams.yaml`` has the styles of Asana (``gid`` keys,
``{"data": ...}``, compact subtasks), Bitbucket (an entity named by
``{workspace}/{repo_slug}`` and keyed by its ``uuid``), CircleCI (bare lists
under ``/{username}/{project}``, ``{build_num}``) and Mastodon (followers that
are accounts, ``statuses``), Gitea (workspace members that are users, deploy
keys looked up by ``{id}`` though they show a ``key_id``, pulls by
``{index}``) and Notion (a ``page_size`` typed as a string);
``tests/data/worlds/league.yaml`` those of
Hetzner (``Float`` ids), GitLab (a user's ``id`` a string where ``/members/{id}``
takes an integer), Pandascore (``{league_id_or_slug}``, a ``search`` object,
teams inside a plain roster), Netlify (a create given its ``id``) and GitHub
(an owner four levels deep, branches keyed by name) and TVmaze (a list at a
path that ends in the show's key) and Spotify (saved items that wrap a track, a
category's playlists in a page object). Every self-test pair
passes, and each shape is checked by what a program chaining calls would see.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.mocks.coherence import probe_domain
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.world import world_model
from gqlbench.mocks.errors import NotFound
from gqlbench.schemas.domain_import import import_openapi_domain
from tests.schemas.test_schemas_openapi_facts import openapi_doc

WORLDS = Path(__file__).parents[1] / "data" / "worlds"


def _import(name: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import_openapi_domain(WORLDS / f"{name}.yaml", name, folder)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(folder))


@pytest.fixture()
def teams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    _import("teams", tmp_path, monkeypatch)
    yield Runtime("teams", 0).namespace


@pytest.fixture()
def league(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    _import("league", tmp_path, monkeypatch)
    yield Runtime("league", 0).namespace


@pytest.mark.parametrize(("name", "least"), [("teams", 26), ("league", 25)])
def test_every_self_test_pair_passes(name: str, least: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _import(name, tmp_path, monkeypatch)
    pairs = probe_domain(name)
    assert len(pairs) >= least
    assert [f"{p.label}: {p.reason}" for p in pairs if not p.passed] == []


def test_a_list_under_a_parent_whose_items_have_only_the_key_field_is_its_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asana's ``/tasks/{task_gid}/subtasks`` lists tasks (compact), not a lookup of the parent task."""
    _import("teams", tmp_path, monkeypatch)
    assert world_model("teams").generic.rules["GET_tasks__task_gid__subtasks"].action == "children"
    api = Runtime("teams", 0, request="The subtasks of task T-1.").namespace
    subtasks = api["GET_tasks__task_gid__subtasks"](task_gid="T-1", limit=1).data
    assert len(subtasks) == 1
    assert api["GET_tasks__task_gid_"](task_gid=subtasks[0].gid).data.name == subtasks[0].name


def test_a_compound_key_names_the_entity_by_its_name_within_the_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bitbucket keys a repository by its ``uuid``; ``/repositories/{workspace}/{repo_slug}`` takes its name."""
    _import("teams", tmp_path, monkeypatch)
    api = Runtime("teams", 0, request="Repositories of acme.").namespace
    found = api["GET_repositories__workspace_"](workspace="acme").values[0]
    same = api["GET_repositories__workspace___repo_slug_"](workspace="acme", repo_slug=found.name)
    assert (same.uuid, same.full_name) == (found.uuid, found.full_name)
    owner = api["GET_users__selected_user_"](selected_user=found.owner.username)  # a nested account is that user
    assert owner.uuid == found.owner.uuid
    with pytest.raises(NotFound):
        api["GET_repositories__workspace___repo_slug_"](workspace="acme", repo_slug="nobody-named-this")


def test_a_post_beside_a_lookup_creates_and_a_bare_list_under_a_parent_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CircleCI: ``POST .../envvar`` makes the variable ``GET .../envvar/{name}`` finds and ``GET .../envvar`` lists."""
    _import("teams", tmp_path, monkeypatch)
    api = Runtime("teams", 0, request="Set TOKEN on octo/app.").namespace
    api["POST_project__username___project__envvar"](username="octo", project="app", name="TOKEN", value="xyz")
    assert api["GET_project__username___project__envvar__name_"](username="octo", project="app", name="TOKEN").value == "xyz"
    listed = api["GET_project__username___project__envvar"](username="octo", project="app")
    assert "TOKEN" in [v.name for v in listed]
    rules = world_model("teams").generic.rules
    assert rules["GET_project__username___project___build_num_"].kind == "build"  # a parameter after a parameter names its kind


def test_listed_objects_of_another_name_are_the_kind_of_the_same_shape(teams: dict) -> None:
    """Mastodon's followers are accounts, its home timeline lists statuses (not ``statuse``)."""
    rules = world_model("teams").generic.rules
    assert (rules["GET_accounts__id__followers"].kind, rules["GET_timelines_home"].kind) == ("account", "status")
    status = teams["GET_timelines_home"]()[0]
    assert teams["GET_statuses__id_"](id=status.id).content == status.content


def test_keys_typed_apart_from_their_parameter_are_digits(league: dict) -> None:
    """Hetzner's ``Float`` ids are whole; GitLab's owner ``id`` (a string) is the member ``/members/{id}`` finds."""
    location = league["GET_locations"]().locations[0]
    assert float(location.id).is_integer()
    assert league["GET_locations__id_"](id=int(location.id)).location.name == location.name
    api = Runtime("league", 0, request="Group 7.").namespace
    owner = api["GET_groups__id_"](id=7).projects[0].owner
    assert owner.id.isdigit()
    assert api["GET_members__id_"](id=int(owner.id)).username == owner.username


def test_either_key_parameters_and_object_filters(league: dict) -> None:
    """Pandascore: ``{league_id_or_slug}`` takes the id; ``search`` is an object of filters, so ``GET /leagues`` lists."""
    assert world_model("league").generic.rules["GET_leagues"].action == "list"
    first = league["GET_leagues"]()[0]
    assert league["GET_leagues__league_id_or_slug_"](league_id_or_slug=first.id).slug == first.slug
    api = Runtime("league", 0, request="Tournament 3.").namespace
    team = api["GET_tournaments__tournament_id_or_slug_"](tournament_id_or_slug=3).expected_roster[0].team
    assert api["GET_teams__team_id_or_slug_"](team_id_or_slug=team.id).name == team.name


def test_a_create_keeps_the_id_it_is_given(league: dict) -> None:
    league["POST_sites"](id="blog-1", name="Blog")
    assert league["GET_sites__site_id_"](site_id="blog-1").name == "Blog"


def test_an_entity_four_levels_deep_is_found_and_a_branch_by_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitHub: ``issue.repository.template_repository.owner`` is a user; ``/branches/{branch}`` finds a listed branch by name."""
    _import("league", tmp_path, monkeypatch)
    api = Runtime("league", 0, request="Issue 1 of octocat/hello.").namespace
    issue = api["GET_repos__owner___repo__issues__issue_number_"](owner="octocat", repo="hello", issue_number=1)
    owner = issue.repository.template_repository.owner
    assert api["GET_users__username_"](username=owner.login).id == owner.id
    branch = api["GET_repos__owner___repo__branches"](owner="octocat", repo="hello")[0]
    same = api["GET_repos__owner___repo__branches__branch_"](owner="octocat", repo="hello", branch=branch.name)
    assert same.protected == branch.protected


def test_a_list_at_a_path_that_ends_in_a_key_lists_that_entitys_children(league: dict) -> None:
    """TVmaze's ``/scrobble/shows/{show_id}`` answers the show's marked episodes; each ``episode_id`` is an episode."""
    assert world_model("league").generic.rules["GET_marks__show_id_"].action == "children"
    api = Runtime("league", 0, request="Marks of show 5.").namespace
    mark = api["GET_marks__show_id_"](show_id=5)[0]
    assert api["GET_episodes__episode_id_"](episode_id=mark.episode_id).id == mark.episode_id


def test_saved_items_that_wrap_an_entity_list_it_and_a_page_inside_an_answer_holds_entities(league: dict) -> None:
    """Spotify: ``GET /me/tracks`` lists ``{added_at, track}``; ``/categories/{id}/playlists`` holds playlists in a page."""
    assert world_model("league").generic.rules["GET_me_tracks"].kind == "track"
    saved = league["GET_me_tracks"](limit=1)["items"]
    assert len(saved) == 1
    assert league["GET_tracks__id_"](id=saved[0].track.id).name == saved[0].track.name
    api = Runtime("league", 0, request="Playlists of the category party.").namespace
    playlist = api["GET_categories__category_id__playlists"](category_id="party").playlists["items"][0]
    assert api["GET_playlists__playlist_id_"](playlist_id=playlist.id).name == playlist.name


def test_gitea_and_notion_styles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same-shape lookups are one kind; ``{id}`` names the id over a ``key_id``; ``{index}`` a number; ``page_size="1"`` pages."""
    _import("teams", tmp_path, monkeypatch)
    rules = world_model("teams").generic.rules
    assert rules["GET_workspaces__workspace__members__member_"].kind == "user"
    api = Runtime("teams", 0).namespace
    key = api["GET_keys"]()[0]
    assert api["GET_keys__id_"](id=key.id).key_id == key.key_id
    pull = api["GET_pulls"]()[0]
    assert api["GET_pulls__index_"](index=pull.number).id == pull.id
    assert len(api["GET_comments"](page_size="1").results) == 1


def test_the_starter_world_an_import_writes_holds_the_rules_the_world_infers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``domains import-openapi`` writes every inferred rule into the starter world, which then overrides inference: they must agree.

    The keys a lookup's parameter names (CircleCI's ``{fingerprint}``, Asana's ``gid``) decide rules too.
    """
    import json

    from gqlbench.mocks.engine.fixtures import starter_fixture_files

    _import("teams", tmp_path, monkeypatch)
    inferred = {name: rule.describe() for name, rule in world_model("teams").generic.rules.items()}
    specs = json.loads((tmp_path / "specs" / "teams.json").read_text())["functions"]
    sdls = {file.stem: file.read_text() for file in (tmp_path / "schemas" / "teams").glob("*.graphql")}
    [(target, text)] = starter_fixture_files(tmp_path, "teams", specs, sdls).items()
    starter = json.loads(text)["endpoints"]
    assert {name: {k: list(v) if isinstance(v, tuple) else v for k, v in rule.items()} for name, rule in inferred.items()} == starter


def test_a_parameter_with_a_suffix_in_its_segment_is_a_parameter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discourse writes ``/topics/{id}.json``: the segment's parameter is ``id``, the ``.json`` is no part of its name."""
    topic = {"type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Topic"}}}}}
    param = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
    doc = openapi_doc(
        {"/topics.json": {"post": {"responses": ok}}, "/topics/{id}.json": {"get": {"parameters": param, "responses": ok}}},
        {"Topic": topic},
    )
    file = tmp_path / "api.json"
    file.write_text(json.dumps(doc))
    import_openapi_domain(file, "forum", tmp_path / "out")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "out"))
    pairs = probe_domain("forum")
    assert pairs and [f"{p.label}: {p.reason}" for p in pairs if not p.passed] == []
