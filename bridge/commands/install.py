"""Registering ccbridge in a Claude Code settings file, and taking it out again.

Installing moves the hooks ccbridge can run (command hooks, not async, on the events of
bridge.wire.event.SUBHOOK_EVENTS) from the settings file into ccbridge's config, so they run
once, behind the bridge; everything else stays where it was. ccbridge is registered for
PreToolUse, for every other event its config has hooks for, for PostToolUse and
PostToolUseFailure when the config has post-execute or observer policies or goals are on, and for
UserPromptSubmit and Stop when goals are on. The registration calls
`<ccbridge> run` with `onFailure: "block"` and a 60 s timeout, above the 50 s cap ccbridge puts
on each sub-hook. The original bytes of both files are kept in the state directory, so uninstall
can put them back exactly when nobody has edited them since.

The planning functions are pure (bytes in, bytes out); `plan_for_scope` chooses what they plan
from the machine (the files as they are, the layered config as it will be, the `claude` and
`ccbridge` on PATH). `bridge.commands.install_plan` writes a plan and keeps the backup
uninstall reads; `bridge.commands.settings_json` reads and writes a settings file.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bridge.commands.install_plan import Backup, Plan, sha
from bridge.commands.settings_json import (
    InstallError,
    dump_settings,
    new_groups_only,
    read_bytes,
    read_settings,
)
from bridge.config.registrations import (
    INSTALL_HINT,
    absolute_command,
    is_registration,
    launcher_command,
    registration,
)
from bridge.paths import CONFIG_ENV, find_config
from bridge.wire.event import GOAL_EVENTS, POST_EVENTS, SKILL_SHELL, SUBHOOK_EVENTS

if TYPE_CHECKING:
    from bridge.config.compiled import CompiledConfig

Scope = Literal["user", "project", "local"]
WIDE = 2**31 - 1  # YAML line width: a long command stays on one line, as it was written


@dataclass(frozen=True)
class InstallFiles:
    """The two files an install edits: the agent's settings file (ccbridge registered, hooks
    moved out) and the ccbridge config layer of the same scope (the moved hooks put in)."""

    settings: Path
    config: Path


def install_files(scope: Scope, home: Path, project: Path) -> InstallFiles:
    if scope == "user":
        return InstallFiles(home / ".claude" / "settings.json", home / ".claude" / "ccbridge.yaml")
    if scope == "project":
        return InstallFiles(
            project / ".claude" / "settings.json", project / ".claude" / "ccbridge.yaml"
        )
    # Personal hooks from settings.local.json go to the personal layer, not the shared file.
    return InstallFiles(
        project / ".claude" / "settings.local.json", project / ".claude" / "ccbridge.local.yaml"
    )


def ccbridge_executable(argv0: str) -> str:
    """The absolute path of the running ccbridge, so Claude Code finds it whatever its PATH."""
    candidate = Path(argv0)
    if candidate.name == "ccbridge" and candidate.is_file():
        return str(candidate.resolve())
    found = shutil.which("ccbridge")
    if found is None:
        raise InstallError("cannot find the ccbridge executable; run install as `ccbridge install`")
    return str(Path(found).resolve())


def movable(event: str, handler: Any) -> bool:
    """A hook install moves into ccbridge's config: a command hook, not async, on an event
    ccbridge runs (every agent's settings whose events are CC's)."""
    return (
        event in SUBHOOK_EVENTS
        and isinstance(handler, Mapping)
        and handler.get("type") == "command"
        and bool(handler.get("command"))
        and not handler.get("async")
    )


def capped(handler: dict[str, Any], event: str, notes: list[str]) -> dict[str, Any]:
    """A moved hook with its timeout lowered to ccbridge's cap, said in `notes`."""
    from bridge.config.schema import MAX_HOOK_TIMEOUT  # pydantic: only when a hook moves

    timeout = handler.get("timeout")
    if isinstance(timeout, int | float) and timeout > MAX_HOOK_TIMEOUT:
        notes.append(
            f"{event} hook {handler.get('command')!r}: timeout {timeout:g}s lowered to "
            f"ccbridge's cap of {MAX_HOOK_TIMEOUT:g}s"
        )
        return {**handler, "timeout": MAX_HOOK_TIMEOUT}
    return handler


Command = str | Callable[[str], str]  # the registration's command, or one per event


def _split_hooks(
    hooks: Mapping[str, list[Any]], command: Command, wanted: tuple[str, ...], notes: list[str]
) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(the settings' new hooks block, the groups moved out of it, per event)."""

    def ours_for(event: str) -> dict[str, Any]:
        return registration(command if isinstance(command, str) else command(event))

    kept: dict[str, list[Any]] = {}
    moved: dict[str, list[Any]] = {}
    for event, groups in hooks.items():
        placed = False
        out: list[Any] = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                out.append(group)  # not ours to judge: CC will say what is wrong with it
                continue
            ours = [h for h in handlers if is_registration(h)]
            stay = [h for h in handlers if not is_registration(h) and not movable(event, h)]
            go = [
                capped(h, event, notes)
                for h in handlers
                if not is_registration(h) and movable(event, h)
            ]
            if go:
                moved.setdefault(event, []).append({**group, "hooks": go})
            if stay:
                out.append({**group, "hooks": stay})
            if ours and event in wanted and not placed:
                out.append({"hooks": [ours_for(event)]})
                placed = True
        if event in wanted and not placed:
            out.append({"hooks": [ours_for(event)]})
        if out:
            kept[event] = out
    for event in wanted:
        kept.setdefault(event, [{"hooks": [ours_for(event)]}])
    return kept, moved


STARTER_GUARDS = (
    ("builtin:dangerous_shell", "rm -rf on what matters, mkfs, dd onto disks, fork bombs, ..."),
    ("builtin:protect_paths", "writes to secrets (.env, keys) and to Claude Code's settings"),
)


def starter_config(settings: Path, moved: Mapping[str, list[Any]]) -> bytes:
    """The config install writes where there is none: the ready-made guards on, one line each
    (delete or comment out a line to switch that guard off), then any hooks moved here."""
    import yaml

    lines = [
        "# ccbridge config, written by `ccbridge install`.",
        "# The ready-made guards: delete (or comment out) a line to switch that guard off.",
        "policies:",
        "  guards:",
        *(f"    - {name}  # {what}" for name, what in STARTER_GUARDS),
    ]
    if moved:
        # The file's own name beside this one, never a path of this machine: a project's
        # config is committed and read on every teammate's machine.
        lines.append(f"# Hooks moved here from {settings.parent.name}/{settings.name}.")
        dumped = yaml.safe_dump(
            {"hooks": dict(moved)}, sort_keys=False, allow_unicode=True, width=WIDE
        )
        lines.append(dumped.rstrip("\n"))
    return ("\n".join(lines) + "\n").encode()


def config_with_moved(
    where: InstallFiles, before: bytes | None, moved: Mapping[str, list[Any]], notes: list[str]
) -> bytes:
    """The config with the moved hooks added (a starter config where there is none), checked:
    an InstallError when they would make it invalid."""
    after = _config_with(where.config, before, moved, where.settings, notes)
    _check_config(where.config, after)
    return after


def settings_plan(
    where: InstallFiles,
    data: Mapping[str, Any],
    hooks: Mapping[str, list[Any]],
    *,
    bytes_before: tuple[bytes | None, bytes | None],
    config_after: bytes | None,
    moved: dict[str, list[Any]],
    notes: list[str],
) -> Plan:
    """The plan that puts `hooks` in the settings file read as `data` (`bytes_before`: the
    settings file's and the config's); with nothing else changed the settings file keeps its
    bytes."""
    settings, config = bytes_before
    after = {**data, "hooks": dict(hooks)}
    settings_after = (
        settings if settings is not None and after == data else dump_settings(after, settings)
    )
    return Plan(
        where.settings, where.config, settings, settings_after, config, config_after, moved, notes
    )


def _config_with(
    path: Path,
    before: bytes | None,
    moved: Mapping[str, list[Any]],
    settings: Path,
    notes: list[str],
) -> bytes:
    import yaml

    addition = yaml.safe_dump(
        {"hooks": dict(moved)}, sort_keys=False, allow_unicode=True, width=WIDE
    )
    if before is None:
        return starter_config(settings, moved)
    try:
        data = yaml.safe_load(before.decode("utf-8")) or {}
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise InstallError(f"{path}: not valid YAML ({error}); fix it before installing") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: expected a mapping at the top")
    if not data.get("hooks"):
        if "hooks" in data:  # an empty `hooks:` key: rewrite rather than add a second one
            data.pop("hooks")
            notes.append(f"{path} was rewritten; its comments were not kept")
            return yaml.safe_dump(
                {**data, "hooks": dict(moved)}, sort_keys=False, allow_unicode=True, width=WIDE
            ).encode()
        text = before.decode("utf-8")
        return (text + ("" if text.endswith("\n") or not text else "\n") + addition).encode()
    hooks = data["hooks"]
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: `hooks` must be a mapping of event names")
    fresh = {event: new_groups_only(groups, hooks.get(event)) for event, groups in moved.items()}
    if not any(fresh.values()):
        return before  # every moved hook is in it already
    for event, groups in fresh.items():
        if groups:
            hooks[event] = [*(hooks.get(event) or []), *groups]
    notes.append(f"{path} was rewritten to add the moved hooks; its comments were not kept")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=WIDE).encode()


def plan_install(
    where: InstallFiles,
    settings_before: bytes | None,
    config_before: bytes | None,
    command: Command,
    goals: bool,
    skill_shell: bool = False,
    post: bool = True,
) -> Plan:
    """`post`: register PostToolUse and PostToolUseFailure even if the config has no hooks
    there (the layered config has post-execute or observer policies; goals imply it)."""
    data = read_settings(where.settings, settings_before)
    notes: list[str] = []
    # Past PreToolUse, an event is registered only when the config does something there (each
    # registration is one more ccbridge start on every tool call), and the skill shell event only
    # where the claude found sends it (before 2.1.332 Claude Code opens a dialog at start for a
    # settings file naming it).
    wanted = (
        ("PreToolUse",)
        + (POST_EVENTS if post or goals else ())
        + ((SKILL_SHELL,) if skill_shell else ())
        + (GOAL_EVENTS if goals else ())
    )
    hooks, moved = _split_hooks(data.get("hooks", {}), command, wanted, [])
    config_after = config_before
    if moved or config_before is None:
        config_after = config_with_moved(where, config_before, moved, notes)
    if config_before is None:
        notes.append(
            f"wrote {where.config} with the ready-made guards on: "
            + " and ".join(f"{name} ({what})" for name, what in STARTER_GUARDS)
            + "; delete a guard's line there to switch it off"
        )
    unsent = set() if skill_shell else {SKILL_SHELL}  # this claude would not send it
    wanted += tuple(sorted(_hook_events(config_after) - set(wanted) - unsent))
    hooks, moved = _split_hooks(data.get("hooks", {}), command, wanted, notes)
    best_effort = [
        f"{event} `{handler.get('command')}`"
        for event, groups in moved.items()
        for group in groups
        for handler in group["hooks"]
        if handler.get("onFailure") is None
    ]
    if best_effort:
        notes.append(
            "moved hooks that ran best-effort in Claude Code (a crash, a timeout or a missing "
            "command let the call go on) now fail closed behind ccbridge (the call is refused): "
            + ", ".join(best_effort)
            + f"; for a hook that only advises, add `onFailure: ignore` to it in {where.config}"
        )
    return settings_plan(
        where,
        data,
        hooks,
        bytes_before=(settings_before, config_before),
        config_after=config_after,
        moved=moved,
        notes=notes,
    )


def _hook_events(config: bytes | None) -> set[str]:
    """The events ccbridge runs that a (valid) ccbridge config has hooks for."""
    if config is None:
        return set()
    import yaml

    try:
        data = yaml.safe_load(config.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError):
        return set()  # `ccbridge check` says what is wrong; registering stays as it was
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return (
        {event for event in hooks if event in SUBHOOK_EVENTS} if isinstance(hooks, dict) else set()
    )


def _check_config(path: Path, content: bytes) -> None:
    from bridge.config.build import problems_of

    problems = problems_of(path, content)
    if problems:
        listed = "\n".join(f"  {problem}" for problem in problems)
        raise InstallError(
            f"the hooks to move would make {path} invalid, nothing was changed:\n{listed}"
        )


def without_registration(
    path: Path, content: bytes | None, restored: Mapping[str, list[Any]]
) -> bytes | None:
    """The settings file with every ccbridge registration taken out and `restored` groups put
    back; the original bytes when that changes nothing."""
    data = read_settings(path, content)
    hooks: dict[str, list[Any]] = {}
    for event, groups in data.get("hooks", {}).items():
        out = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                out.append(group)
                continue
            rest = [h for h in handlers if not is_registration(h)]
            if rest:
                out.append({**group, "hooks": rest})
        out += copy.deepcopy(new_groups_only(list(restored.get(event, [])), out))
        if out:
            hooks[event] = out
    for event, groups in restored.items():
        if event not in hooks and groups:
            hooks[event] = copy.deepcopy(list(groups))
    after = {**data, "hooks": hooks} if hooks else {k: v for k, v in data.items() if k != "hooks"}
    return content if after == data else dump_settings(after, content)


# --- the backup kept in the state directory -------------------------------------------------


def put_up_wall(plan: Plan, keep: Any, env: Mapping[str, str], project: str | None = None) -> Plan:
    """The plan with Claude Code's sandbox set up in its settings file around `keep` (a
    bridge.wall.Protected); what was added is kept in `plan.wall` for uninstall. With
    `project`, in the spellings that mean the same on every machine (the shared file)."""
    from bridge import wall

    data = read_settings(plan.settings, plan.settings_after)
    try:
        after, added = wall.put_up(data, keep, env, project)
    except ValueError as error:
        raise InstallError(
            f"{plan.settings}: {error}; fix it or install with --no-sandbox"
        ) from None
    if after == data:
        return plan
    content = dump_settings(after, plan.settings_before)
    return Plan(
        plan.settings,
        plan.config,
        plan.settings_before,
        content,
        plan.config_before,
        plan.config_after,
        plan.moved,
        plan.notes,
        added,
    )


def registered_commands(content: bytes | None) -> dict[str, str]:
    """Per event, the command of the ccbridge registration a settings file holds."""
    try:
        data = json.loads(content) if content else {}
    except (UnicodeDecodeError, ValueError):
        return {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found: dict[str, str] = {}
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else ():
                if is_registration(handler) and "args" not in handler:
                    found.setdefault(event, handler["command"])
    return found


def plan_companion(local: Path, content: bytes | None, commands: Mapping[str, str]) -> Plan:
    """The machine's local settings (settings.local.json) with the shared file's registration
    added, command for command: Claude Code runs an identical command once however many files
    name it, and this copy still runs it when the shared file cannot be read (a merge conflict
    left in it). Its own hooks stay where they are; nothing moves."""
    data = read_settings(local, content)
    hooks = {event: list(groups) for event, groups in data.get("hooks", {}).items()}
    for event, command in commands.items():
        present = [
            handler
            for group in hooks.get(event, [])
            if isinstance(group, dict) and isinstance(group.get("hooks"), list)
            for handler in group["hooks"]
            if is_registration(handler)
        ]
        if any(handler.get("command") == command for handler in present):
            continue
        hooks[event] = [
            group
            for group in (_without_ours(group) for group in hooks.get(event, []))
            if group is not None
        ] + [{"hooks": [registration(command)]}]
    after_data = {**data, "hooks": hooks} if hooks else data
    after = content if after_data == data else dump_settings(after_data, content)
    config = local.parent / "ccbridge.local.yaml"
    kept = read_bytes(config)
    return Plan(local, config, content, after, kept, kept)


def _without_ours(group: Any) -> Any:
    """A matcher group without ccbridge registrations (None when nothing else is left)."""
    handlers = group.get("hooks") if isinstance(group, dict) else None
    if not isinstance(handlers, list):
        return group
    rest = [handler for handler in handlers if not is_registration(handler)]
    return {**group, "hooks": rest} if rest else None


def config_hooks(path: Path, content: bytes | None) -> dict[str, list[Any]]:
    """The hooks block of a ccbridge config, for putting back into a settings file."""
    if content is None:
        return {}
    import yaml

    try:
        data = yaml.safe_load(content.decode("utf-8")) or {}
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise InstallError(
            f"{path}: not valid YAML ({error}); its hooks could not be put back, nothing was "
            "changed: fix it (`ccbridge check`) and run uninstall again"
        ) from None
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not hooks:
        return {}
    if not isinstance(hooks, dict) or not all(
        isinstance(groups, list)
        and all(isinstance(g, dict) and isinstance(g.get("hooks"), list) for g in groups)
        for groups in hooks.values()
    ):
        raise InstallError(
            f"{path}: `hooks` is not a hooks block (event: [{{matcher, hooks: [...]}}]); its "
            "hooks could not be put back, nothing was changed: fix it (`ccbridge check`)"
        )
    return {str(event): list(groups) for event, groups in hooks.items() if groups}


def _kept_config_hooks(
    where: InstallFiles, settings_after: bytes | None, config_kept: bytes | None, notes: list[str]
) -> bytes | None:
    """`settings_after` with the hooks of a config that stays (and that nothing would run once
    ccbridge is out) put back, those the settings file lacks: every hook still runs."""
    hooks = config_hooks(where.config, config_kept)
    if not hooks:
        return settings_after
    after = without_registration(where.settings, settings_after, hooks)
    if after != settings_after:
        notes.append(
            f"the hooks of {where.config} are put back into {where.settings}, so they still run "
            f"without ccbridge; {where.config} is kept as it is"
        )
    return after


def plan_uninstall(
    where: InstallFiles, backup: Backup | None, settings_now: bytes | None, config_now: bytes | None
) -> Plan:
    notes: list[str] = []
    if backup is None:
        # Nobody installed here (a teammate's clone of a committed registration): the config's
        # hooks are the only record of what ran behind ccbridge, so they go back to the settings.
        notes.append("no install record here: the ccbridge registration is taken out")
        after = without_registration(where.settings, settings_now, {})
        if after != settings_now:
            after = _kept_config_hooks(where, after, config_now, notes)
        return Plan(
            where.settings, where.config, settings_now, after, config_now, config_now, notes=notes
        )
    config_untouched = not backup.config_edited and sha(config_now) == backup.config_installed
    config_after = backup.config_original if config_untouched else config_now
    if not config_untouched and config_now is not None:
        notes.append(f"{where.config} has edits you made since install: it is kept as it is")
    if backup.exact and sha(settings_now) == backup.settings_installed:
        after = backup.settings_original
        if not config_untouched:
            after = _kept_config_hooks(where, after, config_now, notes)
        return Plan(
            where.settings, where.config, settings_now, after, config_now, config_after, notes=notes
        )
    notes.append(
        f"{where.settings} changed since install: the registration is taken out, "
        "the moved hooks are put back and the sandbox entries install added are taken out; "
        "your other edits are kept"
    )
    after = without_registration(where.settings, settings_now, backup.moved)
    if backup.wall and after is not None:
        from bridge import wall

        data = read_settings(where.settings, after)
        down = wall.take_down(data, backup.wall)
        after = after if down == data else dump_settings(down, settings_now)
    if not config_untouched:
        after = _kept_config_hooks(where, after, config_now, notes)
    return Plan(
        where.settings, where.config, settings_now, after, config_now, config_after, notes=notes
    )


def keep_out_of_git(path: Path) -> str | None:
    """Make git ignore `path` (a machine's own settings file) where it does not already, in the
    repository's own .git/info/exclude, which is not a tracked file; what was done, if anything."""
    import subprocess

    def git(*args: str) -> subprocess.CompletedProcess[str] | None:
        try:
            return subprocess.run(
                ["git", *args],
                cwd=path.parent,
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None

    top = git("rev-parse", "--show-toplevel")
    if top is None or top.returncode != 0:
        return None  # not in a git work tree (or no git): nothing can track it
    ignored = git("check-ignore", "-q", str(path))
    if ignored is not None and ignored.returncode == 0:
        return None
    tracked = git("ls-files", "--error-unmatch", str(path))
    if tracked is not None and tracked.returncode == 0:
        return (
            f"{path} is tracked by git: it holds this machine's paths, untrack it (git rm --cached)"
        )
    common = git("rev-parse", "--git-path", "info/exclude")
    if common is None or common.returncode != 0:
        return None
    exclude = Path(common.stdout.strip())
    exclude = exclude if exclude.is_absolute() else path.parent / exclude
    root = Path(top.stdout.strip())
    line = "/" + str(path.resolve().relative_to(root.resolve()))
    exclude.parent.mkdir(parents=True, exist_ok=True)
    before = exclude.read_text() if exclude.is_file() else ""
    exclude.write_text(before + ("" if before.endswith("\n") or not before else "\n") + line + "\n")
    return f"added {line} to {exclude} (this machine's settings are not for the repository)"


# Planning from the machine: the settings and config files as they are, the layered config as
# it will be, the `claude` and `ccbridge` found on PATH. The functions above plan from bytes.


def home_of(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def files_of(scope: Scope, env: Mapping[str, str], project: Path) -> InstallFiles:
    return install_files(scope, home_of(env), project)


@dataclass(frozen=True)
class Planned:
    """An install as planned: the settings file and the config, and the local copy beside a
    project install (None for the others)."""

    plan: Plan
    companion: Plan | None


def plan_for_scope(
    scope: Scope, env: Mapping[str, str], project: Path, executable: str, *, no_sandbox: bool
) -> Planned:
    """`ccbridge install` for Claude Code in `scope`, as this machine stands; an InstallError
    says why a file cannot be edited safely."""
    where = files_of(scope, env, project)
    command, chosen = registration_for(scope, executable, env, project)
    settings, config = read_bytes(where.settings), read_bytes(where.config)
    skill_shell, said_skill = skill_shell_for(env)
    plan = plan_install(
        where, settings, config, command, goals=False, skill_shell=skill_shell, post=False
    )
    goals, post, config_error = events_needed(env, project, plan)
    if goals or post:
        plan = plan_install(
            where, settings, config, command, goals=goals, skill_shell=skill_shell, post=post
        )
    if not no_sandbox:
        plan = with_wall(env, project, plan, scope)
    companion = companion_of(env, project, plan, no_sandbox) if scope == "project" else None
    plan.notes.extend((chosen, said_skill))
    if env.get(CONFIG_ENV):
        plan.notes.append(
            f"${CONFIG_ENV} is set: ccbridge reads only that file, not {where.config}"
        )
    if config_error:
        plan.notes.append(f"the config has problems, run `ccbridge check`: {config_error}")
    return Planned(plan, companion)


def events_needed(
    env: Mapping[str, str], project: Path, after: Plan
) -> tuple[bool, bool, str | None]:
    """(goals on, PostToolUse needed, the config's problem) for the layered config as it will be
    after the install. PostToolUse is needed for goals (a change applies there), post-execute
    and observer policies, and post-tool sub-hooks of any layer; a config that cannot be read
    gets it too, so that whatever it turns out to hold still runs once it is fixed."""
    compiled = layered_after(env, project, after)
    if compiled is None:
        return False, True, None
    post = (
        compiled.error is not None
        or compiled.goals.enabled
        or any(compiled.policies.get(kind) for kind in ("post_execute", "observers"))
        or any(compiled.hooks.get(event) for event in POST_EVENTS)
    )
    return compiled.goals.enabled, post, compiled.error


def layered_after(env: Mapping[str, str], project: Path, after: Plan) -> CompiledConfig | None:
    """The layered config as it will be after the install; None without any config file."""
    from bridge.config.build import compile_sources
    from bridge.config.compiled import Source, read_sources

    paths = [Path(path) for path in find_config(None, env, project)[0]]
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


def skill_shell_for(env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether to register PreSkillShellCommand (the claude on PATH sends it), and why."""
    from bridge.commands.claude_on_path import SKILL_SHELL_SINCE, find_claude, skill_shell_known

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


def registration_for(
    scope: Scope, executable: str, env: Mapping[str, str], project: Path
) -> tuple[Command, str]:
    """The command to register and a note saying what was chosen and why: the shared project
    file gets a launcher that finds `ccbridge` through PATH on whichever machine runs it (this
    machine's path means nothing on a teammate's); the user and local files, which stay on this
    machine, get the absolute path, so Claude Code finds it whatever its PATH."""
    shared = files_of("project", env, project).settings
    if scope == "local" and registered_commands(read_bytes(shared)):
        # the same command as the shared file's: Claude Code runs an identical command once
        return launcher_command, (
            f"registered as `ccbridge run` found through PATH, the command {shared} registers: "
            "Claude Code runs one command named in several settings files once"
        )
    if scope != "project":
        return absolute_command(executable), (
            f"registered as {executable} (an absolute path: {scope} settings stay on this machine)"
        )
    found = shutil.which("ccbridge", path=env.get("PATH"))
    said = (
        "registered as `ccbridge run` found through PATH, as the project's settings.json is "
        "shared: each teammate's Claude Code runs their own ccbridge, and where it is missing "
        f'refuses tool calls and prompts with "{INSTALL_HINT}"'
    )
    if found is None:
        said += (
            f"; ccbridge is not on this PATH (it is at {executable}): put "
            f"{Path(executable).parent} on PATH, or install with --local for this machine only"
        )
    elif Path(found).resolve() != Path(executable).resolve():
        said += f"; on this PATH that is {found}, not {executable}"
    return launcher_command, said


def with_wall(env: Mapping[str, str], project: Path, plan: Plan, scope: Scope) -> Plan:
    """The plan with the wall in its settings file: for the shared project file, what every
    machine keeps in spellings that mean it on every machine (no path of this one); for the
    others, everything this machine keeps, by absolute path."""
    from bridge import wall

    if scope == "project":
        keep = wall.shared_protected(str(project), project_hooks(plan))
        return put_up_wall(plan, keep, {"HOME": wall.SHARED_HOME}, str(project))
    return put_up_wall(plan, machine_wall(env, project, plan), env)


def machine_wall(env: Mapping[str, str], project: Path, plan: Plan) -> Any:
    """Everything the wall keeps on this machine (bridge.wall.Protected)."""
    from bridge import wall

    compiled = layered_after(env, project, plan)
    hooks = compiled.hooks if compiled is not None else {}
    audit = compiled.audit.path if compiled is not None else None
    return wall.protected(env, str(project), hooks, audit)


def project_hooks(plan: Plan) -> Mapping[str, Any]:
    """The hooks of the project's committed config alone, as it will be after the install."""
    from bridge.config.build import compile_sources
    from bridge.config.compiled import Source

    if plan.config_after is None:
        return {}
    source = Source(plan.config, plan.config_after, (str(plan.config), 0, 0, ""))
    return compile_sources([source], "install", wide=0).hooks


def companion_of(env: Mapping[str, str], project: Path, plan: Plan, no_sandbox: bool) -> Plan:
    """This machine's local settings beside a project install: the shared file's registration
    again (Claude Code runs it once) and, unless --no-sandbox, the whole wall by this machine's
    paths, so that the protection holds when the shared file cannot be read (a merge conflict
    left in it) and covers what this machine sets for itself ($CCBRIDGE_STATE_DIR, XDG dirs)."""
    local = files_of("local", env, project).settings
    companion = plan_companion(local, read_bytes(local), registered_commands(plan.settings_after))
    if no_sandbox:
        return companion
    return put_up_wall(companion, machine_wall(env, project, plan), env)
