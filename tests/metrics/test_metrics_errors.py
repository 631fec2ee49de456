"""The error taxonomy: each kind comes from one hand-built program, and from no other."""

from __future__ import annotations

import pytest

from gqlbench.dataset import load_split
from gqlbench.metrics import analyze, functions_for
from gqlbench.metrics.errors import KINDS, ErrorRecord, classify, count_kinds, fits_type
from gqlbench.metrics.fields import load_catalog
from gqlbench.metrics.limits import Limits
from gqlbench.records import ExecError, Explanation, Trace, TraceCall
from gqlbench.specs import load_specs

GOLD = """\
r = GET_search(q="Mariah Carey", type="track")
me = GET_me()
p = POST_users__user_id__playlists(user_id=me.id, name="Love Mariah")
POST_playlists__playlist_id__tracks(playlist_id=p.id, uris=",".join([t.uri for t in r.tracks.items[:3]]))
"""

LAST = 'POST_playlists__playlist_id__tracks(playlist_id=p.id, uris=",".join([t.uri for t in r.tracks.items[:3]]))\n'

# kind -> a prediction that has exactly one error, of that kind
PROGRAMS: dict[str, str] = {
    "parse_error": 'r = GET_search(q="Mariah Carey", type="track"\n',
    "hallucinated_function": GOLD + "GET_lyrics(id=r.tracks.items[0].id)\n",
    "wrong_function": GOLD + "GET_me_albums()\n",
    "missing_call": GOLD.replace(LAST, ""),
    "extra_call": GOLD + "GET_me()\n",
    "missing_argument": GOLD.replace('q="Mariah Carey", type="track"', 'q="Mariah Carey"'),
    "unknown_argument": GOLD.replace('type="track")', 'type="track", genre="pop")'),
    "wrong_type": GOLD.replace('type="track")', 'type="track", limit="3")'),
    "wrong_value": GOLD.replace('"Love Mariah"', '"Mariah Mix"'),
    "wrong_source": GOLD.replace("user_id=me.id", "user_id=r.tracks.items[0].id"),
    "invalid_field": GOLD + "print(r.tracks.items[0].nam)\n",
    "wrong_order": GOLD.replace("me = GET_me()\np = ", "p = ")
    .replace("p.id, uris", "p.id, uris")
    .replace('"Love Mariah")\n', '"Love Mariah")\nme = GET_me()\n'),
}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog("spotify", load_specs("spotify"))


def errors_of(code: str, catalog, limits: Limits | None = None, trace: Trace | None = None) -> list[ErrorRecord]:
    gold = analyze(GOLD, catalog.functions, limits=None)
    kwargs = {} if limits is None else {"limits": limits}
    return classify(gold, analyze(code, catalog.functions, **kwargs), catalog, trace)


def test_the_gold_program_has_no_errors(catalog) -> None:
    assert errors_of(GOLD, catalog) == []


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_each_kind_comes_from_its_own_program(kind: str, catalog) -> None:
    errors = errors_of(PROGRAMS[kind], catalog)
    assert [e.kind for e in errors] == [kind], errors


def test_every_static_kind_has_a_program() -> None:
    assert set(PROGRAMS) | {"too_large"} == set(KINDS)


def test_too_large_is_its_own_kind(catalog) -> None:
    errors = errors_of(GOLD, catalog, limits=Limits(max_calls=2))
    assert [e.kind for e in errors] == ["too_large"]


def test_records_name_the_call_the_argument_and_both_values(catalog) -> None:
    (error,) = errors_of(PROGRAMS["wrong_value"], catalog)
    assert error.to_json() == {
        "kind": "wrong_value",
        "call": "POST_users__user_id__playlists#1",
        "argument": "name",
        "expected": "'Love Mariah'",
        "got": "'Mariah Mix'",
        "detail": None,
        "consequence_of": None,
    }
    (source,) = errors_of(PROGRAMS["wrong_source"], catalog)
    assert (source.expected, source.detail) == ("GET_me#1.id", "reads GET_search#1.tracks.items[0].id")


def test_invalid_field_names_the_closest_fields_and_list_misuse(catalog) -> None:
    (error,) = errors_of(PROGRAMS["invalid_field"], catalog)
    assert "'nam'" in error.detail and "closest: name" in error.detail
    (on_list,) = errors_of(GOLD + "print(r.tracks.items.name)\n", catalog)
    assert on_list.kind == "invalid_field" and "index it first ([0].name)" in on_list.detail
    (by_key,) = errors_of(GOLD + 'x = r["tracks"]["itemz"]\n', catalog)
    assert by_key.kind == "invalid_field" and "closest: items" in by_key.detail
    (indexed,) = errors_of(GOLD + "x = r.tracks[0]\n", catalog)
    assert indexed.kind == "invalid_field" and "is an object, not a list" in indexed.detail


def test_field_types_follow_loops_and_comprehensions(catalog) -> None:
    code = GOLD + "for t in r.tracks.items:\n    print(t.album.nmae)\nnames = [a.nme for a in r.tracks.items[0].artists]\n"
    assert [e.got for e in errors_of(code, catalog)] == ["t.album.nmae", "a.nme"]


def test_execution_errors_come_from_the_trace(catalog) -> None:
    trace = Trace(
        domain="spotify",
        calls=[TraceCall(function="GET_me", arguments={}, error="no such user")],
        error=ExecError(kind="not_found", message="user 7 does not exist", line=2),
    )
    (error,) = errors_of(GOLD, catalog, trace=trace)
    assert (error.kind, error.call, error.detail) == ("not_found", "GET_me", "user 7 does not exist (line 2)")


def test_literals_fit_json_types() -> None:
    assert fits_type(3, "integer") and not fits_type("3", "integer") and not fits_type(True, "integer")
    assert fits_type(2.5, "number") and fits_type("a,b", "array") and not fits_type(1, "string")


def test_counts_list_static_kinds_first() -> None:
    records = [ErrorRecord("not_found"), ErrorRecord("wrong_value"), {"kind": "parse_error"}, ErrorRecord("wrong_value")]
    assert list(count_kinds(records).items()) == [("parse_error", 1), ("wrong_value", 2), ("not_found", 1)]


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_gold_against_itself_has_no_errors_on_any_split(split: str) -> None:
    found = {}
    for sample in load_split(split):
        functions = functions_for(sample)
        gold = analyze(sample.gold_code, functions, limits=None)
        if gold.parse_error is not None:
            continue  # an invalid gold is skipped by the metrics, never scored
        errors = classify(gold, gold, load_catalog(sample.domain, functions))
        if errors:
            found[sample.id] = errors
    assert found == {}


def test_a_catalog_function_not_offered_is_hallucinated_only_when_the_offer_is_known() -> None:
    sample = load_split("test")[0]
    functions = functions_for(sample)
    other = next(n for n in functions if n not in sample.function_names)
    code = sample.gold_code + f"{other}()\n"
    gold, predicted = analyze(sample.gold_code, functions), analyze(code, functions)
    catalog = load_catalog(sample.domain, functions)
    kinds = {e.got: e.kind for e in classify(gold, predicted, catalog) if e.got == other}
    assert kinds == {other: "wrong_function"}
    offered = classify(gold, predicted, catalog, offered=sample.function_names)
    assert [(e.kind, e.got) for e in offered if e.got == other] == [("hallucinated_function", other)]
    distractor = classify(gold, predicted, catalog, offered=[*sample.function_names, other])
    assert [e.kind for e in distractor if e.got == other] == ["wrong_function"]  # offered, just not needed


@pytest.mark.parametrize(
    ("change", "root"),
    [
        (("user_id=me.id", "user_id=me.idd"), "invalid_field"),  # a bad field passed on as an argument
        (('uris=",".join([t.uri for t in r.tracks.items[:3]])', "uris=r.tracks.items.uri"), "invalid_field"),  # no index
        (("me = GET_me()", "me = GET_mee()"), "hallucinated_function"),  # a misspelled function name
    ],
)
def test_what_follows_from_a_defect_is_a_consequence_and_not_counted(change: tuple[str, str], root: str, catalog) -> None:
    errors = errors_of(GOLD.replace(*change), catalog)
    follow = [e for e in errors if e.kind == "wrong_source"]
    assert [e.consequence_of for e in follow] == [root]
    assert count_kinds(errors).get("wrong_source", 0) == 0 and count_kinds(errors)[root] == 1
    assert follow[0].to_json()["consequence_of"] == root


def test_independent_calls_swapped_are_a_wrong_order(catalog) -> None:
    search = 'r = GET_search(q="Mariah Carey", type="track")\n'
    swapped = GOLD.replace(search + "me = GET_me()\n", "me = GET_me()\n" + search)
    errors = errors_of(swapped, catalog)
    assert [(e.kind, e.call, e.expected, e.got) for e in errors] == [("wrong_order", "GET_me#1", "GET_search", "GET_me")]


def test_the_sandbox_stopping_on_a_defect_already_named_statically_is_a_consequence(catalog) -> None:
    from gqlbench.metrics.diagnose import with_exec_errors

    code = PROGRAMS["invalid_field"]
    trace = Trace(domain="spotify", calls=[], error=ExecError(kind="unknown_field", message="no field 'nam'", line=5))
    errors = errors_of(code, catalog, trace=trace)
    assert [(e.kind, e.consequence_of) for e in errors] == [("invalid_field", None), ("unknown_field", "invalid_field")]
    assert count_kinds(errors) == {"invalid_field": 1}
    stored = with_exec_errors(Explanation(errors=[e.to_json() for e in errors_of(code, catalog)]), trace).error_list()
    assert count_kinds(stored) == {"invalid_field": 1} and stored[-1]["consequence_of"] == "invalid_field"
    unrelated = Trace(domain="spotify", calls=[], error=ExecError(kind="not_found", message="no track", line=5))
    assert count_kinds(errors_of(code, catalog, trace=unrelated)) == {"invalid_field": 1, "not_found": 1}
