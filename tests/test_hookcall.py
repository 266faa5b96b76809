"""`ccbridge run` as Claude Code calls it: the real executable, real files, real sub-hooks."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import orjson
import pytest

from bridge.hookcall import failure_answer

CCBRIDGE = str(Path(sysconfig.get_path("scripts")) / "ccbridge")
PRE = {
    "session_id": "s1",
    "cwd": "/tmp",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "echo hi"},
    "tool_use_id": "toolu_1",
}


class Bridge:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = root / "state"
        self.env = {
            **os.environ,
            "CCBRIDGE_STATE_DIR": str(self.state),
            "CCBRIDGE_CACHE_DIR": str(root / "cache"),
            "CLAUDE_PROJECT_DIR": str(root),
        }

    def config(self, text: str) -> Path:
        path = self.root / "ccbridge.yaml"
        path.write_text(text)
        return path

    def run(
        self,
        event: Any,
        config: Path | None = None,
        args: tuple[str, ...] = (),
        command: tuple[str, ...] = (CCBRIDGE,),
    ) -> tuple[dict[str, Any] | None, int, str]:
        data = event if isinstance(event, bytes) else orjson.dumps(event)
        argv = [*command, "run", *args, *(["--config", str(config)] if config else [])]
        done = subprocess.run(
            argv, input=data, capture_output=True, env=self.env, timeout=60, check=False
        )
        assert "Traceback" not in done.stderr.decode()
        out = orjson.loads(done.stdout) if done.stdout.strip() else None
        return out, done.returncode, done.stderr.decode()

    def audit(self) -> list[dict[str, Any]]:
        lines = (self.state / "audit.jsonl").read_bytes().splitlines()
        return [orjson.loads(line) for line in lines]


@pytest.fixture
def bridge(tmp_path: Path) -> Bridge:
    return Bridge(tmp_path)


def decision(out: dict[str, Any] | None) -> str | None:
    return None if out is None else out.get("hookSpecificOutput", {}).get("permissionDecision")


def reason(out: dict[str, Any] | None) -> str:
    assert out is not None
    return str(out["hookSpecificOutput"]["permissionDecisionReason"])


def test_native_guard_by_file_path_and_module(bridge: Bridge) -> None:
    (bridge.root / "policy.py").write_text(
        "def guard(execution):\n"
        "    return 'no echo' if 'echo' in execution.input.get('command', '') else None\n"
    )
    config = bridge.config(
        "policies:\n"
        "  guards: [policy.py:guard, bridge.guards.dangerous.dangerous_shell:dangerous_shell]\n"
    )
    out, code, stderr = bridge.run(PRE, config)
    assert (decision(out), code) == ("deny", 2)
    assert out is not None and out["hookSpecificOutput"]["permissionDecisionReason"] == (
        "[guard policy.py:guard] no echo"
    )
    assert "no echo" in stderr
    out, code, _ = bridge.run({**PRE, "tool_input": {"command": "ls"}}, config)
    assert (out, code) == (None, 0)
    out, code, _ = bridge.run({**PRE, "tool_input": {"command": "mkfs.ext4 /dev/sda1"}}, config)
    assert (decision(out), code) == ("deny", 2)  # the module-referenced guard


def test_guard_that_raises_or_cannot_load_denies(bridge: Bridge) -> None:
    (bridge.root / "policy.py").write_text("def guard(execution):\n    raise ValueError('bug')\n")
    out, _, _ = bridge.run(PRE, bridge.config("policies:\n  guards: [policy.py:guard]\n"))
    assert "guard " in reason(out)
    assert "ValueError: bug" in reason(out)
    out, code, _ = bridge.run(PRE, bridge.config("policies:\n  guards: [missing.py:guard]\n"))
    assert code == 2 and "could not be loaded" in reason(out)


def test_native_pre_listener_ask_and_observer_sees_denial(bridge: Bridge) -> None:
    seen = bridge.root / "seen"
    (bridge.root / "policy.py").write_text(
        "from bridge.policies.api import Ask, Deny\n"
        "def pre(execution, next_):\n"
        "    return Ask('confirm') if 'ask' in execution.input['command'] else next_()\n"
        "def observe(execution, result):\n"
        f"    with open({str(seen)!r}, 'a') as out:\n"
        "        out.write(result.content + '|' + str(result.post_result) + '\\n')\n"
    )
    config = bridge.config(
        "policies:\n  pre_execute: [policy.py:pre]\n  observers: [policy.py:observe]\n"
        "  guards: [policy_guard.py:guard]\n"
    )
    (bridge.root / "policy_guard.py").write_text(
        "def guard(e):\n    return 'forbidden' if 'rm' in e.input['command'] else None\n"
    )
    out, code, _ = bridge.run({**PRE, "tool_input": {"command": "please ask"}}, config)
    assert (decision(out), code) == ("ask", 0)
    out, code, _ = bridge.run({**PRE, "tool_input": {"command": "rm x"}}, config)
    assert (decision(out), code) == ("deny", 2)
    assert seen.read_text() == "Error: [guard policy_guard.py:guard] forbidden|True\n"


def test_native_post_listener_blocks(bridge: Bridge) -> None:
    (bridge.root / "policy.py").write_text(
        "from bridge.policies.api import Block\n"
        "def post(execution, result, next_):\n"
        "    return Block('leaked a key') if 'KEY' in result.content else next_()\n"
    )
    config = bridge.config("policies:\n  post_execute: [policy.py:post]\n")
    event = {
        **PRE,
        "hook_event_name": "PostToolUse",
        "tool_response": {"stdout": "KEY=1", "stderr": ""},
    }
    out, code, _ = bridge.run(event, config)
    assert code == 0 and out == {"decision": "block", "reason": "leaked a key"}


def test_self_protection_on_by_default_and_off_is_recorded(bridge: Bridge) -> None:
    settings = bridge.root / ".claude" / "settings.json"
    write = {
        **PRE,
        "tool_name": "Write",
        "tool_input": {"file_path": str(settings), "content": "{}"},
    }
    out, code, _ = bridge.run(write, bridge.config("hooks: {}\n"))
    assert (decision(out), code) == ("deny", 2)
    out, code, _ = bridge.run(write, bridge.config("self_protection: false\n"))
    assert (out, code) == (None, 0)
    assert "self-protection is off" in bridge.audit()[-1]["notes"][0]


def test_too_many_hooks_is_a_deny_naming_the_cap(bridge: Bridge) -> None:
    hooks = "".join(f"        - {{type: command, command: 'exit 0 # {i}'}}\n" for i in range(3))
    config = bridge.config(
        "defaults:\n  max_hooks: 2\nhooks:\n  PreToolUse:\n    - hooks:\n" + hooks
    )
    out, code, _ = bridge.run(PRE, config)
    assert code == 2 and "max_hooks cap of 2" in reason(out)


@pytest.mark.parametrize("args", [("--bogus",), ("--config",), ("extra",)])
def test_bad_arguments_deny(bridge: Bridge, args: tuple[str, ...]) -> None:
    out, code, _ = bridge.run(PRE, None, args)
    assert (decision(out), code) == ("deny", 2)


def test_other_events_get_no_decision(bridge: Bridge) -> None:
    out, code, _ = bridge.run({"hook_event_name": "SessionStart", "session_id": "s", "cwd": "/"})
    assert (out, code) == (None, 0)


def test_audit_record(bridge: Bridge) -> None:
    config = bridge.config(
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        "        - type: command\n          name: rewriter\n          command: >-\n"
        '            echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
        '"permissionDecision":"allow",'
        '"updatedInput":{"command":"echo token=abcd1234efgh"}}}\'\n'
    )
    out, code, _ = bridge.run(PRE, config)
    assert (out, code) == (None, 0)
    (record,) = bridge.audit()
    assert record["event"] == "PreToolUse" and record["session"] == "s1"
    assert record["tool_use_id"] == "toolu_1" and record["tool"] == "Bash"
    assert record["input_digest"].startswith("sha256:")
    assert record["final"] == {"decision": "none", "reason": "", "exit_code": 0}
    assert record["downgrades"] == ["rewriter"]
    assert record["rewrites"] == [
        {
            "hook": "rewriter",
            "diff": {"command": {"from": "echo hi", "to": "echo token=[REDACTED]"}},
        }
    ]
    (sub,) = record["subhooks"]
    assert sub["name"] == "rewriter" and sub["verdict"] == "allow" and sub["exit_code"] == 0
    assert sub["where"].endswith("ccbridge.yaml:5 hooks.PreToolUse[0].hooks[0]")
    assert "allow downgraded" in sub["action"]
    assert record["config_digest"] and record["version"]


def test_unwritable_audit_never_changes_the_answer(bridge: Bridge) -> None:
    bridge.state.write_text("a file where the state dir should be")
    config = bridge.config(
        "hooks:\n  PreToolUse:\n    - hooks:\n        - {type: command, command: 'exit 2'}\n"
    )
    out, code, stderr = bridge.run(PRE, config)
    assert (decision(out), code) == ("deny", 2)
    assert "could not write the audit record" in stderr


def test_python_dash_m_bridge(bridge: Bridge) -> None:
    out, code, _ = bridge.run(b"not json", None, command=(sys.executable, "-m", "bridge"))
    assert (decision(out), code) == ("deny", 2)


def test_commands_other_than_run_collect_garbage_again(capsys: pytest.CaptureFixture[str]) -> None:
    """The launcher turns the cyclic collector off for a short hook call; a command that may
    run long (audit over a big log, test, doctor) turns it back on."""
    import gc

    from bridge.main import main

    gc.disable()
    try:
        with pytest.raises(SystemExit):
            main(["--version"])
        assert gc.isenabled()
    finally:
        gc.enable()
    assert "ccbridge" in capsys.readouterr().out


def test_a_hook_call_runs_with_the_cyclic_collector_off(tmp_path: Path) -> None:
    """What the launcher does, seen from a native policy inside a real `ccbridge run`."""
    seen = tmp_path / "gc.txt"
    policy = tmp_path / "probe.py"
    policy.write_text(
        "import gc\n"
        "def observe(execution, result):\n"
        f"    open({str(seen)!r}, 'w').write(str(gc.isenabled()))\n",
        encoding="utf-8",
    )
    config = tmp_path / "ccbridge.yaml"
    config.write_text("hooks: {}\npolicies: {observers: [probe.py:observe]}\n", encoding="utf-8")
    post = {**PRE, "hook_event_name": "PostToolUse", "tool_response": "hi"}
    done = subprocess.run(
        [CCBRIDGE, "run", "--config", str(config)],
        input=orjson.dumps(post),
        capture_output=True,
        env={
            **os.environ,
            "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
            "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),  # never the real home's
        },
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert seen.read_text(encoding="utf-8") == "False"


@pytest.mark.parametrize("event_name", [None, "PreToolUse"])
def test_ccbridges_own_failure_blocks_with_exit_2(event_name: str | None) -> None:
    answer = failure_answer(event_name, "ccbridge internal error: boom")
    assert answer.exit_code == 2
    assert orjson.loads(answer.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
