"""Opaque names for functions and parameters, and the rename that undoes them.

``--obfuscate names`` shows every endpoint as ``api_<n>``, ``params`` shows the
parameters of each function as ``arg_1``, ``arg_2``... (declaration order),
``descriptions`` removes every description, ``all`` does all three;
``function-descriptions`` removes only each function's own description;
``spec-descriptions`` removes every description of the function specs (each
function's and each parameter's), the GraphQL schema keeping its own: how
gqlbench reads the paper's ReAct prompts for its 8K-context model, Granite
Code ("the function descriptions were stripped out from the function specs";
docs/settings.md says why). Function
numbers are a per-domain permutation drawn from the seed, so a function has
the same opaque name in the few-shot examples as in the evaluated task.

The model answers in the opaque names; :func:`rename_calls` maps its program
back to the real names (a LibCST rewrite of call names and keywords only,
formatting kept) before scoring and execution, so scores compare across
settings. The same rewrite, run forwards, obfuscates the examples' gold code.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from gqlbench.errors import GqlbenchError
from gqlbench.records import FunctionSpec

__all__ = [
    "OBFUSCATE_CHOICES",
    "Obfuscation",
    "NameMap",
    "parse_obfuscate",
    "build_name_map",
    "rename_calls",
    "rename_calls_logged",
    "unknown_endpoint",
    "spelled",
    "hide_words",
]

OBFUSCATE_CHOICES: tuple[str, ...] = (
    "none",
    "names",
    "params",
    "descriptions",
    "all",
    "function-descriptions",
    "spec-descriptions",
)


@dataclass(frozen=True)
class Obfuscation:
    """Which parts ``--obfuscate`` hides."""

    names: bool = False
    params: bool = False
    descriptions: bool = False
    function_descriptions: bool = False  # only the functions' own descriptions (parameters and schema keep theirs)
    spec_descriptions: bool = False  # the functions' and the parameters' descriptions (the schema keeps its own)

    @property
    def renames(self) -> bool:
        return self.names or self.params


def parse_obfuscate(text: str) -> Obfuscation:
    """One of :data:`OBFUSCATE_CHOICES`."""
    if text not in OBFUSCATE_CHOICES:
        raise GqlbenchError(f"--obfuscate {text!r}: choose one of {', '.join(OBFUSCATE_CHOICES)}")
    if text == "all":
        return Obfuscation(True, True, True)
    return Obfuscation(
        names=text == "names",
        params=text == "params",
        descriptions=text == "descriptions",
        function_descriptions=text == "function-descriptions",
        spec_descriptions=text == "spec-descriptions",
    )


@dataclass(frozen=True)
class NameMap:
    """Real name -> shown name, for functions and (per real function) parameters."""

    functions: dict[str, str] = field(default_factory=dict)
    params: dict[str, dict[str, str]] = field(default_factory=dict)
    # The rest of the domain's numbering (functions not offered, and their parameters): never shown in this
    # prompt, but a few-shot example may show them, so a model may call them; they are mapped back too.
    others: dict[str, str] = field(default_factory=dict)
    other_params: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def numbering(self) -> dict[str, str]:
        """Real -> shown name of every function of the domain's numbering, offered or not."""
        return {**self.others, **self.functions}

    def shown(self, function: str) -> str:
        return self.numbering.get(function, function)

    def keywords(self, function: str) -> dict[str, str]:
        """Real -> shown parameter names of ``function``, offered or not."""
        return self.params.get(function) or self.other_params.get(function, {})

    def forward(self, code: str) -> str:
        """``code`` in the shown names (the examples' gold code).

        Every function of the numbering is renamed, offered or not: a gold
        program may call a function its sample's signatures lack (the errata's
        ``missing_function_specs``), and an example must not show it by its real name.
        """
        return rename_calls(code, self.numbering, {**self.other_params, **self.params})

    def backward(self, code: str) -> str:
        """``code`` written in the shown names, back in the real ones (before scoring and execution)."""
        return self.backward_logged(code)[0]

    def backward_logged(self, code: str) -> tuple[str, dict[str, str]]:
        """(``code`` in the real names, ``{name as written: real name}`` of each renamed call of a function not offered).

        Every name of the domain's numbering maps back, offered or not. A
        name shaped like one but outside it (``api_999``) becomes
        :func:`unknown_endpoint` of it, so it scores and is tagged as a call of
        an endpoint the domain lacks, exactly as an invented ``GET_lyrics`` is
        in a run without obfuscation.
        """
        everything = self.numbering
        functions = {shown: real for real, shown in everything.items()}
        if everything:  # an opaque name outside the numbering is a made-up endpoint, as GET_lyrics is in a plain run
            functions |= {n: unknown_endpoint(n) for n in _OPAQUE_FUNCTION.findall(code) if n not in functions}
        keywords = {**self.other_params, **self.params}
        params = {everything.get(real, real): {s: r for r, s in names.items()} for real, names in keywords.items()}
        real_code, renamed = rename_calls_logged(code, functions, params)
        offered = self.functions.keys() | self.params.keys()
        return real_code, {written: real for written, real in renamed.items() if real not in offered}

    def to_json(self) -> dict[str, Any]:
        """As stored per sample in samples.jsonl (only the names in use)."""
        return {"functions": dict(self.functions), "params": {f: dict(p) for f, p in self.params.items()}}


_OPAQUE_FUNCTION = re.compile(r"\bapi_\d+\b")  # how build_name_map names a function


def unknown_endpoint(opaque: str) -> str:
    """The real-side name of an opaque name outside the numbering: spelled like an endpoint, in no catalog."""
    return f"GET_unknown_{opaque}"


def spelled(name: str) -> str:
    """A parameter name as a description spells it out (TMDB's ``person_id`` is described as ``"person id"``)."""
    return name.replace("_", " ")


# A name in prose: not inside a longer word, a dotted name or a hyphenated anchor (``#spotify-uris-and-ids``).
_BEFORE, _AFTER = r"(?<![\w.-])", r"(?![\w-])"


def hide_words(text: str, names: Mapping[str, str]) -> str:
    """``text`` with every real name of ``names`` (as written, or :func:`spelled` out) replaced by its shown name.

    Whole words only, case kept as written, longest name first (so
    ``certification.lte`` is not read as ``certification``).
    """
    forms = {form: shown for real, shown in names.items() for form in (real, spelled(real)) if form}
    if not forms or not text:
        return text
    pattern = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return re.sub(rf"{_BEFORE}(?:{pattern}){_AFTER}", lambda m: forms[m.group(0)], text)


def _arg_names(specs: Sequence[FunctionSpec]) -> dict[str, dict[str, str]]:
    return {s.name: {p: f"arg_{i}" for i, p in enumerate(s.param_names, 1)} for s in specs if s.param_names}


def build_name_map(
    domain: str,
    domain_functions: Sequence[str],
    shown: Sequence[FunctionSpec],
    obfuscation: Obfuscation,
    seed: int,
    domain_specs: Mapping[str, FunctionSpec] | None = None,
) -> NameMap:
    """The renames for one prompt: ``shown`` are the signatures it offers.

    Function numbers come from one seeded permutation of ``domain_functions``
    (plus any shown function the domain list lacks, sorted), so they are the
    same in every prompt of the domain under one seed. ``domain_specs`` (the
    catalog's signatures) give the parameters of the functions not offered.
    """
    offered = {s.name for s in shown}
    functions: dict[str, str] = {}
    others: dict[str, str] = {}
    if obfuscation.names:
        names = list(dict.fromkeys(domain_functions))
        names += sorted(offered - set(names))
        random.Random(f"{seed}|{domain}|names").shuffle(names)
        numbers = {name: i for i, name in enumerate(names, 1)}
        functions = {s.name: f"api_{numbers[s.name]}" for s in shown}
        others = {name: f"api_{n}" for name, n in numbers.items() if name not in offered}
    params: dict[str, dict[str, str]] = {}
    other_params: dict[str, dict[str, str]] = {}
    if obfuscation.params:
        params = _arg_names(shown)
        other_params = _arg_names([s for name, s in (domain_specs or {}).items() if name not in offered])
    return NameMap(functions, params, others, other_params)


class _Renamer(cst.CSTTransformer):
    def __init__(self, functions: Mapping[str, str], params: Mapping[str, Mapping[str, str]]) -> None:
        super().__init__()
        self.functions, self.params = functions, params
        self.renamed: dict[str, str] = {}  # written name -> new name, of each call whose name or a keyword changed

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not isinstance(updated_node.func, cst.Name):
            return updated_node
        name = updated_node.func.value
        keywords = self.params.get(name, {})
        args = [
            a.with_changes(keyword=cst.Name(keywords[a.keyword.value])) if a.keyword is not None and a.keyword.value in keywords else a
            for a in updated_node.args
        ]
        if name in self.functions or any(a.keyword is not None and a.keyword.value in keywords for a in updated_node.args):
            self.renamed[name] = self.functions.get(name, name)
        func = cst.Name(self.functions[name]) if name in self.functions else updated_node.func
        return updated_node.with_changes(func=func, args=args)


def rename_calls(code: str, functions: Mapping[str, str], params: Mapping[str, Mapping[str, str]]) -> str:
    """Rename called functions and their keyword arguments; nothing else changes.

    ``params`` is keyed by the function name as written in ``code``. Code that
    does not parse gets whole-word function renames only (it scores as invalid
    either way, but its calls stay readable in the real names).
    """
    return rename_calls_logged(code, functions, params)[0]


def rename_calls_logged(code: str, functions: Mapping[str, str], params: Mapping[str, Mapping[str, str]]) -> tuple[str, dict[str, str]]:
    """:func:`rename_calls`, and ``{name as written: new name}`` of each call it changed (a record of what was mapped)."""
    if not functions and not params:
        return code, {}
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        renamed = {}
        for old, new in functions.items():
            code, n = re.subn(rf"\b{re.escape(old)}\b", new, code)
            if n:
                renamed[old] = new
        return code, renamed
    renamer = _Renamer(functions, params)
    return module.visit(renamer).code, renamer.renamed
