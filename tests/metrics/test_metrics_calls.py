"""API call detection, program order and standardization (definitions 1-4)."""

from __future__ import annotations

from gqlbench.metrics import analyze
from gqlbench.records import FunctionSpec, Parameters, ParamSpec


def spec(name: str, *params: str) -> FunctionSpec:
    return FunctionSpec(name=name, parameters=Parameters(properties={p: ParamSpec(type="string") for p in params}))


FUNCTIONS = {
    f.name: f
    for f in (
        spec("GET_search_movie", "query", "page"),
        spec("GET_movie__movie_id__credits", "movie_id"),
        spec("GET_person__person_id_", "person_id"),
        spec("lookup", "key"),  # a catalog function whose name has no HTTP verb
    )
}


def calls(code: str) -> list[str]:
    analysis = analyze(code, FUNCTIONS)
    assert analysis.parse_error is None, analysis.parse_error
    return [c.render() for c in analysis.calls]


def test_api_calls_are_catalog_names_or_http_verb_names() -> None:
    analysis = analyze("GET_made_up(x=1)\nlookup(key='a')\nlen([1])\nprint('x')\nclient.GET_me()\n", FUNCTIONS)
    assert analysis.names == ["GET_made_up", "lookup"]


def test_api_calls_nested_in_other_calls_count() -> None:
    code = "print(len(GET_search_movie(query='Up').results))\n"
    assert analyze(code, FUNCTIONS).names == ["GET_search_movie"]


def test_program_order_is_statements_then_inner_calls_first() -> None:
    code = (
        "a = GET_search_movie(query='A')\n"
        "GET_person__person_id_(person_id=GET_movie__movie_id__credits(movie_id=a.id).cast[0].id)\n"
        "POST_x(one=GET_a(), two=GET_b())\n"
    )
    assert analyze(code, FUNCTIONS).names == [
        "GET_search_movie",
        "GET_movie__movie_id__credits",
        "GET_person__person_id_",
        "GET_a",
        "GET_b",
        "POST_x",
    ]


def test_response_variables_become_call_tokens_whatever_their_names() -> None:
    one = calls("r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n")
    other = calls("movie = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=movie.results[0].id)\n")
    assert one == other
    assert one[1] == "GET_movie__movie_id__credits(movie_id=GET_search_movie#1.results[0].id)"


def test_tokens_count_occurrences_of_each_function() -> None:
    code = "a = GET_search_movie(query='A')\nb = GET_search_movie(query='B')\nGET_movie__movie_id__credits(movie_id=b.id)\n"
    analysis = analyze(code, FUNCTIONS)
    assert [c.token for c in analysis.calls] == ["GET_search_movie#1", "GET_search_movie#2", "GET_movie__movie_id__credits#1"]
    assert analysis.calls[2].args == {"movie_id": "GET_search_movie#2.id"}


def test_reassigned_variable_refers_to_its_latest_value() -> None:
    code = (
        "r = GET_search_movie(query='A')\nr = GET_movie__movie_id__credits(movie_id=r.id)\nGET_person__person_id_(person_id=r.cast[0].id)\n"
    )
    assert calls(code)[1:] == [
        "GET_movie__movie_id__credits(movie_id=GET_search_movie#1.id)",
        "GET_person__person_id_(person_id=GET_movie__movie_id__credits#1.cast[0].id)",
    ]


def test_nested_call_equals_the_same_call_through_a_variable() -> None:
    nested = calls("GET_movie__movie_id__credits(movie_id=GET_search_movie(query='Up').results[0].id)\n")
    named = calls("r = GET_search_movie(query='Up')\nGET_movie__movie_id__credits(movie_id=r.results[0].id)\n")
    assert nested == named


def test_plain_locals_are_inlined() -> None:
    inlined = calls(
        "r = GET_search_movie(query='Up')\nfirst = r.results[0]\nname = 'Up'\nGET_movie__movie_id__credits(movie_id=first.id, title=name)\n"
    )
    assert inlined[1] == "GET_movie__movie_id__credits(movie_id=GET_search_movie#1.results[0].id, title='Up')"


def test_inlining_keeps_operator_precedence() -> None:
    code = "n = 1 + 2\nGET_search_movie(query='a', page=n * 3)\n"
    assert calls(code) == ["GET_search_movie(query='a', page=(1 + 2) * 3)"]


def test_comprehension_variables_are_renamed_by_position() -> None:
    one = calls("r = GET_search_movie(query='a')\nGET_x(ids=[m.id for m in r.results if m.adult])\n")
    other = calls("r = GET_search_movie(query='a')\nGET_x(ids=[item.id for item in r.results if item.adult])\n")
    assert one == other
    assert one[1] == "GET_x(ids=[$0.id for $0 in GET_search_movie#1.results if $0.adult])"


def test_comprehension_through_a_local_equals_the_inline_comprehension() -> None:
    via_local = calls("r = GET_a()\nids = [t.id for t in r.items]\nGET_b(ids=[i for i in ids])\n")
    inline = calls("r = GET_a()\nGET_b(ids=[x for x in [y.id for y in r.items]])\n")
    assert via_local == inline


def test_comprehension_variable_shadows_a_response_variable() -> None:
    code = "r = GET_a()\nGET_b(ids=[r.id for r in r.items])\n"
    assert calls(code)[1] == "GET_b(ids=[$0.id for $0 in GET_a#1.items])"


def test_loop_variables_stay_as_written() -> None:
    code = "r = GET_a()\nfor item in r.items:\n    GET_b(id=item.id)\n"
    analysis = analyze(code, FUNCTIONS)
    assert analysis.calls[1].args == {"id": "item.id"}
    assert analysis.calls[1].depends_on == ()


def test_positional_arguments_map_to_spec_property_order() -> None:
    assert calls("GET_search_movie('Up', 2)\n") == ["GET_search_movie(query='Up', page=2)"]
    assert calls("GET_unknown('a', 'b')\n") == ["GET_unknown(_0='a', _1='b')"]


def test_formatting_quotes_and_numbers_do_not_matter() -> None:
    one = calls('GET_search_movie(query="Up", page=( 2 ))\n')
    other = calls("GET_search_movie(\n    query='Up',\n    page=2.0,\n)\n")
    assert one == other
    assert calls("GET_search_movie(query='up')\n") != one  # strings are case-sensitive


def test_dependencies_through_locals_and_nesting() -> None:
    code = "a = GET_a()\nb = GET_b()\nids = [x.id for x in a.items]\nGET_c(ids=ids, n=GET_d(q=b.q).total)\n"
    analysis = analyze(code, FUNCTIONS)
    assert analysis.edges == [(1, 2), (0, 3), (2, 3)]
    assert analysis.components() == [("GET_a", "GET_b", "GET_d", "GET_c")]


def test_independent_calls_are_separate_components() -> None:
    analysis = analyze("a = GET_a()\nGET_b(id=a.id)\nGET_c()\n", FUNCTIONS)
    assert analysis.components() == [("GET_a", "GET_b"), ("GET_c",)]


def test_syntax_errors_are_recorded_not_raised() -> None:
    analysis = analyze("r = GET_a(\nGET_b()\n", FUNCTIONS)
    assert analysis.calls == ()
    assert analysis.parse_error is not None and "line" in analysis.parse_error


def test_call_records_line_and_source() -> None:
    call = analyze("\n\nGET_a( x = 1 )\n", FUNCTIONS).calls[0]
    assert (call.line, call.source) == (3, "GET_a( x = 1 )")


def test_comprehension_scope_ends_with_the_comprehension() -> None:
    code = "r = GET_a()\nGET_b(ids=[r for r in [1]], id=r.id)\n"
    assert calls(code)[1] == "GET_b(ids=[$0 for $0 in [1]], id=GET_a#1.id)"


def test_api_call_inside_a_comprehension_sees_the_comprehension_variable() -> None:
    code = "r = GET_a()\n[GET_b(id=r.id) for r in r.items]\n"
    analysis = analyze(code, FUNCTIONS)
    assert analysis.calls[1].args == {"id": "r.id"}  # the loop's r, not the response


def test_pathologically_nested_code_is_a_parse_error_not_a_crash() -> None:
    # LibCST's native parser crashes the process on ~2000 nested calls; Python rejects them first
    assert analyze("GET_a(" * 2000, FUNCTIONS).parse_error == "line 1: too many nested parentheses"
    deep = analyze("GET_b(q=a" + "+a" * 2900 + ")\n", FUNCTIONS).parse_error  # Python or LibCST gives up, by stack depth
    assert deep is not None and deep.startswith("too deeply nested")
