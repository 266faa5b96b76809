"""A sandbox to run ccbridge in (its own state, cache and home), in-process or as the real
executable, plus small builders for events, configs and sub-hook scripts."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import settings

from bridge.audit import log
from bridge.hookcall import run

CCBRIDGE = Path(sys.executable).with_name("ccbridge")
KEEP = 100  # enough rotated generations that no test ever drops one


def examples(share: float, least: int = 3) -> settings:
    """The current profile's example count, scaled for a test that starts real processes."""
    return settings(max_examples=max(least, int(settings().max_examples * share)))


def pre_tool_use(command: str = "ls", tool: str = "Bash", **fields: Any) -> dict[str, Any]:
    key = "command" if tool == "Bash" else "content"
    return {
        "session_id": "s-1",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {key: command},
        "tool_use_id": "toolu_1",
        **fields,
    }


def encode(event: Any) -> bytes:
    return json.dumps(event).encode()


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: bytes
    stderr: str

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.stdout) if self.stdout.strip() else {}

    @property
    def decision(self) -> str:
        specific = self.payload.get("hookSpecificOutput", {})
        return str(specific.get("permissionDecision") or "none")

    @property
    def reason(self) -> str:
        return str(self.payload.get("hookSpecificOutput", {}).get("permissionDecisionReason", ""))


class Sandbox:
    """One private world for ccbridge: nothing a test does reaches the real home or state."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = root / "state"
        self.hooks = root / "hooks"
        for directory in (self.state, self.hooks, root / "home", root / "cache"):
            directory.mkdir(parents=True, exist_ok=True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(root / "home"),
            "CCBRIDGE_STATE_DIR": str(self.state),
            "CCBRIDGE_CACHE_DIR": str(root / "cache"),
        }
        self.audit_path = self.state / "audit.jsonl"

    def config(self, hooks: Mapping[str, Any], name: str = "cfg.yaml", **top: Any) -> Path:
        """A ccbridge config holding a CC `hooks` block verbatim (JSON is valid YAML)."""
        path = self.root / name
        body = {"self_protection": False, "audit": {"keep": KEEP}, "hooks": dict(hooks), **top}
        path.write_text(json.dumps(body), encoding="utf-8")
        return path

    def script(self, name: str, body: str) -> Path:
        path = self.hooks / name
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(0o755)
        return path

    def run(
        self, config: Path | None, data: bytes, env: Mapping[str, str] | None = None
    ) -> Outcome:
        """`ccbridge run` in this process, as main() calls it."""
        stdout, stderr = io.BytesIO(), io.StringIO()
        code = run(
            str(config) if config else None,
            io.BytesIO(data),
            stdout,
            stderr,
            {**self.env, **(env or {})},
        )
        return Outcome(code, stdout.getvalue(), stderr.getvalue())

    def command(self, config: Path | None) -> list[str]:
        return [str(CCBRIDGE), "run", *(["--config", str(config)] if config else [])]

    def cli(
        self,
        config: Path | None,
        data: bytes,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
    ) -> Outcome:
        """The real `ccbridge run` executable."""
        done = subprocess.run(
            self.command(config),
            input=data,
            capture_output=True,
            env={**self.env, **(env or {})},
            timeout=timeout,
            check=False,
        )
        return Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))

    def audit(self) -> list[dict[str, Any]]:
        return list(log.read(self.audit_path, KEEP))


def matching(hooks: list[dict[str, Any]], matcher: str = "Bash") -> dict[str, Any]:
    """A CC hooks block with one PreToolUse matcher group."""
    return {"PreToolUse": [{"matcher": matcher, "hooks": hooks}]}
