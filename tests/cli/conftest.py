"""Every command runs as the real `ccbridge` executable in a temporary home and project."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bridge.commands.cases import ccbridge_command


@dataclass
class Sandbox:
    root: Path
    home: Path
    project: Path
    env: dict[str, str]

    def run(
        self,
        *args: str,
        stdin: str | bytes = b"",
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        done = subprocess.run(
            [*ccbridge_command(), *args],
            input=data,
            capture_output=True,
            env={**self.env, **(env or {})},
            cwd=cwd or self.project,
            timeout=120,
            check=False,
        )
        return subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
        )

    @property
    def settings(self) -> Path:
        return self.project / ".claude" / "settings.json"

    @property
    def config(self) -> Path:
        return self.project / ".claude" / "ccbridge.yaml"

    @property
    def state(self) -> Path:
        return Path(self.env["CCBRIDGE_STATE_DIR"])

    def write(self, path: Path, text: str, mode: int | None = None) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if mode is not None:
            path.chmod(mode)
        return path

    def write_json(self, path: Path, data: Any) -> Path:
        return self.write(path, json.dumps(data, indent=2))


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".claude").mkdir(parents=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CCBRIDGE_", "CLAUDE_", "XDG_"))
    }
    env.update(
        HOME=str(home),
        CCBRIDGE_STATE_DIR=str(tmp_path / "state"),
        CCBRIDGE_CACHE_DIR=str(tmp_path / "cache"),
        CLAUDE_PROJECT_DIR=str(project),
        PATH=f"{tmp_path / 'bin'}:{env.get('PATH', '')}",
    )
    return Sandbox(tmp_path, home, project, env)


def event(name: str = "PreToolUse", command: str = "ls", **extra: Any) -> str:
    data: dict[str, Any] = {"hook_event_name": name, "session_id": "s1", "cwd": "/tmp"}
    if name in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        data.update(tool_name="Bash", tool_input={"command": command})
    data.update(extra)
    return json.dumps(data)
