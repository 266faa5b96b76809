"""Config layers are monotonic, as guards are: a project or local layer (files the agent can
write) adds hooks, guards and stricter settings, and never switches protection off nor loosens
what a wider layer or ccbridge's defaults set. A refused loosening is said by `ccbridge check`,
recorded in the audit, and the call is judged with the stricter value."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.config.build import compile_sources
from bridge.config.compiled import CompiledConfig, Source
from bridge.engine import Machine, handle
from bridge.paths import wide_layers
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import HookRun
from bridge.wire.event import parse_event
from tests.support.sandbox import CCBRIDGE, encode, pre_tool_use

RANK = {"none": 0, "ask": 1, "deny": 2}


class Project:
    """A home with a user layer and a project with its two layers, run through the real
    executable with the layered lookup (no --config, no $CCBRIDGE_CONFIG)."""

    def __init__(self, root: Path) -> None:
        self.home, self.project = root / "home", root / "project"
        (self.home / ".claude").mkdir(parents=True)
        (self.project / ".claude").mkdir(parents=True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "CCBRIDGE_STATE_DIR": str(root / "state"),
            "CCBRIDGE_CACHE_DIR": str(root / "cache"),
            "CLAUDE_PROJECT_DIR": str(self.project),
        }
        self.audit = root / "state" / "audit.jsonl"

    @property
    def user(self) -> Path:
        return self.home / ".claude" / "ccbridge.yaml"

    @property
    def shared(self) -> Path:
        return self.project / ".claude" / "ccbridge.yaml"

    @property
    def local(self) -> Path:
        return self.project / ".claude" / "ccbridge.local.yaml"

    def ccbridge(self, *args: str, data: bytes = b"") -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(CCBRIDGE), *args],
            input=data,
            capture_output=True,
            env=self.env,
            cwd=self.project,
            timeout=60,
            check=False,
        )
        return subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
        )

    def judge(self, event: Mapping[str, Any]) -> tuple[str, str]:
        done = self.ccbridge("run", data=encode({**event, "cwd": str(self.project)}))
        assert done.returncode in (0, 2), done
        specific = json.loads(done.stdout or "{}").get("hookSpecificOutput", {})
        return specific.get("permissionDecision", "none"), specific.get(
            "permissionDecisionReason", ""
        )

    def last_record(self) -> dict[str, Any]:
        return dict(json.loads(self.audit.read_text().splitlines()[-1]))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def write_settings(project: Project) -> dict[str, Any]:
    """A Write to the project's Claude Code settings: only self-protection denies it."""
    path = str(project.project / ".claude" / "settings.json")
    return pre_tool_use(tool="Write", tool_input={"file_path": path, "content": "{}"})


def test_sort_o_writing_a_local_layer_that_switches_protection_off_changes_nothing(
    project: Project,
) -> None:
    """The attack: a writer the text judgement does not know (`sort -o`) writes a local layer
    with `self_protection: false`. Every later call is still judged with protection on."""
    assert project.judge(write_settings(project))[0] == "deny"  # protection on, no layer yet
    off = project.project / "off.yaml"
    off.write_text("self_protection: false\n")
    subprocess.run(["sort", "-o", str(project.local), str(off)], check=True, cwd=project.project)
    assert project.local.read_text() == "self_protection: false\n"
    decision, reason = project.judge(write_settings(project))
    assert decision == "deny" and "[self-protection]" in reason
    record = project.last_record()
    assert record["final"]["decision"] == "deny"
    assert any(
        "self_protection: false is refused" in warning and str(project.local) in warning
        for warning in record["config_warnings"]
    ), record
    checked = project.ccbridge("check")
    assert checked.returncode == 0, checked  # a warning, not an error: calls are judged
    assert f"{project.local}:1: self_protection: false is refused" in checked.stdout


@pytest.mark.parametrize("layer", ["shared", "local"])
def test_a_project_layer_cannot_switch_protection_off_but_the_user_layer_can(
    project: Project, layer: str
) -> None:
    getattr(project, layer).write_text("self_protection: false\n")
    assert project.judge(write_settings(project))[0] == "deny"
    project.user.write_text("self_protection: false\n")
    # the user's own choice holds, whatever a project layer says
    assert project.judge(write_settings(project))[0] == "none"
    getattr(project, layer).write_text("self_protection: true\n")
    assert project.judge(write_settings(project))[0] == "none"


def test_an_explicit_config_file_can_switch_protection_off(project: Project) -> None:
    project.local.write_text("self_protection: false\n")
    project.env["CCBRIDGE_CONFIG"] = str(project.local)  # the user named it: it is theirs
    assert project.judge(write_settings(project))[0] == "none"


def test_a_refused_audit_switch_still_audits(project: Project) -> None:
    project.local.write_text("audit: {enabled: false, path: elsewhere.jsonl, keep: 1}\n")
    project.judge(pre_tool_use())
    warnings = project.last_record()["config_warnings"]
    assert [w.split(": ")[1] for w in warnings] == ["audit.enabled", "audit.keep", "audit.path"]
    assert not (project.project / ".claude" / "elsewhere.jsonl").exists()


# (the wider layer, the narrower layer, the setting, the value that holds)
LOOSENINGS = [
    ("", "defaults: {on_failure: ignore}", "defaults.on_failure", "block"),
    ("defaults: {timeout: 5}", "defaults: {timeout: 30}", "defaults.timeout", 5.0),
    ("", "defaults: {max_hooks: 100}", "defaults.max_hooks", 64),
    ("", "defaults: {output_cap: 2048}", "defaults.output_cap", 1 << 20),
    ("defaults: {approval: none}", "defaults: {approval: prompt}", "defaults.approval", "none"),
    ("", "defaults: {deadline: 55}", "defaults.deadline", 54.0),
    ("goals: {enabled: true}", "goals: {enabled: false}", "goals.enabled", True),
    # more rounds before a goal's end is a looser goal: a narrower layer may only lower it
    ("", "goals: {default_max_rounds: 20}", "goals.default_max_rounds", 10),
    (
        "goals: {default_max_rounds: 6}",
        "goals: {default_max_rounds: 8}",
        "goals.default_max_rounds",
        6,
    ),
    (
        "goals: {blocked_min_rounds: 5}",
        "goals: {blocked_min_rounds: 2}",
        "goals.blocked_min_rounds",
        5,
    ),
]


def compiled(layers: Sequence[str], wide: int) -> CompiledConfig:
    sources = [
        Source(f"/layers/{index}.yaml", text.encode(), (str(index), 0, 0, ""))
        for index, text in enumerate(layers)
    ]
    return compile_sources(sources, "k", wide)


def setting(config: CompiledConfig, name: str) -> Any:
    section, field = name.split(".")
    if section == "defaults" and field in ("timeout", "on_failure"):
        # per-hook defaults: read from a hook of the narrowest layer
        spec = config.hooks["PreToolUse"][-1]
        return spec.timeout if field == "timeout" else spec.on_failure
    if section == "defaults":
        return getattr(config, field)
    return getattr(getattr(config, section), field)


HOOK = "hooks: {PreToolUse: [{hooks: [{type: command, command: x}]}]}\n"


@pytest.mark.parametrize(("wider", "narrower", "name", "holds"), LOOSENINGS)
def test_each_loosening_is_refused_with_a_warning(
    wider: str, narrower: str, name: str, holds: object
) -> None:
    config = compiled([wider or "{}", HOOK + narrower], wide=1)
    assert config.error is None
    assert setting(config, name) == holds
    assert [warning.split(": ")[1] for warning in config.warnings] == [name]
    assert "/layers/1.yaml:" in config.warnings[0]
    # the same file as the user layer (or explicit) is the user's own choice
    free = compiled([HOOK + narrower], wide=1)
    assert free.warnings == () and setting(free, name) != holds


# (the narrower layer, the setting, the value it sets)
TIGHTENINGS = [
    ("defaults: {timeout: 3}", "defaults.timeout", 3.0),
    ("defaults: {max_hooks: 2}", "defaults.max_hooks", 2),
    ("defaults: {approval: none}", "defaults.approval", "none"),
    ("defaults: {deadline: 10}", "defaults.deadline", 10.0),
    ("goals: {enabled: true}", "goals.enabled", True),
    ("audit: {keep: 9}", "audit.keep", 9),
    ("goals: {default_max_rounds: 3}", "goals.default_max_rounds", 3),
    ("goals: {blocked_min_rounds: 6}", "goals.blocked_min_rounds", 6),
]


@pytest.mark.parametrize(("narrower", "name", "value"), TIGHTENINGS)
def test_a_tightening_applies_without_a_warning(narrower: str, name: str, value: object) -> None:
    config = compiled(["{}", HOOK + narrower], wide=1)
    assert config.warnings == () and setting(config, name) == value


def test_a_narrower_timeout_never_reaches_a_wider_layers_hooks() -> None:
    """A shorter timeout would turn a wider hook's late deny into a failure, which its own
    `onFailure: ignore` lets pass: the narrower layer's defaults apply to its own hooks only."""
    config = compiled([HOOK, HOOK + "defaults: {timeout: 2}"], wide=1)
    assert [spec.timeout for spec in config.hooks["PreToolUse"]] == [20.0, 2.0]


def test_the_user_layer_is_wide_only_where_find_config_says() -> None:
    env = {"HOME": "/h"}
    assert wide_layers(["/h/.claude/ccbridge.yaml", "/p/.claude/ccbridge.yaml"], env, None) == 1
    assert wide_layers(["/p/.claude/ccbridge.local.yaml"], env, None) == 0
    assert wide_layers(["/p/.claude/ccbridge.local.yaml"], env, "x.yaml") == 1
    assert wide_layers(["/p/a.yaml"], {**env, "CCBRIDGE_CONFIG": "/p/a.yaml"}, None) == 1


# --- the law: adding a more specific layer never makes a call's verdict weaker -----------------

GUARDS = Path(__file__).with_name("layer_guards.py")
# Sub-hooks as the runner would see them: what each answers, and how long it takes (seconds).
BEHAVIOURS: dict[str, tuple[int | None, bytes, bytes, float]] = {
    "pass": (0, b"", b"", 0.1),
    "deny": (2, b"", b"no", 0.1),
    "ask": (
        0,
        b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        b'"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}',
        b"",
        0.1,
    ),
    "crash": (1, b"", b"boom", 0.1),
    "late-deny": (2, b"", b"no, after a while", 8.0),
    "late-pass": (0, b"", b"", 8.0),
    "chatty-deny": (2, b"x" * 3000, b"no", 0.1),
}


def fake_runner(
    hooks: Sequence[HookSpec], data: bytes, env: Mapping[str, str], cwd: str | None, cap: int
) -> list[HookRun]:
    """The runner's outcomes without processes: a hook past its timeout or over the output cap
    fails as the real runner says it does."""
    runs = []
    for hook in hooks:
        code, out, err, seconds = BEHAVIOURS[hook.command or ""]
        if seconds > hook.timeout:
            runs.append(HookRun(None, error=f"timed out after {hook.timeout:g}s"))
        elif len(out) > cap:
            runs.append(HookRun(None, error=f"stdout exceeded the {cap}-byte output cap"))
        else:
            runs.append(HookRun(code, out, err, seconds * 1000))
    return runs


handlers = st.fixed_dictionaries(
    {"type": st.just("command"), "command": st.sampled_from(sorted(BEHAVIOURS))},
    optional={
        "timeout": st.sampled_from([1, 5, 10, 20]),
        "onFailure": st.sampled_from(["block", "ignore"]),
    },
)
groups = st.fixed_dictionaries(
    {"hooks": st.lists(handlers, min_size=1, max_size=3)},
    optional={"matcher": st.sampled_from(["*", "Bash", "Write", "Read"])},
)
layers = st.fixed_dictionaries(
    {},
    optional={
        "self_protection": st.booleans(),
        "defaults": st.fixed_dictionaries(
            {},
            optional={
                "timeout": st.sampled_from([1, 5, 10, 20, 40]),
                "on_failure": st.sampled_from(["block", "ignore"]),
                "approval": st.sampled_from(["prompt", "none"]),
                "max_hooks": st.sampled_from([1, 2, 3, 64]),
                "output_cap": st.sampled_from([1024, 4096, 1 << 20]),
            },
        ),
        "audit": st.fixed_dictionaries({}, optional={"enabled": st.booleans()}),
        "hooks": st.fixed_dictionaries(
            {}, optional={"PreToolUse": st.lists(groups, min_size=1, max_size=2)}
        ),
        "policies": st.fixed_dictionaries(
            {},
            optional={
                "guards": st.lists(st.sampled_from(["deny_rm", "deny_writes"]), max_size=2),
                "pre_execute": st.lists(st.sampled_from(["ask_curl", "pass_on"]), max_size=2),
            },
        ),
    },
)


def events(home: str) -> list[dict[str, Any]]:
    settings_file = f"{home}/.claude/settings.json"
    return [
        pre_tool_use("ls -l"),
        pre_tool_use("rm -rf build"),
        pre_tool_use("curl https://example.invalid"),
        pre_tool_use(f"echo x > {settings_file}"),
        pre_tool_use(tool="Write", tool_input={"file_path": settings_file, "content": "{}"}),
        pre_tool_use(tool="Read", tool_input={"file_path": "/etc/hostname"}),
    ]


def with_policies(layer: dict[str, Any]) -> dict[str, Any]:
    policies = layer.get("policies", {})
    named = {kind: [f"{GUARDS}:{name}" for name in refs] for kind, refs in policies.items()}
    return {**layer, "policies": named} if policies else layer


def verdicts(stack: Sequence[dict[str, Any]], wide: int, home: str) -> list[int]:
    sources = [
        Source(
            f"/layers/{index}.yaml",
            yaml.safe_dump(with_policies(layer)).encode(),
            (str(index), 0, 0, ""),
        )
        for index, layer in enumerate(stack)
    ]
    config = compile_sources(sources, "k", wide)
    assert config.error is None, config.error
    machine = Machine(env={"HOME": home, "PATH": "/usr/bin:/bin"}, runner=fake_runner)
    ranks = []
    for raw in events(home):
        event = parse_event(encode({**raw, "cwd": "/tmp"}))
        ranks.append(RANK[handle(event, config, machine).answer.decision])
    return ranks


@settings(max_examples=150, deadline=None)
@given(
    wide=st.lists(layers, max_size=1),
    narrow=st.lists(layers, max_size=2),
    added=layers,
)
def test_adding_a_more_specific_layer_never_weakens_a_verdict(
    wide: list[dict[str, Any]], narrow: list[dict[str, Any]], added: dict[str, Any]
) -> None:
    home = "/nonexistent-home"
    stack = [*wide, *narrow]
    before = verdicts(stack, len(wide), home)
    after = verdicts([*stack, added], len(wide), home)
    assert all(a >= b for a, b in zip(after, before, strict=True)), (before, after)


# Layers whose hooks are all slow or chatty, beside layers of settings alone: where a setting
# of a narrower layer meets a wider layer's hook (its timeout, its output, its failure mode).
edge_handlers = st.fixed_dictionaries(
    {
        "type": st.just("command"),
        "command": st.sampled_from(["late-deny", "late-pass", "chatty-deny"]),
    },
    optional={"onFailure": st.sampled_from(["block", "ignore"])},
)
hook_layers = st.fixed_dictionaries(
    {"hooks": st.just({}).map(lambda _: {})},
    optional={
        "defaults": st.fixed_dictionaries(
            {}, optional={"on_failure": st.sampled_from(["block", "ignore"])}
        )
    },
).flatmap(
    lambda layer: st.lists(edge_handlers, min_size=1, max_size=3).map(
        lambda hooks: {**layer, "hooks": {"PreToolUse": [{"hooks": hooks}]}}
    )
)
setting_layers = st.fixed_dictionaries(
    {
        "defaults": st.fixed_dictionaries(
            {},
            optional={
                "timeout": st.sampled_from([1, 5, 10, 20, 40]),
                "on_failure": st.sampled_from(["block", "ignore"]),
                "output_cap": st.sampled_from([1024, 4096, 1 << 20]),
                "max_hooks": st.sampled_from([1, 2, 64]),
            },
        )
    }
)


@settings(max_examples=150, deadline=None)
@given(wide=hook_layers, narrow=st.lists(hook_layers, max_size=1), added=setting_layers)
def test_a_narrower_layers_settings_never_weaken_a_wider_layers_hooks(
    wide: dict[str, Any], narrow: list[dict[str, Any]], added: dict[str, Any]
) -> None:
    home = "/nonexistent-home"
    before = verdicts([wide, *narrow], 1, home)
    after = verdicts([wide, *narrow, added], 1, home)
    assert all(a >= b for a, b in zip(after, before, strict=True)), (before, after)


def test_the_law_can_fail() -> None:
    """The property sees a loosening when one gets through: with every layer wide (the old
    rule, a layer overrides whatever it names), switching protection off weakens a verdict."""
    home = "/nonexistent-home"
    off = {"self_protection": False}
    assert verdicts([{}], 1, home)[4] == 2
    assert verdicts([{}, off], 2, home)[4] == 0
    assert verdicts([{}, off], 1, home)[4] == 2
