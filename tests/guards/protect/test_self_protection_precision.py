"""Self-protection refuses a line that names, or may name, a protected path and writes; a line
whose parts known only at run time cannot reach one passes (the peers' everyday commands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.guards.protect.protect_paths import self_protection_guard
from bridge.pipeline import Execution

HOME = "/home/dev"
PROJECT = "/work/project"


def judge(command: str, env: dict[str, str] | None = None) -> object:
    guard = self_protection_guard(
        config_files=[f"{PROJECT}/.claude/ccbridge.yaml", f"{HOME}/.claude/ccbridge.yaml"],
        state_dir=[f"{HOME}/.local/state/ccbridge", f"{HOME}/.cache/ccbridge"],
        env=env if env is not None else {"HOME": HOME, "PATH": "/usr/bin:/bin"},
    )
    return guard(Execution.create("Bash", {"command": command}, cwd=PROJECT))


PASS = [
    # temporary space: TMPDIR-relative, whether the hook's environment has TMPDIR or not
    "rm -rf $TMPDIR/build",
    'rm -rf "${TMPDIR}/x"',
    "rm -rf ${TMPDIR:-/tmp}/x",
    "find $TMPDIR/child -depth -delete",
    'find "$TMPDIR/child" -depth -delete',
    # dry runs, also as a cluster or an abbreviation git accepts
    "git clean -dn",
    "git clean -nfd",
    "git clean --dry-run",
    "git clean --dry-r --forc",
    "git clean --forc --dry-r",
    "git rm -rn .claude",
    # a command name echoed from literal words
    "$(echo hello)",
    "$(echo ls)",
    "`echo pwd`",
    # literal shell or interpreter code handed xargs' arguments, writing nothing
    "xargs sh -c 'echo hello'",
    "xargs -I {} bash -c 'cat {}'",
    "xargs -0 sh -c 'cat'",
    "find src -type f | sort | xargs -n1 sh -c 'wc -l \"$1\"' _",
    "echo ok | xargs python -c 'print(\"ok\")'",
    "find src -type f -print0 | xargs -0 -n1 -P4 bash -n",
    # unzip's listings, tests, comment and help
    "unzip -l archive.zip",
    "unzip -lq archive.zip",
    "unzip -tq archive.zip",
    "unzip -Zl archive.zip",
    "unzip -z archive.zip",
    "unzip -h",
    "unzip --help",
    # a find primary's value or an -exec argument is not -delete
    "find . -gid -delete -print",
    "find . -exec echo -delete + -print",
]

REFUSED = [
    # TMPDIR leads elsewhere, or the line sets it
    "rm -rf $TMPDIR/../home/dev/.claude",
    "rm -rf $TMPDIR/home/dev/.claude",
    "rm -rf ${TMPDIR:-/home/dev}/.claude",
    "TMPDIR=/home/dev; rm -rf $TMPDIR/.claude",
    "export TMPDIR=$X; rm -rf $TMPDIR/x",
    # not a dry run
    "git clean -fd",
    "git clean -fe -n",
    "git clean -f -e -n",
    "git clean -fen",
    # an echoed command name is judged as what it says
    "$(echo rm) -rf .claude",
    "`echo ccbridge` uninstall",
    "$(echo $X) a",
    "$(echo -e rm) .claude",
    # what xargs hands may decide what is written
    "echo .claude | xargs rm -rf",
    "echo .claude | xargs -n1 sh -c 'rm -rf \"$1\"' _",
    "ls | xargs python3",
    "ls | xargs bash",
    "ls | xargs bash -x",
    "ls | xargs python3 -c 'import sys, os; os.remove(sys.argv[1])'",
    # extracts, or deletes, after all
    "unzip -o x.zip",
    "unzip -d .claude x.zip",
    "find . -delete",
    "find -D -delete",
]


@pytest.mark.parametrize("command", PASS)
def test_a_line_that_cannot_reach_a_protected_path_passes(command: str) -> None:
    assert judge(command) is None


@pytest.mark.parametrize("command", REFUSED)
def test_a_line_that_may_reach_one_is_still_refused(command: str) -> None:
    reason = judge(command)
    assert isinstance(reason, str) and reason.startswith("ccbridge self-protection"), reason


def test_a_known_tmpdir_is_put_in(tmp_path: Path) -> None:
    env = {"HOME": HOME, "TMPDIR": f"{PROJECT}/.claude"}  # pointed at what is protected
    reason = judge("rm -f $TMPDIR/ccbridge.yaml", env)
    assert isinstance(reason, str) and f"{PROJECT}/.claude/ccbridge.yaml" in reason
    assert judge("rm -f $TMPDIR/ccbridge.yaml", {"HOME": HOME, "TMPDIR": str(tmp_path)}) is None
    assert judge("rm -f $TMPDIR/ccbridge.yaml") is None  # unset here: `/` or `/tmp`
