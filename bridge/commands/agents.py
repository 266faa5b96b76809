"""`ccbridge install|uninstall|doctor --host codex|gemini`: ccbridge registered in another
agent's own hook settings, with the install machinery of bridge.commands.install (its plan,
backup and atomic writes).

Codex reads CC-shaped hooks from `~/.codex/hooks.json` (or `$CODEX_HOME/hooks.json`) and
`<project>/.codex/hooks.json`; its command hooks on the events ccbridge runs move into ccbridge's
config, as for CC. Gemini CLI reads hooks from `~/.gemini/settings.json` and
`<project>/.gemini/settings.json` under its own event names and dialect: its hooks stay where
they are (moved into a CC config they would no longer match or answer), beside ccbridge.
Neither agent blocks a call when the hook itself crashes or times out, so ccbridge answers every
call in bounded time, and doctor says what is left open.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

from bridge.commands import install as installing
from bridge.commands.doctor import Finding, Level

AGENT_TIMEOUT_S = 60  # as for CC: ccbridge caps a sub-hook at 50 s, so it answers inside this


@dataclass(frozen=True)
class Agent:
    name: str  # ccbridge's --host name
    program: str  # the agent's command
    events: tuple[str, ...]  # the agent's events ccbridge is registered for (pre-tool first)
    timeout: int  # in the agent's unit
    _: KW_ONLY
    moves_hooks: bool  # its hooks are CC's shape: they move into ccbridge's config
    probe: dict[str, Any]  # a harmless pre-tool event of this agent, for doctor


AGENTS = {
    "codex": Agent(
        "codex",
        "codex",
        ("PreToolUse", "PostToolUse"),
        AGENT_TIMEOUT_S,
        moves_hooks=True,
        probe={
            "session_id": "ccbridge-doctor",
            "turn_id": "ccbridge-doctor",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "true"},
            "tool_use_id": "ccbridge-doctor",
        },
    ),
    "gemini": Agent(
        "gemini",
        "gemini",
        ("BeforeTool", "AfterTool"),
        AGENT_TIMEOUT_S * 1000,  # Gemini CLI's hook timeouts are milliseconds
        moves_hooks=False,
        probe={
            "session_id": "ccbridge-doctor",
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "true"},
        },
    ),
}


def agent(name: str) -> Agent:
    if name not in AGENTS:
        raise installing.InstallError(f"no agent {name!r} to install for (known: codex, gemini)")
    return AGENTS[name]


def settings_file(
    name: str, scope: installing.Scope, env: Mapping[str, str], project: Path
) -> Path:
    home = Path(env.get("HOME") or Path.home())
    if scope == "local":
        raise installing.InstallError(
            f"{name} has no personal project settings file: use --user or --project"
        )
    if name == "codex":
        codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
        return (codex_home if scope == "user" else project / ".codex") / "hooks.json"
    return (home if scope == "user" else project) / ".gemini" / "settings.json"


def target(
    name: str, scope: installing.Scope, env: Mapping[str, str], project: Path
) -> installing.Target:
    """The agent's settings file, and the ccbridge config layer of the same scope: every agent
    is judged by the same config."""
    home = Path(env.get("HOME") or Path.home())
    config = installing.target(scope, home, project).config
    return installing.Target(settings_file(name, scope, env, project), config)


def command(executable: str, name: str) -> str:
    return f"{shlex.quote(executable)} run --host {name}"


def handler(spec: Agent, run: str) -> dict[str, Any]:
    return {"type": "command", "command": run, "timeout": spec.timeout, "name": "ccbridge"}


def plan_install(
    spec: Agent, where: installing.Target, settings: bytes | None, config: bytes | None, run: str
) -> installing.Plan:
    data = installing.read_settings(where.settings, settings)
    notes: list[str] = []
    hooks: dict[str, list[Any]] = {}
    moved: dict[str, list[Any]] = {}
    for event, groups in data.get("hooks", {}).items():
        out: list[Any] = []
        for group in groups:
            items = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(items, list):
                out.append(group)  # not ours to judge: the agent says what is wrong with it
                continue
            mine = [h for h in items if not installing.is_registration(h)]
            go = [h for h in mine if spec.moves_hooks and _movable(event, h)]
            stay = [h for h in mine if h not in go]
            if go:
                moved.setdefault(event, []).append(
                    {**group, "hooks": [installing._capped(h, event, notes) for h in go]}
                )
            if stay:
                out.append({**group, "hooks": stay})
        if out:
            hooks[event] = out
    for event in spec.events:
        hooks[event] = [*hooks.get(event, []), {"matcher": "*", "hooks": [handler(spec, run)]}]
        if not spec.moves_hooks and len(hooks[event]) > 1:
            notes.append(
                f"{where.settings}: the other {event} hooks stay and run beside ccbridge, "
                f"outside its fold (a crash or hang of theirs lets the call run)"
            )
    config_after = config
    if moved:
        config_after = installing._config_with(where.config, config, moved, where.settings, notes)
        installing._check_config(where.config, config_after)
    after = {**data, "hooks": hooks}
    settings_after = (
        settings
        if settings is not None and after == data
        else installing.dump_settings(after, settings)
    )
    return installing.Plan(
        where.settings, where.config, settings, settings_after, config, config_after, moved, notes
    )


def _movable(event: str, item: Any) -> bool:
    """A Codex command hook on an event ccbridge runs: Codex's events are CC's."""
    return installing._movable(event, item)


# --- doctor ---------------------------------------------------------------------------------


def diagnose(name: str, env: Mapping[str, str], project: Path) -> list[Finding]:
    spec = AGENTS[name]
    findings = [*_program(spec, env)]
    files = [settings_file(name, scope, env, project) for scope in ("user", "project")]
    registered = {path: _registered(spec, path) for path in files}
    found = {path: events for path, events in registered.items() if events}
    if not found:
        listed = ", ".join(str(path) for path in files)
        findings.append(
            Finding(
                "fail",
                "registration",
                f"ccbridge is not registered for {name} in {listed}:"
                f" run `ccbridge install --host {name}`",
            )
        )
    for path, events in found.items():
        missing = [event for event in spec.events[:1] if event not in events]
        level: Level = "fail" if missing else "ok"
        findings.append(
            Finding(
                level,
                "registration",
                f"{path}: {', '.join(sorted(events))}"
                + (f" (not {', '.join(missing)}: calls are not judged)" if missing else ""),
            )
        )
        findings.extend(_starts(spec, path, env, project))
    findings.extend(_agent_settings(spec, env, files))
    findings.append(
        Finding(
            "warn",
            "fail-open",
            f"{name} lets a call run when a hook crashes, times out or is not run at all; "
            "ccbridge answers within its 60 s and fails closed for everything it runs, but if "
            "ccbridge itself cannot start, the call runs (see docs/hosts.md)",
        )
    )
    return findings


def _program(spec: Agent, env: Mapping[str, str]) -> Iterator[Finding]:
    import shutil

    found = shutil.which(spec.program, path=env.get("PATH"))
    if found is None:
        yield Finding("warn", spec.program, f"`{spec.program}` is not on PATH")
        return
    try:
        done = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
        version = (done.stdout or done.stderr).strip().splitlines()[-1:] or ["?"]
    except (OSError, subprocess.TimeoutExpired) as error:
        version = [f"(could not ask: {error})"]
    yield Finding("info", spec.program, f"{found}: {version[0]}")


def _registered(spec: Agent, path: Path) -> set[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    hooks = data.get("hooks") if isinstance(data, dict) else None
    events = set()
    for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            items = group.get("hooks") if isinstance(group, dict) else None
            for item in items if isinstance(items, list) else ():
                if installing.is_registration(item) and f"--host {spec.name}" in item["command"]:
                    events.add(event)
    return events


def _starts(spec: Agent, path: Path, env: Mapping[str, str], project: Path) -> Iterator[Finding]:
    """The registered command answers a harmless event of this agent with no decision."""
    data = json.loads(path.read_text(encoding="utf-8"))
    commands = {
        item["command"]
        for groups in data["hooks"].values()
        for group in groups
        for item in group.get("hooks", [])
        if installing.is_registration(item)
    }
    for run in sorted(commands):
        event = {**spec.probe, "cwd": str(project)}
        try:
            done = subprocess.run(
                run,
                shell=True,
                input=json.dumps(event).encode(),
                capture_output=True,
                env=dict(env),
                cwd=project,
                timeout=AGENT_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            yield Finding("fail", "starts", f"{run}: {error}")
            continue
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip()[-300:]
            yield Finding("fail", "starts", f"{run}: exit {done.returncode}: {why}")
        else:
            yield Finding("ok", "starts", f"{run}: answers a harmless {spec.name} event")


def _agent_settings(spec: Agent, env: Mapping[str, str], files: list[Path]) -> Iterator[Finding]:
    if spec.name == "gemini":
        for path in files:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            config = data.get("hooksConfig") if isinstance(data, dict) else None
            if isinstance(config, dict) and config.get("enabled") is False:
                yield Finding("fail", "gemini", f"{path}: hooksConfig.enabled is false")
            disabled = config.get("disabled") if isinstance(config, dict) else None
            if isinstance(disabled, list) and any("ccbridge" in str(d) for d in disabled):
                yield Finding("fail", "gemini", f"{path}: hooksConfig.disabled lists ccbridge")
        yield Finding(
            "info",
            "gemini",
            "project hooks run only in a folder Gemini CLI trusts; an administrator's "
            "system settings (/etc/gemini-cli/settings.json) are the layer a user cannot drop",
        )
        return
    yield Finding(
        "warn",
        "codex",
        "Codex runs a new or changed hook only once it is trusted: start `codex` and accept its "
        "hooks review (until then the calls run unjudged); hooks from an organisation's managed "
        "configuration are trusted without one",
    )
