"""Ordinary git inside the wall, through real Claude Code (2.1.332 and the newest pinned): after
`ccbridge install` (the defaults: the sandbox, both guards, self-protection), in a project whose
settings and ccbridge config are committed, the agent runs `git add -A`, `git commit`,
`git stash`/`stash pop` and `git rebase` in one sandboxed Bash call each. ccbridge lets every
one through (the audit says `wall` and no denial); what git itself does inside the sandbox is
what this test pins (docs/guarantees.md, "Git inside the wall")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .harness import claude_binary, install_ccbridge, run_claude
from .model_stub import Turn
from .test_sandbox_e2e import require_sandbox

pytestmark = pytest.mark.e2e

WHO = "-c user.name=a -c user.email=a@b"
STEPS = {  # each step's output and exit status land in a file of the project
    "add_all": "echo x > a.txt && git add -A",
    "add": "git add a.txt",
    "commit": f"git {WHO} commit -qm work",
    "stash": "echo y >> a.txt && git stash",
    "rebase": f"git {WHO} rebase -q side && git stash pop",
}
# The names Claude Code's sandbox mounts /dev/null over when they do not exist (measured with
# 2.1.332 and 2.1.335; `.claude/ccbridge.local.yaml` is the wall's own denyWrite entry).
PLACEHOLDERS = (
    *(".bash_profile", ".bashrc", ".gitconfig", ".gitmodules", ".idea", ".mcp.json"),
    *(".profile", ".ripgreprc", ".vscode", ".zprofile", ".zshrc", ".claude/agents"),
    *(".claude/ccbridge.local.yaml", ".claude/commands", ".claude/hooks", ".claude/launch.json"),
    *(".claude/loop.md", ".claude/output-styles", ".claude/routines"),
    *(".claude/scheduled_tasks.json", ".claude/settings.local.json", ".claude/skills"),
    ".claude/workflows",
)


def git(cwd: Path, *args: str) -> str:
    who = ("-c", "user.name=a", "-c", "user.email=a@b")
    done = subprocess.run(["git", *who, *args], cwd=cwd, check=True, capture_output=True)
    return done.stdout.decode()


@pytest.mark.parametrize("excluded", [False, True], ids=["as-cloned", "placeholders-excluded"])
@pytest.mark.parametrize("version", ["2.1.332", "2.1.335"])
def test_git_add_commit_stash_and_rebase_inside_the_wall(
    tmp_path: Path, version: str, excluded: bool
) -> None:
    binary = claude_binary(version)
    if binary is None:
        pytest.skip(f"Claude Code {version} is not cached")
    require_sandbox()
    home, project, state = tmp_path / "home", tmp_path / "project", tmp_path / "state"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    ours = {"CCBRIDGE_STATE_DIR": str(state), "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache")}
    done = install_ccbridge(project, home, ours)
    assert done.returncode == 0, done.stdout + done.stderr
    settings_file = project / ".claude" / "settings.json"
    settings = json.loads(settings_file.read_text())
    settings.setdefault("permissions", {})["allow"] = ["Bash"]
    settings_file.write_text(json.dumps(settings, indent=2))
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "init")
    git(project, "checkout", "-qb", "side")
    (project / "b.txt").write_text("b\n")
    git(project, "add", "b.txt")
    git(project, "commit", "-qm", "side")
    git(project, "checkout", "-q", "main")
    with (project / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("/*.out\n")  # what the steps report
        if excluded:  # per clone, uncommitted: the workaround docs/guarantees.md gives
            exclude.writelines(f"/{name}\n" for name in PLACEHOLDERS)
    turns = [
        Turn.bash(f'{{ {command} ; }} > {name}.out 2>&1; echo "rc=$?" >> {name}.out')
        for name, command in STEPS.items()
    ]
    result = run_claude(
        binary, project, None, [*turns, Turn.say("done")], env=ours, home=home, timeout=300
    )
    told = f"CC said: {result.requests.tool_results()}; stderr: {result.stderr[-800:]}"
    records = [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]
    pre = [record for record in records if record.get("event") == "PreToolUse"]
    # ccbridge refuses none of it, and judged every call with the wall up
    assert len(pre) == len(STEPS) and {record["protection"] for record in pre} == {"wall"}, told
    finals = [record["final"] for record in pre]
    assert all("deny" not in json.dumps(final) for final in finals), finals
    outputs = {name: (project / f"{name}.out").read_text() for name in STEPS}
    added_all = outputs.pop("add_all")
    if excluded:
        assert added_all.rstrip().endswith("rc=0"), added_all
    else:  # the sandbox's placeholders are no files git can add: `git add -A` stages nothing
        assert "can only add regular files" in added_all, added_all
        assert not added_all.rstrip().endswith("rc=0"), added_all
    assert all(text.rstrip().endswith("rc=0") for text in outputs.values()), outputs
    assert git(project, "log", "--format=%s") == "work\nside\ninit\n"
    assert "a.txt" in git(project, "show", "--name-only", "--format=", "HEAD")
    assert git(project, "status", "--porcelain", "--untracked-files=no") == " M a.txt\n"
