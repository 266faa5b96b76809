"""Where ccbridge keeps its state, its caches and where it looks for config files."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CONFIG_ENV = "CCBRIDGE_CONFIG"
STATE_ENV = "CCBRIDGE_STATE_DIR"
CACHE_ENV = "CCBRIDGE_CACHE_DIR"


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def state_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Audit log and goal store: $CCBRIDGE_STATE_DIR, else $XDG_STATE_HOME/ccbridge,
    else ~/.local/state/ccbridge."""
    if env.get(STATE_ENV):
        return Path(env[STATE_ENV])
    base = env.get("XDG_STATE_HOME") or str(_home(env) / ".local" / "state")
    return Path(base) / "ccbridge"


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Compiled configs: $CCBRIDGE_CACHE_DIR, else $XDG_CACHE_HOME/ccbridge, else
    ~/.cache/ccbridge."""
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    base = env.get("XDG_CACHE_HOME") or str(_home(env) / ".cache")
    return Path(base) / "ccbridge"


def project_dir(env: Mapping[str, str], event_cwd: str = "") -> Path:
    """CC tells hooks the project in CLAUDE_PROJECT_DIR; the event's cwd is the fallback."""
    return Path(env.get("CLAUDE_PROJECT_DIR") or event_cwd or os.getcwd())


def config_layers(env: Mapping[str, str], project: Path) -> list[Path]:
    """The layered lookup, least specific first: user, project, project-local."""
    return [
        _home(env) / ".claude" / "ccbridge.yaml",
        project / ".claude" / "ccbridge.yaml",
        project / ".claude" / "ccbridge.local.yaml",
    ]


def settings_files(env: Mapping[str, str], project: Path) -> list[Path]:
    """Claude Code's own settings files, which the self-protection guard keeps the agent out of."""
    user = _home(env) / ".claude"
    return [
        user / "settings.json",
        user / "settings.local.json",
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
    ]


def find_config(
    explicit: str | None, env: Mapping[str, str], project: Path
) -> tuple[list[Path], str]:
    """The config files to use, and how they were chosen (for --help, doctor and the audit).

    --config FILE, else $CCBRIDGE_CONFIG, else every existing layer of `config_layers`.
    An explicitly named file must exist; the layered lookup skips the missing ones.
    """
    if explicit:
        return [Path(explicit)], "--config"
    if env.get(CONFIG_ENV):
        return [Path(env[CONFIG_ENV])], CONFIG_ENV
    return [path for path in config_layers(env, project) if path.is_file()], "layers"
