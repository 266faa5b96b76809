"""`ccbridge install`: register ccbridge in a Claude Code settings file."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from bridge.cli.output import file_diff, project_of, say
from bridge.commands import install as installing
from bridge.paths import CONFIG_ENV, find_config

SCOPES = {
    "user": ("your user settings, ~/.claude/settings.json", "~/.claude/ccbridge.yaml"),
    "project": (
        "the project's shared settings, <project>/.claude/settings.json (the default)",
        "<project>/.claude/ccbridge.yaml",
    ),
    "local": (
        "your personal, git-ignored project settings, <project>/.claude/settings.local.json",
        "<project>/.claude/ccbridge.local.yaml",
    ),
}


def scope_options(moved: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """--user / --project (the default) / --local, at most one of them, and --dry-run; `moved`
    says what happens to the moved hooks ("moved hooks go to")."""

    def decorate(function: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(function)
        def with_scope(user: bool, project: bool, local: bool, **kwargs: Any) -> None:
            flags = (("user", user), ("project", project), ("local", local))
            chosen = [name for name, on in flags if on]
            if len(chosen) > 1:
                given = ", ".join(f"--{name}" for name in chosen)
                raise click.UsageError(f"choose one of --user, --project, --local (got {given})")
            function(scope=chosen[0] if chosen else "project", **kwargs)

        command = with_scope
        for scope, (settings, config) in reversed(SCOPES.items()):
            text = f"Edit {settings}; {moved} {config}."
            command = click.option(f"--{scope}", is_flag=True, help=text)(command)
        return click.option(
            "--dry-run", is_flag=True, help="Show the changes as a diff and write nothing."
        )(command)

    return decorate


def target_of(scope: installing.Scope, env: Mapping[str, str]) -> installing.Target:
    home = Path(env.get("HOME") or Path.home())
    return installing.target(scope, home, project_of(env))


def goals_enabled(env: Mapping[str, str], after: installing.Plan) -> tuple[bool, str | None]:
    """Whether the layered config (as it will be after the install) turns goals on."""
    from bridge.config.build import compile_sources
    from bridge.config.compiled import Source, read_sources

    paths = [Path(path) for path in find_config(None, env, project_of(env))[0]]
    if after.config not in paths:
        paths.append(after.config)
    sources = [
        Source(path, after.config_after, (str(path), 0, 0, ""))
        if path == after.config
        else read_sources([path])[0]
        for path in paths
        if path != after.config or after.config_after is not None
    ]
    if not sources:
        return False, None
    compiled = compile_sources(sources, "install")
    return compiled.goals.enabled, compiled.error


def show(plan: installing.Plan, diff: bool) -> None:
    """The notes, and with `diff` the changes to both files as a unified diff."""
    files = (
        (plan.settings, plan.settings_before, plan.settings_after),
        (plan.config, plan.config_before, plan.config_after),
    )
    for path, before, after in files if diff else ():
        text = file_diff(path, before, after)
        if text:
            say(text)
    for note in plan.notes:
        say(f"note: {note}")


def managed_options(function: Callable[..., None]) -> Callable[..., None]:
    """--managed and --managed-dir, shared by install and uninstall."""
    function = click.option(
        "--managed-dir",
        type=click.Path(file_okay=False),
        help="The managed-settings.d directory to use with --managed (default "
        "$CCBRIDGE_MANAGED_DIR, else the system's, /etc/claude-code/managed-settings.d on Linux).",
    )(function)
    return click.option(
        "--managed",
        is_flag=True,
        help="For an administrator: the ccbridge.json drop-in of Claude Code's managed settings "
        "(exec-form hooks with onFailure block; no hooks are moved). See docs/fleet.md.",
    )(function)


def run_managed(install: bool, managed_dir: str | None, dry_run: bool) -> None:
    from bridge.commands import managed

    directory = managed.managed_dir(managed_dir, os.environ)
    try:
        if dry_run:
            executable = installing.ccbridge_executable(sys.argv[0])
            path = directory / managed.DROP_IN
            after = managed.render(managed.drop_in(executable)) if install else None
            say(file_diff(path, installing.read_bytes(path), after))
            say("dry run: nothing was written")
            return
        if install:
            executable = installing.ccbridge_executable(sys.argv[0])
            path, changed = managed.install(directory, executable)
        else:
            path, changed = managed.uninstall(directory)
    except (OSError, installing.InstallError) as error:
        raise click.ClickException(str(error)) from None
    if install:
        say(f"installed ccbridge in {path}" if changed else f"{path} is up to date")
    else:
        say(f"removed {path}" if changed else f"no ccbridge drop-in in {directory}")


@click.command()
@scope_options("moved hooks go to")
@managed_options
def install(
    scope: installing.Scope, dry_run: bool, managed: bool = False, managed_dir: str | None = None
) -> None:
    """Register ccbridge in a Claude Code settings file.

    Adds `<ccbridge> run` for PreToolUse, PostToolUse and PostToolUseFailure, for every
    other event ccbridge's config has hooks for, and for UserPromptSubmit and Stop when goals
    are enabled, with onFailure "block" and a 60 s timeout. Command hooks the file already
    has on the events ccbridge runs (see the README) move into ccbridge's config, so they run
    once, behind the bridge; other hooks and every other key stay.
    Running it again changes nothing; `ccbridge uninstall` puts the files back.

    \b
    Example:
      ccbridge install --project --dry-run   # show the diff
      ccbridge install --project
      sudo ccbridge install --managed   # every user of the machine, final deny
    """
    if managed:
        return run_managed(True, managed_dir, dry_run)
    env = os.environ
    where = target_of(scope, env)
    try:
        command = installing.registration_command(installing.ccbridge_executable(sys.argv[0]))
        settings = installing.read_bytes(where.settings)
        config = installing.read_bytes(where.config)
        plan = installing.plan_install(where, settings, config, command, goals=False)
        goals, config_error = goals_enabled(env, plan)
        if goals:
            plan = installing.plan_install(where, settings, config, command, goals=True)
    except installing.InstallError as error:
        raise click.ClickException(str(error)) from None
    if env.get(CONFIG_ENV):
        plan.notes.append(
            f"${CONFIG_ENV} is set: ccbridge reads only that file, not {where.config}"
        )
    if config_error:
        plan.notes.append(f"the config has problems, run `ccbridge check`: {config_error}")
    if not plan.changed:
        say(f"ccbridge is already installed in {where.settings}; nothing to change")
        return
    show(plan, dry_run)
    if dry_run:
        say("dry run: nothing was written")
        return
    backup = installing.backup_file(env, where.settings)
    try:
        installing.write_backup(
            backup, installing.next_backup(installing.load_backup(backup), plan)
        )
        installing.apply(plan)
    except (OSError, installing.InstallError) as error:
        raise click.ClickException(f"install failed: {error}") from None
    moved = sum(len(group["hooks"]) for groups in plan.moved.values() for group in groups)
    say(
        f"installed ccbridge in {where.settings}"
        + (f"; moved {moved} hook(s) into {where.config}" if moved else "")
    )
