"""`ccbridge doctor`'s checks: is everything in place for Claude Code to run ccbridge, and for
ccbridge to run the hooks it was given? Each check gives Findings; none changes anything, apart
from the harmless Notification event sent to the registered command to see that it starts."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bridge.commands.claude_on_path import (
    PROBE_TIMEOUT,
    SKILL_SHELL_SINCE,
    Claude,
    find_claude,
    skill_shell_known,
)
from bridge.config.build import Problem, problems_of
from bridge.config.registrations import (
    INSIDE_PROJECT_HINT,
    INSTALL_HINT,
    is_launcher,
    is_registration,
)
from bridge.paths import find_config, settings_files, state_dir, wide_layers
from bridge.warm import client as warm_client
from bridge.wire.event import SUBHOOK_EVENTS

Level = Literal["ok", "info", "warn", "fail"]
ON_FAILURE_SINCE = (2, 1, 295)
PROBE_EVENT = b'{"hook_event_name":"Notification","session_id":"doctor","cwd":"."}'


@dataclass(frozen=True)
class Finding:
    level: Level
    topic: str
    message: str
    items: tuple[str, ...] = ()  # a list the message ends with: shown a line each

    @property
    def text(self) -> str:
        return " ".join([self.message, "; ".join(self.items)]) if self.items else self.message

    def to_json(self) -> dict[str, str]:
        return {"level": self.level, "topic": self.topic, "message": self.text}


def check_claude(env: Mapping[str, str], claude: Claude | None = None) -> Iterator[Finding]:
    claude = claude or find_claude(env)
    path, version = claude.path, claude.version
    if path is None:
        yield Finding(
            "fail",
            "claude",
            "no claude found: `claude` is not on this PATH (Claude Code is not installed here, "
            "or not on this PATH)",
        )
        return
    if version is None:
        yield Finding("warn", "claude", str(claude.problem))
        return
    shown = ".".join(map(str, version))
    yield Finding("ok", "claude", f"claude {shown} at {path}")
    if version >= ON_FAILURE_SINCE:
        yield Finding("ok", "onFailure", f'claude {shown} honours onFailure: "block"')
    else:
        since = ".".join(map(str, ON_FAILURE_SINCE))
        yield Finding(
            "warn",
            "onFailure",
            f"claude {shown} ignores onFailure (needs {since} or "
            "later): if ccbridge itself crashes or times out, the tool call runs",
        )


def read_hooks(path: Path) -> dict[str, list[Any]]:
    """The `hooks` block of a CC settings file; empty when the file is missing or unusable."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return hooks if isinstance(hooks, dict) else {}


CONFLICT_MARKERS = ("<<<<<<< ", "<<<<<<<\n", "=======\n", ">>>>>>> ")


def unparsable(path: Path) -> tuple[int, str] | None:
    """(line, what is wrong) for a settings file Claude Code cannot read, which it then ignores
    whole: its hooks, sandbox and deny rules do not hold (measured with 2.1.332 and 2.1.335: a
    merge conflict left in the project's settings.json and no ccbridge call all session).
    None for a file that is missing or reads as JSON."""
    try:
        content = path.read_bytes()
    except OSError:
        return None
    text = content.decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if line.startswith(CONFLICT_MARKERS):
            return number, f"a merge conflict is left in it ({line.strip()[:7]})"
    if not text.strip():
        return None  # an empty file counts as no settings
    try:
        json.loads(content)
    except UnicodeDecodeError:
        return 1, "it is not UTF-8 text"
    except json.JSONDecodeError as error:
        return error.lineno, f"it is not valid JSON ({error.msg}, column {error.colno})"
    return None


def unparsable_message(path: Path, line: int, what: str, kept_by: Sequence[Path]) -> str:
    fix = (
        "resolve the conflict: keep the side you want between the <<<<<<< and >>>>>>> lines "
        "and delete the markers"
        if "merge conflict" in what
        else "fix the JSON there (a missing comma or quote, a trailing comma)"
    )
    held = (
        f"; ccbridge still runs from {', '.join(map(str, kept_by))} until then"
        if kept_by
        else "; until then ccbridge does not run in this project"
    )
    return (
        f"{path}:{line}: {what}, so Claude Code ignores the whole file: its hooks (ccbridge's "
        f"registration), its sandbox and its deny rules do not hold{held}. Fix: {fix}, then run "
        "`ccbridge doctor`"
    )


def check_settings_files(files: Sequence[Path]) -> Iterator[Finding]:
    """Every settings file Claude Code would ignore, with its line and the fix."""
    broken = {path: found for path in files if (found := unparsable(path)) is not None}
    kept_by = [path for path in registrations(files) if path not in broken]
    for path, (line, what) in broken.items():
        yield Finding("fail", "settings", unparsable_message(path, line, what, kept_by))


def handlers(hooks: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else ():
            found = group.get("hooks") if isinstance(group, dict) else None
            for handler in found if isinstance(found, list) else ():
                if isinstance(handler, dict):
                    yield event, handler


def registrations(files: Sequence[Path]) -> dict[Path, dict[str, list[Mapping[str, Any]]]]:
    """Per settings file, the ccbridge registrations per event."""
    found: dict[Path, dict[str, list[Mapping[str, Any]]]] = {}
    for path in files:
        for event, handler in handlers(read_hooks(path)):
            if is_registration(handler):
                found.setdefault(path, {}).setdefault(event, []).append(handler)
    return found


def check_registration(files: Sequence[Path], managed: Sequence[Path] = ()) -> Iterator[Finding]:
    """`files`: the user, project and local settings files; `managed`: managed-settings.json
    and the drop-ins of managed-settings.d, which CC reads before any other scope."""
    found = registrations([*files, *managed])
    if not found:
        yield Finding(
            "fail",
            "registration",
            "ccbridge is not registered in any settings file (looked in "
            + ", ".join(map(str, [*files, *managed]))
            + "); run `ccbridge install`",
        )
        return
    in_managed = [path for path in managed if path in found]
    elsewhere = [path for path in files if path in found]
    if in_managed:
        yield Finding(
            "ok",
            "registration",
            "ccbridge is registered in managed settings ("
            + ", ".join(map(str, in_managed))
            + "): its PreToolUse hook runs before any plugin's hooks module and its deny is final",
        )
    if in_managed and elsewhere:
        yield Finding(
            "warn",
            "registration",
            "ccbridge is registered both in managed settings ("
            + ", ".join(map(str, in_managed))
            + ") and in "
            + ", ".join(map(str, elsewhere))
            + ": Claude Code starts it twice for each call; the managed registration is the one "
            "whose deny is final (it runs before any mod), the other runs after the mods and "
            "gives the same answer without judging again (the sub-hooks run once); remove it "
            "(`ccbridge uninstall`) to save that process",
        )
    events: set[str] = set()
    for path, per_event in found.items():
        events |= set(per_event)
        yield Finding("ok", "registration", f"{path}: {', '.join(sorted(per_event))}")
        for event, items in per_event.items():
            for handler in items:
                if handler.get("onFailure") != "block":
                    yield Finding(
                        "warn",
                        "registration",
                        f"{path}: {event} registration has no "
                        'onFailure "block": a crash of ccbridge would let tools run',
                    )
                timeout = handler.get("timeout")
                if not isinstance(timeout, int | float) or timeout <= 50:
                    yield Finding(
                        "warn",
                        "registration",
                        f"{path}: {event} registration timeout "
                        f"{timeout!r} is not above ccbridge's 50 s sub-hook cap",
                    )
    if "PreToolUse" not in events:
        yield Finding(
            "fail", "registration", "not registered for PreToolUse; run `ccbridge install`"
        )
    elif "PostToolUse" not in events:
        # install leaves it out when nothing runs there (no post hooks or policies, goals off):
        # hooks that would need it are named by the check of unregistered events.
        yield Finding("info", "registration", POST_UNREGISTERED)


def check_warm(files: Sequence[Path], env: Mapping[str, str]) -> Iterator[Finding]:
    """Whether the tool calls' registrations can reach a warm ccbridge (bridge/warm)."""
    wrapped = [
        command
        for command in registered_commands(files)
        if isinstance(command, str) and command != warm_client.unwrapped(command)
    ]
    if not wrapped:
        return
    found = shutil.which("socat", path=env.get("PATH"))
    if found is None:
        yield Finding(
            "info",
            "warm",
            "no socat on this PATH: every tool call starts ccbridge's Python "
            "(docs/performance.md); install socat (Debian: apt-get install socat) for the warm "
            "path",
        )
    else:
        yield Finding(
            "ok",
            "warm",
            f"tool calls after a session's first go to a ccbridge kept running for it ({found})",
        )


POST_UNREGISTERED = (
    "not registered for PostToolUse (nothing in the config runs there): the audit log has a "
    "record per tool call as judged, none of how it ended, and `ccbridge audit --gaps` has no "
    "finished calls to compare"
)


def probe(command: str | Sequence[str], env: Mapping[str, str], cwd: Path) -> str | None:
    """Run a registered command the way CC does on a harmless event: a command line through
    `sh -c`, an exec-form entry (`command` plus `args`) as its argv, with no shell. None when
    it starts and exits 0, else what went wrong."""
    argv = ["sh", "-c", command] if isinstance(command, str) else list(command)
    try:
        done = subprocess.run(
            argv,
            input=PROBE_EVENT,
            capture_output=True,
            env=dict(env),
            cwd=cwd,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"did not finish within {PROBE_TIMEOUT:g}s"
    except OSError as error:
        return f"could not start: {error.strerror}"
    from bridge.hookcall import AUDIT_FAILED

    said = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        tail = said.strip()[-300:]
        return f"exited with code {done.returncode}" + (f": {tail}" if tail else "")
    for line in said.splitlines():
        # the answer never waits on the audit: a record it cannot write is only said here
        if line.startswith(AUDIT_FAILED):
            return "answers, but could not write its audit record: " + line[len(AUDIT_FAILED) :]
    return None


def registered_commands(files: Sequence[Path]) -> list[str | tuple[str, ...]]:
    """Each distinct registered command: a command line, or an exec form's argv."""
    found: set[str | tuple[str, ...]] = set()
    for per_event in registrations(files).values():
        for items in per_event.values():
            for handler in items:
                args = handler.get("args")
                command = str(handler["command"])
                if isinstance(args, list):
                    found.add((command, *map(str, args)))
                else:
                    found.add(command)
    return sorted(found, key=lambda item: (isinstance(item, tuple), str(item)))


def check_starts(files: Sequence[Path], env: Mapping[str, str], project: Path) -> Iterator[Finding]:
    commands = registered_commands(files)
    with tempfile.TemporaryDirectory(prefix="ccbridge-doctor-") as scratch:
        # The probe's audit record and cache entry go to a scratch state and cache, not the
        # real audit log: a doctor run is not a hook call anybody made. A config's own
        # audit.path stays: the probe's record (session `doctor`) goes there, which shows that
        # the registered command can write the configured log.
        run_env = {
            **env,
            "CLAUDE_PROJECT_DIR": str(project),
            "CCBRIDGE_STATE_DIR": os.path.join(scratch, "state"),
            "CCBRIDGE_CACHE_DIR": os.path.join(scratch, "cache"),
        }
        yield from _probe_each(commands, env, run_env, project)


def _probe_each(
    commands: Sequence[str | tuple[str, ...]],
    env: Mapping[str, str],
    run_env: Mapping[str, str],
    project: Path,
) -> Iterator[Finding]:
    cwd = project if project.is_dir() else Path.cwd()
    probed: set[str] = set()
    for command in commands:
        shown = warm_client.unwrapped(command) if isinstance(command, str) else shlex.join(command)
        if isinstance(command, str) and is_launcher(command):
            # The launcher answers every event even without ccbridge (with the fix to run), so
            # a probe alone would pass: what matters is whether PATH finds it here.
            shown = "ccbridge run (found through PATH)"
            found = shutil.which("ccbridge", path=env.get("PATH"))
            if found is None:
                yield Finding(
                    "fail",
                    "starts",
                    f'`{shown}`: no ccbridge on this PATH, so Claude Code is told "{INSTALL_HINT}"'
                    "; install it, or put its directory on PATH",
                )
                continue
            folder = Path(os.path.abspath(found)).parent  # as PATH spells it, and physical
            if any(
                where.is_relative_to(root)
                for where in (folder, folder.resolve())
                for root in (project, project.resolve())
            ):
                yield Finding(
                    "fail",
                    "starts",
                    f"`{shown}`: the ccbridge first on this PATH is {found}, inside the project, "
                    f'so Claude Code is told "{INSIDE_PROJECT_HINT}"',
                )
                continue
            shown += f", here {found}"
        if shown in probed:  # one launcher per event: the same ccbridge, probed once
            continue
        probed.add(shown)
        problem = probe(command, run_env, cwd)
        if problem is None:
            yield Finding("ok", "starts", f"`{shown}` starts and answers")
        else:
            yield Finding("fail", "starts", f"`{shown}` {problem}")


def check_kept(files: Sequence[Path], env: Mapping[str, str], project: Path) -> Iterator[Finding]:
    """A registration that is gone although ccbridge was installed there (the file reverted,
    e.g. by `git checkout`), or a project config that no registration runs."""
    from bridge.commands.install import install_files
    from bridge.commands.install_plan import backup_file, load_backup
    from bridge.commands.settings_json import InstallError

    home = Path(env.get("HOME") or Path.home())
    registered = registrations(files)
    for scope in ("project", "local", "user"):
        where = install_files(scope, home, project)
        if where.settings in registered or unparsable(where.settings) is not None:
            continue  # (an unreadable file is named as such: check_settings_files)
        try:
            installed = load_backup(backup_file(env, where.settings)) is not None
        except InstallError:
            installed = True  # an unreadable record still says install ran here
        again = f"run `ccbridge install --{scope}` again"
        runs = (
            f"ccbridge still runs from {', '.join(map(str, registered))}"
            if registered
            else "so Claude Code no longer runs ccbridge"
        )
        if installed:
            yield Finding(
                "warn" if registered else "fail",
                "registration",
                f"ccbridge was installed in {where.settings} but its registration is gone: the "
                "file was reverted or rewritten since (e.g. `git checkout "
                f"{where.settings.name}`), {runs}; {again}"
                + (", then commit .claude/settings.json" if scope == "project" else ""),
            )
        elif not registered and scope != "user" and where.config.is_file():
            yield Finding(
                "fail",
                "registration",
                f"{where.config} has ccbridge's config but {where.settings} does not register "
                f"ccbridge, so none of it runs; run `ccbridge install --{scope}`",
            )


def config_problems(
    paths: Sequence[Path],
    env: Mapping[str, str] = os.environ,
    project: Path | None = None,
    explicit: str | None = None,
) -> list[Problem]:
    """Schema problems of every file, then native policies that cannot be loaded, sub-hook
    commands that are missing, and what a project or local layer tried to loosen (warnings)."""
    problems: list[Problem] = []
    for path in paths:
        try:
            content = path.read_bytes()
        except OSError as error:
            problems.append(Problem(str(path), None, "", f"cannot read it: {error.strerror}"))
            continue
        problems += problems_of(path, content)
    if problems or not paths:
        return problems
    from bridge.config.cache import load
    from bridge.config.hook_commands import command_problems
    from bridge.policies.loader import PolicyLoadError, load_policy

    compiled = load(list(paths), None, wide=wide_layers(paths, env, explicit))
    for refs in compiled.policies.values():
        for ref in refs:
            try:
                load_policy(ref.ref)
            except PolicyLoadError as error:
                file, _, line = ref.where.rpartition(":")
                where = (file, int(line)) if line.isdigit() else (ref.where, None)
                problems.append(Problem(where[0], where[1], "policies", str(error)))
    problems += command_problems(compiled, env, project or Path.cwd())
    return problems + [_refused(warning) for warning in compiled.warnings]


def _refused(warning: str) -> Problem:
    """A refused loosening (`file:line: what`), as a warning of its file and line."""
    file, _, rest = warning.partition(":")
    line, _, message = rest.partition(": ")
    return Problem(file, int(line) if line.isdigit() else None, "", message, warning=True)


def check_config(paths: Sequence[Path], env: Mapping[str, str], project: Path) -> Iterator[Finding]:
    if not paths:
        yield Finding(
            "info",
            "config",
            "no ccbridge config file: ccbridge runs no sub-hooks and no guard but "
            "self-protection (builtin:dangerous_shell and builtin:protect_paths are off; "
            "`ccbridge install` writes a config with them on)",
        )
        return
    problems = config_problems(paths, env, project)
    for problem in problems:
        yield Finding("warn" if problem.warning else "fail", "config", str(problem))
    if not [problem for problem in problems if not problem.warning]:
        yield Finding("ok", "config", "valid: " + ", ".join(map(str, paths)))


def audit_location(paths: Sequence[Path], env: Mapping[str, str]) -> Path | None:
    """Where `run` appends its records, None when the audit is switched off."""
    from bridge.config.cache import load

    audit = load(list(paths), None, wide=wide_layers(paths, env, None)).audit
    if not audit.enabled:
        return None
    return Path(audit.path or Path(state_dir(env)) / "audit.jsonl")


def writable(path: Path) -> str | None:
    """None when `path` can be created or appended to, else why not."""
    if path.exists():
        return None if os.access(path, os.W_OK) else f"{path} is not writable"
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        return f"{parent} is not a writable directory, so {path} cannot be created"
    if parent == path.parent:
        try:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=".ccbridge-doctor-"):
                pass
        except OSError as error:
            return f"cannot create files in {parent}: {error.strerror}"
    return None


def check_audit(paths: Sequence[Path], env: Mapping[str, str]) -> Iterator[Finding]:
    location = audit_location(paths, env)
    if location is None:
        yield Finding("warn", "audit", "the audit is switched off (audit.enabled: false)")
        return
    problem = writable(location)
    yield (
        Finding("ok", "audit", f"{location} is writable")
        if problem is None
        else Finding("fail", "audit", problem)
    )


def check_twice(files: Sequence[Path], paths: Sequence[Path]) -> Iterator[Finding]:
    """Hooks that would run twice: ccbridge registered with different commands for one event,
    or a hook both in a settings file (run by CC) and in ccbridge's config (run by ccbridge)."""
    from bridge.config.cache import load

    per_event: dict[str, set[str]] = {}
    direct: dict[tuple[str, str], Path] = {}
    for path in files:
        for event, handler in handlers(read_hooks(path)):
            command = str(handler.get("command"))
            if is_registration(handler):
                per_event.setdefault(event, set()).add(command)
            elif event in SUBHOOK_EVENTS and handler.get("type") == "command":
                direct.setdefault((event, command), path)
    twice = False
    for event, commands in sorted(per_event.items()):
        if len(commands) > 1:  # CC runs identical handlers once, different ones each
            twice = True
            yield Finding(
                "warn",
                "twice",
                f"ccbridge is registered {len(commands)} times for {event} with different "
                "commands, and Claude Code starts each: they give one judgement's answer (the "
                "sub-hooks run once), one process more per call: " + ", ".join(sorted(commands)),
            )
    compiled = load(list(paths), None, wide=wide_layers(paths, os.environ, None)) if paths else None
    for event, specs in compiled.hooks.items() if compiled else ():
        for spec in specs:
            found = direct.get((event, str(spec.command)))
            if found is not None:
                twice = True
                yield Finding(
                    "warn",
                    "twice",
                    f"{event} hook `{spec.command}` is in {found} "
                    f"and in {spec.where}: Claude Code runs one copy, ccbridge the "
                    "other; remove it from the settings file",
                )
    for (event, command), path in sorted(direct.items()):
        if per_event and not any(
            spec.command == command for spec in (compiled.hooks.get(event, ()) if compiled else ())
        ):
            yield Finding(
                "info",
                "twice",
                f"{event} hook `{command}` in {path} runs beside "
                "ccbridge, not behind it (`ccbridge install` moves it)",
            )
    if not twice:
        yield Finding("ok", "twice", "no hook is configured twice")


def never_sent(files: Sequence[Path], paths: Sequence[Path]) -> dict[str, list[str]]:
    """Configured events Claude Code never sends to ccbridge: ccbridge runs their hooks only
    when it is registered for the event, in some settings file (`ccbridge install` registers
    every event its config has hooks for, once; a hook added later needs it run again).
    Per event, where its hooks are configured. Empty when ccbridge is registered nowhere: the
    registration check says that."""
    from bridge.config.cache import load

    registered = {event for per_event in registrations(files).values() for event in per_event}
    if not registered or not paths:
        return {}
    compiled = load(list(paths), None, wide=wide_layers(paths, os.environ, None))
    return {
        event: [spec.where for spec in specs]
        for event, specs in sorted(compiled.hooks.items())
        if specs and event not in registered
    }


def never_sent_message(event: str, where: Sequence[str]) -> str:
    return (
        f"{event} hooks ({', '.join(where)}) never run: ccbridge is not registered for {event}, "
        "so Claude Code never sends it; run `ccbridge install` again (it registers every event "
        "the config has hooks for)"
    )


def check_never_sent(files: Sequence[Path], paths: Sequence[Path]) -> Iterator[Finding]:
    for event, where in never_sent(files, paths).items():
        yield Finding("fail", "events", never_sent_message(event, where))


SKILL_SHELL_GAP = (
    "a skill's or command's inline shell commands (!`cmd` in SKILL.md or a command file, run "
    "as it loads, with no PreToolUse) are not judged by ccbridge: neither self-protection nor "
    "the guards see them; with the wall up they run inside Claude Code's sandbox all the same "
    "(measured with 2.1.332), without it nothing holds them"
)


def check_skill_shell(files: Sequence[Path], claude: Claude) -> Iterator[Finding]:
    """Whether the inline shell commands of skills are judged: ccbridge registered for
    PreSkillShellCommand, on a claude that sends it."""
    found = registrations(files)
    registered = {event for per_event in found.values() for event in per_event}
    if not registered:
        return  # check_registration says so
    since = ".".join(map(str, SKILL_SHELL_SINCE))
    shown = ".".join(map(str, claude.version)) if claude.version is not None else None
    if "PreSkillShellCommand" in registered:
        if claude.version is not None and not skill_shell_known(claude):
            yield Finding(
                "warn",
                "skills",
                f"ccbridge is registered for PreSkillShellCommand, but claude {shown} is older "
                f"than {since}: it never sends the event and opens a dialog at start for a "
                "settings file naming it; update claude",
            )
        else:
            yield Finding(
                "ok",
                "skills",
                "registered for PreSkillShellCommand: a skill's or command's inline shell "
                "commands are judged as they load, as a Bash call is",
            )
        return
    if skill_shell_known(claude):
        yield Finding(
            "warn",
            "skills",
            f"not registered for PreSkillShellCommand (claude {shown} sends it): "
            f"{SKILL_SHELL_GAP}; run `ccbridge install` again",
        )
    elif claude.path is None:
        yield Finding(
            "info",
            "skills",
            f"no claude found, so not registered for PreSkillShellCommand (it needs claude {since}"
            f" or later): {SKILL_SHELL_GAP}; run `ccbridge install` again once claude is here",
        )
    else:
        why = f"claude {shown} has" if shown else f"{claude.path} (version unknown) may have"
        yield Finding(
            "info",
            "skills",
            f"{why} no PreSkillShellCommand event (it needs {since} or later): {SKILL_SHELL_GAP}",
        )


def check_goals(files: Sequence[Path], paths: Sequence[Path]) -> Iterator[Finding]:
    """Goals need a turn (UserPromptSubmit), rounds (Stop), and PostToolUse to apply a change;
    without them every goal command is refused with no_turn, or judged and never applied."""
    from bridge.config.cache import load
    from bridge.wire.event import GOAL_EVENTS

    if (
        not paths
        or not load(list(paths), None, wide=wide_layers(paths, os.environ, None)).goals.enabled
    ):
        return
    registered = {event for per_event in registrations(files).values() for event in per_event}
    missing = [e for e in ("PreToolUse", "PostToolUse", *GOAL_EVENTS) if e not in registered]
    if missing:
        yield Finding(
            "fail",
            "goals",
            f"goals are enabled but ccbridge is not registered for {', '.join(missing)}: goal "
            "commands are refused (no_turn) or never applied; run `ccbridge install`",
        )
    else:
        yield Finding("ok", "goals", "goals are enabled and their events are registered")


BWRAP_PROBE = ("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true")


def probe_sandbox(env: Mapping[str, str]) -> list[str]:
    """What keeps Claude Code's sandbox from starting here: on Linux bubblewrap must make its
    namespaces (run once, as CC would) and socat must start; macOS has Seatbelt built in."""
    import sys

    if sys.platform == "darwin":
        return []
    if not sys.platform.startswith("linux"):
        return [f"Claude Code has no sandbox on {sys.platform}"]
    problems = []
    for program, argv, fix in (
        ("bwrap", BWRAP_PROBE, "apt-get install bubblewrap; allow unprivileged user namespaces"),
        ("socat", ("socat", "-V"), "apt-get install socat"),
    ):
        found = shutil.which(program, path=env.get("PATH"))
        if found is None:
            problems.append(f"{program} is not installed ({fix})")
            continue
        try:
            done = subprocess.run(
                [found, *argv[1:]], capture_output=True, timeout=PROBE_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            problems.append(f"`{' '.join(argv)}` did not run: {error} ({fix})")
            continue
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip()[-200:]
            problems.append(f"`{' '.join(argv)}` failed: {said or done.returncode} ({fix})")
    return problems


def check_wall(
    files: Sequence[Path], paths: Sequence[Path], env: Mapping[str, str], project: Path
) -> Iterator[Finding]:
    """The protection level: `wall` when the CC settings in force (every layer) put Claude
    Code's sandbox around every path ccbridge keeps and the sandbox starts here; otherwise
    `tripwire`, with each missing piece and its fix."""
    from bridge import wall
    from bridge.config.cache import load

    config = load(list(paths), None, wide=wide_layers(paths, env, None))
    _level, missing = wall.judge(env, str(project), config.hooks, config.audit.path)
    missing = [gap for gap in missing if "is not installed" not in gap] + probe_sandbox(env)
    home = env.get("HOME") or str(Path.home())
    layers = wall.in_force(wall.settings_layers(env, str(project)), home, str(project))
    shown = ", ".join(layers.files) or "none"
    if not missing:
        yield Finding(
            "ok",
            "protection",
            "wall: Claude Code's sandbox is on for Bash with no way out, bubblewrap and socat "
            "work, and every path ccbridge keeps is out of the agent's reach (denyWrite and Edit "
            f"deny rules; the seal key and audit log in denyRead); settings read: {shown}",
        )
        return
    yield Finding(
        "warn",
        "protection",
        "tripwire: self-protection, the cache seal and goal provenance rest on judging "
        "command text, which the agent can get past; `ccbridge install` sets up the sandbox "
        f"(settings read: {shown}). Missing:",
        tuple(missing),
    )


_NOT_IN = re.compile(r"(?P<path>\S+) is not in (?P<key>sandbox\.filesystem\.\w+)")
_NO_RULE = re.compile(r"(?P<path>\S+) has no (?P<tool>\w+)\(//\S+\) deny rule(?P<why>.*)")


def grouped(missing: Sequence[str]) -> list[str]:
    """The wall's gaps, those of one kind on one line (`not in sandbox.filesystem.denyWrite:
    a, b`) rather than one line per path; any other gap as it is."""
    kinds: dict[str, list[str]] = {}
    for gap in missing:
        found = _NOT_IN.fullmatch(gap)
        ruled = _NO_RULE.fullmatch(gap)
        if found is not None:
            kinds.setdefault(f"not in {found['key']}", []).append(found["path"])
        elif ruled is not None:
            kinds.setdefault(f"no {ruled['tool']}(//...) deny rule{ruled['why']}", []).append(
                ruled["path"]
            )
        else:
            kinds.setdefault(gap, [])
    # kinds missing for the same paths (denyWrite and the Edit rule, as a rule) share a line
    by_paths: dict[tuple[str, ...], list[str]] = {}
    for kind, paths in kinds.items():
        by_paths.setdefault(tuple(paths) or (kind,), []).append(kind)
    return [
        f"{' and '.join(names)}: {', '.join(paths)}" if names != [paths[0]] else paths[0]
        for paths, names in by_paths.items()
    ]


def check_mods(files: Sequence[Path], env: Mapping[str, str], project: Path) -> Iterator[Finding]:
    from bridge.commands import mods

    home = Path(env.get("HOME") or Path.home())
    for level, topic, message in mods.findings(files, env, home, project):
        yield Finding(level, topic, message)  # type: ignore[arg-type]


def diagnose(env: Mapping[str, str], project: Path) -> list[Finding]:
    from bridge.commands.mods import managed_files

    files = [Path(file) for file in settings_files(env, project)]
    managed = managed_files(env)
    every = [*files, *managed]  # a managed registration runs ccbridge as much as any other
    paths = [Path(path) for path in find_config(None, env, project)[0]]
    claude = find_claude(env)
    findings = [
        *check_claude(env, claude),
        *check_settings_files(every),
        *check_registration(files, managed),
        *check_kept(every, env, project),
        *check_starts(every, env, project),
        *check_warm(every, env),
        *check_config(paths, env, project),
        *check_mods(files, env, project),
    ]
    if not any(f.topic == "config" and f.level == "fail" for f in findings):
        findings += [
            *check_audit(paths, env),
            *check_twice(every, paths),
            *check_never_sent(every, paths),
            *check_goals(every, paths),
            *check_skill_shell(every, claude),
            *check_wall(files, paths, env, project),
        ]
    return findings
