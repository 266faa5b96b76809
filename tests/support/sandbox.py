"""The sandbox every test runs ccbridge in (its own home, project, state and cache), in-process
or as the real executable, plus small builders for events, configs and sub-hook scripts."""

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
from bridge.commands.cases import ccbridge_command
from bridge.hookcall import run
from tests.support.events import event

CCBRIDGE = Path(sys.executable).with_name("ccbridge")
KEEP = 100  # enough rotated generations that no test ever drops one


def examples(share: float, least: int = 3) -> settings:
    """The current profile's example count, scaled for a test that starts real processes."""
    return settings(max_examples=max(least, int(settings().max_examples * share)))


def pre_tool_use(command: str = "ls", tool: str = "Bash", **fields: Any) -> dict[str, Any]:
    """A PreToolUse event of `tool` (Bash: with this command; others: with it as content)."""
    key = "command" if tool == "Bash" else "content"
    given = {"session_id": "s-1", "tool_name": tool, "tool_input": {key: command}}
    return event("PreToolUse", None, **{**given, "tool_use_id": "toolu_1", **fields})


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
    """One private world for ccbridge: a home, a project (with its `.claude`), a state and a
    cache directory of its own, and an environment pointing at them (the test's, which
    tests/conftest.py has already cleared of the outer one's), so nothing a test does reaches
    the real ones.

    Commands run as the real executable in the project (`run`, with $CLAUDE_PROJECT_DIR set);
    hook calls run in this process as main() makes them (`call`) or through the executable
    (`call_executable`), with the project taken from the event unless `env` names one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.state = root / "state"
        self.cache = root / "cache"
        self.hooks = root / "hooks"
        for directory in (self.home, self.project / ".claude", self.state, self.cache, self.hooks):
            directory.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)  # no CCBRIDGE_, CLAUDE_ or XDG_ variable: tests/conftest.py
        env.update(
            HOME=str(self.home),
            CCBRIDGE_STATE_DIR=str(self.state),
            CCBRIDGE_CACHE_DIR=str(self.cache),
            # managed settings of the sandbox's own: never the machine's (which a real-CC test
            # may be writing meanwhile)
            CCBRIDGE_MANAGED_DIR=str(root / "etc" / "claude-code" / "managed-settings.d"),
            PATH=f"{root / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}",
        )
        self.env = env
        self.audit_path = self.state / "audit.jsonl"

    # -- files ------------------------------------------------------------------------------

    @property
    def settings(self) -> Path:
        """The project's shared CC settings file."""
        return self.project / ".claude" / "settings.json"

    @property
    def config(self) -> Path:
        """The project's ccbridge config layer."""
        return self.project / ".claude" / "ccbridge.yaml"

    def write(self, path: Path, text: str, mode: int | None = None) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if mode is not None:
            path.chmod(mode)
        return path

    def write_json(self, path: Path, data: Any) -> Path:
        return self.write(path, json.dumps(data, indent=2))

    def write_config(self, hooks: Mapping[str, Any], name: str = "cfg.yaml", **top: Any) -> Path:
        """A ccbridge config beside the sandbox, holding a CC `hooks` block verbatim (JSON is
        valid YAML); self-protection off unless `top` says otherwise."""
        path = self.root / name
        body = {"self_protection": False, "audit": {"keep": KEEP}, "hooks": dict(hooks), **top}
        path.write_text(json.dumps(body), encoding="utf-8")
        return path

    def script(self, name: str, body: str) -> Path:
        """An executable sub-hook script."""
        path = self.hooks / name
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(0o755)
        return path

    def audit(self) -> list[dict[str, Any]]:
        return list(log.read(self.audit_path, KEEP))

    # -- running ccbridge ---------------------------------------------------------------------

    def run(
        self,
        *args: str,
        stdin: str | bytes = b"",
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """`ccbridge ARGS...` as the real executable, in the project."""
        data = stdin.encode() if isinstance(stdin, str) else stdin
        done = subprocess.run(
            [*ccbridge_command(), *args],
            input=data,
            capture_output=True,
            env={**self.env, "CLAUDE_PROJECT_DIR": str(self.project), **(env or {})},
            cwd=cwd or self.project,
            timeout=120,
            check=False,
        )
        return subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
        )

    def call(
        self, config: Path | None, data: bytes, env: Mapping[str, str] | None = None
    ) -> Outcome:
        """One hook call (`ccbridge run`) in this process, as main() makes it."""
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

    def call_executable(
        self,
        config: Path | None,
        data: bytes,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
    ) -> Outcome:
        """One hook call through the real `ccbridge run` executable."""
        done = subprocess.run(
            self.command(config),
            input=data,
            capture_output=True,
            env={**self.env, **(env or {})},
            timeout=timeout,
            check=False,
        )
        return Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))


def matching(hooks: list[dict[str, Any]], matcher: str = "Bash") -> dict[str, Any]:
    """A CC hooks block with one PreToolUse matcher group."""
    return {"PreToolUse": [{"matcher": matcher, "hooks": hooks}]}


def one_denied_bash_call(sandbox: Sandbox, session: str, prompt_id: str, tool_use_id: str) -> None:
    """A config whose one sub-hook (`wall`) denies, and one Bash call it denies, audited."""
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - hooks:\n"
        "        - {type: command, command: exit 2, name: wall}\n",
    )
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "session_id": session,
        "prompt_id": prompt_id,
        "cwd": "/tmp",
        "tool_use_id": tool_use_id,
    }
    assert sandbox.run("run", stdin=json.dumps(event)).returncode == 2
