"""`ccbridge uninstall`: take ccbridge out of a Claude Code settings file again."""

from __future__ import annotations

import os

import click

from bridge.cli.install_command import managed_options, run_managed, scope_options, show
from bridge.cli.output import AGENT_HOSTS, project_of, say
from bridge.commands import install as installing
from bridge.commands import install_plan, settings_json


@click.command()
@scope_options("the moved hooks come back from")
@managed_options
@click.option(
    "--host",
    type=click.Choice(AGENT_HOSTS),
    default="claude-code",
    help="The agent whose hook settings ccbridge is taken out of (default claude-code).",
)
def uninstall(
    scope: installing.Scope,
    dry_run: bool,
    host: str = "claude-code",
    managed: bool = False,
    managed_dir: str | None = None,
) -> None:
    """Take ccbridge out of a Claude Code settings file.

    When neither file was edited since `ccbridge install`, the settings file and ccbridge's
    config get back their exact original bytes (kept in the state directory). Otherwise the
    registration is taken out, the moved hooks go back into the settings file, and your other
    edits stay. Where this machine has no install record (a teammate's clone), the hooks of
    ccbridge's config go back into the settings file, so each still runs.

    \b
    Example:
      ccbridge uninstall --project --dry-run
      ccbridge uninstall --project
      ccbridge uninstall --host codex --user
      sudo ccbridge uninstall --managed
    """
    if managed:
        return run_managed(managed_dir, install=False, dry_run=dry_run)
    if host != "claude-code":
        from bridge.commands import agents

        spec = agents.agent(host)
        for where in agents.files_written(host, scope, os.environ, project_of(os.environ)):
            uninstall_from(where, dry_run, own_file=spec.plugin or spec.hook_files)
        return
    env = os.environ
    uninstall_from(installing.files_of(scope, env, project_of(env)), dry_run)
    local = installing.files_of("local", env, project_of(env))
    if scope == "project" and install_plan.backup_file(env, local.settings).is_file():
        # the project install's copy for this machine (or an install --local): both go
        uninstall_from(local, dry_run)


def uninstall_from(where: installing.InstallFiles, dry_run: bool, own_file: bool = False) -> None:
    """Take ccbridge out of `where` (any agent's settings file and its config layer); with
    `own_file`, `where.settings` is a file of ccbridge's own (a plugin, a hook file), which
    goes whole, with or without an install record."""
    env = os.environ
    backup_path = install_plan.backup_file(env, where.settings)
    backup = install_plan.load_backup(backup_path)
    if own_file:
        from bridge.commands import agents

        plan = agents.plan_uninstall_file(where, settings_json.read_bytes(where.settings))
    else:
        plan = installing.plan_uninstall(
            where,
            backup,
            settings_json.read_bytes(where.settings),
            settings_json.read_bytes(where.config),
        )
    if not plan.changed and backup is None:
        say(f"ccbridge is not installed in {where.settings}; nothing to change")
        return
    show(plan, dry_run)
    if dry_run:
        say("dry run: nothing was written")
        return
    try:
        install_plan.apply(plan)
        install_plan.write_backup(backup_path, None)
    except OSError as error:
        raise click.ClickException(f"uninstall failed: {error}") from None
    say(f"uninstalled ccbridge from {where.settings}")
