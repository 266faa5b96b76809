"""The git verbs that move HEAD, in a work tree whose index lists a settings file: git is
asked whether the move changes a protected file (passes if not, refused if so), and a move
only the run can tell (`git pull`, a remote's ref, a variable) is a question."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bridge.guards.protect.protect_paths import self_protection_guard
from bridge.paths import protected_roots
from bridge.pipeline import Ask, Execution


def _git(repo: Path, *args: str) -> None:
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main: base, then the registration committed; `old` before it; `feature` after it with
    another file only; `other` after it changing the settings; an uncommitted edit on top."""
    repo = tmp_path_factory.mktemp("moves") / "project"
    (repo / ".claude").mkdir(parents=True)
    (repo / "README").write_text("x\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "branch", "old")
    (repo / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "install")
    _git(repo, "checkout", "-q", "-b", "feature")
    (repo / "NOTES").write_text("y\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "feature work")
    _git(repo, "checkout", "-q", "-b", "other", "main")
    (repo / ".claude" / "settings.json").write_text("{}\n")
    _git(repo, "commit", "-qam", "other settings")
    _git(repo, "checkout", "-q", "main")  # (`-` is now `other`)
    _git(repo, "remote", "add", "origin", str(repo))
    _git(repo, "fetch", "-q", "origin")
    (repo / ".claude" / "settings.json").write_text('{"hooks": {"PreToolUse": []}}\n')
    return repo


def judge(repo: Path, command: str) -> object:
    env = {"HOME": str(repo.parent / "home"), "CLAUDE_PROJECT_DIR": str(repo), "PATH": "/bin"}
    guard = self_protection_guard(*protected_roots(env, repo), env=env)
    return guard(Execution.create("Bash", {"command": command}, cwd=str(repo)))


SAME = [
    "git checkout feature",
    "git switch feature",
    "git checkout -b topic feature",
    "git switch -c topic feature",
    "git merge feature",
    "git merge --no-edit old",  # already merged: nothing comes
    "git rebase feature",
    "git cherry-pick feature",
    "git revert --no-edit feature",
    "git checkout README",  # a path, not a commit
]
CHANGES = [
    "git checkout old",
    "git checkout other",
    "git switch --detach old",
    "git checkout -b topic old",
    "git switch -",
    "git merge other",
    "git merge origin/other",
    "git rebase old",
    "git rebase --onto old feature",
    "git cherry-pick other",
    "git revert HEAD",
    "git merge --abort",
    "git checkout no-such-branch",
]
ASKED = [
    "git pull",
    "git pull --rebase origin main",
    "git merge origin/feature",
    "git fetch && git merge origin/main",
    "git checkout $BRANCH",
    "bash -c 'git pull'",
]


@pytest.mark.parametrize("command", SAME)
def test_a_move_that_changes_no_protected_file_passes(repo: Path, command: str) -> None:
    assert judge(repo, command) is None


@pytest.mark.parametrize("command", CHANGES)
def test_a_move_that_changes_one_is_refused(repo: Path, command: str) -> None:
    reason = judge(repo, command)
    assert isinstance(reason, str) and "settings.json" in reason, reason


@pytest.mark.parametrize("command", ASKED)
def test_a_move_only_the_run_can_tell_is_asked(repo: Path, command: str) -> None:
    answer = judge(repo, command)
    assert isinstance(answer, Ask) and "only known when it runs" in answer.reason, answer


def test_a_question_never_hides_a_refusal(repo: Path) -> None:
    reason = judge(repo, "git pull; git checkout other")
    assert isinstance(reason, str) and "git checkout other" in reason
