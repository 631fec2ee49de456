"""A sample's dataflow compared call by call, and drawn."""

from __future__ import annotations

import re

from gqlbench.records import FunctionSpec
from gqlbench.viewer.flow import argument_rows, compare
from gqlbench.viewer.graph import dataflow_svg

GOLD = "a = GET_search(q='x')\nb = GET_album(id=a.items[0].id)\nGET_tracks(id=b.tracks[1].id, limit=2)\n"
FUNCTIONS = {n: FunctionSpec(name=n) for n in ("GET_search", "GET_album", "GET_tracks")}


def statuses(flow) -> tuple[list[str], list[str]]:  # type: ignore[no-untyped-def]
    return [n.status for n in flow.nodes], [e.status for e in flow.edges]


def test_identical_programs_match_everywhere_with_field_paths() -> None:
    c = compare(GOLD, GOLD.replace("a =", "res =").replace("a.items", "res.items"), FUNCTIONS)
    assert statuses(c.gold) == (["matched"] * 3, ["matched"] * 2)
    assert statuses(c.predicted) == (["matched"] * 3, ["matched"] * 2)
    assert [e.label for e in c.gold.edges] == ["id ← items[0].id", "id ← tracks[1].id"]
    assert all(r["equal"] for r in argument_rows(c))


def test_a_wrong_argument_breaks_the_chain_and_is_missing_and_extra() -> None:
    pred = "a = GET_search(q='x')\nb = GET_album(id=5)\nGET_tracks(id=b.tracks[1].id, limit=3)\nGET_other()\n"
    c = compare(GOLD, pred, FUNCTIONS)
    assert statuses(c.gold) == (["matched", "missing", "missing"], ["missing", "missing"])
    # GET_other is an HTTP-verb name: an extra call; the album->tracks edge connects unmatched calls
    assert statuses(c.predicted) == (["matched", "extra", "extra", "extra"], ["extra"])
    rows = {(r["call"], r["argument"]): r for r in argument_rows(c)}
    assert rows[("GET_album#1", "id")]["got"] == "5" and rows[("GET_album#1", "id")]["equal"] is False
    assert rows[("GET_tracks#1", "limit")]["got"] == "3"
    assert rows[("GET_search#1", "q")]["equal"] is True


def test_programs_without_a_graph_say_why() -> None:
    assert compare(GOLD, "x = (", FUNCTIONS).predicted.note.startswith("does not parse")
    assert compare(GOLD, "", FUNCTIONS).predicted.note == "no program"
    assert compare(GOLD, "x = 1", FUNCTIONS).predicted.note == "makes no API call"
    assert all(r["paired"] is None and not r["equal"] for r in argument_rows(compare(GOLD, "", FUNCTIONS)))


def test_svg_has_one_group_per_call_and_per_edge_with_status_classes() -> None:
    c = compare(GOLD, "a = GET_search(q='x')\nGET_album(id=a.items[0].id)\n", FUNCTIONS)
    svg = dataflow_svg(c.gold, "gold <dataflow>", "u1")
    assert len(re.findall(r'<g class="node ', svg)) == 3
    assert len(re.findall(r'<g class="edge ', svg)) == 2
    assert svg.count('class="node matched"') == 2 and svg.count('class="node missing"') == 1
    assert svg.count('class="edge matched"') == 1 and svg.count('class="edge missing"') == 1
    assert "id ← items[0].id" in svg and "<dataflow>" not in svg
    assert 'id="u1-matched"' in svg


def test_an_empty_graph_is_a_note() -> None:
    svg = dataflow_svg(compare(GOLD, "", FUNCTIONS).predicted, "p", "u2")
    assert 'class="dataflow empty"' in svg and "no program" in svg
