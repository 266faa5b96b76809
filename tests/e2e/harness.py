"""Run the real Claude Code binary against the loopback model stand-in.

The binaries are fetched by `scripts/fetch-clients` into a cache outside the repo; the pinned
versions of every client live in `.ci/client-versions` only (lines `claude-code VERSION`; a
third field, `claude-code VERSION SUITE`, pins a version for that one suite only).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import outer

from .model_stub import ModelStub, Transcript, Turn

REPO_ROOT = Path(__file__).resolve().parents[2]
VERSIONS_FILE = REPO_ROOT / ".ci" / "client-versions"
DEFAULT_TIMEOUT = 60.0


def pinned_versions(client: str = "claude-code", suite: str | None = None) -> list[str]:
    """The versions of `client` pinned in .ci/client-versions, in file order: those every suite
    runs, and with `suite` also those pinned for that suite alone (a line's third field)."""
    lines = VERSIONS_FILE.read_text(encoding="utf-8").splitlines()
    return [
        parts[1]
        for parts in map(str.split, lines)
        if parts[:1] == [client] and (len(parts) == 2 or (len(parts) == 3 and parts[2] == suite))
    ]


def claude_cache() -> Path:
    """Where scripts/fetch-clients put the binaries: in the real home, not the test's own."""
    configured = outer.ENVIRON.get("CCBRIDGE_CLAUDE_CACHE")
    return Path(configured) if configured else outer.HOME / ".cache" / "ccbridge" / "claude"


def claude_binary(version: str) -> Path | None:
    """The cached binary for `version`, or None when scripts/fetch-clients has not got it."""
    binary = claude_cache() / version / "claude"
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def ccbridge_executable() -> str:
    """Absolute path of the installed `ccbridge`, preferring this interpreter's own scripts
    directory over a version-manager shim (one process less on every hook call)."""
    beside = Path(sysconfig.get_path("scripts")) / "ccbridge"
    if beside.is_file():
        return str(beside)
    found = shutil.which("ccbridge")
    if found is None:
        raise RuntimeError("ccbridge is not installed: run pip install -e '.[test]'")
    return str(Path(found).resolve())


def install_ccbridge(
    project: Path, home: Path, env: Mapping[str, str], *options: str
) -> subprocess.CompletedProcess[str]:
    """The real `ccbridge install` run in `project` as a user with `home` would run it (this
    environment plus `env`; no CLAUDE_PROJECT_DIR, which only Claude Code sets)."""
    full = {**os.environ, "HOME": str(home), **env}
    full.pop("CLAUDE_PROJECT_DIR", None)
    return subprocess.run(
        [ccbridge_executable(), "install", *options],
        cwd=project,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@dataclass(frozen=True)
class Result:
    json_output: dict[str, Any] | None
    requests: Transcript
    returncode: int
    stderr: str

    @property
    def permission_denials(self) -> list[dict[str, Any]]:
        if self.json_output is None:
            return []
        denials = self.json_output.get("permission_denials", [])
        return denials if isinstance(denials, list) else []


def offline_env(home: Path, base_url: str) -> dict[str, str]:
    """What Claude Code runs with offline: `home`, the model stand-in at `base_url` with a dummy
    key, and no auto-update, telemetry, error reports or other traffic. The e2e runs and the
    per-call bench (bench/cc_calls.py) start it so."""
    return {
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": "dummy",
        "ANTHROPIC_BASE_URL": base_url,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


def trust_project(home: Path, project_dir: Path) -> None:
    """Project settings (its permission rules) only count in a workspace CC trusts."""
    state = {"projects": {str(project_dir): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")


def _parse_output(stdout: str) -> dict[str, Any] | None:
    try:
        parsed = json.loads(stdout)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def run_claude(
    binary: Path,
    project_dir: Path,
    settings: Mapping[str, Any] | None,
    script: Sequence[Turn],
    prompt: str = "Do the task.",
    timeout: float = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    args: Sequence[str] = (),
    wrap: Sequence[str] = (),
) -> Result:
    """Run `claude -p` once in `project_dir` with `settings` as its project settings, the model
    answering from `script`. `env` adds to CC's environment (hooks inherit it); `home` is CC's
    home directory (default: a fresh temporary one); `args` add to its command line; `wrap`
    comes before it (a command that runs it, such as a private mount namespace's). With
    `settings` None the project's own settings file is used as it is."""
    project_dir = project_dir.resolve()
    (project_dir / ".claude").mkdir(parents=True, exist_ok=True)
    if settings is not None:
        text = json.dumps(settings)
        (project_dir / ".claude" / "settings.json").write_text(text, encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="cc-home-") as home_dir, ModelStub(script) as stub:
        home = home or Path(home_dir)
        trust_project(home, project_dir)
        cc_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            **offline_env(home, stub.base_url),
            **(env or {}),
        }
        completed = subprocess.run(
            [*wrap, str(binary), "-p", prompt, "--output-format", "json", *args],
            cwd=project_dir,
            env=cc_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return Result(
            json_output=_parse_output(completed.stdout),
            requests=stub.transcript,
            returncode=completed.returncode,
            stderr=completed.stderr,
        )
