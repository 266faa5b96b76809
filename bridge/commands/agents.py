"""`ccbridge install|uninstall|doctor --host codex|gemini|copilot|qwen|opencode|cline`: ccbridge
registered in another agent's own hook settings, with the install machinery of
bridge.commands.install (its plan, backup and atomic writes).

Codex reads CC-shaped hooks from `~/.codex/hooks.json` (or `$CODEX_HOME/hooks.json`) and
`<project>/.codex/hooks.json`; its command hooks on the events ccbridge runs move into ccbridge's
config, as for CC. Gemini CLI reads hooks from `~/.gemini/settings.json` and
`<project>/.gemini/settings.json` under its own event names and dialect: its hooks stay where
they are (moved into a CC config they would no longer match or answer), beside ccbridge.
Copilot CLI reads `.github/hooks/*.json` (ccbridge writes its own `ccbridge.json` there) and the
`hooks` of `~/.copilot/settings.json`; Qwen Code `~/.qwen/settings.json` and
`<project>/.qwen/settings.json`, CC's shape but Gemini's tool names, so its hooks stay beside
ccbridge too. opencode has no command hooks: ccbridge writes a plugin file
(`OPENCODE_PLUGIN`) into its plugin directory. Cline runs every executable file of its hooks
directories named for an event: ccbridge writes its own `PreToolUse.sh` and `PostToolUse.sh`
there (`CLINE_HOOK`) and leaves the user's files beside them. None of the command-hook agents
blocks a call when
the hook itself crashes or times out, so ccbridge answers every call in bounded time, and doctor
says what is left open.
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
from bridge.commands import install_plan, settings_json
from bridge.commands.doctor import Finding, Level
from bridge.config import registrations

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
    top: tuple[tuple[str, Any], ...] = ()  # keys a new settings file of this agent needs
    plugin: bool = False  # a plugin file of ccbridge's own, not a hooks entry in settings
    hook_files: bool = False  # one executable file of ccbridge's own per event (Cline)
    flat: bool = False  # its hooks are listed one by one, not in CC's matcher groups
    fails_open: str = (
        "lets a call run when a hook crashes, times out or is not run at all; ccbridge answers "
        "within its 60 s and fails closed for everything it runs, but if ccbridge itself cannot "
        "start, the call runs (see docs/hosts.md)"
    )


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
    "copilot": Agent(
        "copilot",
        "copilot",
        ("preToolUse", "postToolUse"),
        AGENT_TIMEOUT_S,
        moves_hooks=False,
        probe={
            "sessionId": "ccbridge-doctor",
            "timestamp": 0,
            "toolName": "bash",
            "toolArgs": {"command": "true"},
        },
        top=(("version", 1),),
        flat=True,
    ),
    "qwen": Agent(
        "qwen",
        "qwen",
        ("PreToolUse", "PostToolUse"),
        AGENT_TIMEOUT_S,  # seconds, as Qwen Code reads a command hook's timeout
        moves_hooks=False,
        probe={
            "session_id": "ccbridge-doctor",
            "hook_event_name": "PreToolUse",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "true"},
        },
    ),
    "opencode": Agent(
        "opencode",
        "opencode",
        ("tool.execute.before",),
        AGENT_TIMEOUT_S * 1000,  # the plugin's own wait for ccbridge, milliseconds
        moves_hooks=False,
        probe={
            "hook_event_name": "tool.execute.before",
            "tool": "bash",
            "sessionID": "ccbridge-doctor",
            "callID": "ccbridge-doctor",
            "args": {"command": "true"},
        },
        plugin=True,
        fails_open=(
            "runs ccbridge from a plugin that refuses the call on a deny, on any failure of "
            "ccbridge, and when ccbridge cannot start or does not answer within 60 s; opencode "
            "loads every plugin of its plugin directories, so a plugin beside ccbridge's that "
            "changes a call's args after it was judged is outside ccbridge (see docs/hosts.md)"
        ),
    ),
    "cline": Agent(
        "cline",
        "cline",
        ("PreToolUse", "PostToolUse"),
        120,  # Cline's own, fixed: a file hook has no timeout setting
        moves_hooks=False,
        probe={
            "clineVersion": "",
            "hookName": "tool_call",
            "taskId": "ccbridge-doctor",
            "tool_call": {
                "id": "ccbridge-doctor",
                "name": "run_commands",
                "input": {"commands": ["true"]},
            },
        },
        hook_files=True,
        fails_open=(
            "runs a call when a hook prints no answer, crashes or is killed at its 120 s; "
            "ccbridge's hook file turns every failure to get ccbridge's answer (ccbridge "
            "missing or unable to start included) into a refusal. A refusal stops the whole "
            "task and the model is not told why. Other hook files for the same event run "
            "beside ccbridge's, outside its fold, and an `overrideInput` of theirs is applied "
            "after ccbridge judged the call (see docs/hosts.md)"
        ),
    ),
}
KNOWN = ", ".join(AGENTS)

# The plugin `ccbridge install --host opencode` writes. A throw from `tool.execute.before` stops
# the call (measured with opencode 1.18.33: the model is told the thrown message).
OPENCODE_PLUGIN = """\
// ccbridge: opencode's tool calls judged by ccbridge's policy (docs/hosts.md).
// Written by `ccbridge install --host opencode`; `ccbridge uninstall --host opencode` removes it.
import { spawnSync } from "node:child_process";

const RUN = __RUN__;
const TIMEOUT_MS = __TIMEOUT__;

function judge(event, directory) {
  const done = spawnSync(RUN[0], RUN.slice(1), {
    input: JSON.stringify({ ...event, cwd: directory }),
    encoding: "utf8",
    timeout: TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (done.error) {
    throw new Error(`ccbridge could not run (${done.error.message}), so the call is refused`);
  }
  if (done.status === 0) return;
  let reason = (done.stderr || "").trim();
  try {
    const answer = JSON.parse(done.stdout);
    if (answer && typeof answer.reason === "string" && answer.reason) reason = answer.reason;
  } catch {}
  if (done.status === 2) throw new Error(reason || "denied by ccbridge");
  const how = done.status === null ? `signal ${done.signal}` : `exit ${done.status}`;
  throw new Error(`ccbridge failed (${how}), so the call is refused: ${reason}`);
}

export const CCBridge = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    judge(
      {
        hook_event_name: "tool.execute.before",
        tool: input.tool,
        sessionID: input.sessionID,
        callID: input.callID,
        args: output.args,
      },
      directory,
    );
  },
});
"""
PLUGIN_MARK = "// ccbridge: opencode's tool calls judged by ccbridge's policy"


def opencode_plugin(run: str, timeout_ms: int) -> bytes:
    source = OPENCODE_PLUGIN.replace("__RUN__", json.dumps(shlex.split(run)))
    return source.replace("__TIMEOUT__", str(timeout_ms)).encode()


# The hook file `ccbridge install --host cline` writes, one per event. Cline 3.0.65 runs a hook
# file through the interpreter its first line names, reads its stdout's JSON whatever the exit
# code, and runs the call when there is none (a crash, an empty answer, a hook that cannot
# start): so the file asks ccbridge, and answers with a refusal when ccbridge did not answer.
CLINE_HOOK = """\
#!/bin/sh
# ccbridge: Cline's tool calls judged by ccbridge's policy (docs/hosts.md).
# Written by `ccbridge install --host cline`; `ccbridge uninstall --host cline` removes it.
__FIND__answer=$(__RUN__)
status=$?
if [ -n "$answer" ] && { [ "$status" -eq 0 ] || [ "$status" -eq 2 ]; }; then
  printf '%s\\n' "$answer"
  exit "$status"
fi
why="ccbridge gave no answer (exit $status), so the call is refused"
printf '{"cancel":true,"errorMessage":"%s"}\\n' "$why"
printf '%s\\n' "$why" >&2
exit 2
"""
HOOK_MARK = "# ccbridge: Cline's tool calls judged by ccbridge's policy"
# A committed project file names no machine's paths: ccbridge is found through PATH, and where
# there is none the call is refused with the fix.
_CLINE_FIND = (
    "c=$(command -v ccbridge) || {\n"
    "  printf '%s\\n' '__REFUSAL__'\n"
    "  printf '%s\\n' '__HINT__' >&2\n"
    "  exit 2\n"
    "}\n"
)
# The file names Cline reads an event from (its name, case aside, with one of these endings).
CLINE_ENDINGS = (
    *("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs"),
    *(".ts", ".mts", ".cts", ".py", ".ps1"),
)


def cline_hook(run: str | None) -> bytes:
    """ccbridge's Cline hook file: `run` is this machine's command, None the PATH lookup of a
    file meant to be committed."""
    if run is not None:
        return CLINE_HOOK.replace("__FIND__", "").replace("__RUN__", run).encode()
    refusal = json.dumps(
        {"cancel": True, "errorMessage": registrations.INSTALL_HINT}, separators=(",", ":")
    )
    assert "'" not in refusal  # quoted in single quotes
    find = _CLINE_FIND.replace("__REFUSAL__", refusal).replace(
        "__HINT__", registrations.INSTALL_HINT
    )
    return CLINE_HOOK.replace("__FIND__", find).replace("__RUN__", '"$c" run --host cline').encode()


def agent(name: str) -> Agent:
    if name not in AGENTS:
        raise settings_json.InstallError(f"no agent {name!r} to install for (known: {KNOWN})")
    return AGENTS[name]


def settings_file(
    name: str, scope: installing.Scope, env: Mapping[str, str], project: Path
) -> Path:
    home = Path(env.get("HOME") or Path.home())
    if scope == "local":
        raise settings_json.InstallError(
            f"{name} has no personal project settings file: use --user or --project"
        )
    if name == "codex":
        codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
        return (codex_home if scope == "user" else project / ".codex") / "hooks.json"
    if name == "copilot":
        if scope == "project":
            return project / ".github" / "hooks" / "ccbridge.json"
        copilot_home = Path(env["COPILOT_HOME"]) if env.get("COPILOT_HOME") else home / ".copilot"
        return copilot_home / "settings.json"
    if name == "qwen":
        return (home if scope == "user" else project) / ".qwen" / "settings.json"
    if name == "cline":
        if scope == "project":
            return project / ".clinerules" / "hooks" / "PreToolUse.sh"
        cline_dir = Path(env["CLINE_DIR"]) if env.get("CLINE_DIR") else home / ".cline"
        return cline_dir / "hooks" / "PreToolUse.sh"
    if name == "opencode":
        if scope == "project":
            return project / ".opencode" / "plugin" / "ccbridge.js"
        config = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
        return config / "opencode" / "plugin" / "ccbridge.js"
    return (home if scope == "user" else project) / ".gemini" / "settings.json"


def install_files(
    name: str, scope: installing.Scope, env: Mapping[str, str], project: Path
) -> installing.InstallFiles:
    """The agent's settings file, and the ccbridge config layer of the same scope: every agent
    is judged by the same config."""
    config = installing.files_of(scope, env, project).config
    return installing.InstallFiles(settings_file(name, scope, env, project), config)


def plan_for(
    name: str, scope: installing.Scope, env: Mapping[str, str], project: Path, executable: str
) -> list[install_plan.Plan]:
    """`ccbridge install --host NAME` as this machine stands: a plan a file, every one planned
    before any is written, so that a refusal leaves none half installed (an InstallError)."""
    spec, run = agent(name), command(executable, name)
    return [
        plan_install(
            spec,
            where,
            settings_json.read_bytes(where.settings),
            settings_json.read_bytes(where.config),
            run,
            portable=scope == "project",
        )
        for where in files_written(name, scope, env, project)
    ]


def files_written(
    name: str, scope: installing.Scope, env: Mapping[str, str], project: Path
) -> list[installing.InstallFiles]:
    """Every file ccbridge writes for the agent: one settings file, or one hook file per event."""
    first = install_files(name, scope, env, project)
    spec = agent(name)
    if not spec.hook_files:
        return [first]
    return [
        installing.InstallFiles(first.settings.with_name(f"{event}.sh"), first.config)
        for event in spec.events
    ]


def command(executable: str, name: str) -> str:
    return f"{shlex.quote(executable)} run --host {name}"


def handler(spec: Agent, run: str) -> dict[str, Any]:
    if spec.flat:
        # Copilot CLI runs a camelCase event's `bash` (measured: a CC group there never ran);
        # `command` beside it names the registration for install, uninstall and doctor.
        return {"type": "command", "bash": run, "command": run, "timeoutSec": spec.timeout}
    return {"type": "command", "command": run, "timeout": spec.timeout, "name": "ccbridge"}


def _items(group: Any) -> Any:
    """The handlers of a hooks entry: a CC matcher group's, or a flat entry itself."""
    if isinstance(group, dict) and "hooks" not in group and "type" in group:
        return [group]
    return group.get("hooks") if isinstance(group, dict) else None


def plan_install(
    spec: Agent,
    where: installing.InstallFiles,
    settings: bytes | None,
    config: bytes | None,
    run: str,
    portable: bool = False,
) -> install_plan.Plan:
    """`portable`: the file is meant to be committed (a project install), so it finds ccbridge
    through PATH instead of naming `run`'s paths, which are this machine's."""
    if spec.plugin:
        return _plan_plugin(
            spec, where, settings, config, command("ccbridge", spec.name) if portable else run
        )
    if spec.hook_files:
        return _plan_hook_file(where, settings, config, None if portable else run)
    if portable:
        run = registrations.agent_launcher_command(spec.name)
    data = settings_json.read_settings(where.settings, settings)
    if settings is None:
        data = {**dict(spec.top), **data}
    notes: list[str] = []
    hooks: dict[str, list[Any]] = {}
    moved: dict[str, list[Any]] = {}
    for event, groups in data.get("hooks", {}).items():
        out: list[Any] = []
        for group in groups:
            items = _items(group)
            if not isinstance(items, list):
                out.append(group)  # not ours to judge: the agent says what is wrong with it
                continue
            if items == [group]:  # a flat entry: kept unless it is ccbridge's own
                if not registrations.is_registration(group):
                    out.append(group)
                continue
            mine = [h for h in items if not registrations.is_registration(h)]
            go = [h for h in mine if spec.moves_hooks and installing.movable(event, h)]
            stay = [h for h in mine if h not in go]
            if go:
                moved.setdefault(event, []).append(
                    {**group, "hooks": [installing.capped(h, event, notes) for h in go]}
                )
            if stay:
                out.append({**group, "hooks": stay})
        if out:
            hooks[event] = out
    for event in spec.events:
        entry = handler(spec, run) if spec.flat else {"matcher": "*", "hooks": [handler(spec, run)]}
        hooks[event] = [*hooks.get(event, []), entry]
        if not spec.moves_hooks and len(hooks[event]) > 1:
            notes.append(
                f"{where.settings}: the other {event} hooks stay and run beside ccbridge, "
                f"outside its fold (a crash or hang of theirs lets the call run)"
            )
    config_after = installing.config_with_moved(where, config, moved, notes) if moved else config
    return installing.settings_plan(
        where,
        data,
        hooks,
        bytes_before=(settings, config),
        config_after=config_after,
        moved=moved,
        notes=notes,
    )


def _plan_plugin(
    spec: Agent,
    where: installing.InstallFiles,
    settings: bytes | None,
    config: bytes | None,
    run: str,
) -> install_plan.Plan:
    if settings is not None and PLUGIN_MARK.encode() not in settings:
        raise settings_json.InstallError(
            f"{where.settings} exists and is not ccbridge's plugin: move it away first"
        )
    after = opencode_plugin(run, spec.timeout)
    return install_plan.Plan(where.settings, where.config, settings, after, config, config, {}, [])


def _plan_hook_file(
    where: installing.InstallFiles, settings: bytes | None, config: bytes | None, run: str | None
) -> install_plan.Plan:
    if settings is not None and HOOK_MARK.encode() not in settings:
        raise settings_json.InstallError(
            f"{where.settings} exists and is not ccbridge's hook: move it away first (Cline "
            f"runs every hook file of the directory named for the event, so yours can stay "
            f"beside ccbridge's under another of those names)"
        )
    notes = [
        f"{path}: runs beside ccbridge, outside its fold (a crash or hang of it lets the call "
        "run, and an `overrideInput` of it is applied after ccbridge judged the call)"
        for path in beside_hooks(where.settings)
    ]
    after = cline_hook(run)
    return install_plan.Plan(
        where.settings, where.config, settings, after, config, config, {}, notes, mode=0o755
    )


def beside_hooks(ours: Path) -> list[Path]:
    """The other files of `ours`'s directory that Cline runs for the same event."""
    event = ours.name.removesuffix(".sh").lower()
    try:
        entries = sorted(ours.parent.iterdir())
    except OSError:
        return []
    return [
        path
        for path in entries
        if path != ours
        and path.is_file()
        and any(path.name.lower() == event + ending for ending in CLINE_ENDINGS)
    ]


def plan_uninstall_file(where: installing.InstallFiles, content: bytes | None) -> install_plan.Plan:
    """A file that is ccbridge's own (a plugin, a hook file) goes; anything else stays as it
    is (install never writes over a file that is not ccbridge's)."""
    mark = PLUGIN_MARK if where.settings.suffix == ".js" else HOOK_MARK
    ours = content is not None and mark.encode() in content
    notes = [] if ours or content is None else [f"{where.settings} is not ccbridge's: kept"]
    return install_plan.Plan(
        where.settings,
        where.config,
        content,
        None if ours else content,
        None,
        None,
        notes=notes,
    )


def _cline_beside(files: list[Path]) -> Iterator[Finding]:
    for path in files:
        for other in [*beside_hooks(path), *beside_hooks(path.with_name("PostToolUse.sh"))]:
            yield Finding(
                "warn",
                "cline",
                f"{other} runs beside ccbridge's hook, outside its fold: its crash or hang lets "
                "the call run, and its `overrideInput` is applied after ccbridge judged the call",
            )
    yield Finding(
        "info",
        "cline",
        "Cline also runs the hook files of ~/Documents/Cline/Hooks and <project>/.cline/hooks; "
        "Cline 3.0.65 has no setting that turns hook files off",
    )


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
            f"{name} {spec.fails_open}",
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
    if spec.hook_files:
        return {event for event in spec.events if _ours(path.with_name(f"{event}.sh"))}
    if spec.plugin:
        try:
            source = path.read_text(encoding="utf-8")
        except OSError:
            return set()
        return set(spec.events) if PLUGIN_MARK in source else set()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    hooks = data.get("hooks") if isinstance(data, dict) else None
    events = set()
    for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            items = _items(group)
            for item in items if isinstance(items, list) else ():
                if registrations.is_registration(item) and f"--host {spec.name}" in item["command"]:
                    events.add(event)
    return events


def _starts(spec: Agent, path: Path, env: Mapping[str, str], project: Path) -> Iterator[Finding]:
    """The registered command answers a harmless event of this agent with no decision."""
    commands = _commands_of(spec, path)
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


def _ours(path: Path) -> bool:
    try:
        return HOOK_MARK in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def _commands_of(spec: Agent, path: Path) -> set[str]:
    if spec.hook_files:
        # The file itself, run as Cline runs it: by the interpreter its first line names.
        return {shlex.join(["/bin/sh", str(path)])} if _ours(path) else set()
    if spec.plugin:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("const RUN = "):
                words = json.loads(line.removeprefix("const RUN = ").rstrip(";"))
                return {shlex.join(words)}
        return set()
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        item["command"]
        for groups in data["hooks"].values()
        for group in groups
        for item in _items(group) or []
        if registrations.is_registration(item)
    }


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
    if spec.name == "copilot":
        yield Finding(
            "info",
            "copilot",
            "Copilot CLI loads a repository's .github/hooks only in a folder it trusts; "
            "`disableAllHooks: true` in its settings turns every hook off",
        )
        return
    if spec.name == "cline":
        yield from _cline_beside(files)
        return
    if spec.name != "codex":
        return
    yield Finding(
        "warn",
        "codex",
        "Codex runs a new or changed hook only once it is trusted: start `codex` and accept its "
        "hooks review (until then the calls run unjudged); hooks from an organisation's managed "
        "configuration are trusted without one",
    )
