"""The README's examples work as written."""

from __future__ import annotations

import json
import re
import subprocess
import sysconfig
from pathlib import Path

from bridge.pipeline import Execution, Guard
from bridge.policies.loader import load_policy
from tests.support import REPO

ROOT = REPO
README = (ROOT / "README.md").read_text()


def test_ten_line_guard_example(tmp_path: Path) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", README, re.DOTALL)
    assert len([line for line in code.splitlines() if line.strip()]) <= 14
    (tmp_path / "guard.py").write_text(code)
    guard: Guard = load_policy(f"{tmp_path / 'guard.py'}:guard")

    def bash(command: str) -> Execution:
        return Execution.create("Bash", {"command": command})

    assert guard(bash("cd repo && git push --force origin main")) == (
        "force-pushing is not allowed here"
    )
    assert guard(bash("git push origin main")) is None
    assert guard(Execution.create("Write", {"file_path": "/x"})) is None
    assert guard(bash("echo 'unterminated")) is not None


def test_first_readme_command_runs_the_example_and_leaves_no_audit_at_home(
    tmp_path: Path,
) -> None:
    """The command as written (through `sh`), in a fresh HOME: it denies, and the audit record
    goes to a scratch state directory, not to the user's real log."""
    first = README.split("```sh\n", 1)[1].splitlines()[0]
    run_part = first.split("&&", 1)[1].strip()
    assert "ccbridge run --config examples/ccbridge.yaml" in run_part
    scripts = sysconfig.get_path("scripts")
    env = {"HOME": str(tmp_path), "PATH": f"{scripts}:/usr/bin:/bin"}
    done = subprocess.run(
        ["sh", "-c", run_part], capture_output=True, cwd=ROOT, env=env, check=False
    )
    assert done.returncode == 2, done.stderr
    assert b'"permissionDecision":"deny"' in done.stdout
    assert not (tmp_path / ".local" / "state" / "ccbridge").exists()


def readme_setup_config() -> str:
    section = README.split("## Set-up", 1)[1]
    found = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1)


def test_the_readme_config_passes_check_and_lets_an_ordinary_command_through(
    tmp_path: Path,
) -> None:
    """The Set-up YAML in a project of its own: `ccbridge check` finds no problem, an ordinary
    command goes through and a dangerous one is denied by the named ready-made guard."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "ccbridge.yaml").write_text(readme_setup_config())
    (project / "hooks").mkdir()
    (project / "hooks" / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    (project / "hooks" / "check.sh").chmod(0o755)
    ccbridge = str(Path(sysconfig.get_path("scripts")) / "ccbridge")
    env = {
        "HOME": str(tmp_path / "home"),
        "PATH": "/usr/bin:/bin",
        "CLAUDE_PROJECT_DIR": str(project),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    check = subprocess.run(
        [ccbridge, "check"], capture_output=True, text=True, cwd=project, env=env, check=False
    )
    assert check.returncode == 0, check.stdout + check.stderr

    def run(command: str) -> subprocess.CompletedProcess[bytes]:
        event = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "session_id": "s",
            "cwd": str(project),
        }
        return subprocess.run(
            [ccbridge, "run"],
            input=json.dumps(event).encode(),
            capture_output=True,
            cwd=project,
            env=env,
            check=False,
        )

    ordinary = run("ls")
    assert (ordinary.returncode, b"permissionDecision" in ordinary.stdout) == (0, False)
    dangerous = run("git push --force origin main")
    assert dangerous.returncode == 2
    assert b"[guard builtin:dangerous_shell]" in dangerous.stdout


def _leaf_keys(schema: dict[str, object], node: dict[str, object], prefix: str) -> list[str]:
    ref = node.get("$ref")
    if isinstance(ref, str):
        node = schema["$defs"][ref.rsplit("/", 1)[-1]]  # type: ignore[index]
    for option in node.get("anyOf", []):  # type: ignore[attr-defined]
        if "$ref" in option:
            return _leaf_keys(schema, option, prefix)
    properties = node.get("properties")
    if not isinstance(properties, dict) or prefix == "hooks":
        return [prefix]
    return [
        key
        for name, child in properties.items()
        for key in _leaf_keys(schema, child, f"{prefix}.{name}" if prefix else name)
    ]


def test_the_readme_names_every_key_of_the_config() -> None:
    """ "Every key of that file": each key of the schema stands in the Set-up block, at its
    place in the nesting, so a key added to the schema must be added to the README too."""
    from bridge.config.schema import BridgeConfig

    schema = BridgeConfig.model_json_schema()
    block = readme_setup_config()
    written = set()
    section = ""
    for line in block.splitlines():
        key = re.match(r"(\s*)([a-z_]+):", line)
        if key is None:
            continue
        if not key.group(1):
            section = key.group(2)
            written.add(section)
            for inline in re.findall(r"([a-z_]+):", line.split(":", 1)[1].split("#")[0]):
                written.add(f"{section}.{inline}")
        elif section != "hooks":
            written.add(f"{section}.{key.group(2)}")
    missing = [key for key in _leaf_keys(schema, schema, "") if key not in written]
    assert missing == []
