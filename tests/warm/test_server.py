"""The warm server (bridge/warm/server.py) as the real processes run it: the test process plays
Claude Code (tests/conftest.py names it so), a server serves it, and the registration's client
(`sh -c`, `socat`) hands it calls. It answers exactly what `ccbridge run` answers, in a child
that stood in for the hook process; it refuses clients that are not a hook's; the first call
that finds no server starts one; a server ends with its Claude Code process, and a stale socket
is replaced."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.config import registrations
from bridge.warm.server import READ_TIMEOUT, code_signature, fallback
from tests.robustness.test_time_bounds import SWALLOWS_THE_DEADLINE
from tests.support.sandbox import CCBRIDGE, Sandbox, encode, pre_tool_use

pytestmark = pytest.mark.skipif(shutil.which("socat") is None, reason="needs socat")

START_WAIT = 30.0  # a server's start on a loaded 2-core machine


def start_time(pid: int) -> int:
    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rfind(")") + 2 :].split()[19])


WHO = r"""p=$PPID; line=
while [ "$p" -gt 1 ]; do
  line="$line|$(tr '\0' ' ' < /proc/$p/cmdline)"
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
case $line in *" warm-serve "*) echo warm;; *) echo cold;; esac >> RAN_BY
printf '%s\n' "${CCBRIDGE_WARM-}" >> RAN_BY.env
if grep -q forbidden; then echo "no forbidden things" >&2; exit 2; fi"""


class World:
    """A sandbox whose project config runs both guards and a sub-hook that writes down which
    process ran it (the warm server's child still has the server's command line): one word a
    run, since an ancestor's command line may hold newlines (a CI runner's `bash -c` script)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.ran_by = sandbox.root / "ran-by"
        body = WHO.replace("RAN_BY", str(self.ran_by))
        hook = sandbox.script("who.sh", body)
        config = {
            "policies": {"guards": ["builtin:dangerous_shell", "builtin:protect_paths"]},
            "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": str(hook)}]}]},
        }
        sandbox.write(sandbox.config, json.dumps(config))
        self.warm_dir = sandbox.state / "warm"
        self.socket = self.warm_dir / str(os.getpid())
        self.env = {**sandbox.env, "CLAUDE_PROJECT_DIR": str(sandbox.project)}
        self.registration = registrations.warm(
            "PreToolUse", registrations.registration_command(str(CCBRIDGE))
        )
        self.servers: list[int] = []

    def call(
        self, command: str, registration: str | None = None, **env: str
    ) -> tuple[int, bytes, bytes]:
        event = pre_tool_use(command, cwd=str(self.sandbox.project))
        done = subprocess.run(
            ["/bin/sh", "-c", registration or self.registration],
            input=encode(event),
            capture_output=True,
            cwd=self.sandbox.project,
            env={**self.env, **env},
            timeout=90,
        )
        return done.returncode, done.stdout, done.stderr

    def judges(self) -> list[str]:
        words = self.ran_by.read_text().split() if self.ran_by.exists() else []
        self.ran_by.unlink(missing_ok=True)
        return words

    def start(self, pid: int | None = None) -> subprocess.Popen[bytes]:
        served = os.getpid() if pid is None else pid
        server = subprocess.Popen(
            [
                sys.executable,
                "-I",
                str(CCBRIDGE),
                "warm-serve",
                str(served),
                str(start_time(served)),
            ],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.servers.append(server.pid)
        self.wait_for(self.warm_dir / str(served))
        return server

    def wait_for(self, path: Path) -> None:
        until = time.monotonic() + START_WAIT
        while not path.is_socket():
            assert time.monotonic() < until, f"no server at {path}"
            time.sleep(0.05)

    def stop_all(self) -> None:
        """End the servers this test started, itself or through a call (their lock files name
        them); a pid is killed only while it is still a warm server (pids are reused)."""
        for lock in self.warm_dir.glob("*.lock") if self.warm_dir.exists() else ():
            text = lock.read_text().strip()
            if text.isdigit():
                self.servers.append(int(text))
        for pid in self.servers:
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"warm-serve" in argv:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = World(Sandbox(tmp_path))
    yield made
    made.stop_all()


COMMANDS = ["ls -la", "rm -rf /", "git push --force origin main", "echo forbidden", "cat .env"]


def test_a_warm_answer_is_the_answer_of_ccbridge_run(world: World) -> None:
    cold = [
        world.call(command, registrations.registration_command(str(CCBRIDGE)))
        for command in COMMANDS
    ]
    assert world.judges() == ["cold"] * len(COMMANDS)
    world.start()
    warm = [world.call(command) for command in COMMANDS]
    assert world.judges() == ["warm"] * len(COMMANDS)
    assert warm == cold
    decisions = [
        json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "none"
        for _, out, _ in warm
    ]
    assert decisions == ["none", "deny", "deny", "deny", "none"], warm
    assert b"[who.sh] no forbidden things" in warm[3][2]  # the sub-hook's own deny


def test_the_warm_call_is_audited_as_the_cold_one(world: World) -> None:
    world.call("rm -rf /", registrations.registration_command(str(CCBRIDGE)))
    world.start()
    world.call("rm -rf /")
    cold, warm = world.sandbox.audit()[-2:]
    for record in (cold, warm):
        record.pop("ts"), record.pop("duration_ms", None)
        for hook in record.get("subhooks", []):
            hook.pop("duration_ms", None)
    assert warm == cold


def test_the_first_call_without_a_server_starts_one(world: World) -> None:
    assert world.call("ls", CLAUDECODE="1")[0] == 0
    assert world.judges() == ["cold"]
    world.wait_for(world.socket)
    assert world.call("ls", CLAUDECODE="1")[0] == 0
    assert world.judges() == ["warm"]


def test_the_request_for_a_server_is_not_passed_to_the_sub_hooks(world: World) -> None:
    """The client asks `ccbridge run` for a server in CCBRIDGE_WARM; a sub-hook sees the hook's
    environment as Claude Code made it, cold as warm."""
    world.call("ls")  # no server: the client asks for one
    assert world.judges() == ["cold"]
    assert Path(f"{world.ran_by}.env").read_text() == "\n"


def test_outside_claude_codes_hooks_no_server_starts(world: World) -> None:
    """CLAUDECODE unset: a shell or a test that runs the registration starts nothing."""
    world.call("ls")
    time.sleep(1)
    assert not world.warm_dir.exists() or not any(world.warm_dir.iterdir())


def test_a_stale_socket_is_replaced(world: World) -> None:
    world.warm_dir.mkdir(mode=0o700, parents=True)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(world.socket))  # bound, never listening: a killed server's
    dead.close()
    assert world.call("rm -rf /", CLAUDECODE="1")[0] == 2  # judged all the same
    assert world.judges() == ["cold"]
    until = time.monotonic() + START_WAIT
    while world.call("echo forbidden", CLAUDECODE="1")[0] == 2 and world.judges() != ["warm"]:
        assert time.monotonic() < until, "no new server took the stale socket's place"
        time.sleep(0.2)


@pytest.mark.parametrize(
    "connect",
    [
        # the model's own socat, below a shell carrying the Bash tool's mark
        "env CLAUDE_CODE_EXECPATH=/opt/claude bash -c "
        '\'printf %s "$0" | socat -t 30 - UNIX-CONNECT:"$1"\'',
        # python connecting itself (socat is not what connects)
        "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[2]); "
        "s.sendall(sys.argv[1].encode()); s.shutdown(1); "
        'sys.stdout.buffer.write(b"".join(iter(lambda: s.recv(99), b"")))\'',
    ],
    ids=["bash-tool", "python"],
)
def test_a_client_that_is_not_a_hook_gets_only_a_fallback(world: World, connect: str) -> None:
    world.start()
    forged = json.dumps(pre_tool_use("echo forbidden", cwd=str(world.sandbox.project)))
    argv = ["/bin/sh", "-c", f"{connect} '{forged}' '{world.socket}'"]
    done = subprocess.run(argv, capture_output=True, env=world.env, timeout=30)
    assert done.stdout == fallback(forged.encode())
    assert world.judges() == []  # nothing was judged: the sub-hook never ran


def test_a_server_ends_with_its_claude_code_process(world: World) -> None:
    stand_in = subprocess.Popen(["sleep", "60"])
    try:
        server = world.start(stand_in.pid)
        lock = world.warm_dir / f"{stand_in.pid}.lock"
        assert lock.read_text().strip() == str(server.pid)
        stand_in.kill()
        stand_in.wait()
        assert server.wait(timeout=START_WAIT) == 0
        assert not (world.warm_dir / str(stand_in.pid)).exists() and not lock.exists()
    finally:
        stand_in.kill()


def test_one_server_per_claude_code_process(world: World) -> None:
    world.start()
    second = subprocess.run(
        [
            sys.executable,
            "-I",
            str(CCBRIDGE),
            "warm-serve",
            str(os.getpid()),
            str(start_time(os.getpid())),
        ],
        env=world.env,
        capture_output=True,
        timeout=START_WAIT,
    )
    assert second.returncode == 0  # ends at once: the first one holds the lock
    world.call("ls")
    assert world.judges() == ["warm"]


def test_a_server_for_a_recycled_pid_does_not_serve(world: World) -> None:
    done = subprocess.run(
        [sys.executable, "-I", str(CCBRIDGE), "warm-serve", str(os.getpid()), "1"],
        env=world.env,
        capture_output=True,
        timeout=START_WAIT,
    )
    assert done.returncode == 0
    assert not world.socket.exists()
    assert not (world.warm_dir / f"{os.getpid()}.lock").exists()


def test_a_policy_that_swallows_the_deadline_is_stopped_hard_warm_too(world: World) -> None:
    policy = world.sandbox.root / "stubborn.py"
    policy.write_text(SWALLOWS_THE_DEADLINE)
    config = {"defaults": {"deadline": 2}, "policies": {"guards": [f"{policy}:guard"]}}
    world.sandbox.write(world.sandbox.config, json.dumps(config))
    world.start()
    code, out, err = world.call("ls")
    assert code == 2
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "2 s + 3 s" in reason and b"2 s + 3 s" in err


def test_a_client_that_connects_and_says_nothing_holds_up_no_other_call(world: World) -> None:
    """A connection that never sends its event holds one child until READ_TIMEOUT; the next
    call is taken by another, at once."""
    world.start()
    with socket.socket(socket.AF_UNIX) as silent:
        silent.connect(str(world.socket))
        started = time.monotonic()
        code, out, _ = world.call("echo forbidden")
        assert time.monotonic() - started < READ_TIMEOUT / 2
    assert code == 2 and b"no forbidden things" in out
    assert world.judges() == ["warm"]


def test_spares_rehearse_without_running_the_projects_hooks_or_writing_the_audit(
    world: World,
) -> None:
    """A spare judges a made-up call before it waits (bridge.warm.rehearsal): the project's
    sub-hook never runs for it and the audit log holds only the real call."""
    world.start()
    until = time.monotonic() + START_WAIT
    while len(spares(world)) < 2:  # the second spare rehearses before it waits
        assert time.monotonic() < until, "the spares never came"
        time.sleep(0.05)
    time.sleep(1.0)  # time for a rehearsal (some 10 ms) on a loaded machine
    assert world.judges() == []
    assert world.sandbox.audit() == []
    world.call("ls")
    assert world.judges() == ["warm"]
    assert [record["event"] for record in world.sandbox.audit()] == ["PreToolUse"]


def spares(world: World) -> list[int]:
    """The children of the server this test started last (waiting, or judging a call)."""
    server = world.servers[-1]
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            text = stat.read_text()
            if int(text[text.rfind(")") + 2 :].split()[1]) == server:
                found.append(int(stat.parent.name))
    return found


def test_while_a_call_is_judged_one_spare_waits_and_two_after(world: World) -> None:
    """A new spare's fork and rehearsal would take CPU from the call being judged: one spare is
    kept for a call that comes meanwhile, the second is forked once the call is over."""
    hook = world.sandbox.script("slow.sh", "cat >/dev/null; sleep 2")
    config = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}
    world.sandbox.write(world.sandbox.config, json.dumps(config))
    world.start()
    until = time.monotonic() + START_WAIT
    while len(spares(world)) < 2:
        assert time.monotonic() < until, "the spares never came"
        time.sleep(0.05)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        call = pool.submit(world.call, "ls")
        time.sleep(1.0)  # the call's child runs the slow hook
        assert len(spares(world)) == 2  # the judging child and one spare
        assert call.result(timeout=60)[0] == 0
    until = time.monotonic() + START_WAIT
    while len(spares(world)) < 2:
        assert time.monotonic() < until, "no second spare after the call"
        time.sleep(0.05)


def test_the_server_loads_what_a_call_needs_and_not_the_command_lines_packages() -> None:
    """The warm-up finds ccbridge's modules on disk: importing each package to walk it would load
    click and pydantic (the command line, compiling a config) into the server and every child."""
    probe = (
        "import sys; from bridge.warm import server; server._warm_up(); "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('bridge', 'click', 'pydantic', 'yaml'))))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert {"bridge.hookcall", "bridge.engine", "bridge.guards.protect.protect_paths"} <= loaded
    assert {"bridge.warm.rehearsal", "bridge.subhooks.runner", "bridge.goal.cc"} <= loaded
    assert not {name for name in loaded if name.split(".")[0] in ("click", "pydantic", "yaml")}
    assert not {name for name in loaded if name.startswith(("bridge.cli", "bridge.commands"))}


# A sub-hook that writes down the pid of the warm child that ran it (the first process above it
# with the server's command line).
CHILD = r"""cat >/dev/null; p=$PPID
while [ "$p" -gt 1 ]; do
  case $(tr '\0' ' ' < /proc/$p/cmdline) in *" warm-serve "*) echo "$p" >> CHILDREN; exit 0;; esac
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done"""


def children_of_calls(world: World, calls: int, **config: object) -> list[str]:
    """The warm child of each of `calls` calls, with `config` beside a sub-hook that says it."""
    record = world.sandbox.root / "children"
    hook = world.sandbox.script("child.sh", CHILD.replace("CHILDREN", str(record)))
    handler = {"type": "command", "command": str(hook)}
    body = {**config, "hooks": {"PreToolUse": [{"hooks": [handler]}]}}
    world.sandbox.write(world.sandbox.config, json.dumps(body))
    world.start()
    for _ in range(calls):
        assert world.call("ls")[0] == 0
        time.sleep(0.3)  # the child is back to waiting
    return record.read_text().split()


def test_a_child_serves_one_call_after_another(world: World) -> None:
    children = children_of_calls(world, 4)
    assert len(children) == 4
    assert len(set(children)) < 4  # no fork a call


def test_a_call_that_loaded_a_policy_file_ends_its_child(world: World) -> None:
    """A policy file is loaded once per process: the child that loaded it takes no other call,
    so an edit to it counts from the next call on, as with `ccbridge run`."""
    policy = world.sandbox.root / "mine.py"
    policy.write_text("def guard(execution):\n    return None\n")
    children = children_of_calls(world, 3, policies={"guards": [f"{policy}:guard"]})
    assert len(set(children)) == 3
    policy.write_text("def guard(execution):\n    return 'edited: no ls'\n")
    code, out, _ = world.call("ls")
    assert code == 2 and "edited: no ls" in out.decode()


def test_the_code_signature_sees_an_upgrade(tmp_path: Path) -> None:
    """What ends a server once ccbridge's files change (an upgrade): a changed, added or
    removed module changes the signature; byte code caches do not."""
    package = tmp_path / "bridge"
    (package / "warm" / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "warm" / "server.py").write_text("x = 1\n")
    before = code_signature(str(package))
    (package / "warm" / "__pycache__" / "server.cpython-311.pyc").write_bytes(b"\0")
    assert code_signature(str(package)) == before
    (package / "warm" / "server.py").write_text("x = 22\n")
    changed = code_signature(str(package))
    assert changed != before
    (package / "warm" / "new.py").write_text("")
    assert code_signature(str(package)) not in (before, changed)
