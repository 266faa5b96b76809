"""The matrix: each sub-hook behaviour under plain Claude Code and behind ccbridge.

*plain*: the sub-hook registered directly in CC's project settings. *ccbridge*: the same CC
hooks block moved into a ccbridge config, and `ccbridge run --config <file>` registered for
PreToolUse and PostToolUse with `onFailure: "block"`. Every test asserts on what really happened
(did `touch marker` leave its file? what did the model receive?) and records its observation for
docs/e2e-matrix.md.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml

from .harness import Result, ccbridge_executable, run_claude, version_tuple
from .hook_scripts import (
    MARKER,
    TOUCH_MARKER,
    command_handler,
    pre_tool_use,
    prints_json,
    write_hook,
)
from .matrix_table import MODES, Measurement, RecordOutcome
from .model_stub import Turn

pytestmark = pytest.mark.e2e

Mode = Literal["plain", "ccbridge"]
Effect = Literal["ran", "ran rewritten", "blocked"]

REWRITTEN = "rewritten"
ON_FAILURE_SINCE = (2, 1, 295)
BRIDGE_TIMEOUT_S = 30
SUBHOOK_TIMEOUT_S = 1


@dataclass(frozen=True)
class SubHook:
    """A sub-hook script: `body` runs after draining stdin; None means no such program exists."""

    name: str
    body: str | None
    event: str = "PreToolUse"
    timeout: int | None = None
    on_failure: str | None = None

    def handler_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        if self.timeout is not None:
            fields["timeout"] = self.timeout
        if self.on_failure is not None:
            fields["onFailure"] = self.on_failure
        return fields


@dataclass(frozen=True)
class Expect:
    effect: Effect
    model_sees: tuple[str, ...] = ()
    audit_has_rewrite: bool = False


@dataclass(frozen=True)
class Case:
    id: str
    label: str
    subhooks: tuple[SubHook, ...]
    plain: Expect
    bridge: Expect
    cc_allows_touch: bool = True
    # What the model should be told, by name, mapped to a text that proves it was.
    needles: Mapping[str, str] = field(default_factory=dict)
    # The registered command itself is missing, guarded only by CC's `onFailure: "block"`.
    broken_registration: bool = False

    def expected(self, mode: Mode, version: str) -> Expect:
        expect = self.plain if mode == "plain" else self.bridge
        if self.broken_registration and version_tuple(version) < ON_FAILURE_SINCE:
            return replace(expect, effect="ran", model_sees=())
        return expect


def _failing(case_id: str, label: str, body: str | None, **hook: Any) -> Case:
    """A sub-hook that fails: plain CC runs the tool, ccbridge blocks naming the hook."""
    name = f"{case_id}-hook.sh"
    return Case(
        id=case_id,
        label=label,
        subhooks=(SubHook(name, body, **hook),),
        plain=Expect("ran"),
        bridge=Expect("blocked", model_sees=("hook name",)),
        needles={"hook name": name},
    )


DENY = SubHook("deny-hook.sh", pre_tool_use("deny", "deny-reason-7f3"))
ALLOW = SubHook("allow-hook.sh", pre_tool_use("allow", "allow-reason-2c9"))

CASES = (
    Case(
        id="deny",
        label="sub-hook denies",
        subhooks=(DENY,),
        plain=Expect("blocked", model_sees=("reason",)),
        bridge=Expect("blocked", model_sees=("reason",)),
        needles={"reason": "deny-reason-7f3"},
    ),
    Case(
        id="ask",
        label="sub-hook asks (`-p`)",
        subhooks=(SubHook("ask-hook.sh", pre_tool_use("ask", "ask-reason-5d1")),),
        plain=Expect("blocked", model_sees=("reason",)),
        bridge=Expect("blocked", model_sees=("reason",)),
        needles={"reason": "ask-reason-5d1"},
    ),
    Case(
        id="allow-refused",
        label="sub-hook allows a command CC's rules refuse",
        subhooks=(ALLOW,),
        cc_allows_touch=False,
        plain=Expect("ran"),
        bridge=Expect("blocked"),
    ),
    Case(
        id="allow-permitted",
        label="sub-hook allows a command CC's rules allow",
        subhooks=(ALLOW,),
        plain=Expect("ran"),
        bridge=Expect("ran"),
    ),
    Case(
        id="updated-input",
        label="sub-hook allows with `updatedInput`",
        subhooks=(
            SubHook(
                "rewrite-hook.sh",
                pre_tool_use("allow", updatedInput={"command": f"touch {REWRITTEN}"}),
            ),
        ),
        plain=Expect("ran rewritten"),
        bridge=Expect("ran", audit_has_rewrite=True),
    ),
    _failing("crash", "sub-hook crashes (exit 1)", "echo crashed >&2; exit 1"),
    _failing("malformed", "sub-hook prints malformed JSON", "echo '{\"hookSpecific'"),
    _failing("missing", "sub-hook command missing", None),
    _failing("timeout", "sub-hook times out", "sleep 10", timeout=SUBHOOK_TIMEOUT_S),
    Case(
        id="allow-deny",
        label="two sub-hooks: allow, then deny",
        subhooks=(ALLOW, DENY),
        plain=Expect("blocked", model_sees=("deny reason",)),
        bridge=Expect("blocked", model_sees=("deny reason",)),
        needles={"deny reason": "deny-reason-7f3"},
    ),
    Case(
        id="deny-allow",
        label="two sub-hooks: deny, then allow",
        subhooks=(DENY, ALLOW),
        plain=Expect("blocked", model_sees=("deny reason",)),
        bridge=Expect("blocked", model_sees=("deny reason",)),
        needles={"deny reason": "deny-reason-7f3"},
    ),
    Case(
        id="post-block",
        label="PostToolUse sub-hook blocks and adds context",
        subhooks=(
            SubHook(
                "post-hook.sh",
                prints_json(
                    {
                        "decision": "block",
                        "reason": "post-reason-9e4",
                        "hookSpecificOutput": {
                            "hookEventName": "PostToolUse",
                            "additionalContext": "post-context-1b8",
                        },
                    }
                ),
                event="PostToolUse",
            ),
        ),
        plain=Expect("ran", model_sees=("reason", "context")),
        bridge=Expect("ran", model_sees=("reason", "context")),
        needles={"reason": "post-reason-9e4", "context": "post-context-1b8"},
    ),
    Case(
        id="broken-registration",
        label='registered command missing, `onFailure: "block"` (plain: a sub-hook; '
        "ccbridge: ccbridge itself)",
        subhooks=(SubHook("gone-hook.sh", None, on_failure="block"),),
        plain=Expect("blocked"),
        bridge=Expect("blocked"),
        broken_registration=True,
    ),
)


def _hooks_block(subhooks: tuple[SubHook, ...], hook_dir: Path) -> dict[str, Any]:
    """The CC `hooks` block for the sub-hooks, writing their scripts into `hook_dir`. Commands
    are bare names found through PATH, so the name a reason gives a hook is short and exact."""
    block: dict[str, Any] = {}
    for subhook in subhooks:
        if subhook.body is not None:
            write_hook(hook_dir, subhook.name, subhook.body)
        groups = block.setdefault(subhook.event, [{"matcher": "Bash", "hooks": []}])
        groups[0]["hooks"].append(command_handler(subhook.name, **subhook.handler_fields()))
    return block


def _bridge_registration(command: str) -> dict[str, Any]:
    handler = {
        "type": "command",
        "command": command,
        "timeout": BRIDGE_TIMEOUT_S,
        "onFailure": "block",
    }
    return {
        event: [{"matcher": "*", "hooks": [handler]}] for event in ("PreToolUse", "PostToolUse")
    }


def _settings(case: Case, mode: Mode, tmp_path: Path) -> dict[str, Any]:
    hooks = _hooks_block(case.subhooks, tmp_path / "hooks")
    if mode == "ccbridge":
        config = tmp_path / "ccbridge.yaml"
        config.write_text(yaml.safe_dump({"hooks": hooks}, sort_keys=False), encoding="utf-8")
        program = (
            str(tmp_path / "gone" / "ccbridge")
            if case.broken_registration
            else ccbridge_executable()
        )
        hooks = _bridge_registration(
            f"{shlex.quote(program)} run --config {shlex.quote(str(config))}"
        )
    allow = ["Bash(touch *)"] if case.cc_allows_touch else []
    return {"permissions": {"allow": allow}, "hooks": hooks}


def _effect(project: Path) -> Effect:
    if (project / REWRITTEN).exists():
        return "ran rewritten"
    return "ran" if (project / MARKER).exists() else "blocked"


def _audit_records(state_dir: Path) -> list[dict[str, Any]]:
    audit = state_dir / "audit.jsonl"
    if not audit.is_file():
        return []
    lines = audit.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _audit_has_rewrite(records: list[dict[str, Any]]) -> bool:
    return any(f"touch {REWRITTEN}" in json.dumps(record.get("rewrites")) for record in records)


def _describe(effect: Effect, seen: list[str], audit_rewrite: bool) -> str:
    parts: list[str] = [effect]
    if seen:
        parts.append("model told " + " + ".join(seen))
    if audit_rewrite:
        parts.append("rewrite audited, not applied")
    return "; ".join(parts)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_matrix(
    case: Case,
    mode: Mode,
    cc_version: str,
    claude: Path,
    tmp_path: Path,
    record_outcome: RecordOutcome,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    state_dir = tmp_path / "state"
    settings = _settings(case, mode, tmp_path)
    search_path = os.pathsep.join([str(tmp_path / "hooks"), os.environ.get("PATH", "")])

    result: Result = run_claude(
        claude,
        project,
        settings,
        [Turn.bash(TOUCH_MARKER)],
        env={"CCBRIDGE_STATE_DIR": str(state_dir), "PATH": search_path},
    )

    effect = _effect(project)
    seen = [name for name, text in case.needles.items() if result.requests.model_saw(text)]
    records = _audit_records(state_dir)
    audit_rewrite = _audit_has_rewrite(records)
    record_outcome(
        Measurement(
            case=case.id,
            label=case.label,
            row=CASES.index(case),
            mode=mode,
            version=cc_version,
            outcome=_describe(effect, seen, audit_rewrite),
        )
    )
    expect = case.expected(mode, cc_version)
    context = f"CC said: {result.requests.tool_results()}; stderr: {result.stderr[-500:]}"
    assert effect == expect.effect, context
    assert set(expect.model_sees) <= set(seen), context
    assert audit_rewrite == expect.audit_has_rewrite, records
    if mode == "ccbridge" and not case.broken_registration:
        assert records, "ccbridge audited nothing"
        assert all("final" in record for record in records), records
