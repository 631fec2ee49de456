"""Keep a run's console readable: engine chatter goes to ``engine.log`` in the run folder.

vLLM, torch and transformers print warnings from the main process and from
the engine processes they spawn, through loggers, ``warnings`` and C++ code
alike. Only redirecting the file descriptors 1 and 2 catches all of them:
while a run generates, both point at ``engine.log`` (children inherit them),
and the progress bar and the one-line summary are written to a duplicate of
the original stderr. ``--verbose`` leaves the descriptors alone.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from gqlbench.errors import GqlbenchError
from gqlbench.run.files import open_run_file

__all__ = ["ENGINE_LOG", "summary_line", "engine_output"]

ENGINE_LOG = "engine.log"


def summary_line(description: Mapping[str, Any]) -> str:
    """``engine, model, dtype and device`` of a backend description, in one line (unknown parts left out)."""
    model = description.get("model_path") or description.get("model")
    dtype = description.get("dtype") or description.get("engine", {}).get("dtype")
    device = description.get("device") or description.get("base_url")
    line = f"gqlbench: {description.get('backend', 'custom')} engine"
    line += f", model {model}" if model else ""
    line += f", {dtype}" if dtype else ""
    line += f" on {device}" if device else ""
    reason = (description.get("dtype_choice") or {}).get("reason")
    return line + (f" ({reason})" if reason else "")


@contextlib.contextmanager
def engine_output(run_dir: Path, *, verbose: bool) -> Iterator[IO[str]]:
    """Send fd 1 and 2 to ``run_dir/engine.log`` (unless ``verbose``); yield a stream to the real console.

    An exception leaving the block gets the log's path added as a note, so an
    engine failure always says where its details are (a GqlbenchError only
    when the log holds something, e.g. not for a mistyped backend name).
    """
    if verbose:
        yield sys.stderr
        return
    log_path = run_dir / ENGINE_LOG
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    console = os.fdopen(os.dup(saved[2]), "w", buffering=1, encoding="utf-8", errors="replace")
    try:
        with open_run_file(log_path, "a") as log:
            start = os.fstat(log.fileno()).st_size
            for fd in (1, 2):
                os.dup2(log.fileno(), fd)
            try:
                yield console
            except GqlbenchError as exc:  # printed as one line by the CLI: the path goes into it
                sys.stdout.flush()
                sys.stderr.flush()
                if os.fstat(log.fileno()).st_size == start:  # the engine said nothing: no log to point to
                    raise
                raise GqlbenchError(f"{exc} (engine log: {log_path})") from exc
            except Exception as exc:
                exc.add_note(f"engine log: {log_path}")
                raise
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                for fd, original in saved.items():
                    os.dup2(original, fd)
    finally:
        for original in saved.values():
            os.close(original)
        console.close()
