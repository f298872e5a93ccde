"""`agentcycle`: the front door, a registry of commands loaded when used.

Each command lives in its own module under `agentcycle/cli/`. This module imports none of
them: `agentcycle --help` lists the commands from the registry below, and only the command
that runs (or shows its own `--help`) is imported. A command module imports Prefect,
DuckDB, LanceDB, LangGraph and torch inside the command body, when it runs, so every
`agentcycle COMMAND --help` also answers in well under a second.

Bad input of any kind raises `UserError`; `main()` prints its message as one line on
stderr and exits with code 2. Nothing is written before the input has been checked.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from typer._click import exceptions as click  # typer vendors click (no public home)
from typer.core import TyperCommand, TyperGroup

from agentcycle.errors import UserError
from agentcycle.server import apply_prefect_environment


@dataclass(frozen=True)
class Command:
    """Where a command lives ("module:attribute", a function or a typer app) and the line
    `agentcycle --help` shows for it without importing that module."""

    target: str
    help: str

    def load(self, name: str) -> Any:
        """The click command for `name`, built from its module."""
        module_name, attribute = self.target.split(":")
        apply_prefect_environment()  # before the module imports Prefect
        found = getattr(importlib.import_module(module_name), attribute)
        if isinstance(found, typer.Typer):  # a group, even of one command (`agent serve`)
            command = typer.main.get_group(found)
        else:  # a plain command function
            single = typer.Typer()
            single.command(name=name)(found)
            command = typer.main.get_command(single)
        command.name = name
        return command


# In the order `agentcycle --help` lists them.
COMMANDS: dict[str, Command] = {
    "run": Command(
        "agentcycle.cli.session:run",
        "Start a session: the agent picks, runs and judges programs until it decides STOP.",
    ),
    "resume": Command(
        "agentcycle.cli.session:resume",
        "Continue a session that was interrupted; finished cycles are never repeated.",
    ),
    "show": Command(
        "agentcycle.cli.session:show",
        "Print a session's cycle table (and with --detail detailed, its whole story).",
    ),
    "prune": Command(
        "agentcycle.cli.session:prune",
        "Drop the last N cycles so the session can take another path on resume.",
    ),
    "approve": Command(
        "agentcycle.cli.approve:approve",
        "Approve (or change, or stop) the decision a session is waiting on.",
    ),
    "demo": Command(
        "agentcycle.cli.session:demo",
        "Prepare the real crystallography demo data and run the `xtal` pack on it.",
    ),
    "ask": Command(
        "agentcycle.cli.ask:ask",
        "Answer a question from a corpus with citations (a Prefect flow).",
    ),
    "ingest": Command(
        "agentcycle.cli.store:ingest",
        "Ingest files into a corpus (a Prefect flow); unchanged files are skipped by hash.",
    ),
    "search": Command(
        "agentcycle.cli.store:search",
        "Search a corpus (hybrid: vector + full text), or the program agent's past cycles.",
    ),
    "corpus": Command("agentcycle.cli.corpus:corpus_app", "Corpora in the store: list, delete."),
    "eval": Command(
        "agentcycle.cli.evaluation:eval_command",
        "Evaluate the agent on a suite, or compare two evaluation runs.",
    ),
    "scenario": Command(
        "agentcycle.cli.scenario:scenario_app",
        "Scenario replay: recorded program runs, expected decisions.",
    ),
    "parse": Command(
        "agentcycle.cli.parse:parse",
        "Identify each log's program and print its metrics and failure state.",
    ),
    "query": Command(
        "agentcycle.cli.store:query",
        "Query every dataset (cycles, metrics, events, ...) and LanceDB table with DuckDB.",
    ),
    "report": Command(
        "agentcycle.cli.store:report",
        "Run a named report (a SQL file in storage/reports/) with DuckDB.",
    ),
    "store": Command(
        "agentcycle.cli.store:store_app",
        "Store maintenance: compaction, sizes, checks and repair.",
    ),
    "knowledge": Command("agentcycle.cli.knowledge:knowledge_app", "Knowledge packs."),
    "server": Command(
        "agentcycle.cli.server:server_app",
        "The local Prefect server of this home (SQLite under the agentcycle home).",
    ),
    "serve": Command(
        "agentcycle.cli.deploy:serve",
        "Serve `agent_run/agent-run` (trigger sessions from the Prefect UI) and eval suites.",
    ),
    "deploy": Command(
        "agentcycle.cli.deploy:deploy",
        "Register `agent_run/agent-run` and scheduled eval suites with a work pool.",
    ),
    "llm": Command(
        "agentcycle.cli.llm:llm_app",
        "A local OpenAI-compatible model server (llama-cpp-python, real weights).",
    ),
    "agent": Command(
        "agentcycle.cli.agent_service:agent_app",
        "The decision service (the agent on another machine).",
    ),
}


class LazyGroup(TyperGroup):
    """The root command group: commands from `COMMANDS`, each imported on first use."""

    _listing = False  # while the root help lists commands: show registry lines, load none

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in COMMANDS if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = COMMANDS.get(cmd_name)
        if entry is not None and cmd_name not in self.commands:
            if self._listing:
                return TyperCommand(name=cmd_name, help=entry.help)
            self.commands[cmd_name] = entry.load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:  # suggest among all commands, loaded or not
            close = difflib.get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if close and "Did you mean" not in exc.message:
                options = ", ".join(repr(name) for name in close)
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {options}?"
            raise

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="agentcycle",
    cls=LazyGroup,
    help="Agents that run real programs as Prefect flows and prove what they did.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version  # stdlib, only for --version

        typer.echo(f"agentcycle {version('agentcycle')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print version."),
    ] = False,
) -> None:
    """Options that apply before any command."""


def main() -> None:
    """Run the CLI: bad input of any kind is one `error:` line on stderr and exit code 2.

    Files and folders we create are private (0600/0700), like `session.json`: the umask
    covers Parquet, logs, reports, input copies and the Prefect server we start.
    """
    os.umask(0o077)
    try:
        code = app(standalone_mode=False)
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except click.NoArgsIsHelpError as exc:
        typer.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
        sys.exit(2)
    except click.UsageError as exc:  # a bad option or argument: one line, not a box
        command = exc.ctx.command_path if exc.ctx else "agentcycle"
        typer.echo(f"error: {command}: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        typer.echo(f"error: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("aborted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
