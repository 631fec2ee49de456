"""One kind per OpenAPI component: endpoints answering with one component hold one kind, with one set of field facts."""

from __future__ import annotations

from graphql import build_schema

from gqlbench.mocks.engine.components import component_kinds, kind_facts, kinds_by_component, shared_facts
from gqlbench.mocks.engine.rules import Rule

SCHEMA = build_schema(
    """
    type Query { GET_repos__repo_: RepoRoot, GET_search_repositories: SearchRoot, GET_users__user_: UserRoot }
    type RepoRoot { id: ID, name: String }
    type SearchRoot { items: [SearchItem] }
    type SearchItem { id: ID, name: String }
    type UserRoot { id: ID, login: String }
    """
)
RULES = {
    "GET_repos__repo_": Rule("GET_repos__repo_", "lookup", kind="repo", id_param="repo"),
    "GET_search_repositories": Rule("GET_search_repositories", "search", kind="repository", list_field="items", text_param="q"),
    "GET_users__user_": Rule("GET_users__user_", "lookup", kind="user", id_param="user"),
}
FACTS = {
    "RepoRoot": {"component": "repository", "fields": {"name": {"example": "gqlbench"}}},
    "SearchItem": {"component": "repository", "fields": {"name": {"example": "other"}, "id": {"format": "int64"}}},
    "UserRoot": {"component": "user", "fields": {}},
}


def test_kinds_answering_with_one_component_are_the_looked_up_kind() -> None:
    assert component_kinds(SCHEMA, RULES, FACTS) == {"repository": "repo"}
    assert component_kinds(SCHEMA, RULES, {}) == {} and component_kinds(None, RULES, FACTS) == {}


def test_a_component_two_kinds_answer_with_names_neither() -> None:
    assert kinds_by_component(SCHEMA, RULES, FACTS) == {"user": "user"}
    one_kind = {**RULES, "GET_search_repositories": Rule("GET_search_repositories", "search", kind="repo", list_field="items")}
    assert kinds_by_component(SCHEMA, one_kind, FACTS) == {"repository": "repo", "user": "user"}


def test_types_of_one_component_share_their_fields_facts_the_first_by_name_first() -> None:
    shared = shared_facts(FACTS)
    assert shared["RepoRoot"]["fields"] == shared["SearchItem"]["fields"] == {"name": {"example": "gqlbench"}, "id": {"format": "int64"}}
    assert shared["UserRoot"] == FACTS["UserRoot"] and FACTS["SearchItem"]["fields"]["name"] == {"example": "other"}


def test_a_kinds_field_facts_take_the_lookups_first() -> None:
    facts = kind_facts(SCHEMA, RULES, FACTS)
    assert facts["repo"] == {"name": {"example": "gqlbench"}}
    assert facts["repository"] == {"name": {"example": "other"}, "id": {"format": "int64"}}
