"""Codex CLI, Gemini CLI, Copilot CLI, Qwen Code and opencode as real clients: each sub-hook
behaviour under the plain agent and behind ccbridge, registered the way `ccbridge install --host`
registers it.

*plain*: the sub-hook registered directly in the agent's hooks; for opencode, which has no
command hooks, the same behaviour written as an opencode plugin (its own hook form). *ccbridge*:
the same sub-hook in a ccbridge config (CC's hooks block), and `ccbridge run --host NAME`
registered in its place (for opencode, the plugin `ccbridge install --host opencode --project`
writes).
Each test asserts on what really happened (did the command leave its marker file? what did the
agent tell the model?) and records it for the agents' section of docs/e2e-matrix.md.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml

from bridge.commands import agents
from bridge.commands import install as installing

from . import agents_table
from .agents import (
    AgentRun,
    client_binary,
    clients_cache,
    pinned,
    run_cline,
    run_codex,
    run_copilot,
    run_gemini,
    run_opencode,
    run_qwen,
)
from .harness import ccbridge_executable
from .hook_scripts import command_handler, pre_tool_use, prints_json, write_hook

pytestmark = pytest.mark.e2e

Mode = Literal["plain", "ccbridge"]
MARKER = "marker"
REWRITTEN = "rewritten"
SUBHOOK_TIMEOUT_S = 2
# The agent's own rule that refuses `touch` (the `allow` row: an allow must not get past it).
CODEX_FORBID_TOUCH = 'prefix_rule(pattern=["touch"], decision="forbidden")\n'
GEMINI_DENY_TOUCH = (
    '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch"\n'
    'decision = "deny"\npriority = 500\n'
)
OPENCODE_DENY_TOUCH = {"bash": {"*": "allow", "touch *": "deny"}, "edit": "allow"}
# opencode's plain rows: a plugin of the user's own holding these hooks (its `tool.execute.before`
# runs before the call; read from the 1.18.33 binary, a throw stops it, the args object it is
# handed is the one the tool runs with, and no timeout bounds it).
OPENCODE_PLUGIN = "export const Plain = async () => ({{\n  {hooks}\n}});\n"
OPENCODE_PLAIN_HANG_WAIT_S = 10.0  # the plugin never answers: killed this long after the call


@dataclass(frozen=True)
class Case:
    id: str
    label: str
    body: str  # the sub-hook's script after draining stdin
    expect: dict[Mode, str]  # "ran", "blocked", "ran rewritten"
    agent_refuses_touch: bool = False
    reason: str = ""  # a text the model must be told when ccbridge blocks
    # The same answer in an agent's own dialect, for its plain row (ccbridge's sub-hooks speak
    # CC's, as everywhere).
    plain_body: tuple[tuple[str, str], ...] = ()
    plain_expect: tuple[tuple[str, str], ...] = ()  # an agent whose plain row differs
    plain_none: tuple[str, ...] = ()  # agents whose own hook form has no such answer: not run
    # An agent that waits forever on its plain row: killed that many seconds after the call.
    plain_waits_on_call: tuple[tuple[str, float], ...] = ()

    def expected(self, host: str, mode: Mode) -> str:
        return (
            dict(self.plain_expect).get(host, self.expect[mode])
            if mode == "plain"
            else self.expect[mode]
        )

    @property
    def row(self) -> int:
        return CASES.index(self)


CASES = [
    Case(
        "deny",
        "sub-hook denies (exit 2 + reason)",
        "echo 'no touching today' >&2; exit 2",
        {"plain": "blocked", "ccbridge": "blocked"},
        reason="no touching today",
        # Cline reads no exit code: its own deny is `cancel`
        plain_body=(
            ("cline", prints_json({"cancel": True, "errorMessage": "no touching today"})),
            (
                "opencode",
                '"tool.execute.before": async () => { throw new Error("no touching today"); },',
            ),
        ),
    ),
    Case(
        "ask",
        "sub-hook asks (no person to ask in a headless run)",
        pre_tool_use("ask", "a person should look"),
        {"plain": "ran", "ccbridge": "blocked"},
        reason="a person should look",
        plain_body=(
            ("gemini", prints_json({"decision": "ask", "reason": "a person should look"})),
            (
                "copilot",
                prints_json(
                    {
                        "permissionDecision": "ask",
                        "permissionDecisionReason": "a person should look",
                    }
                ),
            ),
            # Cline has no ask; `review` is the field its hook output schema holds for it
            ("cline", prints_json({"review": True, "errorMessage": "a person should look"})),
        ),
        plain_expect=(("gemini", "hung"), ("copilot", "blocked"), ("qwen", "blocked")),
        plain_none=("opencode",),  # a plugin can throw or return, not ask
    ),
    Case(
        "crash",
        "sub-hook crashes (exit 1)",
        "echo boom >&2; exit 1",
        {"plain": "ran", "ccbridge": "blocked"},
        reason="exited with code 1",
        plain_expect=(("copilot", "blocked"), ("opencode", "blocked")),
        plain_body=(
            ("opencode", '"tool.execute.before": async (input) => { input.missing.boom(); },'),
        ),
    ),
    Case(
        "hang",
        "sub-hook hangs past its timeout",
        "sleep 8",
        {"plain": "ran", "ccbridge": "blocked"},
        reason="timed out",
        plain_expect=(("opencode", "hung"),),
        plain_body=(("opencode", '"tool.execute.before": () => new Promise(() => {}),'),),
        plain_waits_on_call=(("opencode", OPENCODE_PLAIN_HANG_WAIT_S),),
    ),
    Case(
        "allow",
        "sub-hook allows a command the agent's own rules refuse",
        pre_tool_use("allow", "fine by me"),
        {"plain": "blocked", "ccbridge": "blocked"},
        agent_refuses_touch=True,
        plain_body=(
            ("gemini", prints_json({"decision": "allow", "reason": "fine by me"})),
            # a plugin's answer to a permission (1.18.33 never calls it: read from its binary)
            ("opencode", '"permission.ask": async (_, output) => { output.status = "allow"; },'),
        ),
    ),
    Case(
        "rewrite",
        "sub-hook allows with `updatedInput`",
        pre_tool_use("allow", "rewritten", updatedInput={"command": f"touch {REWRITTEN}"}),
        {"plain": "ran rewritten", "ccbridge": "ran"},
        plain_expect=(("qwen", "ran"),),
        plain_body=(
            (
                "gemini",
                prints_json(
                    {
                        "hookSpecificOutput": {
                            "hookEventName": "BeforeTool",
                            "tool_input": {"command": f"touch {REWRITTEN}"},
                        }
                    }
                ),
            ),
            (
                "copilot",
                prints_json(
                    {
                        "permissionDecision": "allow",
                        "modifiedArgs": {"command": f"touch {REWRITTEN}"},
                    }
                ),
            ),
            ("cline", prints_json({"overrideInput": {"commands": [f"touch {REWRITTEN}"]}})),
            (
                "opencode",
                '"tool.execute.before": async (_, output) => '
                f'{{ output.args.command = "touch {REWRITTEN}"; }},',
            ),
        ),
    ),
]


@dataclass(frozen=True)
class Agent:
    host: str  # ccbridge's --host name
    client: str  # the npm client in .ci/client-versions
    pre_event: str
    run: Callable[..., AgentRun]
    refuse_touch: dict[str, Any]  # the agent's own rule, as its runner's keywords
    # A refusal stops the agent's whole task (Cline's `cancel`): the model is never told.
    stops_task: bool = False

    def timeout(self, seconds: int) -> int:
        return seconds * 1000 if self.host == "gemini" else seconds  # Gemini: milliseconds

    def hooks(self, handler: dict[str, Any], matcher: str, body: str) -> Any:
        """The plain agent's registration of `handler` (opencode: a plugin made of `body`)."""
        if self.host == "opencode":
            return {"plain.js": OPENCODE_PLUGIN.format(hooks=body)}
        if self.host == "cline":  # a hook file per event (its timeout is Cline's own 120 s)
            script = Path(shlex.split(handler["command"])[0]).read_bytes()
            return {self.pre_event: script}
        if self.host == "copilot":  # its own flat form: `bash` and `timeoutSec`
            own = {"type": "command", "bash": handler["command"], "timeoutSec": handler["timeout"]}
            return {self.pre_event: [own]}
        return {self.pre_event: [{"matcher": matcher, "hooks": [handler]}]}


AGENTS = {
    "codex": Agent("codex", "codex", "PreToolUse", run_codex, {"rules": CODEX_FORBID_TOUCH}),
    "gemini": Agent(
        "gemini", "gemini-cli", "BeforeTool", run_gemini, {"policy": GEMINI_DENY_TOUCH}
    ),
    "copilot": Agent(
        "copilot", "copilot", "preToolUse", run_copilot, {"deny_tools": ("shell(touch)",)}
    ),
    "qwen": Agent("qwen", "qwen-code", "PreToolUse", run_qwen, {}),
    "cline": Agent("cline", "cline", "PreToolUse", run_cline, {}, stops_task=True),
    "opencode": Agent(
        "opencode",
        "opencode",
        "tool.execute.before",
        run_opencode,
        {"permission": OPENCODE_DENY_TOUCH},
    ),
}


def binary_of(agent: Agent, version: str) -> Path:
    binary = client_binary(agent.client, version)
    if binary is None:
        pytest.skip(
            f"{agent.client} {version} is not in {clients_cache()}: the package registry could "
            "not be reached or it was never fetched; run scripts/fetch-clients"
        )
    return binary


def effect(project: Path, done: AgentRun) -> str:
    if done.returncode is None:
        return "hung"  # the agent waited for an answer nobody could give, killed
    if (project / REWRITTEN).exists():
        return "ran rewritten"
    return "ran" if (project / MARKER).exists() else "blocked"


def registration(agent: Agent, tmp_path: Path, run: str, portable: bool = False) -> Any:
    """What `ccbridge install --host NAME --user` writes, in the form the agent's runner takes:
    the `hooks` of its settings, or (Cline) its hook files by name."""
    spec = agents.AGENTS[agent.host]
    where = installing.InstallFiles(tmp_path / "agent-settings.json", tmp_path / "unused.yaml")
    if agent.host == "opencode":  # the plugin file itself
        plan = agents.plan_install(spec, where, None, None, run, portable)
        assert plan.settings_after is not None
        return {"ccbridge.js": plan.settings_after}
    if spec.hook_files:
        files = {}
        for event in spec.events:
            at = installing.InstallFiles(tmp_path / f"{event}.sh", where.config)
            plan = agents.plan_install(spec, at, None, None, run)
            assert plan.settings_after is not None
            files[at.settings.name] = plan.settings_after
        return files
    plan = agents.plan_install(spec, where, None, None, run, portable)
    assert plan.settings_after is not None
    return json.loads(plan.settings_after)["hooks"]


def run_case(
    agent: Agent, version: str, case: Case, mode: Mode, tmp_path: Path, **options: Any
) -> tuple[str, AgentRun, Path]:
    binary = binary_of(agent, version)
    project = tmp_path / "project"
    project.mkdir()
    plain = dict(case.plain_body).get(agent.host, case.body)
    # opencode's plain row is a plugin of `plain` alone; the script is ccbridge's sub-hook
    body = plain if mode == "plain" and agent.host != "opencode" else case.body
    hook = write_hook(tmp_path / "hooks", f"{case.id}.sh", body)
    sub = command_handler(hook, timeout=SUBHOOK_TIMEOUT_S, name=case.id)
    extra = agent.refuse_touch if case.agent_refuses_touch else {}
    state = tmp_path / "state"
    env = {"CCBRIDGE_STATE_DIR": str(state), "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache")}
    if mode == "plain":
        handler = {**sub, "timeout": agent.timeout(SUBHOOK_TIMEOUT_S)}
        hooks = agent.hooks(handler, "*", plain)
        if agent.host in dict(case.plain_waits_on_call):
            options = {**options, "waits_on_call": dict(case.plain_waits_on_call)[agent.host]}
    else:
        # Registered exactly as `ccbridge install --host NAME` registers it; the config given
        # by $CCBRIDGE_CONFIG (the install's registration names none).
        config = tmp_path / "ccbridge.yaml"
        block = {"PreToolUse": [{"matcher": "Bash", "hooks": [sub]}]}
        config.write_text(yaml.safe_dump({"hooks": block}), encoding="utf-8")
        env["CCBRIDGE_CONFIG"] = str(config)
        hooks = registration(agent, tmp_path, agents.command(ccbridge_executable(), agent.host))
    done = agent.run(binary, project, hooks, [f"touch {MARKER}"], env=env, **extra, **options)
    return effect(project, done), done, state


# Each agent's rows; the "allow past the agent's own rule" row only where a rule of the agent's
# own refusing `touch` is set up (Qwen Code's is not: that row is not measured for it), and no
# plain row where the agent's own hook form has no such answer (an opencode plugin cannot ask).
MATRIX = [
    pytest.param(name, version, mode, case, id=f"{name}-{version}-{mode}-{case.id}")
    for name, agent in AGENTS.items()
    for version in pinned(agent.client)
    for mode in ("plain", "ccbridge")
    for case in CASES
    if agent.refuse_touch or not case.agent_refuses_touch
    if not (mode == "plain" and name in case.plain_none)
]


@pytest.mark.parametrize(("agent_name", "version", "mode", "case"), MATRIX)
def test_agent_matrix(
    agent_name: str, version: str, mode: Mode, case: Case, tmp_path: Path
) -> None:
    agent = AGENTS[agent_name]
    outcome, done, state = run_case(agent, version, case, mode, tmp_path)
    told = bool(case.reason) and done.stub.model_saw(case.reason)
    shown = outcome + ("; model told reason" if told and outcome == "blocked" else "")
    agents_table.record(
        agents_table.Measurement(
            agent_name, version, case.id, case.label, case.row, mode, shown, round(done.seconds, 1)
        )
    )
    assert outcome == case.expected(agent.host, mode), (done.stdout[-2000:], done.stderr[-2000:])
    if outcome == "hung":  # waiting on the call, not still starting up when it was killed
        assert not done.stub.commands, "killed before the model asked for the command"
    if mode == "ccbridge" and agent.stops_task and outcome == "blocked":
        assert '"finishReason":"aborted"' in done.stdout, done.stdout[-2000:]
    elif mode == "ccbridge":
        assert done.stub.tool_outputs(), "the agent never reported the call back to the model"
        if outcome == "blocked" and case.reason:
            assert told, done.stub.tool_outputs()
    if mode == "ccbridge":
        records = [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]
        pre = [record for record in records if record["event"] == "PreToolUse"]
        assert pre and all(record.get("host") == agent.host for record in pre), records
        if case.id == "rewrite":
            assert any(record.get("rewrites") for record in pre), pre


UNTRUSTED = Case(
    "untrusted",
    "ccbridge registered, its hook not yet trusted in Codex's hooks review",
    "echo 'no touching today' >&2; exit 2",
    {"plain": "ran", "ccbridge": "ran"},
)


@pytest.mark.parametrize("version", pinned("codex"))
def test_codex_runs_no_hook_it_has_not_trusted(version: str, tmp_path: Path) -> None:
    """A row Codex cannot close and ccbridge cannot either: until the user accepts the hooks
    review, `codex exec` runs the call and never calls the hook (docs/hosts.md)."""
    outcome, done, state = run_case(
        AGENTS["codex"], version, UNTRUSTED, "ccbridge", tmp_path, trusted=False
    )
    record = agents_table.Measurement(
        "codex", version, UNTRUSTED.id, UNTRUSTED.label, len(CASES), "ccbridge", outcome,
        round(done.seconds, 1),
    )  # fmt: skip
    agents_table.record(record)
    assert outcome == "ran"
    assert not (state / "audit.jsonl").exists()  # ccbridge was never called


CANNOT_START = Case(
    "cannot-start",
    "ccbridge registered, but its executable cannot start",
    "exit 0",
    {"plain": "ran", "ccbridge": "blocked"},
)
# What the agent itself does with a registered hook that cannot start (exit 127 from its shell).
# Cline: the hook file ccbridge writes refuses when ccbridge gives no answer.
CANNOT_START_OUTCOME = {
    "copilot": "blocked",
    "qwen": "ran",
    "cline": "blocked",
    "opencode": "blocked",
}


def each_pinned(names: Iterable[str]) -> pytest.MarkDecorator:
    """(agent, version) for every pinned version of each of these agents."""
    return pytest.mark.parametrize(
        ("agent_name", "version"),
        [
            pytest.param(name, version, id=f"{name}-{version}")
            for name in names
            for version in pinned(AGENTS[name].client)
        ],
    )


@each_pinned(CANNOT_START_OUTCOME)
def test_what_the_agent_does_when_ccbridge_cannot_start(
    agent_name: str, version: str, tmp_path: Path
) -> None:
    """The row ccbridge cannot answer for itself (docs/hosts.md): the agent's own handling of
    a hook whose command is not there."""
    agent = AGENTS[agent_name]
    binary = binary_of(agent, version)
    project = tmp_path / "project"
    project.mkdir()
    missing = agents.command(str(tmp_path / "missing" / "ccbridge"), agent.host)
    hooks = registration(agent, tmp_path, missing)
    done = agent.run(binary, project, hooks, [f"touch {MARKER}"])
    outcome = effect(project, done)
    record = agents_table.Measurement(
        agent_name, version, CANNOT_START.id, CANNOT_START.label, len(CASES) + 1, "ccbridge",
        outcome, round(done.seconds, 1),
    )  # fmt: skip
    agents_table.record(record)
    assert outcome == CANNOT_START_OUTCOME[agent_name], (done.stdout[-2000:], done.stderr[-2000:])


SHARED = ["codex", "copilot", "gemini", "opencode", "qwen"]


@each_pinned(SHARED)
def test_a_project_install_finds_ccbridge_through_path(
    agent_name: str, version: str, tmp_path: Path
) -> None:
    """The registration `install --host NAME --project` commits names no machine's path: the
    agent runs it through its shell and the ccbridge on PATH judges (a sub-hook's deny holds)."""
    agent = AGENTS[agent_name]
    binary = binary_of(agent, version)
    project = tmp_path / "project"
    project.mkdir()
    deny = CASES[0]
    hook = write_hook(tmp_path / "hooks", "deny.sh", deny.body)
    config = tmp_path / "ccbridge.yaml"
    block = {"PreToolUse": [{"matcher": "Bash", "hooks": [command_handler(hook, timeout=2)]}]}
    config.write_text(yaml.safe_dump({"hooks": block}), encoding="utf-8")
    run = agents.command(ccbridge_executable(), agent.host)
    hooks = registration(agent, tmp_path, run, portable=True)
    assert ccbridge_executable() not in json.dumps(hooks, default=str)
    env = {
        "PATH": f"{Path(ccbridge_executable()).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "CCBRIDGE_CONFIG": str(config),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    done = agent.run(binary, project, hooks, [f"touch {MARKER}"], env=env)
    assert effect(project, done) == "blocked", (done.stdout[-2000:], done.stderr[-2000:])
    assert (tmp_path / "state" / "audit.jsonl").exists(), "ccbridge never judged the call"
