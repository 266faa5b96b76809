"""Self-protection's text judgement where Claude Code's sandbox is absent (the tripwire): what
the corpus cannot hold in one line. A copy of ccbridge made in one call and run in the next,
git verbs against a work tree whose settings are tracked or not, variables expanded as real
bash expands them, and the bounds on glob and brace expansion through the real executable."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.guards.protect.protect_paths import self_protection_guard
from bridge.paths import protected_roots
from bridge.pipeline import Ask, Execution
from bridge.shell.syntax import Script, parse
from bridge.shell.variables import put_in
from tests.support import verdicts

LAUNCHER = Path(sys.executable).with_name("ccbridge")
Judge = Callable[..., str | Ask | None]


def _world(root: Path) -> tuple[Path, dict[str, str]]:
    home, project = root / "home", root / "home" / "proj"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text("{}")
    env = {"HOME": str(home), "CLAUDE_PROJECT_DIR": str(project), "PATH": str(root / "bin")}
    (root / "bin").mkdir()
    return project, env


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str], Judge]:
    project, env = _world(tmp_path)
    monkeypatch.setenv("HOME", env["HOME"])
    guard = self_protection_guard(*protected_roots(env, project), env=env)

    def judge(command: str, cwd: Path = project) -> str | Ask | None:
        return verdicts.plain(guard(Execution.create("Bash", {"command": command}, cwd=str(cwd))))

    return project, env, judge


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def _tracked(project: Path) -> None:
    """A work tree whose index lists the settings file."""
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", ".claude/settings.json")
    _git(project, "commit", "-qm", "settings")


# -- ccbridge under another name, over two calls: the second call's file exists then


@pytest.mark.parametrize(
    "make",
    [
        lambda src, dst: shutil.copy(src, dst),
        lambda src, dst: os.symlink(src, dst),
        lambda src, dst: os.link(src, dst),
        lambda src, dst: dst.write_text(f'#!/bin/sh\nexec "{src}" "$@"\n'),
        lambda src, dst: dst.write_text('#!/bin/sh\nexec python3 -m bridge "$@"\n'),
    ],
    ids=["copy", "symlink", "hardlink", "wrapper", "python-m"],
)
@pytest.mark.parametrize("run", ["./cb run < e.json", "./cb uninstall --user", "./cb install"])
def test_a_copy_made_in_an_earlier_call_is_ccbridge(
    world: tuple[Path, dict[str, str], Judge], make: Callable[[Path, Path], object], run: str
) -> None:
    project, _, judge = world
    assert LAUNCHER.exists()
    assert judge(f"cp {LAUNCHER} cb") is None  # the first call only copies a program
    make(LAUNCHER, project / "cb")  # ... and it ran
    verdicts.denied(judge(run), "ccbridge under another name")


def test_a_copy_on_path_under_another_name_is_ccbridge(
    world: tuple[Path, dict[str, str], Judge],
) -> None:
    _, env, judge = world
    shutil.copy(LAUNCHER, Path(env["PATH"]) / "helper")
    verdicts.denied(judge("helper uninstall --user"), "is a copy of ccbridge")
    assert judge("helper status") is None  # only the subcommands that forge or unregister


@pytest.mark.parametrize("run", ["./tool run build", "./tool install", "npm run test"])
def test_other_programs_with_a_run_subcommand_pass(
    world: tuple[Path, dict[str, str], Judge], run: str
) -> None:
    project, _, judge = world
    (project / "tool").write_text('#!/bin/sh\nexec make "$@"\n')
    assert judge(run) is None


# -- git verbs against a real work tree


TREE_VERBS = [
    "git checkout before",
    "git switch --detach before",
    "git merge other",
    "git rebase before",
    "git pull",
    "git cherry-pick other",
    "git revert HEAD",
]


@pytest.mark.parametrize("command", TREE_VERBS)
def test_moving_head_is_judged_only_where_the_settings_are_tracked(
    world: tuple[Path, dict[str, str], Judge], command: str
) -> None:
    project, _, judge = world
    (project / "README").write_text("x")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", "README")
    _git(project, "commit", "-qm", "x")
    _git(project, "branch", "before")
    # Untracked settings: git refuses to overwrite them, so moving HEAD cannot touch them.
    assert judge(command) is None
    _git(project, "add", ".claude/settings.json")
    _git(project, "commit", "-qm", "settings")
    # Tracked: a move to a commit without them (or one git cannot name) is refused; what
    # `git pull` brings is only known when it runs, and is asked.
    wanted = Ask if command == "git pull" else str
    reason = judge(command)
    assert isinstance(reason, wanted), reason
    assert ".claude/settings.json" in str(getattr(reason, "reason", reason)), reason
    # The same from a subdirectory, and through -C from elsewhere.
    (project / "src").mkdir()
    assert isinstance(judge(command, project / "src"), wanted)
    moved = command.replace("git ", f"git -C {project} ", 1)
    assert isinstance(judge(moved, project.parent), wanted)


@pytest.mark.parametrize(
    "command",
    [
        "git restore --staged .",
        "git reset",
        "git reset -- .claude/settings.json",
        "git rm --cached .claude/settings.json",
        "git clean -nd",
        "git checkout -b feature",
        "git switch -c feature",
        "git stash list",
    ],
)
def test_index_only_and_dry_runs_pass_in_a_tracked_tree(
    world: tuple[Path, dict[str, str], Judge], command: str
) -> None:
    project, _, judge = world
    _tracked(project)
    assert judge(command) is None


def test_a_worktree_whose_git_is_a_file_is_followed(
    world: tuple[Path, dict[str, str], Judge], tmp_path: Path
) -> None:
    project, _, judge = world
    _tracked(project)
    linked = tmp_path / "linked"
    _git(project, "worktree", "add", "-q", "-b", "side", str(linked))
    (linked / "src").mkdir()
    # Its `.git` is a file naming the git directory, whose index lists the settings.
    assert (linked / ".git").is_file()
    assert judge("git checkout main", linked / "src") is None  # not a protected tree
    assert judge(f"git -C {linked} stash") is None
    assert judge("git stash") is not None


# -- variables expanded as bash expands words

VALUES = st.text(alphabet=" \t#;&|<>()'\"$`\\*?[]{}=~ab.-", max_size=12)


@given(VALUES)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_value_is_never_read_as_syntax(
    world: tuple[Path, dict[str, str], Judge], value: str
) -> None:
    """Whatever a variable holds, the command after it is still judged."""
    _, _, judge = world
    if "$" in value or "`" in value:
        return  # a value holding an expansion is not put in at all (the line stays unknown)
    line = f"c={shlex.quote(value)}; true $c; rm -rf .claude"
    verdicts.denied(judge(line), "ccbridge self-protection: `rm -rf .claude` may write to .claude")


@given(st.text(alphabet=" \t#;&|<>()'\"\\=~ab.-", max_size=12))
@settings(max_examples=40, deadline=None)
def test_fields_are_those_bash_makes(value: str) -> None:
    """The oracle is bash itself: with globbing off, `printf '%s\\0' $c` prints the fields."""
    quoted = shlex.quote(value)
    done = subprocess.run(
        ["bash", "-c", f"set -f; c={quoted}; printf '%s\\0' $c \"$c\""],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = done.stdout.split("\0")[:-1]
    script = parse(put_in("printf '%s\\0' $c \"$c\"", {"c": value}))
    assert isinstance(script, Script)
    (command,) = list(script.commands())
    assert list(command.argv[2:]) == expected


@given(st.text(alphabet=" \t#;&|<>()'\"\\=~ab.-\n", max_size=12), st.booleans())
@settings(max_examples=40, deadline=None)
def test_a_here_document_body_is_the_one_bash_makes(value: str, quoted: bool) -> None:
    """The oracle is bash: the body `cat` prints, the value put in as it is (not where the
    delimiter is quoted); a value holding a newline stays unknown, as it could end the body.
    (An escaped `\\$c` and a variable the line does not set stay as written: the body is then
    marked as expanding, bridge.shell.syntax.)"""
    delimiter = "'EOF'" if quoted else "EOF"
    source = f"cat <<{delimiter}\nx $c ${{c}}y\nEOF\n"
    done = subprocess.run(
        ["bash", "-c", f"c={shlex.quote(value)}\n{source}"],
        capture_output=True,
        text=True,
        check=True,
    )
    script = parse(put_in(source, {"c": value}))
    assert isinstance(script, Script)
    (command,) = list(script.commands())
    (here,) = command.redirects
    if "\n" in value and not quoted:
        assert here.body == "x $c ${c}y"
    else:
        assert here.body == done.stdout.removesuffix("\n")


def test_a_value_cannot_end_a_here_document_early_to_hide_what_follows(
    world: tuple[Path, dict[str, str], Judge],
) -> None:
    """Put in, `c`'s lines would end the body and open another that swallows the `rm`."""
    _, _, judge = world
    line = "c='\nEOF\ncat <<Z'; cat <<EOF\n$c\nEOF\nrm -rf .claude"
    verdicts.denied(judge(line), "`rm -rf .claude` may write to .claude")


# -- bounds, through the real executable


def _run(
    project: Path, env: dict[str, str], command: str, cwd: str
) -> tuple[float, dict[str, str]]:
    event = {
        "session_id": "bounds",
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "t1",
        "permission_mode": "default",
    }
    started = time.monotonic()
    done = subprocess.run(
        [str(LAUNCHER), "run"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env={**env, "PATH": os.environ.get("PATH", "")},
        cwd=project,
        timeout=60,
    )
    elapsed = time.monotonic() - started
    return elapsed, json.loads(done.stdout)["hookSpecificOutput"]


@pytest.mark.parametrize(
    ("command", "cwd", "bound"),
    [
        ("rm -rf " + "/".join(["*"] * 8), "/", "a glob past 1000 matches"),
        ("rm -rf " + " ".join(["{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}"] * 5), "", "2048"),
        ("rm -rf x" + "{a,b}" * 400, "", "more than 128 braces"),
        ("rm -rf " + " ".join(["{a,b}{c,d}{e,f}{g,h}{i,j}"] * 80), "", "2048"),
        ("for i in " + " ".join(["{1..1000}"] * 3) + "; do rm -rf $i; done", "", "2048"),
        ("touch " + " ".join(f"x{{a,b,c}}{n}" for n in range(1000)), "", "2048"),
    ],
    ids=[
        *("8-level glob", "braces", "a 2 KB brace word", "2 KB of brace words", "brace loop"),
        "1000 brace words",
    ],
)
def test_a_blow_up_is_answered_at_once_naming_its_bound(
    world: tuple[Path, dict[str, str], Judge], command: str, cwd: str, bound: str
) -> None:
    project, env, _ = world
    elapsed, answer = _run(project, env, command, cwd or str(project))
    assert answer["permissionDecision"] == "deny"
    assert bound in answer["permissionDecisionReason"], answer
    assert elapsed < 5, f"{elapsed:.2f} s"
    print(f"{command[:40]}...: {elapsed:.2f} s")
