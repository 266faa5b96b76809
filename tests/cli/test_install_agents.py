"""`ccbridge install|uninstall|doctor --host codex|gemini`, through the real executable."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bridge.config import registrations
from tests.support.sandbox import CCBRIDGE, Sandbox

CODEX_HOOKS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
    }
}
GEMINI_SETTINGS: dict[str, Any] = {
    "model": {"name": "gemini-2.5-pro"},
    "hooks": {
        "BeforeTool": [
            {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./g.sh"}]}
        ]
    },
}


def registered(settings: dict[str, Any], host: str) -> dict[str, dict[str, Any]]:
    found = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                if registrations.is_registration(handler):
                    assert shlex.split(handler["command"])[1:] == ["run", "--host", host]
                    found[event] = handler
    return found


def codex_file(sandbox: Sandbox) -> Path:
    return sandbox.home / ".codex" / "hooks.json"


def gemini_file(sandbox: Sandbox) -> Path:
    return sandbox.home / ".gemini" / "settings.json"


def test_codex_install_registers_and_moves_its_hooks_and_uninstall_restores(
    sandbox: Sandbox,
) -> None:
    sandbox.write_json(codex_file(sandbox), CODEX_HOOKS)
    original = codex_file(sandbox).read_bytes()
    done = sandbox.run("install", "--host", "codex", "--user")
    assert done.returncode == 0, done.stderr
    settings = json.loads(codex_file(sandbox).read_text())
    handlers = registered(settings, "codex")
    assert sorted(handlers) == ["PostToolUse", "PreToolUse"]
    assert handlers["PreToolUse"]["timeout"] == 60
    assert "onFailure" not in handlers["PreToolUse"]  # Codex has none: not a key it knows
    # Codex's hooks are CC's shape: the PreToolUse guard runs behind ccbridge now
    config = yaml.safe_load((sandbox.home / ".claude" / "ccbridge.yaml").read_text())
    assert config["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "./guard.sh"
    assert all(h.get("command") != "./guard.sh" for g in settings["hooks"]["PreToolUse"]
               for h in g["hooks"])  # fmt: skip
    assert "trusted" in done.stdout  # the user is told Codex's hooks review comes first
    again = sandbox.run("install", "--host", "codex", "--user")
    assert "nothing to change" in again.stdout
    undone = sandbox.run("uninstall", "--host", "codex", "--user")
    assert undone.returncode == 0, undone.stderr
    assert codex_file(sandbox).read_bytes() == original


def test_codex_home_is_where_codex_reads_its_hooks(sandbox: Sandbox, tmp_path: Path) -> None:
    codex_home = tmp_path / "elsewhere"
    done = sandbox.run("install", "--host", "codex", "--user", env={"CODEX_HOME": str(codex_home)})
    assert done.returncode == 0, done.stderr
    assert registered(json.loads((codex_home / "hooks.json").read_text()), "codex")


def test_gemini_install_leaves_its_own_hooks_beside_ccbridge(sandbox: Sandbox) -> None:
    sandbox.write_json(gemini_file(sandbox), GEMINI_SETTINGS)
    done = sandbox.run("install", "--host", "gemini", "--user")
    assert done.returncode == 0, done.stderr
    settings = json.loads(gemini_file(sandbox).read_text())
    assert settings["model"] == {"name": "gemini-2.5-pro"}
    handlers = registered(settings, "gemini")
    assert sorted(handlers) == ["AfterTool", "BeforeTool"]
    assert handlers["BeforeTool"]["timeout"] == 60000  # Gemini CLI counts milliseconds
    assert settings["hooks"]["BeforeTool"][0] == GEMINI_SETTINGS["hooks"]["BeforeTool"][0]
    assert "outside its fold" in done.stdout
    assert not (sandbox.home / ".claude" / "ccbridge.yaml").exists()  # nothing moved
    assert sandbox.run("uninstall", "--host", "gemini", "--user").returncode == 0
    assert json.loads(gemini_file(sandbox).read_text()) == GEMINI_SETTINGS


def test_there_is_no_local_scope_for_the_other_agents(sandbox: Sandbox) -> None:
    done = sandbox.run("install", "--host", "gemini", "--local")
    assert done.returncode == 1 and "--user or --project" in done.stderr


@pytest.mark.parametrize("host", ["codex", "gemini", "copilot", "qwen", "opencode", "cline"])
def test_doctor_fails_without_a_registration_and_passes_with_one(
    sandbox: Sandbox, host: str
) -> None:
    before = sandbox.run("doctor", "--host", host, "--json")
    assert before.returncode == 1
    assert any(f["topic"] == "registration" and f["level"] == "fail"
               for f in json.loads(before.stdout))  # fmt: skip
    assert sandbox.run("install", "--host", host, "--user").returncode == 0
    after = sandbox.run("doctor", "--host", host, "--json")
    findings = json.loads(after.stdout)
    assert after.returncode == 0, findings
    starts = [f for f in findings if f["topic"] == "starts"]
    assert starts and all(f["level"] == "ok" for f in starts)
    assert any(f["topic"] == "fail-open" for f in findings)  # said plainly, every time


def test_doctor_sees_gemini_hooks_switched_off(sandbox: Sandbox) -> None:
    assert sandbox.run("install", "--host", "gemini", "--user").returncode == 0
    settings = json.loads(gemini_file(sandbox).read_text())
    sandbox.write_json(gemini_file(sandbox), {**settings, "hooksConfig": {"enabled": False}})
    done = sandbox.run("doctor", "--host", "gemini", "--json")
    assert done.returncode == 1
    assert any("hooksConfig.enabled" in f["message"] for f in json.loads(done.stdout))


def test_the_registered_command_denies_in_the_agent_s_dialect(sandbox: Sandbox) -> None:
    """What install writes is what the agent runs: a Gemini rm -rf / is denied as Gemini
    reads a deny."""
    assert sandbox.run("install", "--host", "gemini", "--user").returncode == 0
    handler = registered(json.loads(gemini_file(sandbox).read_text()), "gemini")["BeforeTool"]
    event = {
        "session_id": "s",
        "cwd": str(sandbox.project),
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "rm -rf /"},
    }
    sandbox.write(
        sandbox.home / ".claude" / "ccbridge.yaml",
        "policies: {guards: [builtin:dangerous_shell]}\n",
    )
    done = subprocess.run(
        handler["command"],
        shell=True,
        input=json.dumps(event).encode(),
        capture_output=True,
        env=sandbox.env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["decision"] == "deny"


def test_copilot_install_writes_its_own_hooks_file_flat_and_uninstall_removes_it(
    sandbox: Sandbox,
) -> None:
    """Copilot CLI ran no CC matcher group under a camelCase event (measured): the
    registration is its own flat entry, `bash` and `timeoutSec`, in a file of ccbridge's."""
    done = sandbox.run("install", "--host", "copilot", "--project")
    assert done.returncode == 0, done.stderr
    path = sandbox.project / ".github" / "hooks" / "ccbridge.json"
    written = json.loads(path.read_text())
    assert written["version"] == 1
    entries = written["hooks"]["preToolUse"]
    assert len(entries) == 1 and entries[0]["timeoutSec"] == 60
    assert entries[0]["bash"] == registrations.agent_launcher_command("copilot")  # a committed file
    assert sorted(written["hooks"]) == ["postToolUse", "preToolUse"]
    assert "nothing to change" in sandbox.run("install", "--host", "copilot", "--project").stdout
    assert sandbox.run("uninstall", "--host", "copilot", "--project").returncode == 0
    assert not path.exists()


def test_qwen_install_leaves_its_own_hooks_beside_ccbridge(sandbox: Sandbox) -> None:
    path = sandbox.home / ".qwen" / "settings.json"
    own = {"hooks": {"PreToolUse": [
        {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./q.sh"}]}
    ]}}  # fmt: skip
    sandbox.write_json(path, own)
    assert sandbox.run("install", "--host", "qwen", "--user").returncode == 0
    settings = json.loads(path.read_text())
    handlers = registered(settings, "qwen")
    assert sorted(handlers) == ["PostToolUse", "PreToolUse"]
    assert handlers["PreToolUse"]["timeout"] == 60  # Qwen Code reads seconds
    assert settings["hooks"]["PreToolUse"][0] == own["hooks"]["PreToolUse"][0]
    assert sandbox.run("uninstall", "--host", "qwen", "--user").returncode == 0
    assert json.loads(path.read_text()) == own


def test_opencode_plugin_refuses_when_ccbridge_cannot_start(sandbox: Sandbox) -> None:
    """The plugin install writes, run by node as opencode runs it: a deny throws, and so does
    a ccbridge that is not there."""
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    assert sandbox.run("install", "--host", "opencode", "--project").returncode == 0
    plugin = sandbox.project / ".opencode" / "plugin" / "ccbridge.js"
    source = plugin.read_text()
    sandbox.write(
        sandbox.home / ".claude" / "ccbridge.yaml",
        "policies: {guards: [builtin:dangerous_shell]}\n",
    )
    missing = plugin.with_name("missing.mjs")
    missing.write_text(source.replace("const RUN = [", 'const RUN = ["/nonexistent/ccbridge", '))
    calls = {"allowed": ("ls", plugin), "denied": ("rm -rf /", plugin), "missing": ("ls", missing)}
    for case, (command, path) in calls.items():
        script = (
            f"const m = await import({json.dumps(str(path))});"
            f"const hooks = await m.CCBridge({{directory: {json.dumps(str(sandbox.project))}}});"
            'try { await hooks["tool.execute.before"]('
            '{tool: "bash", sessionID: "s", callID: "c"},'
            f" {{args: {{command: {json.dumps(command)}}}}}); console.log('ran') }}"
            " catch (e) { console.log('refused: ' + e.message) }"
        )
        done = subprocess.run(
            [node, "--input-type=module", "-e", script],
            capture_output=True,
            text=True,
            env={**sandbox.env, "PATH": f"{CCBRIDGE.parent}:{sandbox.env['PATH']}"},
            timeout=60,
            check=False,
        )
        said = done.stdout.strip()
        if case == "allowed":
            assert said == "ran", (said, done.stderr)
        else:
            assert said.startswith("refused: "), (case, said, done.stderr)
    assert sandbox.run("uninstall", "--host", "opencode", "--project").returncode == 0
    assert not plugin.exists()


def test_opencode_plugin_goes_without_an_install_record_too(sandbox: Sandbox) -> None:
    """The same rule for opencode's plugin file, which is no JSON settings file: failed before
    (uninstall read the plugin as JSON and stopped)."""
    assert sandbox.run("install", "--host", "opencode", "--project").returncode == 0
    plugin = sandbox.project / ".opencode" / "plugin" / "ccbridge.js"
    shutil.rmtree(sandbox.state)
    sandbox.state.mkdir()
    done = sandbox.run("uninstall", "--host", "opencode", "--project")
    assert done.returncode == 0, done.stderr
    assert not plugin.exists()


PROJECT_FILES = {
    "codex": Path(".codex") / "hooks.json",
    "gemini": Path(".gemini") / "settings.json",
    "qwen": Path(".qwen") / "settings.json",
    "copilot": Path(".github") / "hooks" / "ccbridge.json",
    "opencode": Path(".opencode") / "plugin" / "ccbridge.js",
}


@pytest.mark.parametrize("host", sorted(PROJECT_FILES))
def test_a_project_install_names_no_path_of_this_machine(sandbox: Sandbox, host: str) -> None:
    """The project file is committed and run on teammates' machines: ccbridge is found through
    PATH there (failed before: this machine's ccbridge by its absolute path)."""
    assert sandbox.run("install", "--host", host, "--project").returncode == 0
    written = (sandbox.project / PROJECT_FILES[host]).read_text(encoding="utf-8")
    for local in (str(CCBRIDGE.parent), str(sandbox.home), str(sandbox.project)):
        assert local not in written, (local, written)
    assert sandbox.run("uninstall", "--host", host, "--project").returncode == 0
    assert not (sandbox.project / PROJECT_FILES[host]).exists()  # ccbridge's alone: it goes


@pytest.mark.parametrize("host", ["codex", "copilot", "gemini", "qwen"])
def test_the_shared_registration_finds_ccbridge_through_path_or_refuses(host: str) -> None:
    """Run as the agents run a hook command (a shell): the ccbridge on PATH answers (an empty
    event is refused by ccbridge itself); with none on PATH, exit 2 and the fix on stderr."""
    command = registrations.agent_launcher_command(host)
    found = subprocess.run(
        ["/bin/sh", "-c", command],
        input=b"",
        capture_output=True,
        env={"PATH": f"{CCBRIDGE.parent}:/usr/bin:/bin", "HOME": "/nonexistent"},
        timeout=60,
        check=False,
    )
    # ccbridge's own refusal of an empty event, in the agent's dialect: not the install hint
    assert found.returncode == 2, found
    assert b"ccbridge: stdin was empty" in found.stderr, found.stderr
    assert b"deny" in found.stdout and b"ccbridge is not installed" not in found.stderr
    missing = subprocess.run(
        ["/bin/sh", "-c", command],
        input=b'{"hook_event_name": "PreToolUse"}',
        capture_output=True,
        env={"PATH": "/nonexistent-bin", "HOME": "/nonexistent"},
        timeout=60,
        check=False,
    )
    assert missing.returncode == 2, missing
    assert b"ccbridge is not installed here" in missing.stderr
