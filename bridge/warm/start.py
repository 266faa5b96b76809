"""Starting the warm server, from the `ccbridge run` of a call the client could not hand over.

The client asks for one by naming its Claude Code process in CCBRIDGE_WARM (it does so only
where `socat` is there to reach one). Nothing starts unless that process is the Claude Code
process above this one and the environment is a hook's (CLAUDECODE=1): a test or a shell that
runs `ccbridge run` starts nothing, and nothing starts elsewhere than on Linux. The server is
started in a session of its own with its standard streams on /dev/null, so it holds none of
Claude Code's pipes, and this call does not wait for it.
"""

from __future__ import annotations

import os
import sys

from bridge.goal.activation import find_cc_process
from bridge.subhooks import spawn
from bridge.warm.server import directory, private_directory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

WARM_ENV = "CCBRIDGE_WARM"
# A server that did not come up (it could not start, or died at once) is not started again for
# this long: every call would pay for one more that fails the same way.
RETRY_AFTER = 30.0


def wanted(env: Mapping[str, str]) -> bool:
    """Linux only: the server's checks read /proc, and it watches Claude Code with a pidfd."""
    return bool(env.get(WARM_ENV)) and env.get("CLAUDECODE") == "1" and sys.platform == "linux"


def start_server(env: Mapping[str, str]) -> int | None:
    """Start a server for the Claude Code process above us; its pid, or None."""
    named = env.get(WARM_ENV, "")
    served = find_cc_process()
    if served is None or not named.isdigit() or int(named) != served.pid:
        return None
    where = directory(env)
    if not private_directory(where) or _being_served(where, served.pid):
        return None
    if not _may_try(os.path.join(where, f"{served.pid}.tried")):
        return None
    argv = [sys.executable, "-I", *_ccbridge(), "warm-serve", str(served.pid)]
    argv.append(str(served.start_time))
    clean = {name: value for name, value in env.items() if name != WARM_ENV}
    null = os.open(os.devnull, os.O_RDWR)
    try:
        return spawn.start(sys.executable, argv, clean, (null, null, null), spawn.inherited())
    finally:
        os.close(null)


def _may_try(marker: str) -> bool:
    """Whether a start may be tried now; if so, the try is noted (the server removes it)."""
    import time

    try:
        if time.time() - os.stat(marker).st_mtime < RETRY_AFTER:
            return False
    except FileNotFoundError:
        pass
    try:
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        os.utime(marker)
    except OSError:
        return False
    return True


def _being_served(where: str, pid: int) -> bool:
    """A server holds the lock of this process (it is starting, or it runs)."""
    import fcntl

    try:
        lock = os.open(os.path.join(where, f"{pid}.lock"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(lock)
    return False


def _ccbridge() -> list[str]:
    """How this ccbridge was started: its script, else the package as a module."""
    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script) == "ccbridge" and os.path.isfile(script):
        return [os.path.abspath(script)]
    return ["-m", "bridge"]
