"""Which clients the warm server answers: only `socat` below shells below the Claude Code
process it serves, with neither the Bash tool's marks nor the sandbox's above it
(bridge/warm/peer.py), judged on fake process trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bridge.goal.activation import ProcessIdentity
from bridge.warm.peer import HookProcess, hook_process

from ..goal.test_provenance import HOOK_ENV, TOOL_ENV, TOOL_SHELL, tree

CLAUDE = ("claude", 1, b"HOME=/h\0", b"claude\0-p\0")
SERVED = ProcessIdentity(500, 500, "boot-1")  # fake_proc's start time is the pid
HOOK_SHELL = ("sh", 500, HOOK_ENV, b"/bin/sh\0-c\0ccbridge_run() { ...\0")
SUBSTITUTION = ("sh", 600, HOOK_ENV, b"/bin/sh\0-c\0ccbridge_run() { ...\0")
SOCAT = ("socat", 650, HOOK_ENV, b"socat\0-t\0" + b"60\0-\0UNIX-CONNECT:./500\0")
ME = os.getuid()


def hook_tree(tmp_path: Path, **changes: tuple[str, int, bytes, bytes]) -> Path:
    processes = {500: CLAUDE, 600: HOOK_SHELL, 650: SUBSTITUTION, 700: SOCAT}
    for pid, process in changes.items():
        processes[int(pid.removeprefix("p"))] = process
    proc = tree(tmp_path, processes)
    (proc / "600" / "status").write_bytes(b"Name:\tsh\nUmask:\t0027\nNoNewPrivs:\t0\n")
    (proc / "700" / "status").write_bytes(b"Name:\tsocat\nNoNewPrivs:\t0\nSeccomp:\t0\n")
    (proc / "600" / "cwd").symlink_to(tmp_path)
    return proc


def test_the_hook_runners_chain_is_answered_as_its_hook_process(tmp_path: Path) -> None:
    found = hook_process(700, ME, SERVED, hook_tree(tmp_path))
    assert found == HookProcess(
        600,
        {
            "CLAUDECODE": "1",
            "CLAUDE_CODE_SESSION_ID": "s",
            "CLAUDE_PROJECT_DIR": "/p",
            "PATH": "/bin",
        },
        str(tmp_path),
        0o027,
    )


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        # the model's own socat, through the Bash tool's shell (no sandbox)
        ({"p600": ("bash", 500, TOOL_ENV, TOOL_SHELL)}, "Bash tool"),
        # the Bash tool's mark in the environment only
        ({"p600": ("bash", 500, TOOL_ENV, b"bash\0")}, "Bash tool"),
        # something else than socat connected (python, a copy of socat under another name)
        ({"p700": ("python3", 650, HOOK_ENV, b"python3\0")}, "is not socat"),
        ({"p700": ("sockcat", 650, HOOK_ENV, b"sockcat\0")}, "is not socat"),
        # a program between the shells and Claude Code
        ({"p600": ("env", 500, HOOK_ENV, b"env\0")}, "(env) between"),
        ({"p600": ("python3", 500, HOOK_ENV, b"python3\0")}, "(python3) between"),
        # socat right below Claude Code: no hook runner's shell
        ({"p700": ("socat", 500, HOOK_ENV, b"socat\0")}, "not run by a shell"),
        # below another Claude Code process (another session's server)
        ({"p600": ("sh", 555, HOOK_ENV, b"sh\0"), "p555": CLAUDE}, "555"),
    ],
    ids=[
        "bash-tool",
        "bash-tool-env",
        "python",
        "renamed",
        "env",
        "python-between",
        "no-shell",
        "other-claude",
    ],
)
def test_any_other_chain_is_refused(
    tmp_path: Path, changes: dict[str, tuple[str, int, bytes, bytes]], why: str
) -> None:
    found = hook_process(700, ME, SERVED, hook_tree(tmp_path, **changes))
    assert isinstance(found, str) and why in found, found


def test_a_client_inside_the_sandbox_is_refused(tmp_path: Path) -> None:
    proc = hook_tree(tmp_path)
    (proc / "700" / "status").write_bytes(b"Name:\tsocat\nNoNewPrivs:\t1\nSeccomp:\t2\n")
    found = hook_process(700, ME, SERVED, proc)
    assert isinstance(found, str) and "sandbox" in found


def test_another_user_is_refused(tmp_path: Path) -> None:
    found = hook_process(700, ME + 1, SERVED, hook_tree(tmp_path))
    assert found == f"the client runs as uid {ME + 1}"


def test_a_recycled_claude_code_pid_is_not_the_served_process(tmp_path: Path) -> None:
    later = ProcessIdentity(500, 499, "boot-1")  # the server was started for an earlier 500
    found = hook_process(700, ME, later, hook_tree(tmp_path))
    assert found == "the Claude Code process this server served is gone"


def test_a_chain_that_never_reaches_claude_code_is_refused(tmp_path: Path) -> None:
    chain = {f"p{pid}": ("sh", pid - 1, HOOK_ENV, b"sh\0") for pid in range(601, 650)}
    proc = hook_tree(tmp_path, p650=("sh", 649, HOOK_ENV, b"sh\0"), **chain)
    found = hook_process(700, ME, SERVED, proc)
    assert found == "the client is not below the Claude Code process this server serves"


def test_a_hook_process_whose_directory_is_gone_is_refused(tmp_path: Path) -> None:
    proc = hook_tree(tmp_path / "t")
    (proc / "600" / "cwd").unlink()
    (proc / "600" / "cwd").symlink_to(tmp_path / "deleted")
    found = hook_process(700, ME, SERVED, proc)
    assert isinstance(found, str) and "working directory is gone" in found
