"""The README's examples work as written."""

from __future__ import annotations

import re
import subprocess
import sysconfig
from pathlib import Path

from bridge.pipeline import Execution, Guard
from bridge.policies.loader import load_policy

ROOT = Path(__file__).resolve().parents[2]
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


def test_first_readme_command_runs_the_example(tmp_path: Path) -> None:
    first = README.split("```sh\n", 1)[1].splitlines()[0]
    run_part = first.split("&&", 1)[1].strip()
    assert run_part.startswith("ccbridge run --config examples/ccbridge.yaml")
    ccbridge = str(Path(sysconfig.get_path("scripts")) / "ccbridge")
    env = {
        "HOME": str(tmp_path),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "PATH": "/usr/bin:/bin",
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    with open(ROOT / "examples/pre-tool-use.json", "rb") as event:
        done = subprocess.run(
            [ccbridge, "run", "--config", "examples/ccbridge.yaml"],
            stdin=event,
            capture_output=True,
            cwd=ROOT,
            env=env,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert b'"permissionDecision":"deny"' in done.stdout
