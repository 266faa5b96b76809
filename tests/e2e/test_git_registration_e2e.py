"""Without the sandbox, through real Claude Code: the agent tries every git spelling that would put
`.claude/settings.json` back to a committed version (which would drop ccbridge's registration
from the next session on), and the registration is still there after the session. The
index-only and dry-run forms run.

Two work trees: one where the registration is an uncommitted change over a committed settings
file (right after `ccbridge install`), and one where it is committed and an older commit has
none (a teammate's clone), where the verbs that move HEAD are the threat: those that would
change the settings file are refused, those git shows leave it alone run.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .goal_support import newest_claude
from .harness import ccbridge_executable, run_claude
from .model_stub import Transcript, Turn

pytestmark = pytest.mark.e2e

PATH_FORMS = [
    "git checkout .claude/settings.json",
    "git checkout -- .claude/settings.json",
    "git checkout .",
    "git checkout .claude",
    "git checkout HEAD -- .",
    "git -C .claude checkout .",
    "git --work-tree=. checkout HEAD -- .claude/settings.json",
    "env GIT_WORK_TREE=. git checkout .",
    "git restore .claude/settings.json",
    "git restore .",
    "git stash",
    "git stash push -- .claude",
    "git reset --hard",
    "git checkout -f HEAD",
    "cd .claude && git checkout ..",
    "bash -c 'git checkout .'",
]
HEAD_FORMS = [
    "git checkout HEAD~1",
    "git switch --detach HEAD~1",
    "git reset --hard HEAD~1",
    "git revert --no-edit HEAD",
    "git checkout old",
    "git rebase old",
]
# Moves git itself shows change no protected file: they run (the side branch and `feature`
# touch other files only).
PRECISE_FORMS = ["git checkout feature", "git checkout main", "git merge --no-edit old-side"]
ALLOWED = ["git restore --staged .", "git clean -nd", "git status --short"]


def _git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _settings() -> dict[str, object]:
    handler = {"type": "command", "command": f"{ccbridge_executable()} run", "timeout": 60}
    return {
        "permissions": {"allow": ["Bash"]},
        "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]},
    }


def _session(project: Path, tmp_path: Path, commands: list[str]) -> tuple[str, Transcript]:
    script = [*(Turn.bash(c) for c in commands), Turn.say("done")]
    env = {"CCBRIDGE_STATE_DIR": str(tmp_path / "state"), "CCBRIDGE_CACHE_DIR": str(tmp_path / "c")}
    result = run_claude(newest_claude(), project, _settings(), script, env=env, timeout=300)
    told = f"CC said: {result.requests.tool_results()}; stderr: {result.stderr[-800:]}"
    return told, result.requests


def test_no_git_spelling_undoes_an_uncommitted_registration(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{"permissions": {}}\n')
    (project / "README").write_text("x\n")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "before ccbridge")
    (project / "README").write_text("staged\n")
    _git(project, "add", "README")
    (project / "junk.txt").write_text("untracked\n")
    told, requests = _session(project, tmp_path, [*PATH_FORMS, *ALLOWED])
    registered = json.loads((project / ".claude" / "settings.json").read_text())
    assert registered == _settings(), told
    assert _git(project, "stash", "list") == "", told
    # The index-only and dry-run forms ran: README unstaged but kept, junk.txt listed, kept.
    assert _git(project, "diff", "--cached", "--name-only") == "", told
    assert (project / "README").read_text() == "staged\n", told
    assert requests.model_saw("Would remove junk.txt"), told
    assert (project / "junk.txt").exists(), told


def test_no_git_spelling_brings_back_a_commit_without_the_registration(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / "README").write_text("x\n")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "before ccbridge")
    _git(project, "branch", "old")
    _git(project, "checkout", "-q", "-b", "old-side")
    (project / "NOTES").write_text("y\n")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "side work")
    _git(project, "checkout", "-q", "main")
    (project / ".claude" / "settings.json").write_text(json.dumps(_settings()))
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "ccbridge install --project")
    _git(project, "config", "user.name", "t")  # the agent's merge makes a commit
    _git(project, "config", "user.email", "t@t")
    _git(project, "checkout", "-q", "-b", "feature")
    (project / "FEATURE").write_text("z\n")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "feature work")
    _git(project, "checkout", "-q", "main")
    told, _ = _session(project, tmp_path, [*HEAD_FORMS, *PRECISE_FORMS, *ALLOWED])
    registered = json.loads((project / ".claude" / "settings.json").read_text())
    assert registered == _settings(), told
    assert _git(project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main", told
    # The precise forms ran: the side branch is merged into main, and its file is here.
    assert (project / "NOTES").exists() and (project / "NOTES").read_text() == "y\n", told
    assert _git(project, "log", "-1", "--format=%s").startswith("Merge branch 'old-side'"), told
