"""Point 2: any mix of misbehaving sub-hooks, in any order, folds to the strictest verdict with
the same reason, and leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.sandbox import Outcome, Sandbox, encode, examples, matching, pre_tool_use

MARKER_VAR = "CCBRIDGE_ROBUSTNESS_MARKER"
TIMEOUT = 0.5


def _prints(decision: str) -> str:
    return (
        'printf \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
        f'"permissionDecision":"{decision}","permissionDecisionReason":"{decision}: %s"'
        '}}\' "$1"'
    )


def _answer(decision: str) -> str:
    return "cat >/dev/null\n" + _prints(decision)


# kind -> (script body, what it counts as: deny / ask / none / failure)
BEHAVIOUR: dict[str, tuple[str, str]] = {
    "deny": (_answer("deny"), "deny"),
    "exit2_binary": ("cat >/dev/null\nprintf '\\377\\376 no' >&2\nexit 2", "deny"),
    "ask": (_answer("ask"), "ask"),
    "allow": (_answer("allow"), "none"),
    "silent": ("cat >/dev/null", "none"),
    "plain_text": ("echo 'looks fine to me'", "none"),
    "binary": ("printf '\\377\\376\\000\\001'", "none"),
    # Its answer may still come while a child holds stdout: at the timeout that is a failure.
    "exits_early_child_holds_pipe": ("sleep 30 &\nexit 0", "failure"),
    "denies_then_exits_child_holds_pipe": (_answer("deny") + "\nsleep 30 &\nexit 0", "deny"),
    "denies_late_from_a_child": (f"cat >/dev/null\n(sleep 0.2; {_prints('deny')}) &", "deny"),
    "crash": ("kill -SEGV $$", "failure"),
    "exit1": ("echo oops >&2\nexit 1", "failure"),
    "garbage": ("printf '{garbage'", "failure"),
    "timeout": ("sleep 30", "failure"),
    "ignores_sigterm": ("trap '' TERM\nsleep 30\nsleep 30", "failure"),
    "huge_output": ("head -c 1100000 /dev/zero | tr '\\0' a", "failure"),
    "missing": ("", "failure"),
    "missing_exec": ("", "failure"),
}
SLOW = {
    *("timeout", "ignores_sigterm"),
    *("exits_early_child_holds_pipe", "denies_then_exits_child_holds_pipe"),
}


def handler(sandbox: Sandbox, index: int, kind: str, ignore: bool) -> dict[str, Any]:
    body, _ = BEHAVIOUR[kind]
    name = f"h{index}-{kind}"
    fields: dict[str, Any] = {"type": "command", "name": name}
    if kind == "missing":
        fields["command"] = f"/nonexistent/ccbridge-missing {name}"
    elif kind == "missing_exec":
        fields.update(command="/nonexistent/ccbridge-missing", args=[name])
    else:
        script = sandbox.script(f"{kind}.sh", body)
        fields["command"] = f"{script} {name}"
    if kind in SLOW:
        fields["timeout"] = TIMEOUT
    if ignore:
        fields["onFailure"] = "ignore"
    return fields


def expected(mix: list[tuple[str, bool]]) -> tuple[str, set[str]]:
    """The folded decision and the names of the hooks whose reasons it must carry."""
    ranks = {}
    for index, (kind, ignore) in enumerate(mix):
        rank = BEHAVIOUR[kind][1]
        ranks[f"h{index}-{kind}"] = (
            "none" if rank == "failure" and ignore else ("deny" if rank == "failure" else rank)
        )
    for decision in ("deny", "ask"):
        names = {name for name, rank in ranks.items() if rank == decision}
        if names:
            return decision, names
    return "none", set()


def survivors(marker: str) -> list[int]:
    """Live (non-zombie) processes that carry the marker in their environment."""
    found = []
    needle = f"{MARKER_VAR}={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if state != "Z" and needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def assert_none_left(marker: str, tries: int = 100) -> None:
    # A SIGKILLed process can take a moment to leave /proc; a survivor stays for good.
    for _ in range(tries):
        left = survivors(marker)
        if not left:
            return
        time.sleep(0.05)
    assert not left, f"processes left behind: {left}"


def run_mix(sandbox: Sandbox, mix: list[tuple[str, bool]], order: list[int]) -> Outcome:
    hooks = [handler(sandbox, index, *mix[index]) for index in order]
    config = sandbox.write_config(matching(hooks), name=f"mix-{uuid.uuid4().hex}.yaml")
    marker = uuid.uuid4().hex
    outcome = sandbox.call(config, encode(pre_tool_use()), {MARKER_VAR: marker})
    assert_none_left(marker)
    return outcome


mixes = st.lists(
    st.tuples(st.sampled_from(sorted(BEHAVIOUR)), st.booleans()), min_size=1, max_size=6
)


@examples(0.25)
@given(mix=mixes, data=st.data())
def test_any_mix_in_any_order(
    sandbox: Sandbox, mix: list[tuple[str, bool]], data: st.DataObject
) -> None:
    order = data.draw(st.permutations(range(len(mix))))
    first = run_mix(sandbox, mix, list(range(len(mix))))
    second = run_mix(sandbox, mix, list(order))
    decision, names = expected(mix)
    for outcome in (first, second):
        assert outcome.exit_code == (2 if decision == "deny" else 0)
        assert outcome.decision == decision, (mix, outcome)
        assert "Traceback" not in outcome.stderr
        for name in names:
            assert f"[{name}]" in outcome.reason
    # Not a byte of the verdict depends on the order (system messages keep config order).
    assert (second.exit_code, second.decision, second.reason) == (
        first.exit_code,
        first.decision,
        first.reason,
    )


def test_every_misbehaviour_at_once_through_the_executable(sandbox: Sandbox) -> None:
    mix = [(kind, False) for kind in sorted(BEHAVIOUR)]
    config = sandbox.write_config(
        matching([handler(sandbox, i, *item) for i, item in enumerate(mix)])
    )
    marker = uuid.uuid4().hex
    outcome = sandbox.call_executable(config, encode(pre_tool_use()), {MARKER_VAR: marker})
    assert_none_left(marker)
    decision, names = expected(mix)
    assert (outcome.exit_code, outcome.decision) == (2, decision)
    assert {name for name in names if f"[{name}]" in outcome.reason} == names


def test_the_process_check_sees_a_survivor(sandbox: Sandbox) -> None:
    """The no-survivor check above can fail: a process that escaped is found."""
    marker = uuid.uuid4().hex
    pid = os.spawnve(
        os.P_NOWAIT, "/bin/sleep", ["sleep", "30"], {**sandbox.env, MARKER_VAR: marker}
    )
    try:
        for _ in range(100):  # until the child has exec'd with its own environment
            if survivors(marker):
                break
            time.sleep(0.05)
        assert survivors(marker) == [pid]
        with pytest.raises(AssertionError, match=f"processes left behind: \\[{pid}\\]"):
            assert_none_left(marker, tries=2)
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)


def test_sigterm_to_ccbridge_still_kills_every_sub_hook(sandbox: Sandbox) -> None:
    """A host that gives up on ccbridge (SIGTERM) leaves no sub-hook running, and gets a deny."""
    marker = uuid.uuid4().hex
    hook = sandbox.script("stubborn.sh", "trap '' TERM\nsleep 30 &\nsleep 30")
    config = sandbox.write_config(matching([{"type": "command", "command": str(hook)}]))
    bridge = subprocess.Popen(
        sandbox.command(config),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**sandbox.env, MARKER_VAR: marker},
    )
    assert bridge.stdin
    bridge.stdin.write(encode(pre_tool_use()))
    bridge.stdin.close()
    for _ in range(400):  # until the sub-hook runs (bounded, not a timing assertion)
        if len(survivors(marker)) >= 3:
            break
        time.sleep(0.05)
    bridge.send_signal(signal.SIGTERM)
    bridge.wait(timeout=60)
    assert_none_left(marker)
    assert bridge.stdout and bridge.stderr
    with bridge.stdout, bridge.stderr:
        outcome = Outcome(bridge.returncode, bridge.stdout.read(), bridge.stderr.read().decode())
    assert (outcome.exit_code, outcome.decision) == (2, "deny")
    assert "stopped by signal" in outcome.reason
    assert sandbox.audit()[-1]["final"]["decision"] == "deny"


def test_identical_handlers_run_once_and_fail_as_the_strictest_copy(sandbox: Sandbox) -> None:
    """An `onFailure: ignore` copy listed first does not hide a `block` copy of the same
    command, in either order; and the command runs once, not once per copy."""
    runs = sandbox.root / "runs"
    script = sandbox.script("counted_failure.sh", f"echo run >> {runs}\nexit 1")
    ignoring = {"type": "command", "command": str(script), "onFailure": "ignore"}
    blocking = {"type": "command", "command": str(script)}
    for copies in ([ignoring, blocking], [blocking, ignoring]):
        runs.write_text("")
        outcome = sandbox.call_executable(
            sandbox.write_config(matching(copies)), encode(pre_tool_use())
        )
        assert (outcome.exit_code, outcome.decision) == (2, "deny"), copies
        assert runs.read_text() == "run\n"


# A hook whose descendants leave its process group: `setsid`, a double fork, and one that also
# drops its environment (so no marker finds it: its pid is written down instead).
ESCAPES = """cat >/dev/null
setsid sleep 30 &
( setsid sh -c 'sleep 30 & exit 0' & )
env -i /bin/sh -c 'setsid /bin/sleep 30 & echo $! > "$0"' "$1"
{tail}"""


def still_runs(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return "(sleep)" in stat and stat.rsplit(")", 1)[1].split()[0] != "Z"


def escaping(sandbox: Sandbox, tail: str, timeout: float = 20) -> tuple[Path, Path]:
    pid_file = sandbox.root / f"escaped-{uuid.uuid4().hex}"
    script = sandbox.script("escapes.sh", ESCAPES.format(tail=tail))
    hooks = [{"type": "command", "command": f"{script} {pid_file}", "timeout": timeout}]
    return sandbox.write_config(matching(hooks), name=f"escapes-{uuid.uuid4().hex}.yaml"), pid_file


def test_descendants_that_leave_the_group_do_not_outlive_the_call(sandbox: Sandbox) -> None:
    config, pid_file = escaping(sandbox, "exit 0", timeout=1)
    marker = uuid.uuid4().hex
    outcome = sandbox.call_executable(config, encode(pre_tool_use()), {MARKER_VAR: marker})
    # They hold its stdout, so its answer is unfinished at the timeout: a failure.
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "still held its stdout open" in outcome.reason
    assert_none_left(marker)
    escaped = int(pid_file.read_text())
    for _ in range(100):  # SIGKILL delivery is asynchronous; a survivor stays for good
        if not still_runs(escaped):
            break
        time.sleep(0.05)
    assert not still_runs(escaped), f"the setsid child {escaped} without environment survived"


def test_sigkill_to_ccbridge_leaves_no_sub_hook_running(sandbox: Sandbox) -> None:
    """ccbridge cannot clean up after a SIGKILL: its watchdog does (groups and marked
    processes), for the hook, its children and those that left the group."""
    config, pid_file = escaping(sandbox, "sleep 30")
    marker = uuid.uuid4().hex
    bridge = subprocess.Popen(
        sandbox.command(config),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**sandbox.env, MARKER_VAR: marker},
    )
    assert bridge.stdin
    bridge.stdin.write(encode(pre_tool_use()))
    bridge.stdin.close()
    # ccbridge, its watchdog, `sh -c`, the script and its 3 sleeps that keep the environment.
    for _ in range(400):  # until the hook and its children run (bounded, not timed)
        if len(survivors(marker)) >= 7 and pid_file.exists():
            break
        time.sleep(0.05)
    assert len(survivors(marker)) >= 7, survivors(marker)
    bridge.kill()
    bridge.wait(timeout=60)
    try:
        assert_none_left(marker)
    finally:  # out of reach once ccbridge is dead: it left the group and dropped the marker
        with contextlib.suppress(ValueError, OSError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


ALLOW = (
    'cat >/dev/null; printf \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
    '"permissionDecision":"allow","permissionDecisionReason":"fine"}}\''
)


def test_a_sub_hooks_allow_does_not_skip_native_pre_execute_policies(sandbox: Sandbox) -> None:
    """`allow` is no opinion: the pre-execute policies after the sub-hooks still decide."""
    (sandbox.root / "policy.py").write_text(
        "from bridge.pipeline import Deny\n\n"
        "def pre(execution, next_):\n"
        "    return Deny('the policy says no')\n"
    )
    hooks = matching([{"type": "command", "command": str(sandbox.script("allow.sh", ALLOW))}])
    config = sandbox.write_config(hooks, policies={"pre_execute": ["policy.py:pre"]})
    outcome = sandbox.call(config, encode(pre_tool_use()))
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "the policy says no" in outcome.reason
