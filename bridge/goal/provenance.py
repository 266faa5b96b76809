"""Whether this process is a hook Claude Code started, or something its Bash tool started.

Host events that grant goal authority (a human's prompt, a Stop, a goal change) count only
when the hook process recording them is Claude Code's own. Hook input is text anyone can
write, and environment variables can be unset, so this is judged from the process tree: every
ancestor, up to the first process this user cannot read, is checked for the marks of Claude
Code's Bash tool, seen with Claude Code 2.1.197 and 2.1.332:

- its shell is `bash -c 'source <home>/.claude/shell-snapshots/snapshot-... && eval ...'`, and
- its environment (as exec'd, `/proc/<pid>/environ`, which a child cannot rewrite for its
  parent) holds `CLAUDE_CODE_EXECPATH`; hook processes get neither (they run under
  `/bin/sh -c <command>` with `CLAUDE_PROJECT_DIR` instead).

Whatever the model runs through Bash descends from that shell, however it names ccbridge
(`$c run`, `python -c "...main(['run'])"`, `runpy`, `flock`, `strace` ...). It fails closed:
an unreadable process below Claude Code, or no Claude Code process above us at all (a process
that left the tree with `setsid`/double-fork is re-parented to init), refuses too. A process
that leaves the tree and then plays Claude Code itself (a non-shell parent of its own) is not
caught by the walk; that is what Claude Code's sandbox is for.

Inside that sandbox (measured with 2.1.332 on Linux) the walk cannot even see Claude Code: the
command runs in a pid namespace of its own whose first process is bubblewrap, and in a user and
mount namespace of its own. What no process in there can undo is what bubblewrap and CC's
seccomp filter set on it: `NoNewPrivs: 1` and a `Seccomp: 2` filter, irrevocable and inherited
by every child (`/proc/<pid>/status`). A hook CC starts runs outside, without either. So a
process with both refuses too, whatever its tree says. The boundary itself is the mount
namespace: the state directory is read-only there and the seal key unreadable (`ccbridge
install`), so a forged host event has nowhere to be written.
"""

from __future__ import annotations

from pathlib import Path

from bridge.goal.activation import hook_pid, passes_through, read_stat

BASH_TOOL_ENV = b"CLAUDE_CODE_EXECPATH="
BASH_TOOL_SHELL = b"/shell-snapshots/snapshot-"
_MAX_HOPS = 64


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def is_bash_tool(environ: bytes, cmdline: bytes) -> bool:
    """A process's environment and command line carry the marks of Claude Code's Bash tool."""
    return (
        environ.startswith(BASH_TOOL_ENV)
        or b"\0" + BASH_TOOL_ENV in environ
        or BASH_TOOL_SHELL in cmdline
    )


def sandboxed(status: bytes) -> bool:
    """`/proc/<pid>/status` of a process confined as CC's sandbox confines Bash commands."""
    fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
    return (
        fields.get(b"NoNewPrivs", b"").strip() == b"1"
        and fields.get(b"Seccomp", b"").strip() == b"2"
    )


def bash_tool_refusal(start_pid: int | None = None, proc: Path = Path("/proc")) -> str | None:
    """Why this process may not record host events, or None when Claude Code started it."""
    pid = hook_pid() if start_pid is None else start_pid
    status = _read(proc / str(pid) / "status")
    if status is not None and sandboxed(status):
        return (
            f"process {pid} runs inside a sandbox (no_new_privs and a seccomp filter, as Claude "
            "Code's sandbox sets on every Bash command): a command the model runs cannot "
            "record host events"
        )
    below_cc = True  # until the first process that is not a launcher (shell, python, ccbridge)
    for _ in range(_MAX_HOPS):
        if pid <= 1:
            return None if not below_cc else "no Claude Code process above this hook process"
        stat = read_stat(proc, pid)
        environ = _read(proc / str(pid) / "environ")
        cmdline = _read(proc / str(pid) / "cmdline")
        if stat is None or environ is None or cmdline is None:
            # Another user's process (e.g. a login manager above Claude Code) cannot be ours.
            return f"cannot read process {pid} below Claude Code" if below_cc else None
        if is_bash_tool(environ, cmdline):
            return (
                f"process {pid} ({stat.name}) above this one is Claude Code's Bash tool: "
                "a command the model runs cannot record host events"
            )
        below_cc = below_cc and passes_through(stat.name)
        pid = stat.parent
    return "the process tree is deeper than expected"
