"""Grids (--matrix): parsing and checks, one engine load, one resumable folder per cell, the ablation table."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends.backend import Backend
from gqlbench.run.matrix import cell_name, grid_cells, parse_matrix, run_matrix, varying_settings
from gqlbench.run.runner import RunOptions, RunSettings, load_backend
from tests.stub_backends import STUB


def _base(**changes: object) -> RunSettings:
    base = {"model": "stub-model", "backend": STUB, "split": "test", "limit": 2, "execute": False}
    return RunSettings(**{**base, **changes})  # type: ignore[arg-type]


def test_values_are_read_as_their_settings_types() -> None:
    axes = parse_matrix(["shots=0,3", "prompt=cot,react", "temperature=0,0.5", "execute=no,yes", "max-new-tokens=none,64"])
    assert axes == [
        ("shots", (0, 3)),
        ("prompt", ("cot", "react")),
        ("temperature", (0.0, 0.5)),
        ("execute", (False, True)),
        ("max_new_tokens", (None, 64)),
    ]
    assert cell_name({"shots": 0, "prompt": "my/style:x"}) == "shots-0__prompt-my_style_x"


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("nope=1", "no run setting 'nope'"),
        ("model=a,b", "cannot vary in a grid"),
        ("model_args=x", "cannot vary in a grid"),
        ("shots=x", "'x' is not a valid int"),
        ("execute=maybe", "not a valid bool"),
        ("shots", "expected key=value1,value2"),
        ("shots=1,1", "listed twice"),
    ],
)
def test_bad_names_and_values_are_one_line_errors(item: str, message: str) -> None:
    with pytest.raises(GqlbenchError, match=message):
        parse_matrix([item])
    with pytest.raises(GqlbenchError, match="given twice"):
        parse_matrix(["shots=0", "shots=3"])


def test_every_cell_is_checked_before_any_work() -> None:
    with pytest.raises(GqlbenchError, match="cell split-train: .*--shots 0"):
        grid_cells(_base(), parse_matrix(["split=test,train"]))
    with pytest.raises(GqlbenchError, match="cell prompt-nope_module_X"):
        grid_cells(_base(), parse_matrix(["prompt=cot,nope_module:X"]))


def test_a_grid_loads_the_engine_once_and_resumes_per_cell(tmp_path: Path) -> None:
    built: list[Backend] = []

    def counting(settings: RunSettings) -> Backend:
        built.append(load_backend(settings))
        return built[-1]

    axes = parse_matrix(["shots=0,3", "prompt=cot,react"])
    outcomes = run_matrix(_base(), axes, RunOptions(out=tmp_path / "grid", quiet=True), backend_factory=counting)
    assert len(built) == 1 and built[0].closed  # type: ignore[attr-defined]
    assert sorted(p.name for p in (tmp_path / "grid").iterdir()) == [
        "shots-0__prompt-cot",
        "shots-0__prompt-react",
        "shots-3__prompt-cot",
        "shots-3__prompt-react",
    ]
    assert all(o.metrics["overall"]["arg_match_full"] == 1.0 and len(o.results) == 2 for o in outcomes)
    assert set(varying_settings([o.run_dir for o in outcomes])) >= {"shots", "prompt"}
    (outcomes[1].run_dir / "samples.jsonl").unlink()  # one cell lost its samples: only it is generated again
    again = run_matrix(_base(), axes, RunOptions(out=tmp_path / "grid", quiet=True), backend_factory=counting)
    assert len(built) == 2 and [o.already_complete for o in again] == [True, False, True, True]


def test_the_cli_grid_prints_the_ablation_table_and_report_prints_it_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loads = tmp_path / "loads"
    args = [
        "run",
        "--model",
        "stub-model",
        "--backend",
        STUB,
        "--limit",
        "2",
        "--no-exec",
        "--quiet",
        "--out",
        str(tmp_path / "g"),
        "--model-args",
        f"loads={loads}",
        "--matrix",
        "shots=0,3",
        "--matrix",
        "relevance=false,true",
        "--html",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert loads.read_text().splitlines() == ["stub-model"]  # one engine construction for four cells
    assert "Ablation" in out and "| shots" in out and out.count("g/shots-") == 4
    cells = sorted((tmp_path / "g").iterdir())
    assert all((cell / "report.html").is_file() for cell in cells)
    assert main(["report", *map(str, cells)]) == 0
    report = capsys.readouterr().out
    assert "Ablation" in report and "Cases that cannot be done" in report
