"""The click command line. `ccbridge run` itself is served by bridge.main's lean path; the click
command here documents it and serves `--help`."""

from __future__ import annotations

import os
import sys

import click

from bridge import CcbridgeError, __version__
from bridge.wire import HOSTS


class _Commands(click.Group):
    """The one place a command's own error (bridge.CcbridgeError) becomes click's: its message
    on stderr and exit 1, with no traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except CcbridgeError as error:
            raise click.ClickException(str(error)) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccbridge")
def cli() -> None:
    """One Claude Code hook that runs your hooks through the DSH tool pipeline.

    `ccbridge install` registers `ccbridge run` for PreToolUse (and every other event its
    config needs: its hooks' events; PostToolUse and PostToolUseFailure for post-execute
    policies and goals) in
    .claude/settings.json, and moves your hooks into ccbridge's config.
    """


@cli.command()
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="A ccbridge YAML file or a CC settings JSON file (its `hooks` key is used).",
)
@click.option(
    "--host",
    type=click.Choice(HOSTS),
    default=None,
    help="The agent whose envelope stdin holds and whose dialect the answer takes "
    "(default: told by the envelope itself).",
)
def run(config: str | None, host: str | None) -> None:
    """Judge one hook event read from stdin and print Claude Code's answer.

    \b
    Config lookup, first that applies:
      1. --config FILE (only that file; it must exist)
      2. $CCBRIDGE_CONFIG (only that file)
      3. layers, least specific first, each used when it exists:
         ~/.claude/ccbridge.yaml, <project>/.claude/ccbridge.yaml,
         <project>/.claude/ccbridge.local.yaml
         (<project> is $CLAUDE_PROJECT_DIR, else the event's cwd).
    Layers combine like CC settings: hooks and policies of every layer are added
    together. Layers only tighten: a more specific layer may tighten a defaults, audit
    or goals setting, never loosen one a wider layer set (`ccbridge check` names each
    refused line).

    \b
    Example:
      echo '{"hook_event_name":"PreToolUse","tool_name":"Bash",
             "tool_input":{"command":"ls"},"session_id":"s","cwd":"."}' \\
        | ccbridge run --config .claude/ccbridge.yaml

    A denial prints permissionDecision "deny" with the reason and exits 2; ccbridge never
    answers "allow" and never passes on an updatedInput. The audit record goes to
    $CCBRIDGE_STATE_DIR/audit.jsonl (default ~/.local/state/ccbridge/audit.jsonl).
    """
    from bridge.hookcall import run as run_event

    sys.exit(run_event(config, sys.stdin.buffer, sys.stdout.buffer, sys.stderr, os.environ, host))


def _register() -> None:
    from bridge.cli.audit_command import audit
    from bridge.cli.cases_command import test
    from bridge.cli.check_command import check
    from bridge.cli.doctor_command import doctor
    from bridge.cli.explain_command import explain
    from bridge.cli.goal_command import goal
    from bridge.cli.install_command import install
    from bridge.cli.schema_command import schema
    from bridge.cli.uninstall_command import uninstall

    for command in (install, uninstall, explain, test, check, schema, audit, doctor, goal):
        cli.add_command(command)


_register()
