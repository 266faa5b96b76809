"""Where ccbridge keeps its state, its caches and where it looks for config files."""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` is not imported on a hook call
    from collections.abc import Mapping, Sequence

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


# Any project's settings and config, wherever the agent finds one (`~` is expanded by the guard).
CC_SETTINGS_PATTERNS = ("~/.claude/settings*.json", "**/.claude/settings*.json")
CONFIG_PATTERNS = ("~/.claude/ccbridge*.yaml", "**/.claude/ccbridge*.yaml")
# Where Claude Code reads managed (enterprise) settings, which can also hold hooks.
MANAGED_SETTINGS = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)


def protected_roots(
    env: Mapping[str, str],
    project: Path,
    loaded: Sequence[str | Path] = (),
    audit: str | Path | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """What self-protection guards: (CC settings files, ccbridge config files, ccbridge's own
    directories). Every candidate counts whether it exists or not, so the agent cannot create
    a layer that switches protection off; the patterns cover other projects' `.claude`."""
    settings = [*map(str, settings_files(env, project)), *MANAGED_SETTINGS, *CC_SETTINGS_PATTERNS]
    if env.get("CLAUDE_CONFIG_DIR"):
        user = Path(env["CLAUDE_CONFIG_DIR"])
        settings += [str(user / "settings.json"), str(user / "settings.local.json")]
    configs = [*map(str, config_layers(env, project)), *map(str, loaded), *CONFIG_PATTERNS]
    if env.get(CONFIG_ENV):
        configs.append(env[CONFIG_ENV])
    own = [str(state_dir(env)), str(cache_dir(env)), *([str(audit)] if audit else [])]
    return settings, configs, own


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
