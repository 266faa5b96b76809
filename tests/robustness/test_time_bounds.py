"""Every call answers in bounded time, whatever the input or the state: the hang and blow-up
cases, each through the real `ccbridge run` executable, answered within the deadline (plus a
margin for the interpreter's start on a loaded machine), denied with a reason, and audited."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from bridge.config.compiled import DEFAULT_DEADLINE
from bridge.deadline import GRACE
from bridge.shell.syntax import MAX_COMMAND_CHARS
from tests.support.sandbox import Outcome, Sandbox, encode, matching, pre_tool_use

MARGIN = 2.0  # seconds: process start and the audit write, under load
SHORT = 2.0  # the deadline the tests that must reach it configure
# A bound on a call that must not wait at all: far past a start-up on a loaded machine, far
# short of the deadline a call stuck waiting would reach (and then answer for other reasons).
HANG = 30.0


def timed(sandbox: Sandbox, config: Path | None, data: bytes, **env: str) -> tuple[Outcome, float]:
    start = time.monotonic()
    outcome = sandbox.call_executable(config, data, env=env, timeout=DEFAULT_DEADLINE + GRACE + 10)
    return outcome, time.monotonic() - start


def denied_and_audited(sandbox: Sandbox, outcome: Outcome, *words: str) -> dict[str, Any]:
    assert outcome.exit_code == 2, outcome
    assert outcome.decision == "deny", outcome
    for word in words:
        assert word in outcome.reason, outcome
    records = sandbox.audit()
    assert records, outcome.stderr
    record = records[-1]
    assert record["final"]["decision"] == "deny"
    assert record["final"]["reason"] == outcome.reason
    return record


def short_config(sandbox: Sandbox, **top: object) -> Path:
    path = sandbox.root / "short.yaml"
    body = {"self_protection": False, "defaults": {"deadline": SHORT}, **top}
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def test_an_endless_python_policy_is_cut_at_the_deadline(sandbox: Sandbox) -> None:
    policy = sandbox.root / "endless.py"
    policy.write_text(
        "def guard(execution):\n"
        "    while True:\n"
        "        try:\n"
        "            sum(range(1000))\n"
        "        except Exception:\n"  # what a careless policy swallows: not the deadline
        "            pass\n"
    )
    config = short_config(sandbox, policies={"guards": [f"{policy}:guard"]})
    outcome, took = timed(sandbox, config, encode(pre_tool_use()))
    assert took < SHORT + MARGIN, took
    record = denied_and_audited(sandbox, outcome, "2 s deadline", "endless.py")
    assert str(record["error"]).startswith("deadline: ")


# A guard that catches even the deadline's BaseException and goes on waiting: only the hard
# stop ends it (tests/warm/test_server.py runs it warm too).
SWALLOWS_THE_DEADLINE = (
    "import time\n"
    "def guard(execution):\n"
    "    while True:\n"
    "        try:\n"
    "            time.sleep(100)\n"
    "        except BaseException:\n"
    "            pass\n"
)


def test_a_policy_that_swallows_the_deadline_is_stopped_hard(sandbox: Sandbox) -> None:
    policy = sandbox.root / "stubborn.py"
    policy.write_text(SWALLOWS_THE_DEADLINE)
    config = short_config(sandbox, policies={"guards": [f"{policy}:guard"]})
    outcome, took = timed(sandbox, config, encode(pre_tool_use()))
    assert took < SHORT + GRACE + MARGIN, took
    denied_and_audited(sandbox, outcome, f"{SHORT:g} s + {GRACE:g} s")


def test_a_sub_hook_that_hangs_past_the_deadline_is_killed_and_the_call_denied(
    sandbox: Sandbox,
) -> None:
    marker = sandbox.root / "alive"
    hook = sandbox.script("hang.sh", f"sleep 40; touch {marker}")
    config = short_config(
        sandbox, hooks=matching([{"type": "command", "command": str(hook), "timeout": 45}])
    )
    outcome, took = timed(sandbox, config, encode(pre_tool_use()))
    assert took < SHORT + MARGIN, took
    denied_and_audited(sandbox, outcome, "deadline", "sub-hooks")
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    for pid in pids:  # its process group went with it: no `sleep 40` of this hook is left
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        assert str(hook).encode() not in argv, argv


def unblocked(sandbox: Sandbox, data: bytes, **env: str) -> Outcome:
    """The call's outcome, which must come while what could block it (a held lock, a FIFO
    without a writer) still does: past HANG it was waiting for it (the call is killed and the
    test fails), whatever the load."""
    try:
        return sandbox.call_executable(None, data, env=env, timeout=HANG)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the call waited for what blocks it ({HANG:.0f} s without an answer)")


def test_a_held_audit_lock_never_holds_up_the_answer(sandbox: Sandbox) -> None:
    # how long it waits (LOCK_WAIT) is pinned by tests/audit/test_lock.py on a clock of its own
    sandbox.call_executable(None, encode(pre_tool_use()))  # makes the state dir and the lock
    before = len(sandbox.audit())
    with open(sandbox.state / "audit.jsonl.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held until the call has answered and ended
        outcome = unblocked(sandbox, encode(pre_tool_use(cwd="/no/such/dir")))
        assert len(sandbox.audit()) == before + 1  # written without the lock, whole
    denied_and_audited(sandbox, outcome, "/no/such/dir")


@pytest.mark.parametrize("where", ["config", "cache.key"])
def test_a_fifo_in_place_of_a_file_is_refused_not_waited_for(sandbox: Sandbox, where: str) -> None:
    # nothing ever opens the FIFO's other end: a call that waited for a writer never ends
    project = sandbox.root / "project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    if where == "config":
        fifo = project / ".claude" / "ccbridge.local.yaml"
    else:
        (project / ".claude" / "ccbridge.yaml").write_text("hooks: {}\n")
        fifo = sandbox.state / "cache.key"
    os.mkfifo(fifo)
    outcome = unblocked(sandbox, encode(pre_tool_use(cwd=str(project))), **env)
    denied_and_audited(sandbox, outcome, str(fifo), "not a regular file")
    if where == "cache.key":  # replaced: the next call is judged again
        again = sandbox.call_executable(None, encode(pre_tool_use(cwd=str(project))), env=env)
        assert again.decision == "none", again


def test_a_fifo_in_place_of_the_audit_log_costs_only_the_record(sandbox: Sandbox) -> None:
    os.mkfifo(sandbox.audit_path)
    outcome = unblocked(sandbox, encode(pre_tool_use(cwd="/no/such/dir")))
    assert outcome.decision == "deny", outcome
    assert "could not write the audit record" in outcome.stderr
    assert "not a regular file" in outcome.stderr


def test_a_billion_laughs_config_is_refused_in_well_under_a_second(sandbox: Sandbox) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for before, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{','.join([f'*{before}'] * 9)}]")
    lines.append("hooks: {PreToolUse: [{hooks: [{type: command, command: x, args: *i}]}]}")
    config = sandbox.root / "laughs.yaml"
    config.write_text("\n".join(lines) + "\n")
    outcome, took = timed(sandbox, config, encode(pre_tool_use()))
    assert took < 1 + MARGIN, took
    denied_and_audited(sandbox, outcome, "config error", "aliases", str(config))


def test_an_8_mib_command_is_denied_by_its_size_at_once(sandbox: Sandbox) -> None:
    command = "echo a; " * (1 << 20)  # 8 MiB of the densest kind: minutes for the reader
    outcome, took = timed(sandbox, None, encode(pre_tool_use(command)))
    assert took < 2 + MARGIN, took
    denied_and_audited(sandbox, outcome, str(len(command)), str(MAX_COMMAND_CHARS))


def test_a_command_at_the_reader_cap_is_still_judged(sandbox: Sandbox) -> None:
    """The cap is a size bound, not a blanket refusal: up to it the command is read."""
    command = ("echo a; " * (MAX_COMMAND_CHARS // 8))[:MAX_COMMAND_CHARS]
    outcome, took = timed(sandbox, None, encode(pre_tool_use(command)))
    assert outcome.decision == "none", outcome
    assert took < DEFAULT_DEADLINE, took


def test_a_cwd_that_is_gone_is_denied_without_any_sub_hook(sandbox: Sandbox) -> None:
    for tool in ("Bash", "Write"):
        outcome = sandbox.call_executable(None, encode(pre_tool_use(tool=tool, cwd="/no/such/dir")))
        denied_and_audited(sandbox, outcome, "/no/such/dir", "does not exist")
