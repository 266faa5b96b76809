"""`ccbridge install` writes a config with the two ready-made guards on, one line each (delete
it to switch that guard off), says so, and writes long commands on one line."""

from __future__ import annotations

import yaml

from tests.support.sandbox import Sandbox, encode, pre_tool_use

MKFS = pre_tool_use("mkfs.ext4 /dev/sda1")
GUARD_LINES = ("    - builtin:dangerous_shell  #", "    - builtin:protect_paths  #")


def test_install_turns_the_ready_made_guards_on_and_says_so(sandbox: Sandbox) -> None:
    done = sandbox.run("install")
    assert done.returncode == 0, done.stderr
    assert f"wrote {sandbox.config} with the ready-made guards on: builtin:dangerous_shell" in (
        done.stdout
    )
    text = sandbox.config.read_text()
    assert yaml.safe_load(text)["policies"]["guards"] == [
        "builtin:dangerous_shell",
        "builtin:protect_paths",
    ]
    assert all(sum(line.startswith(g) for line in text.splitlines()) == 1 for g in GUARD_LINES)
    assert sandbox.run("check").returncode == 0
    shell = sandbox.call_executable(None, encode(MKFS), _project(sandbox))
    assert shell.decision == "deny" and "builtin:dangerous_shell" in shell.reason, shell
    secret = pre_tool_use(
        "API_KEY=x", tool="Write", tool_input={"file_path": ".env", "content": "k"}
    )
    write = sandbox.call_executable(None, encode(secret), _project(sandbox))
    assert write.decision == "deny" and "builtin:protect_paths" in write.reason, write


def test_deleting_a_guard_line_switches_that_guard_off(sandbox: Sandbox) -> None:
    assert sandbox.run("install").returncode == 0
    lines = sandbox.config.read_text().splitlines()
    kept = [line for line in lines if not line.startswith(GUARD_LINES[0])]
    sandbox.write(sandbox.config, "\n".join(kept) + "\n")
    assert sandbox.run("check").returncode == 0
    shell = sandbox.call_executable(None, encode(MKFS), _project(sandbox))
    assert "builtin:dangerous_shell" not in shell.reason


def test_uninstall_takes_the_written_config_away_again(sandbox: Sandbox) -> None:
    assert sandbox.run("install").returncode == 0 and sandbox.config.exists()
    assert sandbox.run("uninstall").returncode == 0
    assert not sandbox.config.exists() and not sandbox.settings.exists()


def test_a_long_moved_command_stays_on_one_line(sandbox: Sandbox) -> None:
    command = "npx -y cc-safety-net --mode strict " + " ".join(
        f"--allow tool{i}" for i in range(30)
    )
    hook = {"type": "command", "command": command}
    sandbox.write_json(
        sandbox.settings, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    )
    assert sandbox.run("install").returncode == 0
    assert any(command in line for line in sandbox.config.read_text().splitlines())
    assert yaml.safe_load(sandbox.config.read_text())["hooks"]["PreToolUse"][0]["hooks"] == [hook]


def _project(sandbox: Sandbox) -> dict[str, str]:
    return {"CLAUDE_PROJECT_DIR": str(sandbox.project)}


def test_a_moved_best_effort_hook_gets_a_note_pointing_at_on_failure_ignore(
    sandbox: Sandbox,
) -> None:
    loose = {"type": "command", "command": "./advice.sh"}
    strict = {"type": "command", "command": "./gate.sh", "onFailure": "block"}
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [loose, strict]}]}
    sandbox.write_json(sandbox.settings, {"hooks": hooks})
    done = sandbox.run("install")
    assert done.returncode == 0, done.stderr
    note = next(line for line in done.stdout.splitlines() if "best-effort" in line)
    assert "PreToolUse `./advice.sh`" in note and "./gate.sh" not in note
    assert f"add `onFailure: ignore` to it in {sandbox.config}" in note
