"""`ccbridge install`: register ccbridge in a Claude Code settings file."""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bridge.cli.output import AGENT_HOSTS, file_diff, project_of, say
from bridge.commands import install as installing
from bridge.paths import CONFIG_ENV, find_config

if TYPE_CHECKING:
    from bridge.config.compiled import CompiledConfig

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


def events_needed(env: Mapping[str, str], after: installing.Plan) -> tuple[bool, bool, str | None]:
    """(goals on, PostToolUse needed, the config's problem) for the layered config as it will be
    after the install. PostToolUse is needed for goals (a change applies there), post-execute
    and observer policies, and post-tool sub-hooks of any layer; a config that cannot be read
    gets it too, so that whatever it turns out to hold still runs once it is fixed."""
    compiled = layered_after(env, after)
    if compiled is None:
        return False, True, None
    post = (
        compiled.error is not None
        or compiled.goals.enabled
        or any(compiled.policies.get(kind) for kind in ("post_execute", "observers"))
        or any(compiled.hooks.get(event) for event in installing.POST_EVENTS)
    )
    return compiled.goals.enabled, post, compiled.error


def layered_after(env: Mapping[str, str], after: installing.Plan) -> CompiledConfig | None:
    """The layered config as it will be after the install; None without any config file."""
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
        return None
    return compile_sources(sources, "install")


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


def skill_shell_for(env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether to register PreSkillShellCommand (the claude on PATH sends it), and why."""
    from bridge.commands.doctor import SKILL_SHELL_SINCE, find_claude, skill_shell_known

    claude = find_claude(env)
    since = ".".join(map(str, SKILL_SHELL_SINCE))
    if skill_shell_known(claude):
        shown = ".".join(map(str, claude.version or ()))
        return True, (
            f"registered for PreSkillShellCommand (claude {shown}): a skill's or command's "
            "inline shell commands are judged as they load, as a Bash call is"
        )
    found = (
        f"claude {'.'.join(map(str, claude.version))}"
        if claude.version is not None
        else str(claude.problem)
    )
    return False, (
        f"not registered for PreSkillShellCommand ({found}; the event needs claude {since} or "
        "later, and older ones open a dialog at start for a settings file naming it): a skill's "
        "inline shell commands are not judged by ccbridge; run `ccbridge install` again after "
        "updating claude"
    )


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


def registration_for(
    scope: installing.Scope, executable: str, env: Mapping[str, str]
) -> tuple[installing.Command, str]:
    """The command to register and a note saying what was chosen and why: the shared project
    file gets a launcher that finds `ccbridge` through PATH on whichever machine runs it (this
    machine's path means nothing on a teammate's); the user and local files, which stay on this
    machine, get the absolute path, so Claude Code finds it whatever its PATH."""
    shared = target_of("project", env).settings
    if scope == "local" and installing.registered_commands(installing.read_bytes(shared)):
        # the same command as the shared file's: Claude Code runs an identical command once
        return installing.launcher_command, (
            f"registered as `ccbridge run` found through PATH, the command {shared} registers: "
            "Claude Code runs one command named in several settings files once"
        )
    if scope != "project":
        return installing.registration_command(executable), (
            f"registered as {executable} (an absolute path: {scope} settings stay on this machine)"
        )
    found = shutil.which("ccbridge", path=env.get("PATH"))
    said = (
        "registered as `ccbridge run` found through PATH, as the project's settings.json is "
        "shared: each teammate's Claude Code runs their own ccbridge, and where it is missing "
        f'refuses tool calls and prompts with "{installing.INSTALL_HINT}"'
    )
    if found is None:
        said += (
            f"; ccbridge is not on this PATH (it is at {executable}): put "
            f"{Path(executable).parent} on PATH, or install with --local for this machine only"
        )
    elif Path(found).resolve() != Path(executable).resolve():
        said += f"; on this PATH that is {found}, not {executable}"
    return installing.launcher_command, said


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
    where = target_of(scope, env)
    plan, companion, config_error = _planned(scope, where, env, no_sandbox)
    if env.get(CONFIG_ENV):
        plan.notes.append(
            f"${CONFIG_ENV} is set: ccbridge reads only that file, not {where.config}"
        )
    if config_error:
        plan.notes.append(f"the config has problems, run `ccbridge check`: {config_error}")
    if companion is not None and companion.changed:
        write_companion(companion, env, dry_run)
    if not plan.changed:
        say(f"ccbridge is already installed in {where.settings}; nothing to change")
        if no_sandbox:
            say(NO_WALL_SAYS)
        return
    if write_install(plan, where, env, dry_run):
        tell_wall(plan, no_sandbox)


def _planned(
    scope: installing.Scope, where: installing.Target, env: Mapping[str, str], no_sandbox: bool
) -> tuple[installing.Plan, installing.Plan | None, str | None]:
    """(the plan for the settings file and the config, the local copy's plan for a project
    install, a problem of the config); an InstallError is the command's message."""
    command, chosen = registration_for(scope, installing.ccbridge_executable(sys.argv[0]), env)
    settings = installing.read_bytes(where.settings)
    config = installing.read_bytes(where.config)
    skill_shell, said_skill = skill_shell_for(env)
    plan = installing.plan_install(
        where, settings, config, command, goals=False, skill_shell=skill_shell, post=False
    )
    goals, post, config_error = events_needed(env, plan)
    if goals or post:
        plan = installing.plan_install(
            where, settings, config, command, goals=goals, skill_shell=skill_shell, post=post
        )
    if not no_sandbox:
        plan = with_wall(env, plan, scope)
    companion = companion_of(env, plan, no_sandbox) if scope == "project" else None
    plan.notes.extend((chosen, said_skill))
    return plan, companion, config_error


def write_install(
    plan: installing.Plan, where: installing.Target, env: Mapping[str, str], dry_run: bool
) -> bool:
    """Show the plan, and unless it is a dry run keep the backup and write it; whether it was
    written. Any agent's settings file (`--host`) goes this way too."""
    show(plan, dry_run)
    if dry_run:
        say("dry run: nothing was written")
        return False
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
    return True


def with_wall(
    env: Mapping[str, str], plan: installing.Plan, scope: installing.Scope
) -> installing.Plan:
    """The plan with the wall in its settings file: for the shared project file, what every
    machine keeps in spellings that mean it on every machine (no path of this one); for the
    others, everything this machine keeps, by absolute path."""
    from bridge import wall

    project = str(project_of(env))
    if scope == "project":
        hooks = project_hooks(plan)
        keep = wall.shared_protected(project, hooks)
        return installing.put_up_wall(plan, keep, {"HOME": wall.SHARED_HOME}, project)
    return installing.put_up_wall(plan, machine_wall(env, plan), env)


def machine_wall(env: Mapping[str, str], plan: installing.Plan) -> Any:
    """Everything the wall keeps on this machine (bridge.wall.Protected)."""
    from bridge import wall

    compiled = layered_after(env, plan)
    hooks = compiled.hooks if compiled is not None else {}
    audit = compiled.audit.path if compiled is not None else None
    return wall.protected(env, str(project_of(env)), hooks, audit)


def project_hooks(plan: installing.Plan) -> Mapping[str, Any]:
    """The hooks of the project's committed config alone, as it will be after the install."""
    from bridge.config.build import compile_sources
    from bridge.config.compiled import Source

    if plan.config_after is None:
        return {}
    source = Source(plan.config, plan.config_after, (str(plan.config), 0, 0, ""))
    return compile_sources([source], "install", wide=0).hooks


def companion_of(
    env: Mapping[str, str], plan: installing.Plan, no_sandbox: bool
) -> installing.Plan:
    """This machine's local settings beside a project install: the shared file's registration
    again (Claude Code runs it once) and, unless --no-sandbox, the whole wall by this machine's
    paths, so that the protection holds when the shared file cannot be read (a merge conflict
    left in it) and covers what this machine sets for itself ($CCBRIDGE_STATE_DIR, XDG dirs)."""
    local = target_of("local", env).settings
    companion = installing.plan_companion(
        local, installing.read_bytes(local), installing.registered_commands(plan.settings_after)
    )
    return (
        companion if no_sandbox else installing.put_up_wall(companion, machine_wall(env, plan), env)
    )


def write_companion(plan: installing.Plan, env: Mapping[str, str], dry_run: bool) -> None:
    """Write the local companion (and its backup, so that uninstall takes it out again)."""
    show(plan, dry_run)
    if dry_run:
        return
    backup = installing.backup_file(env, plan.settings)
    try:
        installing.write_backup(
            backup, installing.next_backup(installing.load_backup(backup), plan)
        )
        installing.apply(plan)
    except (OSError, installing.InstallError) as error:
        raise click.ClickException(f"install failed: {error}") from None
    said = installing.keep_out_of_git(plan.settings)
    say(
        f"wrote this machine's copy of the registration and the wall to {plan.settings} "
        "(not shared: it names this machine's paths)" + (f"; {said}" if said else "")
    )


def tell_wall(plan: installing.Plan, no_sandbox: bool) -> None:
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
    try:
        spec = agents.agent(name)
        run = agents.command(installing.ccbridge_executable(sys.argv[0]), name)
        plans = [
            (
                where,
                agents.plan_install(
                    spec,
                    where,
                    installing.read_bytes(where.settings),
                    installing.read_bytes(where.config),
                    run,
                    portable=scope == "project",
                ),
            )
            for where in agents.targets(name, scope, env, project_of(env))
        ]
    except installing.InstallError as error:
        raise click.ClickException(str(error)) from None
    written = False
    for where, plan in plans:
        if not plan.changed:
            say(f"ccbridge is already installed in {where.settings}; nothing to change")
            continue
        written = write_install(plan, where, env, dry_run) or written
    if written:
        for finding in agents.diagnose(name, env, project_of(env)):
            if finding.topic in ("codex", "fail-open"):
                say(f"note: {finding.message}")
