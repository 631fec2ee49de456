"""The static check admits what call chains need and refuses the rest, with line and reason."""

from __future__ import annotations

import pytest

from gqlbench.dataset import load_errata, load_samples
from gqlbench.mocks.sandbox.policy import SAFE_BUILTINS, Violation, check_program, is_safe_attribute

API = ["GET_search", "GET_movie", "PUT_me_following"]


def refusals(code: str) -> list[Violation]:
    return check_program(code, API)


def test_valid_gold_programs_are_admitted_except_the_undefined_builtin_name() -> None:
    errata = load_errata()
    refused = {}
    for sample in load_samples():
        if errata.why_invalid(sample.id):
            with pytest.raises(SyntaxError):
                check_program(sample.gold_code, sample.function_names)
            continue
        violations = check_program(sample.gold_code, sample.function_names)
        if violations:
            refused[sample.id] = violations
    # errata: GET_me_following(type) / PUT_me_following(type, ...) pass the builtin `type`
    assert set(refused) == {"train/2", "test/1"}
    assert all(v == [Violation(v[0].line, "the builtin 'type' is not available in the sandbox")] for v in refused.values())


ADMITTED = {
    "assignments and unpacking": "a = b = 1\nx, (y, *z) = 1, (2, 3, 4)\nn: int = 3\nn += 1",
    "calls, attributes, subscripts, slices": (
        "r = GET_search(q='x', type='movie')\nGET_movie(movie_id=r.results[0].id, extra=r.results[-2:][::2])"
    ),
    "comprehensions": (
        "r = GET_search(q='x')\nids = [i.id for i in r.items if i.name == 'My Rock']\n"
        "d = {k: v for k, v in zip(ids, ids)}\ns = {x for x in ids}\ng = sum(x for x in [1, 2])"
    ),
    "if and for": (
        "for i, x in enumerate(sorted([3, 1, 2])):\n    if x > 1 and not i:\n        continue\n"
        "    elif x in (1, 2):\n        break\n    else:\n        pass\nelse:\n    pass"
    ),
    "safe builtins": (
        "x = max(len('ab'), abs(-1), round(2.5), int('3'), min([1]))\n"
        "print(str(x), float(x), bool(x), list(range(3)), any([]), all([]), isinstance(x, int))"
    ),
    "listed methods": "s = ','.join(['a']).lower().strip().replace('a', 'b').split(',')\nd = {}\nd.get('k')\ns.sort()",
    "f-strings with conversions and specs": "x = 3\nprint(f'{x!r} {x!s:>5} {x:{x}}')",
    "literal powers and expressions": "x = 2 ** 10 - 1 if True else -(3 % 2) // 1\ny = [0] * 10 ** 3\nz = ...",
    "star unpacking in calls and displays": "a = [1, 2]\nd = {'q': 'x'}\nGET_search(*a, **d)\nb = [*a, *a]\nc = {**d}",
    "undefined names are left to run time": "GET_movie_details(movie_id=1)\nx = query",
    "builtin names the program assigns": "type = 'artist'\nid = 3\nPUT_me_following(type=type, ids=id)",
}


@pytest.mark.parametrize("code", ADMITTED.values(), ids=ADMITTED.keys())
def test_admitted(code: str) -> None:
    assert refusals(code) == []


REFUSED = {
    # code: (line, words the reason must contain)
    "x = 1\nimport os": (2, "import is not allowed"),
    "from os import path": (1, "import is not allowed"),
    "import os.path as p": (1, "import is not allowed"),
    "def f():\n    pass": (1, "def is not allowed"),
    "class A:\n    pass": (1, "class is not allowed"),
    "f = lambda: 1": (1, "lambda is not allowed"),
    "while True:\n    pass": (1, "while is not allowed"),
    "with x:\n    pass": (1, "with is not allowed"),
    "try:\n    x = 1\nexcept Exception:\n    pass": (1, "try is not allowed"),
    "global x": (1, "global is not allowed"),
    "x = 1\ndel x": (2, "del is not allowed"),
    "raise ValueError": (1, "raise is not allowed"),
    "assert x": (1, "assert is not allowed"),
    "async def f():\n    pass": (1, "def is not allowed"),
    "x = [(y := 1)]": (1, "walrus"),
    "x = [i async for i in y]": (1, "async comprehensions"),
    "match x:\n    case 1:\n        pass": (1, "match is not allowed"),
    "x = __import__('os')": (1, "'__import__'"),
    "x = __builtins__": (1, "'__builtins__'"),
    "x = ().__class__": (1, ".__class__"),
    "x = y._private": (1, "._private"),
    "x = (g.gi_frame for g in [])": (1, ".gi_frame"),
    "x = y.f_back.f_globals": (1, ".f_"),
    "x = str.mro()": (1, ".mro"),
    "x = '{0.__class__}'.format(y)": (1, ".format"),
    "x = '{a}'.format_map(y)": (1, ".format_map"),
    "x = y.encode()": (1, "method .encode()"),
    "x = eval('1')": (1, "'eval'"),
    "exec('1')": (1, "'exec'"),
    "compile('1', 'f', 'exec')": (1, "'compile'"),
    "open('f', 'w')": (1, "'open'"),
    "getattr(x, 'y')": (1, "'getattr'"),
    "vars(x)": (1, "'vars'"),
    "globals()": (1, "'globals'"),
    "type(x)": (1, "'type'"),
    "f = print\nf(1)": (2, "calling the variable 'f'"),
    "GET_search()()": (1, "only functions called by name"),
    "x = GET_search": (1, "GET_search is an API function"),
    "r = GET_search()\nr.name = 'x'": (2, "assigning to an attribute"),
    "x = 10 ** 10 ** 8": (1, "** is only allowed between two numeric literals"),
    "x = y ** 2": (1, "** is only allowed"),
    "x = 10 ** 100000000": (1, "too large"),
    "x = 2\nx **= 2": (2, "**="),
    "x = 1\nprint(f'{x.__class__!r}')": (2, ".__class__"),
    # identifiers are judged as CPython reads them (NFKC), and must be written that way
    "x = 1\nｆ = str.ｆｏｒｍａｔ": (2, ".format"),
    "x = str.ｍｒｏ()": (1, ".mro"),
    "x = '{0}'.𝐟𝐨𝐫𝐦𝐚𝐭(y)": (1, ".format"),
    "x = '{a}'.𝑓𝑜𝑟𝑚𝑎𝑡_𝑚𝑎𝑝(y)": (1, ".format_map"),
    "x = ｅｖａｌ('1')": (1, "'eval'"),
    "ﬁ = 1": (1, "not written as Python reads it ('fi')"),
    "print(1, ｓｅｐ='')": (1, "not written as Python reads it ('sep')"),
    "x = y.ｇｉ_frame": (1, ".gi_frame"),
}


@pytest.mark.parametrize("code", REFUSED.keys())
def test_refused_with_line_and_reason(code: str) -> None:
    line, words = REFUSED[code]
    violations = refusals(code)
    assert violations, code
    assert violations[0].line == line
    assert any(words in v.reason for v in violations), violations


def test_every_construct_is_reported_in_line_order() -> None:
    code = "x = 1\nimport os\ny = eval('2')\nwhile x:\n    pass"
    assert [v.line for v in refusals(code)] == [2, 3, 4]
    assert str(refusals(code)[0]).startswith("line 2: import")


def test_invalid_python_raises_syntax_error() -> None:
    with pytest.raises(SyntaxError, match="line 1"):
        check_program("x = (", API)


def test_absurd_nesting_is_refused_not_crashed() -> None:
    code = "x = " + "[" * 150 + "]" * 150
    compile(code, "<nested>", "exec")  # CPython accepts it
    assert refusals(code) == [Violation(1, "the program is nested too deeply to check")]


def test_safe_lists_exclude_reflection() -> None:
    assert not SAFE_BUILTINS & {"getattr", "setattr", "vars", "type", "eval", "exec", "open", "compile", "globals"}
    assert is_safe_attribute("results") and is_safe_attribute("id")
    assert not any(map(is_safe_attribute, ["__class__", "_x", "gi_frame", "f_globals", "tb_frame", "format"]))
