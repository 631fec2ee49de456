"""The ``gqlbench`` command line: one module per command, loaded on demand.

Commands are imported only when invoked, so ``gqlbench --help`` stays fast
and never imports a model backend.
"""

from __future__ import annotations

import importlib
import sys

import click

from gqlbench.errors import GqlbenchError

__all__ = ["main", "cli", "LazyGroup"]

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
}
ALIASES: dict[str, str] = {"domain": "domains"}


class LazyGroup(click.Group):
    """A group whose subcommands live in their own modules, imported when used.

    ``lazy_commands`` maps a command name to ``"module:attribute"``;
    ``aliases`` maps extra names onto those.
    """

    def __init__(
        self,
        *args: object,
        lazy_commands: dict[str, str] | None = None,
        aliases: dict[str, str] | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy_commands = lazy_commands or {}
        self.aliases = aliases or {}

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
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="gqlbench")
def cli() -> None:
    """gqlbench: sequential REST function calling, scored by dataflow and by execution.

    Run a model on GraphQLRestBench (`gqlbench run`), score a predictions file
    (`gqlbench evaluate`), browse the API catalog (`gqlbench domains`).
    """


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors become one line on stderr and exit status 2."""
    try:
        status = cli.main(args=argv, prog_name="gqlbench", standalone_mode=False)
    except GqlbenchError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
