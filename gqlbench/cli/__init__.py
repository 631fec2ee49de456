"""The ``gqlbench`` command line: one module per command, loaded on demand.

Commands are imported only when invoked: ``gqlbench --help`` lists them from
:data:`SUMMARIES` (a test keeps those equal to each command's own short help),
so it imports no command module, no model backend and no parser library.
"""

from __future__ import annotations

import importlib
import signal
import sys
import threading

import click

from gqlbench.display import escape_controls
from gqlbench.errors import GqlbenchError

__all__ = ["main", "cli", "LazyGroup", "COMMANDS", "SUMMARIES"]

# command name -> "module:attribute" of its click command
COMMANDS: dict[str, str] = {
    "evaluate": "gqlbench.cli.evaluate:evaluate",
    "run": "gqlbench.cli.run:run",
    "report": "gqlbench.cli.report:report",
    "domains": "gqlbench.cli.domains:domains",
    "models": "gqlbench.cli.models:models",
    "exec": "gqlbench.cli.exec_:exec_program",
    "mock": "gqlbench.cli.mock:mock",
    "view": "gqlbench.cli.view:view",
    "samples": "gqlbench.cli.samples:samples",
}
ALIASES: dict[str, str] = {"domain": "domains"}
# command name -> its short help as `gqlbench --help` lists it (the first sentence of its docstring)
SUMMARIES: dict[str, str] = {
    "evaluate": "Score a file of model predictions (Table 2 metrics).",
    "run": "Run a model on a split, score it, and print the report.",
    "report": "Compare scored runs: one table, then paired tests.",
    "domains": "Browse the API catalog: domains, endpoints, signatures and response schemas.",
    "models": "Bundled models: convert them once into Hugging Face folders, list the cache.",
    "exec": "Run the Python program in FILE against DOMAIN's mock world and print its trace.",
    "mock": "Mock APIs: deterministic worlds behind the catalog's GraphQL schemas.",
    "view": "Write an offline HTML report of scored runs.",
    "samples": "Make and measure samples: verified synthetic requests and gold programs for a domain.",
}


class LazyGroup(click.Group):
    """A group whose subcommands live in their own modules, imported when used.

    ``lazy_commands`` maps a command name to ``"module:attribute"``;
    ``aliases`` maps extra names onto those; ``summaries`` gives the short
    help that the group's ``--help`` lists without importing the command.
    """

    def __init__(
        self,
        *args: object,
        lazy_commands: dict[str, str] | None = None,
        aliases: dict[str, str] | None = None,
        summaries: dict[str, str] | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy_commands = lazy_commands or {}
        self.aliases = aliases or {}
        self.summaries = summaries or {}

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list; a lazy command with a summary is listed without being imported."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.summaries and name not in self.commands:
                rows.append((name, click.Command(name, help=self.summaries[name]).get_short_help_str(limit)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.lazy_commands) | set(self.commands))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        name = self.aliases.get(name, name)
        if name in self.commands:
            return self.commands[name]
        target = self.lazy_commands.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # command not implemented in this build
                return None
            raise
        return getattr(module, attr)


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    aliases=ALIASES,
    summaries=SUMMARIES,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="gqlbench")
def cli() -> None:
    """gqlbench: sequential REST function calling, scored by dataflow and by execution.

    Run a model on GraphQLRestBench (`gqlbench run`), score a predictions file
    (`gqlbench evaluate`), browse the API catalog (`gqlbench domains`).
    """


class Terminated(BaseException):
    """SIGTERM arrived: unwinding closes the model engine, whose processes would otherwise outlive gqlbench.

    A BaseException, like KeyboardInterrupt, so that no ``except Exception`` on
    the run path (a backend recording a failed engine call as that sample's
    error) takes the stop for a sample's failure.
    """


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors become one line on stderr and exit status 2; SIGTERM ends like Ctrl+C."""
    main_thread = threading.current_thread() is threading.main_thread()  # only there can a handler be set
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        status = cli.main(args=argv, prog_name="gqlbench", standalone_mode=False)
    except Terminated:
        resumes = (sys.argv[1:] if argv is None else argv)[:1] == ["run"]
        click.echo("terminated (finished samples are kept: the same command resumes)" if resumes else "terminated", err=True)
        return 143
    except GqlbenchError as exc:
        click.echo(f"error: {escape_controls(str(exc))}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
