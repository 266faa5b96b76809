"""After a SIGKILL of the real `ccbridge run`, its watchdog kills each hook's whole process
group, not only the hook's own process: a child that stayed in the group but dropped its
environment (so no token sweep can find it) dies too."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.sandbox import Sandbox, encode, matching, pre_tool_use

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="Linux only")

# The hook's child keeps its process group but not its environment: only the group finds it.
HOOK = 'cat >/dev/null\nenv -i /bin/sleep 300 &\necho $! > "$0.child"\nwait'


def state(pid: int) -> str | None:
    """The process's state letter and name, None once it is gone."""
    try:
        name, _, rest = Path(f"/proc/{pid}/stat").read_text().partition(") ")
    except OSError:
        return None
    return f"{rest.split()[0]} {name.split('(', 1)[1]}"


def alive(pid: int) -> bool:
    seen = state(pid)
    return seen is not None and not seen.startswith(("Z", "X"))


def carries_no_token(pid: int) -> bool:
    """Only its process group can find such a process."""
    return b"CCBRIDGE_HOOK_RUN=" not in Path(f"/proc/{pid}/environ").read_bytes()


def test_sigkill_of_ccbridge_kills_the_hooks_whole_process_group(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    script = sandbox.script("group.sh", HOOK)
    config = sandbox.write_config(matching([{"type": "command", "command": str(script)}]))
    child_file = Path(f"{script}.child")
    event = tmp_path / "event.json"
    event.write_bytes(encode(pre_tool_use()))
    with open(event, "rb") as stdin:
        bridge = subprocess.Popen(
            sandbox.command(config),
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=sandbox.env,
        )
    child = None
    try:
        for _ in range(1200):  # until the child runs `sleep` (bounded, not timed)
            if child is None and child_file.exists() and child_file.read_text().strip():
                child = int(child_file.read_text())
            if child is not None and (state(child) or "").endswith("sleep"):
                break
            time.sleep(0.05)
        assert child is not None and alive(child), "the hook's child never ran"
        assert os.getpgid(child) != os.getpgid(0)  # in the hook's group, not the test's
        assert carries_no_token(child)
        bridge.kill()
        bridge.wait(timeout=60)
        for _ in range(400):  # the watchdog acts once it sees ccbridge gone
            if not alive(child):
                break
            time.sleep(0.05)
        assert not alive(child), f"the hook's child {child} outlived the SIGKILL of ccbridge"
    finally:
        if bridge.poll() is None:
            bridge.kill()
            bridge.wait()
        if child is not None:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
