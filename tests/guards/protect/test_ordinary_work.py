"""Ordinary development through the real `ccbridge run` with the install defaults (both guards,
self-protection), at protection level `wall` (what `install` sets up) and `tripwire`
(`install --no-sandbox`), in a project whose `.claude/settings.json` and `ccbridge.yaml` are
committed, as docs/setup.md says to.

With the wall up, a Bash command Claude Code runs in its sandbox meets no refusal for what the
sandbox already refuses: only `dangerous_shell` speaks, and only for commands that throw away
uncommitted work, and copying an env template to `.env` is a question. Without the wall the
tripwire stays as strict as it was: the commands that may rewrite the whole work tree are
refused. Under the wall, every route that does not run in the sandbox is still judged (a file
tool, an MCP tool, a skill's inline command, a command that asks to leave the sandbox, an
excluded command, another agent's shell)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_doctor import fake_claude
from tests.support.sandbox import Sandbox

WORKS = "#!/bin/sh\nexit 0\n"

# Commands a developer runs every day; none of them may be refused under the wall.
TREE_WIDE = [  # they may rewrite the whole work tree: the tripwire refuses (or asks) them
    "git stash",
    "git stash pop",
    "git stash apply",
    "git merge --abort",
    "git rebase --continue",
    "git rebase --abort",
    "git cherry-pick abc123",
    "git am 0001-fix.patch",
    "git apply fix.patch",
    "git bisect start",
    "git bisect good",
    "git bisect reset",
    "git pull",
    "git pull --rebase",
    "tar xzf x.tgz",
    "unzip -o x.zip",
]
EVERYWHERE = [  # ordinary at both levels
    *("git status", "git diff", "git log --oneline -5", "git add -A"),
    *("git commit -m 'fix: the parser'", "git stash list", "git merge feature", "git rebase main"),
    *("git fetch origin", "git push origin HEAD", "git checkout -b topic", "git switch main"),
    *("git branch -d old", "git tag v1.0", "git restore src/app.py", "git clean -n"),
    *("git worktree add ../wt feature", "git submodule update --init", "git reset HEAD~1"),
    *("git reset --soft HEAD~1", "git show HEAD", "git blame src/app.py", "git mv old.py new.py"),
    *("git rm old.py", "tar czf out.tgz src", "zip -r out.zip src", "gunzip data.gz"),
    *("python3 -m pip install -e .", "pip install -r requirements.txt", "python3 -m venv .venv"),
    *("python3 -m pytest -q", "pytest tests -x", "python3 -m build", "mypy src"),
    "python3 -c 'import sys; print(sys.argv[1:])' a b",
    """python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' package.json""",
    "python3 -c 'print([1, 2][0])'",
    *("ruff check --fix .", "ruff format .", "black .", "isort .", "tox -e py312", "uv sync"),
    *("uv run pytest", "poetry install", "npm install", "npm ci", "npm run build", "npm test"),
    *("npx prettier --write .", "npx eslint --fix src", "yarn install", "pnpm install"),
    *("node scripts/build.js", "tsc -p .", "docker build -t app .", "docker compose up -d"),
    *("make", "make test", "make -j4", "cmake -S . -B build", "cmake --build build"),
    *("cargo build", "cargo test", "cargo fmt", "go build ./...", "go test ./...", "go mod tidy"),
    *("gofmt -w .", "mkdir -p build", "rm -rf build", "rm -rf node_modules dist"),
    *("cp -r src backup", "mv build dist", "touch src/new.py", "ln -s ../shared lib"),
    *("chmod +x scripts/run.sh", "find . -name '*.pyc' -delete", "sed -i 's/foo/bar/g' src/a.py"),
    *("echo x >> notes.txt", "curl -fsSL https://example.com/x.json -o x.json", "./scripts/run.sh"),
    *("bash scripts/setup.sh", "sh -c 'make && make test'", "pre-commit run --all-files"),
    *("grep -rn TODO src", "ls -la", "jq . package.json", "source .venv/bin/activate && pytest"),
    "cp .env.example .env.example.bak",
]
WRITES = [".env.example", ".env.sample", ".env.local.template", "src/app.py"]  # with Write
DISCARDS = ["git reset --hard", "git clean -fd", "git checkout -- ."]  # uncommitted work
TEMPLATE_COPIES = ["cp .env.example .env", "cp .env.sample .env.local"]


def by_self_protection(reason: str) -> bool:
    """One of the joined reasons (a blank line between each) is self-protection's."""
    return any(part.startswith("[self-protection]") for part in reason.split("\n\n"))


def git(cwd: Path, *args: str) -> None:
    who = ("-c", "user.name=a", "-c", "user.email=a@b")
    subprocess.run(["git", *who, *args], cwd=cwd, check=True, capture_output=True)


def installed(root: Path, *options: str) -> Sandbox:
    sandbox = Sandbox(root)
    fake_claude(sandbox, "2.1.332")
    for program in ("bwrap", "socat"):  # present and working, whatever this machine has
        sandbox.write(sandbox.root / "bin" / program, WORKS, mode=0o755)
    done = sandbox.run("install", *options)
    assert done.returncode == 0, done.stderr
    git(sandbox.project, "init", "-q", "-b", "main")
    git(sandbox.project, "add", "-A")  # the settings and the config, committed
    git(sandbox.project, "commit", "-qm", "init")
    git(sandbox.project, "branch", "feature")
    return sandbox


@pytest.fixture(scope="module")
def walled(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    return installed(tmp_path_factory.mktemp("walled"))


@pytest.fixture(scope="module")
def tripwired(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    return installed(tmp_path_factory.mktemp("tripwired"), "--no-sandbox")


def call(sandbox: Sandbox, tool: str, tool_input: dict[str, Any], **fields: Any) -> dict[str, Any]:
    event = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": str(sandbox.project),
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "t",
        **fields,
    }
    done = sandbox.run("run", stdin=json.dumps(event))
    assert done.returncode in (0, 2), done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def verdict(answer: dict[str, Any]) -> tuple[str, str]:
    specific = answer.get("hookSpecificOutput", {})
    return specific.get("permissionDecision", "none"), specific.get("permissionDecisionReason", "")


def verdicts(sandbox: Sandbox, commands: list[str]) -> Iterator[tuple[str, str, str]]:
    assert level(sandbox) in ("wall", "tripwire")  # compiled once before the parallel calls
    with ThreadPoolExecutor(2) as pool:
        judged = pool.map(lambda c: verdict(call(sandbox, "Bash", {"command": c})), commands)
        for command, (decision, reason) in zip(commands, judged, strict=True):
            yield command, decision, reason


def level(sandbox: Sandbox) -> str:
    call(sandbox, "Bash", {"command": "true"})
    return str(sandbox.audit()[-1]["protection"])


def test_the_levels_are_what_install_set_up(walled: Sandbox, tripwired: Sandbox) -> None:
    assert (level(walled), level(tripwired)) == ("wall", "tripwire")


def test_under_the_wall_ordinary_work_meets_no_refusal(walled: Sandbox) -> None:
    stopped = [
        (command, decision, reason)
        for command, decision, reason in verdicts(walled, [*TREE_WIDE, *EVERYWHERE])
        if decision not in ("none", "allow")
    ]
    assert stopped == []
    for name in WRITES:
        path = str(walled.project / name)
        assert verdict(call(walled, "Write", {"file_path": path, "content": "A=1\n"}))[0] == "none"


def test_under_the_wall_only_dangerous_shell_speaks_on_discarding_uncommitted_work(
    walled: Sandbox,
) -> None:
    for command, decision, reason in verdicts(walled, DISCARDS):
        assert decision in ("ask", "deny"), command
        assert reason.startswith("[guard builtin:dangerous_shell]"), (command, reason)
        assert "self-protection" not in reason


@pytest.mark.parametrize("which", ["walled", "tripwired"])
def test_copying_an_env_template_to_a_secret_file_is_a_question(
    which: str, request: pytest.FixtureRequest
) -> None:
    sandbox: Sandbox = request.getfixturevalue(which)
    for command, decision, reason in verdicts(sandbox, TEMPLATE_COPIES):
        assert decision == "ask", (command, reason)
        assert "from a template" in reason
    for command in ("cp secrets.txt .env", "echo A=1 > .env", "cp .env.example .env; cat x > .env"):
        assert verdict(call(sandbox, "Bash", {"command": command}))[0] == "deny", command


def test_without_the_wall_the_tripwire_stays_as_strict(tripwired: Sandbox) -> None:
    for command, decision, reason in verdicts(tripwired, [*TREE_WIDE, *DISCARDS]):
        assert decision in ("deny", "ask"), command
        assert by_self_protection(reason), (command, reason)
    assert [c for c, d, _ in verdicts(tripwired, EVERYWHERE) if d not in ("none", "allow")] == []


# --- the routes the sandbox does not hold, under the wall ------------------------------------

OFF = "self_protection: false\n"


def test_a_file_tool_is_still_refused_under_the_wall(walled: Sandbox) -> None:
    for tool, key in (("Write", "file_path"), ("Edit", "file_path")):
        path = str(walled.project / ".claude" / "ccbridge.local.yaml")
        decision, reason = verdict(call(walled, tool, {key: path, "content": OFF}))
        assert (decision, by_self_protection(reason)) == ("deny", True), reason


def test_an_mcp_tool_s_command_is_still_refused_under_the_wall(walled: Sandbox) -> None:
    command = f"echo '{OFF}' > .claude/ccbridge.local.yaml"
    decision, reason = verdict(call(walled, "mcp__shell__run", {"command": command}))
    assert (decision, by_self_protection(reason)) == ("deny", True), reason


def test_a_command_asking_to_leave_the_sandbox_is_still_refused(walled: Sandbox) -> None:
    command = {"command": f"echo '{OFF}' > .claude/ccbridge.local.yaml"}
    inside = verdict(call(walled, "Bash", command))
    outside = verdict(call(walled, "Bash", {**command, "dangerouslyDisableSandbox": True}))
    assert inside[0] == "none"  # the sandbox's denyWrite holds it
    assert (outside[0], by_self_protection(outside[1])) == ("deny", True), outside


def test_a_skill_s_inline_command_is_still_refused_under_the_wall(walled: Sandbox) -> None:
    event = {
        "hook_event_name": "PreSkillShellCommand",
        "session_id": "s",
        "cwd": str(walled.project),
        "tool_name": "Bash",
        "tool_input": {"command": "git stash && rm -rf .claude"},
        "tool_use_id": "t:preamble-0",
        "command_name": "x",
        "command_source": "projectSettings",
        "invoked_by": "claude",
    }
    done = walled.run("run", stdin=json.dumps(event))
    assert done.returncode == 2, done
    assert "[self-protection]" in json.loads(done.stdout)["reason"]


def test_another_agent_s_shell_is_still_refused_under_the_wall(walled: Sandbox) -> None:
    # Codex's envelope (a turn_id): its shell does not run in Claude Code's sandbox.
    answer = call(walled, "Bash", {"command": "git stash && rm -rf .claude"}, turn_id="turn-1")
    decision, reason = verdict(answer)
    assert decision == "deny" and "self-protection" in reason, answer


def test_an_excluded_command_takes_the_wall_down_and_is_judged(tmp_path: Path) -> None:
    sandbox = installed(tmp_path)
    assert verdict(call(sandbox, "Bash", {"command": "git stash"}))[0] == "none"
    local = sandbox.project / ".claude" / "settings.local.json"
    sandbox.write_json(local, {"sandbox": {"excludedCommands": ["git *"]}})
    assert level(sandbox) == "tripwire"
    decision, reason = verdict(call(sandbox, "Bash", {"command": "git stash"}))
    assert (decision, by_self_protection(reason)) == ("deny", True), reason
