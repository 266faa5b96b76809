"""Who is on the other end of a warm connection, and the hook process it speaks for.

The kernel tells the connecting process (SO_PEERCRED: its pid and uid, as this process's pid
namespace sees them, whatever namespace the peer runs in). From there up, the chain must be the
one Claude Code's hook runner makes for the registration's client: `socat`, one or more shells,
then the Claude Code process the server serves (pid and start time, so a recycled pid is not
it). The shell right below Claude Code is the hook process: its environment, working directory
and umask are the ones `ccbridge run` would have had. On top of the shape, the goal module's
provenance walk must find neither Claude Code's Bash tool nor the sandbox anywhere above the
client: a command the model runs has the tool's shell above it, or the sandbox's marks.
"""

from __future__ import annotations

import os
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

from bridge.goal.activation import ProcessIdentity, read_stat
from bridge.goal.provenance import is_bash_tool, sandboxed

CLIENT = "socat"
HOOK_SHELLS = frozenset({"sh", "bash", "dash", "zsh"})  # what a hook runner starts a command with
# socat, the command substitution's shell, the hook's shell: a few more for a wrapper shell.
_MAX_HOPS = 8
_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid


@dataclass(frozen=True, slots=True)
class HookProcess:
    """The process Claude Code started for this hook call, as `ccbridge run` would have seen it."""

    pid: int
    environ: dict[str, str]
    cwd: str
    umask: int


def credentials(connection: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process that connected."""
    raw = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CREDENTIALS.size)
    pid, uid, _gid = _CREDENTIALS.unpack(raw)
    return pid, uid


def hook_process(
    client: int, uid: int, served: ProcessIdentity, proc: Path = Path("/proc")
) -> HookProcess | str:
    """The hook process `client` speaks for, or why it is not one to answer."""
    if uid != os.getuid():
        return f"the client runs as uid {uid}"
    status = _read(proc / str(client) / "status")
    if status is None or sandboxed(status):
        return f"the client (pid {client}) runs inside the sandbox, or cannot be read"
    stat = read_stat(proc, client)
    if stat is None or stat.name != CLIENT:
        return f"the client (pid {client}) is not {CLIENT}"
    pid, parent = client, stat.parent
    for _ in range(_MAX_HOPS):
        if _bash_tool(proc, pid):
            return f"process {pid} is Claude Code's Bash tool, or below it"
        above = read_stat(proc, parent)
        if above is None:
            return f"cannot read process {parent} above the client"
        if parent == served.pid:
            if above.start_time != served.start_time:
                return "the Claude Code process this server served is gone"
            if pid == client:
                return "the client is not run by a shell"
            return _described(pid, proc)
        if above.name not in HOOK_SHELLS:
            return f"process {parent} ({above.name}) between the client and Claude Code"
        pid, parent = parent, above.parent
    return "the client is not below the Claude Code process this server serves"


def _bash_tool(proc: Path, pid: int) -> bool:
    """Whether `pid` carries the Bash tool's marks (bridge.goal.provenance): a process the
    tool started has its environment, whatever it exec'd since; its shell, the command line."""
    environ = _read(proc / str(pid) / "environ")
    cmdline = _read(proc / str(pid) / "cmdline")
    return environ is None or cmdline is None or is_bash_tool(environ, cmdline)


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:
        return None


def _described(pid: int, proc: Path) -> HookProcess | str:
    base = proc / str(pid)
    try:
        with open(base / "environ", "rb") as file:
            environ = file.read()
        with open(base / "status", "rb") as file:
            status = file.read()
        cwd = os.readlink(base / "cwd")
    except OSError as problem:
        return f"cannot read the hook process {pid}: {problem.strerror}"
    if not os.path.isdir(cwd):  # deleted: the kernel says "<path> (deleted)"
        return f"the hook process's working directory is gone: {cwd}"
    umask = 0o022
    for line in status.splitlines():
        if line.startswith(b"Umask:"):
            umask = int(line.split(b":", 1)[1], 8)
    variables = {}
    for item in environ.split(b"\0"):
        name, equals, value = item.partition(b"=")
        if equals and name:
            variables[os.fsdecode(name)] = os.fsdecode(value)
    return HookProcess(pid, variables, cwd, umask)
