"""A toy domain's world with Python from outside the package, run end to end by ``gqlbench evaluate``.

The toy shop's catalog folder lives in ``tmp_path``; its world is data (items)
plus a behaviour (the basket's total, which data cannot say), found either by
the fixture's ``"behaviour"`` key (a file next to the fixture) or by an
installed package's ``gqlbench.worlds`` entry point. Sandbox workers import it
themselves, as they would for a user's plugin.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.results.files import read_samples

SDL = {
    "GET_items__item_id_": """
type GET_items__item_id__Root {
  item_id: String
  name: String
  price: Int
}
type Query {
  GET_items__item_id_(item_id: String!): GET_items__item_id__Root
    @rest(endpoint: "https://shop.example/items/$item_id;")
}
""",
    "GET_search_items": """
type GET_search_items_ResultsEntry {
  item_id: String
  name: String
  price: Int
}
type GET_search_items_Root {
  results: [GET_search_items_ResultsEntry]
  total: Int
}
type Query {
  GET_search_items(q: String!): GET_search_items_Root @rest(endpoint: "https://shop.example/search/items")
}
""",
    "GET_me_basket": """
type GET_me_basket_Root {
  count: Int
  total_price: Int
}
type Query {
  GET_me_basket: GET_me_basket_Root @rest(endpoint: "https://shop.example/me/basket")
}
""",
}

PARAMS = {"GET_items__item_id_": ["item_id"], "GET_search_items": ["q"], "GET_me_basket": [], "POST_basket": ["item_id"]}

BEHAVIOUR = '''
class Basket:
    """The basket's total: a sum over what was added, which the generic rules cannot say."""

    def __init__(self):
        self.handlers = {"GET_me_basket": self.basket}

    def basket(self, world, args):
        prices = [world.get("item", entry["item_id"])["price"] for entry in world.table("basket").values()]
        return {"count": len(prices), "total_price": sum(prices)}


BEHAVIOUR = Basket()
'''

FIXTURE = {
    "entities": {"item": [{"item_id": "i1", "name": "Red Kettle", "price": 30}, {"item_id": "i2", "name": "Blue Kettle", "price": 45}]}
}

GOLD = 'found = GET_search_items(q="blue kettle")\nPOST_basket(item_id=found.results[0].item_id)\nGET_me_basket()'
WRONG = 'found = GET_search_items(q="red kettle")\nPOST_basket(item_id=found.results[0].item_id)\nGET_me_basket()'
PROBE = 'found = GET_search_items(q="blue kettle")\nPOST_basket(item_id=found.results[0].item_id)\nprint(GET_me_basket().total_price)'


def make_catalog(root: Path, fixture: dict) -> None:
    (root / "specs").mkdir(parents=True)
    functions = [
        {
            "name": name,
            "description": name,
            "parameters": {"type": "dict", "properties": {p: {"type": "string", "description": p} for p in params}, "required": params},
        }
        for name, params in PARAMS.items()
    ]
    (root / "specs" / "toyshop.json").write_text(json.dumps({"domain": "toyshop", "functions": functions}))
    (root / "schemas" / "toyshop").mkdir(parents=True)
    for name, sdl in SDL.items():
        (root / "schemas" / "toyshop" / f"{name}.graphql").write_text(sdl)
    (root / "worlds").mkdir()
    (root / "worlds" / "toyshop.json").write_text(json.dumps(fixture))


def evaluate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[int | None, int | None]]:
    data = tmp_path / "data"
    data.mkdir()
    (data / "test.jsonl").write_text("".join(json.dumps({"domain": "toyshop", "utterance": "u", "output": GOLD}) + "\n" for _ in range(2)))
    predictions = tmp_path / "pred.jsonl"
    predictions.write_text(
        json.dumps({"id": "test/0", "prediction": GOLD}) + "\n" + json.dumps({"id": "test/1", "prediction": WRONG}) + "\n"
    )
    assert main(["evaluate", str(predictions), "--data", str(data), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    return {s.id: (s.scores.exec_success, s.scores.exec_match) for s in read_samples(tmp_path / "out" / "samples.jsonl")}


def probe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    program = tmp_path / "probe.py"
    program.write_text(PROBE)
    assert main(["exec", str(program), "--domain", "toyshop"]) == 0
    return capsys.readouterr().out


def test_a_behaviour_named_by_the_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    make_catalog(tmp_path / "catalog", {**FIXTURE, "behaviour": "toyshop_world.py:BEHAVIOUR"})
    (tmp_path / "catalog" / "worlds" / "toyshop_world.py").write_text(BEHAVIOUR)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    assert "  45\n" in probe(tmp_path, capsys)  # the behaviour's sum over the item the search found
    assert evaluate(tmp_path, capsys) == {"test/0": (1, 1), "test/1": (1, 0)}


def test_a_behaviour_from_an_installed_plugins_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_catalog(tmp_path / "catalog", FIXTURE)
    site = tmp_path / "site"
    (site / "toyshop_plugin-0.1.dist-info").mkdir(parents=True)
    (site / "toyshop_plugin-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: toyshop-plugin\nVersion: 0.1\n")
    (site / "toyshop_plugin-0.1.dist-info" / "entry_points.txt").write_text("[gqlbench.worlds]\ntoyshop = toyshop_plugin:BEHAVIOUR\n")
    (site / "toyshop_plugin.py").write_text(BEHAVIOUR)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))  # the sandbox workers' interpreter sees the plugin too
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    assert "  45\n" in probe(tmp_path, capsys)
    assert evaluate(tmp_path, capsys) == {"test/0": (1, 1), "test/1": (1, 0)}


READS_ITS_FILES = """
import json
from pathlib import Path

PRICES = json.loads(Path(__file__).with_name("prices.json").read_text())  # reading its own files is fine
"""
REACHES_OUT = {
    "writes a file": "Path(__file__).with_name('precious.txt').open('w').close()\n",
    "opens a socket": "import socket\nsocket.socket()\n",
}


@pytest.mark.parametrize("attempt", list(REACHES_OUT))
def test_a_behaviour_is_imported_in_the_worker_under_the_set_up_veto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attempt: str) -> None:
    """Issue 20, item 25: a catalog's behaviour was imported in the workers before the audit hook vetoed anything."""
    from gqlbench.errors import GqlbenchError
    from gqlbench.mocks.sandbox.pool import Job, run_program

    make_catalog(tmp_path / "catalog", {**FIXTURE, "behaviour": "toyshop_world.py:BEHAVIOUR"})
    worlds = tmp_path / "catalog" / "worlds"
    (worlds / "prices.json").write_text("{}")
    (worlds / "precious.txt").write_text("keep")
    (worlds / "toyshop_world.py").write_text(READS_ITS_FILES + REACHES_OUT[attempt] + BEHAVIOUR)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    with pytest.raises(GqlbenchError, match="a runtime or world behaviour may not do this in the sandbox"):
        run_program(Job(code=PROBE, domain="toyshop"))
    assert (worlds / "precious.txt").read_text() == "keep"  # not even truncated


def test_domains_check_runs_a_behaviour_only_in_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: the world's self-test ran the world in ``domains check``'s own process, importing the catalog's Python."""
    import sys

    make_catalog(tmp_path / "catalog", {**FIXTURE, "behaviour": "toyshop_world.py:BEHAVIOUR"})
    behaviour = tmp_path / "catalog" / "worlds" / "toyshop_world.py"
    behaviour.write_text(BEHAVIOUR)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    main(["domains", "check", "toyshop", "--pairs"])
    captured = capsys.readouterr()
    assert "passed: search→get GET_search_items → GET_items__item_id_" in captured.out  # the probes ran, in a worker
    assert "toyshop: 2 of 2 endpoint pairs pass" in captured.err and "toyshop: no new problems" in captured.err
    imported = [name for name, module in list(sys.modules.items()) if getattr(module, "__file__", None) == str(behaviour)]
    assert imported == []
