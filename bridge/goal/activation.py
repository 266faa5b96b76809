"""Which Claude Code process we run under: activation ("armed") is bound to it and dies with it.

Hook commands are children of Claude Code, usually through `sh -c` and a Python launcher, so we
walk up from our parent past those until the first other process. Its pid, its start time (from
/proc/<pid>/stat) and the boot id together name that one process run: a restarted, resumed or
forked Claude Code is a different process and therefore starts disarmed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

PASS_THROUGH = frozenset({"sh", "bash", "dash", "zsh", "ccbridge"})
_PYTHON = re.compile(r"python[0-9.]*")
_MAX_HOPS = 16
# The hook process this call speaks for, when it is not this process: a warm ccbridge answers
# for its client's hook process (bridge.warm). Empty: this process, as `ccbridge run` is.
_STAND_IN: list[int] = []


def stand_in(pid: int) -> None:
    """From now on the process checks judge `pid` as the hook process, not this one."""
    _STAND_IN[:] = [pid]


def hook_pid() -> int:
    """The hook process: this one, or the one a warm ccbridge answers for."""
    return _STAND_IN[0] if _STAND_IN else os.getpid()


@dataclass(frozen=True, slots=True)
class ProcessIdentity:
    pid: int
    start_time: int
    boot_id: str


@dataclass(frozen=True, slots=True)
class Stat:
    name: str
    parent: int
    start_time: int


def read_stat(proc: Path, pid: int) -> Stat | None:
    try:
        text = (proc / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # The name sits in parentheses and may itself hold spaces or parentheses.
    open_paren, close_paren = text.find("("), text.rfind(")")
    fields = text[close_paren + 2 :].split()
    if open_paren < 0 or close_paren < open_paren or len(fields) < 20:
        return None
    try:
        # After the name: state, ppid, ... starttime is field 22 of stat, index 19 here.
        return Stat(text[open_paren + 1 : close_paren], int(fields[1]), int(fields[19]))
    except ValueError:
        return None


def passes_through(name: str) -> bool:
    return name in PASS_THROUGH or bool(_PYTHON.fullmatch(name))


def find_cc_process(
    start_pid: int | None = None, proc: Path = Path("/proc")
) -> ProcessIdentity | None:
    """The Claude Code process above us, or None when it cannot be told (then nothing arms)."""
    try:
        boot_id = (proc / "sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return None
    # A stand-in is a shell right below Claude Code, which the walk passes through.
    pid = start_pid if start_pid is not None else (_STAND_IN or [os.getppid()])[0]
    for _ in range(_MAX_HOPS):
        if pid <= 1:
            return None
        stat = read_stat(proc, pid)
        if stat is None:
            return None
        if not passes_through(stat.name):
            return ProcessIdentity(pid, stat.start_time, boot_id)
        pid = stat.parent
    return None
