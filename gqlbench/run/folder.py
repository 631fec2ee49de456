"""A run's folder: where it is, whether it may be continued, one writer at a time.

Re-running the same command finds the latest run folder with the same
settings and continues it; a folder whose settings differ is never reused.
A sample is "done" only when its line is in ``samples.jsonl``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

from gqlbench.errors import GqlbenchError
from gqlbench.records import SampleResult
from gqlbench.run.config import SETTING_DEFAULTS, RunConfig, RunOptions, RunSettings
from gqlbench.run.files import open_run_file, refuse_link, write_json

__all__ = ["RUN_FILES", "model_slug", "write_json", "read_config", "finished", "has_results", "clear", "choose_dir", "exclusive"]

RUN_FILES = ("samples.jsonl", "errors.jsonl", "results.json", "report.md")
_WRITTEN = ("config.json", *RUN_FILES, "engine.log", "report.html")  # every file a run writes (gqlbench.run.engine_log, --html)
_TIMESTAMP = "%Y%m%d-%H%M%S"


def model_slug(model: str) -> str:
    """A folder name for a model: a path's last part, a hub id with ``--`` for ``/``."""
    path = Path(model).expanduser()
    name = path.name if path.exists() else model.replace("/", "--")
    return _slug(name) or "model"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")


def _folder_tag(settings: RunSettings) -> str:
    """``<split>[-relevance]_<prompt style>`` plus each non-default prompt setting; a style named as module:object goes by its own name."""
    split = f"{settings.split}-relevance" if settings.relevance else settings.split
    tag = f"{split}_{_slug(settings.style.name) or 'style'}"
    chosen = settings.to_json()
    return tag + "".join(f"_{key}-{_slug(str(chosen[key]))}" for key, default in SETTING_DEFAULTS.items() if chosen.get(key) != default)


def read_config(run_dir: Path) -> RunConfig | None:
    """The folder's config.json (None when there is none): :func:`gqlbench.results.files.read_config`, the one reader."""
    from gqlbench.results.files import CONFIG_FILE
    from gqlbench.results.files import read_config as read

    config = read(run_dir)
    for key in ("model", "prompt", "split") if config is not None else ():  # a run resumes only what it can name
        if not getattr(config, key):
            raise GqlbenchError(f"{run_dir / CONFIG_FILE}: {key!r} is missing; fix it or use --overwrite")
    return config


def finished(
    run_dir: Path, *, repair: bool = False, every: bool = False, notify: Callable[[str], None] | None = None
) -> list[SampleResult]:
    """The finished samples of a run (none before its first); ``repair`` first removes a line cut by a kill (told to ``notify``).

    ``every``: all K completions of each sample (``--samples K``), not only completion 0.
    """
    from gqlbench.results.files import SAMPLES_FILE, read_samples, repair_samples

    path = run_dir / SAMPLES_FILE
    if repair and (note := repair_samples(path)) and notify is not None:
        notify(note)
    if not path.is_file():
        return []
    try:
        return read_samples(path, every=every)
    except GqlbenchError as exc:
        raise GqlbenchError(f"{exc}; fix the line or use --overwrite") from None


def has_results(run_dir: Path) -> bool:
    """Whether a run wrote anything but its config.json: samples, errors, results or a report."""
    return any((run_dir / name).exists() for name in RUN_FILES)


def clear(run_dir: Path, notify: Callable[[str], None] | None = None) -> None:
    """``--overwrite``: remove the run's own files (and tell ``notify`` which, when it had results); anything else stays."""
    present = [name for name in ("config.json", *RUN_FILES) if (run_dir / name).exists()]
    if has_results(run_dir) and notify is not None:
        done = len(finished(run_dir))
        notify(f"--overwrite: removing {', '.join(present)} from {run_dir} ({done} finished samples)")
    for name in present:
        (run_dir / name).unlink()


def _fresh_dir(settings: RunSettings, root: Path) -> Path:
    base = root / model_slug(settings.model)
    stamp = datetime.now().strftime(_TIMESTAMP)
    candidate = base / f"{stamp}_{_folder_tag(settings)}"
    n = 1
    while candidate.exists():
        n += 1
        candidate = base / f"{stamp}-{n}_{_folder_tag(settings)}"
    return candidate


def _latest_matching(settings: RunSettings, root: Path, digest: str) -> Path | None:
    base = root / model_slug(settings.model)
    if not base.is_dir():
        return None
    folders = sorted(base.glob(f"*_{_folder_tag(settings)}"), key=lambda p: p.name, reverse=True)
    wanted = settings.to_json()
    for folder in folders:
        config = read_config(folder)
        if config is not None and not config.differences(wanted, digest):
            return folder
    return None


def choose_dir(settings: RunSettings, options: RunOptions, digest: str) -> tuple[Path, bool]:
    """The folder to write (``--out``, else the latest run with equal settings, else a new one) and whether to clear it."""
    if options.out is None:
        found = _latest_matching(settings, options.runs_root, digest)
        if found is not None:
            return found, options.overwrite
        return _fresh_dir(settings, options.runs_root), False
    out = options.out
    if out.exists() and not out.is_dir():
        raise GqlbenchError(f"--out {out}: is a file, not a folder")
    config = read_config(out) if out.is_dir() else None
    if config is None:
        if out.is_dir() and any(out.iterdir()):
            raise GqlbenchError(f"--out {out}: folder exists and is not a gqlbench run (no config.json); choose another folder")
        return out, False
    problems = config.differences(settings.to_json(), digest)
    if problems and not options.overwrite:
        if not has_results(out):  # e.g. a mistyped --backend stopped it before its first sample: nothing to keep
            options.say(f"--out {out}: its earlier run ({'; '.join(problems)}) ended before writing any result; starting it over")
            return out, True
        raise GqlbenchError(
            f"--out {out}: this run was made with other settings ({'; '.join(problems)}); "
            "use another --out, or --overwrite to start it over"
        )
    return out, options.overwrite


@contextlib.contextmanager
def exclusive(run_dir: Path) -> Iterator[None]:
    """One writer per run folder (``run`` and ``evaluate --out`` alike); the lock dies with its process, even on SIGKILL.

    A folder that does not exist yet is created; when the block fails and the
    folder holds nothing but the lock, it is removed again.
    """
    if run_dir.exists() and not run_dir.is_dir():
        raise GqlbenchError(f"{run_dir}: exists and is not a folder; choose another --out")
    created = not run_dir.exists()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GqlbenchError(f"{run_dir}: cannot create the folder ({exc.strerror or exc}); choose another --out") from None
    try:
        with _locked(run_dir):
            for name in _WRITTEN:  # refused before any work, not after the samples it would have generated
                refuse_link(run_dir / name)
            yield
    except BaseException:
        if created and {p.name for p in run_dir.iterdir()} <= {".lock"}:
            with contextlib.suppress(OSError):
                (run_dir / ".lock").unlink()
                run_dir.rmdir()
        raise


@contextlib.contextmanager
def _locked(run_dir: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks, one writer is up to the user
        yield
        return
    with open_run_file(run_dir / ".lock", "a") as fh:  # never truncated: nothing is written to it
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GqlbenchError(
                f"{run_dir}: another gqlbench run or evaluate is writing this folder; "
                "wait for it or use another --out (--overwrite never breaks its lock)"
            ) from None
        yield
