"""`ccbridge install`: register ccbridge in a Claude Code settings file."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

import click

from bridge.cli.output import AGENT_HOSTS, file_diff, project_of, say
from bridge.commands import install as installing
from bridge.commands import install_plan, settings_json

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


WALL_SAYS = (
    "sandbox: Claude Code's sandbox is set up in {settings} (sandbox.enabled, "
    "failIfUnavailable, no allowUnsandboxedCommands; denyWrite and Edit deny rules for {write} "
    "paths: ccbridge's config layers, CC's settings, ccbridge's state and cache, "
    "~/.claude/plugins and dev-mods, the plugin and marketplace folders settings name, the "
    "sub-hooks' scripts; denyRead for the seal key and the audit log). Why: judging command "
    "text cannot keep the agent from files it can write; the kernel can. Bash commands then "
    "run under bubblewrap (Linux) or Seatbelt (macOS), and Claude Code refuses to start where "
    "it cannot. `ccbridge doctor` checks it; --no-sandbox declines it."
)
NO_WALL_SAYS = (
    "sandbox: not set up (--no-sandbox). Self-protection, the cache seal and goal provenance then "
    "rest on judging command text, which the agent can get past (a writer the guard does not "
    "know, code in an argument, a copy of ccbridge): the audit says protection: tripwire."
)


def show(plan: install_plan.Plan, diff: bool) -> None:
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


def run_managed(managed_dir: str | None, *, install: bool, dry_run: bool) -> None:
    from bridge.commands import managed

    directory = managed.managed_dir(managed_dir, os.environ)
    try:
        if dry_run:
            executable = installing.ccbridge_executable(sys.argv[0])
            path = directory / managed.DROP_IN
            after = managed.render(managed.drop_in(executable)) if install else None
            say(file_diff(path, settings_json.read_bytes(path), after))
            say("dry run: nothing was written")
            return
        if install:
            executable = installing.ccbridge_executable(sys.argv[0])
            path, changed = managed.install(directory, executable)
        else:
            path, changed = managed.uninstall(directory)
    except OSError as error:  # an InstallError is the CLI's one mapping (bridge.cli)
        raise click.ClickException(str(error)) from None
    if install:
        say(f"installed ccbridge in {path}" if changed else f"{path} is up to date")
    else:
        say(f"removed {path}" if changed else f"no ccbridge drop-in in {directory}")


@click.command()
@scope_options("moved hooks go to")
@managed_options
@click.option(
    "--no-sandbox",
    is_flag=True,
    help="Do not set up Claude Code's sandbox around ccbridge's files (then only the text "
    "judgement protects them: protection level tripwire).",
)
@click.option(
    "--host",
    type=click.Choice(AGENT_HOSTS),
    default="claude-code",
    help="The agent to register ccbridge with: claude-code (the default), codex (Codex CLI's "
    "hooks.json), gemini (Gemini CLI's settings.json), copilot (Copilot CLI's hooks), qwen "
    "(Qwen Code's settings.json), opencode (a plugin) or cline (Cline's hook files); see "
    "docs/hosts.md.",
)
def install(
    scope: installing.Scope,
    dry_run: bool,
    no_sandbox: bool,
    host: str = "claude-code",
    managed: bool = False,
    managed_dir: str | None = None,
) -> None:
    """Register ccbridge in a Claude Code settings file.

    Adds `<ccbridge> run` for PreToolUse, for every other event ccbridge's config has hooks
    for, for PostToolUse and PostToolUseFailure when the config has post-execute or observer
    policies or goals are enabled, and for UserPromptSubmit and Stop when goals are enabled,
    with onFailure "block" and a 60 s timeout. Command hooks the file already has on the
    events ccbridge runs (see the README) move into ccbridge's config, so they run
    once, behind the bridge; other hooks and every other key stay.
    In the project's shared settings.json the command finds `ccbridge` through PATH (on a
    teammate's machine without it, tool calls and prompts are refused with the fix to run);
    in user and local settings it is this machine's absolute path.

    It also sets up Claude Code's sandbox in that file (docs/guarantees.md, "The wall"): Bash
    commands run sandboxed with no way out, and cannot write ccbridge's config, CC's settings,
    ccbridge's state and cache, the plugin and mod directories or any sub-hook's script, nor
    read the seal key or the audit log. --no-sandbox leaves it out.
    Running it again changes nothing; `ccbridge uninstall` puts the files back.

    With --host codex, gemini, copilot, qwen, opencode or cline, ccbridge is registered in
    that agent's hook settings (for opencode a plugin, for Cline its own hook files) instead
    (`<ccbridge> run --host NAME`, judged with the same config).

    \b
    Example:
      ccbridge install --project --dry-run   # show the diff
      ccbridge install --project
      ccbridge install --host codex --user
      sudo ccbridge install --managed   # every user of the machine, final deny
    """
    if managed:
        return run_managed(managed_dir, install=True, dry_run=dry_run)
    if host != "claude-code":
        _install_for_agent(host, scope, dry_run)
        return
    env = os.environ
    executable = installing.ccbridge_executable(sys.argv[0])
    planned = installing.plan_for_scope(
        scope, env, project_of(env), executable, no_sandbox=no_sandbox
    )
    plan, companion = planned.plan, planned.companion
    if companion is not None and companion.changed:
        write_companion(companion, env, dry_run)
    if not plan.changed:
        say(f"ccbridge is already installed in {plan.settings}; nothing to change")
        if no_sandbox:
            say(NO_WALL_SAYS)
        return
    if write_install(plan, env, dry_run):
        tell_wall(plan, no_sandbox)


def _write(plan: install_plan.Plan, env: Mapping[str, str]) -> None:
    try:
        install_plan.write_with_backup(env, plan)
    except (OSError, settings_json.InstallError) as error:
        raise click.ClickException(f"install failed: {error}") from None


def write_install(plan: install_plan.Plan, env: Mapping[str, str], dry_run: bool) -> bool:
    """Show the plan, and unless it is a dry run keep the backup and write it; whether it was
    written. Any agent's settings file (`--host`) goes this way too."""
    show(plan, dry_run)
    if dry_run:
        say("dry run: nothing was written")
        return False
    _write(plan, env)
    moved = sum(len(group["hooks"]) for groups in plan.moved.values() for group in groups)
    say(
        f"installed ccbridge in {plan.settings}"
        + (f"; moved {moved} hook(s) into {plan.config}" if moved else "")
    )
    return True


def write_companion(plan: install_plan.Plan, env: Mapping[str, str], dry_run: bool) -> None:
    """Write the local companion (and its backup, so that uninstall takes it out again)."""
    show(plan, dry_run)
    if dry_run:
        return
    _write(plan, env)
    said = installing.keep_out_of_git(plan.settings)
    say(
        f"wrote this machine's copy of the registration and the wall to {plan.settings} "
        "(not shared: it names this machine's paths)" + (f"; {said}" if said else "")
    )


def tell_wall(plan: install_plan.Plan, no_sandbox: bool) -> None:
    if no_sandbox:
        say(NO_WALL_SAYS)
        return
    added = len(plan.wall.get("lists", {}).get("denyWrite", []))
    say(WALL_SAYS.format(settings=plan.settings, write=added))


def _install_for_agent(name: str, scope: installing.Scope, dry_run: bool) -> None:
    """`--host NAME`: ccbridge in that agent's hook settings (bridge.commands.agents); every
    file planned before any is written, so that a refusal leaves none half installed."""
    from bridge.commands import agents

    env = os.environ
    env = os.environ
    executable = installing.ccbridge_executable(sys.argv[0])
    written = False
    for plan in agents.plan_for(name, scope, env, project_of(env), executable):
        if not plan.changed:
            say(f"ccbridge is already installed in {plan.settings}; nothing to change")
            continue
        written = write_install(plan, env, dry_run) or written
    if written:
        for finding in agents.diagnose(name, env, project_of(env)):
            if finding.topic in ("codex", "fail-open"):
                say(f"note: {finding.message}")
        for finding in agents.diagnose(name, env, project_of(env)):
            if finding.topic in ("codex", "fail-open"):
                say(f"note: {finding.message}")
