"""Named keys on entities with a numeric id, and compound keys scoped by an object (GitHub's shape).

A user is looked up by ``{username}`` but has a numeric ``id`` and shows the
name as ``login``; a repository is ``/repos/{owner}/{repo}``, its ``owner``
is a user-shaped object. The world must keep all of these one entity.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.responses import unwrap
from gqlbench.mocks.errors import NotFound
from gqlbench.schemas.domain_import import import_openapi_domain

SPEC = """\
openapi: 3.0.3
info: {title: mini hub, version: "1"}
paths:
  /repos/{owner}/{repo}:
    get:
      parameters:
        - {name: owner, in: path, required: true, schema: {type: string}}
        - {name: repo, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Repository"}}}}
  /repos/{owner}/{repo}/issues:
    get:
      parameters:
        - {name: owner, in: path, required: true, schema: {type: string}}
        - {name: repo, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Issue"}}}}}
  /users/{username}:
    get:
      parameters:
        - {name: username, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/SimpleUser"}}}}
  /users/{username}/repos:
    get:
      parameters:
        - {name: username, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Repository"}}}}}
components:
  schemas:
    SimpleUser:
      type: object
      properties: {login: {type: string}, id: {type: integer}, html_url: {type: string}}
    Repository:
      type: object
      properties: {id: {type: integer}, name: {type: string}, full_name: {type: string},
                   owner: {$ref: "#/components/schemas/SimpleUser"}, stargazers_count: {type: integer}}
    Issue:
      type: object
      properties: {id: {type: integer}, number: {type: integer}, title: {type: string},
                   user: {$ref: "#/components/schemas/SimpleUser"}}
"""
REQUEST = "Which repositories does octocat have, and what about hello-world by octocat and by torvalds?"


@pytest.fixture()
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    spec = tmp_path / "hub.yaml"
    spec.write_text(SPEC)
    import_openapi_domain(spec, "hub", tmp_path / "catalog")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    yield Runtime("hub", 0, request=REQUEST).namespace


def _closed(catalog: Path) -> None:
    """The repository lookup no longer makes repositories for any name (``open: false``)."""
    file = catalog / "worlds" / "hub.json"
    file.parent.mkdir(exist_ok=True)
    file.write_text(json.dumps({"endpoints": {"GET_repos__owner___repo_": {"open": False}}}))


def test_a_username_names_the_user_by_its_login(hub: dict) -> None:
    user = hub["GET_users__username_"](username="octocat")
    assert user.login == "octocat" and isinstance(user.id, int)
    assert unwrap(hub["GET_users__username_"](username="octocat")) == unwrap(user)
    assert unwrap(hub["GET_users__username_"](username=str(user.id))) == unwrap(user)


def test_a_users_repositories_are_owned_by_that_user(hub: dict) -> None:
    user = hub["GET_users__username_"](username="octocat")
    repos = hub["GET_users__username__repos"](username="octocat")
    assert len(repos) >= 2
    for repo in repos:
        assert repo.owner.login == "octocat" and repo.owner.id == user.id


def test_a_name_the_world_returned_finds_the_same_entity(hub: dict) -> None:
    repos = hub["GET_users__username__repos"](username="octocat")
    for listed in repos:
        again = hub["GET_repos__owner___repo_"](owner="octocat", repo=listed.name)
        assert unwrap(again) == unwrap(listed)
    issues = hub["GET_repos__owner___repo__issues"](owner="octocat", repo=repos[0].name)
    for issue in issues:  # an issue's user is a user the world has, by the login it shows
        author = hub["GET_users__username_"](username=issue.user.login)
        assert unwrap(author) == unwrap(issue.user)


def test_the_owner_scope_links_the_repository_to_that_user(hub: dict) -> None:
    repo = hub["GET_repos__owner___repo_"](owner="octocat", repo="hello-world")
    assert repo.name == "hello-world" and repo.owner.login == "octocat"
    owner = hub["GET_users__username_"](username=repo.owner.login)
    assert owner.id == repo.owner.id
    assert "hello-world" in [r.name for r in hub["GET_users__username__repos"](username="octocat")]
    assert unwrap(hub["GET_repos__owner___repo_"](owner="octocat", repo="hello-world")) == unwrap(repo)


def test_a_name_unique_within_its_scope_is_one_entity_per_owner(hub: dict) -> None:
    mine = hub["GET_repos__owner___repo_"](owner="octocat", repo="hello-world")
    theirs = hub["GET_repos__owner___repo_"](owner="torvalds", repo="hello-world")
    assert theirs.name == "hello-world" and theirs.owner.login == "torvalds"
    assert theirs.id != mine.id and mine.owner.login == "octocat"


def test_an_owner_the_world_does_not_have_finds_no_repository(hub: dict, tmp_path: Path) -> None:
    _closed(tmp_path / "catalog")
    closed = Runtime("hub", 0, request=REQUEST).namespace
    listed = closed["GET_users__username__repos"](username="octocat")[0]
    assert unwrap(closed["GET_repos__owner___repo_"](owner="octocat", repo=listed.name)) == unwrap(listed)
    with pytest.raises(NotFound):
        closed["GET_repos__owner___repo_"](owner="nobody", repo=listed.name)  # not octocat's repository


def test_full_name_is_the_compound_key_joined(hub: dict) -> None:
    repo = hub["GET_repos__owner___repo_"](owner="octocat", repo="hello-world")
    assert repo.full_name == "octocat/hello-world"
    assert hub["GET_repos__owner___repo_"](owner="torvalds", repo="hello-world").full_name == "torvalds/hello-world"
    for listed in hub["GET_users__username__repos"](username="octocat"):  # names the world made itself
        assert listed.full_name == f"{listed.owner.login}/{listed.name}" == f"octocat/{listed.name}"
