"""Hostile programs are refused or contained with a clear error, and do no harm.

Two layers are tested separately. With the static check on (as in production)
every attack below is refused or stopped by a limit. With the check switched
off (``_unsafe_skip_policy``, tests only) the run-time walls alone must still
hold: the restricted builtins, the audit hook and the process limits. After
every program the same pool must run an ordinary program normally, and no
file the program tried to create may exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.records import Trace

ECHO = f"{Path(__file__).parent / 'echo_runtime.py'}:echo_runtime"
LIMITS = dict(workers=2, cpu_seconds=1, memory_mb=256, wall_seconds=4, max_output_chars=1_000)
CONTAINED = {"refused", "resource_limit", "timeout"}


@pytest.fixture(scope="module")
def guarded() -> Iterator[SandboxPool]:
    with SandboxPool(**LIMITS) as pool:
        yield pool


@pytest.fixture(scope="module")
def unguarded() -> Iterator[SandboxPool]:
    with SandboxPool(**LIMITS, _unsafe_skip_policy=True) as pool:
        yield pool


def run(pool: SandboxPool, code: str, target: Path) -> Trace:
    trace = pool.run(Job(code=code.replace("TARGET", str(target)), domain="tmdb", runtime=ECHO))
    assert not target.exists(), "the program created a file"
    after = pool.run(Job(code="GET_search_movie(query='ok')\nprint('still fine')", domain="tmdb", runtime=ECHO))
    assert after.error is None and after.stdout == "still fine\n" and len(after.calls) == 1
    return trace


# -- refused by the static check -----------------------------------------------------------------

REFUSED_STATICALLY = {
    "import": "import os\nos.system('touch TARGET')",
    "import as": "import os as o",
    "from import": "from os import system",
    "relative import": "from . import sandbox",
    "import submodule": "import os.path",
    "__import__": "__import__('os').system('touch TARGET')",
    "__builtins__ lookup": "__builtins__['__import__']('os')",
    "globals()": "globals()['__builtins__']",
    "eval": "eval(\"open('TARGET', 'w')\")",
    "exec": "exec('x = 1')",
    "compile": "compile('1', '<s>', 'eval')",
    "open": "open('TARGET', 'w').write('x')",
    "class walk": "().__class__.__bases__[0].__subclasses__()",
    "getattr": "getattr((), '__class__')",
    "getattr via variable": "g = getattr\ng((), 'real')",
    "__getattribute__": "().__getattribute__('__class__')",
    "vars": "vars()",
    "type": "type(())",
    "str.format attribute": "'{0.__class__.__bases__}'.format(())",
    "str.format via class": "str.format('{0.__class__}', 1)",
    "format_map": "'{a.__class__}'.format_map({'a': 1})",
    "format as a value": "f = 'x'.format",
    "f-string attribute": "print(f'{().__class__!r}')",
    "percent attribute": "print('%s' % ().__class__)",
    "frame walk": "g = (x for x in [1])\nx = g.gi_frame.f_back.f_globals",
    "while": "while True:\n    pass",
    "def recursion": "def f():\n    return f()\nf()",
    "lambda recursion": "f = lambda: f()\nf()",
    "class": "class A:\n    pass",
    "try swallows limits": "try:\n    x = 1\nexcept BaseException:\n    pass",
    "tower power": "x = 10 ** 10 ** 8",
    "big literal power": "x = 10 ** 100000000",
    "power assign": "x = 2\nx **= 10 ** 8",
    "nested too deep": "x = " + "[" * 150 + "]" * 150,
}


@pytest.mark.parametrize("code", REFUSED_STATICALLY.values(), ids=REFUSED_STATICALLY.keys())
def test_refused_by_the_static_check(guarded: SandboxPool, code: str, tmp_path: Path) -> None:
    trace = run(guarded, code, tmp_path / "pwned")
    assert trace.error is not None and trace.error.kind == "refused", trace.error
    assert trace.error.line is not None and "line" in trace.error.message
    assert trace.calls == []


def test_nesting_beyond_the_parser_is_a_parse_error(guarded: SandboxPool, tmp_path: Path) -> None:
    trace = run(guarded, "x = " + "(" * 300 + ")" * 300, tmp_path / "pwned")
    assert trace.error is not None and trace.error.kind == "parse_error"


# -- admitted, but stopped by a limit ------------------------------------------------------------

BOMBS = {
    "huge range": "for i in range(10 ** 12):\n    pass",
    "nested loops": "for a in range(10 ** 6):\n    for b in range(10 ** 6):\n        pass",
    "huge string": "x = 'a' * 10 ** 10",
    "huge list": "x = [0] * 10 ** 9",
    "doubling list": "x = [1]\nfor i in range(40):\n    x = x + x",
    "enormous integer by squaring": "x = 10\nfor i in range(40):\n    x = x * x",
    "deep recursion through nesting": "x = []\nfor i in range(10 ** 5):\n    x = [x]\nprint(x)",
    "output flood": "for i in range(10 ** 6):\n    print(i)",
    "comprehension bomb": "x = [i for i in range(10 ** 6) for j in range(10 ** 6)]",
}


@pytest.mark.parametrize("code", BOMBS.values(), ids=BOMBS.keys())
def test_bombs_are_stopped_by_limits(guarded: SandboxPool, code: str, tmp_path: Path) -> None:
    trace = run(guarded, code, tmp_path / "pwned")
    assert trace.error is not None and trace.error.kind in {"resource_limit", "timeout"}, trace.error
    assert trace.error.message
    assert len(trace.stdout) <= LIMITS["max_output_chars"]


# -- with the static check off, the run-time walls hold on their own --------------------------------

# Reach the os module's globals through the class hierarchy: the classic escape.
WALK = "w = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]\ng = w.__init__.__globals__\n"

# name: (code, what must stop it: a regex matched against "kind: message")
ATTACKS = {
    "__import__ is not a builtin": ("__import__('os').system('touch TARGET')", "NameError"),
    "import statement has no __import__": ("import os\nos.system('touch TARGET')", "__import__ not found"),
    "open is not a builtin": ("open('TARGET', 'w')", "NameError"),
    "eval is not a builtin": ("eval(\"open('TARGET', 'w')\")", "NameError"),
    "os.system": (WALK + "g['system']('touch TARGET')", r"refused: .*\(os\.system\)"),
    "os.open": (WALK + "g['open']('TARGET', 65)", r"refused: .*\(open\)"),
    "builtins.open": (WALK + "g['__builtins__']['open']('TARGET', 'w')", r"refused: .*\(open\)"),
    "read a file": (WALK + "print(g['__builtins__']['open']('/etc/hostname').read())", r"refused: .*\(open\)"),
    "io.FileIO": (WALK + "g['sys'].modules['_io'].FileIO('TARGET', 'w')", r"refused: .*\(open\)"),
    "subprocess": (WALK + "g['sys'].modules['subprocess'].Popen(['touch', 'TARGET'])", r"refused: .*subprocess\.Popen"),
    "raw fork_exec": (WALK + "g['sys'].modules['_posixsubprocess'].fork_exec()", "refused: .*starting processes"),
    "fork": (WALK + "g['fork']()", r"refused: .*\(os\.fork\)"),
    "signal the parent": (WALK + "g['kill'](g['getppid'](), 0)", r"refused: .*\(os\.kill\)"),
    "new import": (
        WALK + "g['sys'].modules['importlib'].import_module('ctypes')",
        "refused: the sandbox does not allow",
    ),
    "socket": (WALK + "g['__builtins__']['__import__']('socket').socket()", "refused: .*socket"),
    "builtin module import": (WALK + "g['__builtins__']['__import__']('gc').get_objects()", "refused: .*(import|gc)"),
    "lift own limits": (
        WALK + "r = g['sys'].modules['resource']\nr.setrlimit(r.RLIMIT_CPU, (-1, -1))",
        "resource.setrlimit",
    ),
    "frame walk": ("f = (f.gi_frame.f_back.f_globals for _ in [1])\nprint(list(f))", r"object\.__getattr__"),
    "stdout flood": (WALK + "g['sys'].stdout.write('x' * 10 ** 6)", "resource_limit: .*printed more than"),
    "while": ("while True:\n    pass", "resource_limit|timeout"),
    "def recursion": ("def f():\n    return f()\nf()", "resource_limit: .*recursion"),
    "tower power": ("x = 10 ** 10 ** 8", "resource_limit|timeout"),
}


@pytest.mark.parametrize(("code", "stopped_by"), ATTACKS.values(), ids=ATTACKS.keys())
def test_contained_without_the_static_check(unguarded: SandboxPool, code: str, stopped_by: str, tmp_path: Path) -> None:
    trace = run(unguarded, code, tmp_path / "pwned")
    assert trace.error is not None, "the attack ran to completion"
    assert re.search(stopped_by, f"{trace.error.kind}: {trace.error.message}"), trace.error
    assert "hostname" not in trace.stdout and len(trace.stdout) <= LIMITS["max_output_chars"]


def test_the_audit_hook_names_what_it_vetoed(unguarded: SandboxPool, tmp_path: Path) -> None:
    trace = run(unguarded, WALK + "g['system']('touch TARGET')", tmp_path / "pwned")
    assert trace.error is not None
    assert (trace.error.kind, trace.error.line) == ("refused", 3)
    assert "os.system" in trace.error.message


def test_a_subverted_worker_cannot_forge_results(unguarded: SandboxPool, tmp_path: Path) -> None:
    """Writing fake protocol lines to the reply pipe costs the program its worker, nothing more."""
    forge = WALK + "for fd in range(3, 12):\n    g['write'](fd, b'{\"ready\": true}\\n[[[[1]]]]\\n')\nx = 1"
    trace = run(unguarded, forge, tmp_path / "pwned")
    assert trace.error is not None and "protocol" in trace.error.message


# -- names Python normalizes (NFKC) after the check has read them -----------------------------------

SECRETS = {"GQLBENCH_TEST_SECRET": "hunter2", "OPENAI_API_KEY": "sk-test-hunter3"}

# Every spelling below is, to CPython, an attack the ASCII form of which is refused.
NORMALIZED = {
    "fullwidth attribute format": "ｆ = str.ｆｏｒｍａｔ\nprint(ｆ('{0.__globals__[os].environ}', range))",
    "fullwidth format on a response": (
        "r = GET_search_movie(query='x')\nprint(str.ｆｏｒｍａｔ('{0.__class__.__init__.__globals__[__builtins__][open]}', r))"
    ),
    "fullwidth format on an API function": "print(str.ｆｏｒｍａｔ('{0.__globals__}', GET_search_movie))",
    "fullwidth mro": "print(str.ｍｒｏ())",
    "fullwidth name bound then used": "ｆ = 1\nprint(f)",
    "fullwidth builtin call": "print(ｅｖａｌ('1 + 1'))",
    "fullwidth getattr call": "print(ｇｅｔａｔｔｒ(range, '__globals__'))",
    "fullwidth keyword": "print('x', ｓｅｐ='')",
    "fullwidth dunder via low line": "print(().＿＿class＿＿.＿＿base＿＿.＿＿subclasses＿＿())",
    "fullwidth dunder name": "print(＿＿builtins＿＿)",
    "mathematical bold format": "print('{0.__globals__}'.𝐟𝐨𝐫𝐦𝐚𝐭(range))",
    "mathematical italic format_map": "print('{a.__globals__}'.𝑓𝑜𝑟𝑚𝑎𝑡_𝑚𝑎𝑝({'a': range}))",
    "ligature name": "ﬁ = 1\nprint(fi)",
    "ligature attribute": "x = 'abc'.ﬁnd('b')",
    "format field globals": "print('{0.__globals__}'.format(range))",
    "format field index builtins": "print('{0[__builtins__]}'.format(GET_search_movie))",
    "format_map": "print('{a.__class__}'.format_map({'a': range}))",
}


@pytest.fixture(scope="module")
def secret_pools() -> Iterator[tuple[SandboxPool, SandboxPool]]:
    """A guarded and an unguarded pool started while the parent holds secrets in its environment."""
    with pytest.MonkeyPatch.context() as env:
        for name, value in SECRETS.items():
            env.setenv(name, value)
        with SandboxPool(**LIMITS) as guarded_pool, SandboxPool(**LIMITS, _unsafe_skip_policy=True) as unguarded_pool:
            yield guarded_pool, unguarded_pool


def assert_nothing_leaked(trace: Trace) -> None:
    text = f"{trace.stdout}\n{trace.result}\n{trace.error}"
    for name, value in SECRETS.items():
        assert value not in text and name not in text, text[:500]
    for host_detail in ("<module", "'__builtins__'", "'__name__'", "gqlbench.", "<built-in"):  # globals, modules, classes
        assert host_detail not in text, text[:500]


@pytest.mark.parametrize("code", NORMALIZED.values(), ids=NORMALIZED.keys())
def test_normalized_names_are_refused_as_python_reads_them(secret_pools: tuple[SandboxPool, SandboxPool], code: str) -> None:
    trace = secret_pools[0].run(Job(code=code, domain="tmdb"))
    # the compiler itself refuses some spellings (U+FF3F is no identifier character): a parse error
    assert trace.error is not None and trace.error.kind in {"refused", "parse_error"}, trace.error
    assert trace.error.line is not None and trace.calls == []
    assert_nothing_leaked(trace)


@pytest.mark.parametrize("code", NORMALIZED.values(), ids=NORMALIZED.keys())
def test_normalized_names_are_contained_without_the_static_check(secret_pools: tuple[SandboxPool, SandboxPool], code: str) -> None:
    """Sealed API functions and range, responses without private attributes, a worker without secrets."""
    trace = secret_pools[1].run(Job(code=code, domain="tmdb"))
    assert_nothing_leaked(trace)


# Walks that do reach module globals without the static check (C builtins lead to the import
# machinery): what they find is a worker environment that holds no secret.
ENVIRONMENT_WALKS = {
    "format field through print": "print(str.format('{0.__self__.__loader__.find_spec.__globals__[sys].modules[os].environ}', print))",
    "class walk": WALK + "print(dict(g['environ']))",
}


@pytest.mark.parametrize("code", ENVIRONMENT_WALKS.values(), ids=ENVIRONMENT_WALKS.keys())
def test_a_worker_environment_holds_no_secret(secret_pools: tuple[SandboxPool, SandboxPool], code: str) -> None:
    trace = secret_pools[1].run(Job(code=code, domain="tmdb"))
    assert "PATH" in trace.stdout, (trace.error, trace.stdout[:300])  # the walk did reach the environment
    assert_nothing_leaked(trace)


def test_a_coding_declaration_does_not_change_what_runs(guarded: SandboxPool, tmp_path: Path) -> None:
    """The check and the compiler read the same str: a utf-7 cookie (``+AAo-`` is a newline) is inert."""
    trace = run(guarded, "# -*- coding: utf-7 -*-\nx = 1 +AAo-import os\n", tmp_path / "pwned")
    assert trace.error is not None and trace.error.kind in {"parse_error", "refused"}
    assert trace.calls == []


@pytest.mark.parametrize(("code", "stopped_by"), ATTACKS.values(), ids=ATTACKS.keys())
def test_contained_as_a_step_without_the_static_check(unguarded: SandboxPool, code: str, stopped_by: str, tmp_path: Path) -> None:
    """A tool-calling turn's calls run as steps of one job (Job.steps): each step meets the same walls as a program."""
    target = tmp_path / "pwned"
    job = Job(code="", domain="tmdb", runtime=ECHO, steps=("a = 1", code.replace("TARGET", str(target)), "b = 2"))
    ((trace, (before, attack, after)),) = unguarded.run_steps([job])
    assert not target.exists(), "the step created a file"
    assert before.result == "1" and attack.error is not None, "the attack ran to completion"
    assert re.search(stopped_by, f"{attack.error.kind}: {attack.error.message}"), attack.error
    if attack.error.kind in CONTAINED:  # a limit or a veto ends the job: the step after it does not run
        assert after.error is not None and not after.finished and trace.error is not None
    assert "hostname" not in trace.stdout and len(trace.stdout) <= LIMITS["max_output_chars"]
    fine = unguarded.run(Job(code="GET_search_movie(query='ok')\nprint('still fine')", domain="tmdb", runtime=ECHO))
    assert fine.error is None and fine.stdout == "still fine\n"
