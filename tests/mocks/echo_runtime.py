"""A stand-in runtime for testing the sandbox: every endpoint of the catalog echoes a placeholder.

It models no world. Each function of the domain's catalog specs checks its
keyword names, records the call and answers with an object whose every
field, index or call is another placeholder named by its path. The sandbox
loads it by file: ``Job(runtime=ECHO)`` with :data:`ECHO`; ``bench/execution.py``
uses it to measure the sandbox's own overhead.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gqlbench.records import TraceCall
from gqlbench.specs import load_specs

ECHO = f"{Path(__file__).resolve()}:echo_runtime"


class EchoError(Exception):
    """A call the echo runtime refuses; ``kind`` is what the sandbox reports."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Echo:
    """A placeholder response: any field, index or call yields another placeholder."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __getattr__(self, name: str) -> Echo:
        if name.startswith("_"):
            raise AttributeError(name)
        return Echo(f"{self._path}.{name}")

    def __getitem__(self, key: object) -> Echo:
        return Echo(f"{self._path}[{key}]")

    def __iter__(self) -> Any:
        return iter([self[0], self[1]])

    def __len__(self) -> int:
        return 2

    def __call__(self, *args: object, **kwargs: object) -> Echo:
        return self

    def __str__(self) -> str:
        return self._path

    def __repr__(self) -> str:
        return f"<echo {self._path}>"

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(self._path)


def _plain(value: Any) -> Any:
    if isinstance(value, Echo):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


@dataclass
class EchoRuntime:
    """The calls made so far and one echoing callable per catalog function."""

    domain: str
    seed: int
    namespace: dict[str, Callable[..., Any]] = field(default_factory=dict)
    _calls: list[TraceCall] = field(default_factory=list)

    def endpoint(self, name: str, params: tuple[str, ...]) -> Callable[..., Echo]:
        def call(*args: Any, **kwargs: Any) -> Echo:
            if len(args) > len(params):
                raise EchoError("bad_arguments", f"{name}() takes {len(params)} arguments, got {len(args)}")
            unknown = sorted(set(kwargs) - set(params))
            if unknown:
                raise EchoError("bad_arguments", f"{name}() has no parameter {unknown[0]!r}")
            arguments = {**dict(zip(params, args, strict=False)), **kwargs}
            self._calls.append(TraceCall(function=name, arguments=_plain(arguments)))
            return Echo(f"{name}#{len(self._calls)}")

        return call

    def calls(self) -> list[TraceCall]:
        return list(self._calls)

    def world_digest(self) -> str:
        record = json.dumps([self.seed, [c.model_dump(mode="json") for c in self._calls]], default=str)
        return hashlib.sha256(record.encode()).hexdigest()[:16]


def echo_runtime(domain: str, seed: int) -> EchoRuntime:
    """An echo runtime for the functions of ``domain`` in the catalog (unknown domains fail here)."""
    runtime = EchoRuntime(domain, seed)
    runtime.namespace = {name: runtime.endpoint(name, tuple(spec.param_names)) for name, spec in load_specs(domain).items()}
    return runtime
