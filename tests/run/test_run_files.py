"""A run folder's files are never written through symbolic links, and one process writes a folder at a time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.errors import GqlbenchError
from gqlbench.run.files import open_run_file, write_files, write_json
from gqlbench.run.folder import exclusive
from tests.cli_process import start_gqlbench
from tests.stub_backends import STUB_RUN


def _run(out: Path, failing: Path) -> int:
    return main(
        [
            *STUB_RUN,
            "--limit",
            "2",
            "--batch-size",
            "1",
            "--no-exec",
            "--html",
            "--out",
            str(out),
            "--model-args",
            f"fail_while={failing}",
        ]
    )


@pytest.mark.parametrize("name", [".lock", "report.html", "samples.jsonl"])
def test_resuming_refuses_a_run_file_that_is_a_link(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    out, failing = tmp_path / "run", tmp_path / "failing"
    failing.touch()
    assert _run(out, failing) != 0  # every generation failed: the run is left to resume
    failing.unlink()
    assert _run(out, failing) == 0
    (out / "samples.jsonl").write_text((out / "samples.jsonl").read_text().splitlines(keepends=True)[0])  # one left to do
    target = tmp_path / "elsewhere"
    if name == "samples.jsonl":
        shutil.move(out / name, target)  # the folder's own lines, now outside it
    else:
        target.write_text("precious\n")
        (out / name).unlink(missing_ok=True)
    before = target.read_bytes()
    (out / name).symlink_to(target)
    capsys.readouterr()
    assert _run(out, failing) == 2
    err = capsys.readouterr().err
    assert f"error: {out / name}: is a symbolic link" in err and f"resuming {out}:" not in err, err  # refused before any work
    assert target.read_bytes() == before


def test_atomic_writes_never_go_through_a_planted_temporary_file(tmp_path: Path) -> None:
    path, target = tmp_path / "results.json", tmp_path / "target"
    target.write_text("precious\n")
    import os

    (tmp_path / f".results.json.{os.getpid()}.tmp").symlink_to(target)  # the writer's temporary name, guessed
    write_files({path: ["{}\n"]})
    assert path.read_text() == "{}\n" and not path.is_symlink() and target.read_text() == "precious\n"
    path.unlink()
    path.symlink_to(target)
    with pytest.raises(GqlbenchError, match="is a symbolic link"):
        write_files({path: ["{}\n"]})
    with pytest.raises(GqlbenchError, match="is a symbolic link"):
        open_run_file(path, "a")
    assert target.read_text() == "precious\n"


def _predictions(tmp_path: Path) -> Path:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": "test/0", "prediction": "GET_me()"}) + "\n")
    return path


@pytest.mark.parametrize("overwrite", [(), ("--overwrite",)], ids=["new", "overwrite"])
def test_evaluate_waits_for_no_one_and_writes_nothing_into_a_folder_being_written(
    tmp_path: Path, overwrite: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "samples.jsonl").write_text("")
    with exclusive(out):  # another `gqlbench run` or `evaluate` holds the folder
        status = main(["evaluate", str(_predictions(tmp_path)), "--no-exec", "--out", str(out), *overwrite])
    assert status == 2
    assert "another gqlbench run or evaluate is writing this folder" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == [".lock", "samples.jsonl"] and (out / "samples.jsonl").read_text() == ""


def test_evaluate_into_a_new_folder_it_could_not_write_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    bad = tmp_path / "p.jsonl"
    bad.write_text("not json\n")
    assert main(["evaluate", str(bad), "--no-exec", "--out", str(out)]) == 2
    assert not out.exists()


def test_evaluate_overwrite_never_breaks_the_lock_of_a_live_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import signal
    import time

    out, calls = tmp_path / "run", tmp_path / "calls.log"
    process = start_gqlbench(
        *STUB_RUN, "--limit", "2", "--batch-size", "1", "--no-exec", "--out", str(out), "--model-args", f"delay=15,log={calls}"
    )
    try:
        deadline = time.monotonic() + 60  # a safety net for a broken build, not a measurement
        while not calls.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        status = main(["evaluate", str(_predictions(tmp_path)), "--no-exec", "--overwrite", "--out", str(out)])
        assert status == 2 and "another gqlbench run or evaluate is writing this folder" in capsys.readouterr().err
        assert not (out / "samples.jsonl").exists() and (out / "config.json").is_file()  # the run's folder, untouched
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)


def test_config_and_results_are_written_by_one_json_writer(tmp_path: Path) -> None:
    """Two writers once disagreed: config.json escaped non-ASCII and kept lone surrogates, results.json did neither."""
    from gqlbench.results import files as results
    from gqlbench.run import folder as run_folder

    assert run_folder.write_json is write_json  # config.json (runner, generate) goes through it
    payload = {"model": "Modèle \ud800", "path": tmp_path, "n": [1, 2]}
    write_json(tmp_path / "a.json", payload)
    text = (tmp_path / "a.json").read_bytes().decode("utf-8")  # valid UTF-8 although the payload was not
    assert json.loads(text) == {"model": "Modèle \ufffd", "path": str(tmp_path), "n": [1, 2]}
    assert "Modèle" in text and text.endswith("]\n}\n")
    document = results.results_document([], meta={"model": "Modèle \ud800"})
    results.write_results(tmp_path / "results.json", document)
    assert json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["meta"]["model"] == "Modèle \ufffd"
