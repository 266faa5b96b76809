"""Where ccbridge keeps its state, its caches and where it looks for config files.

Paths are plain strings (`os.path`): `pathlib` and what it imports (`re`, `urllib.parse`)
would cost every hook call milliseconds."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping, Sequence

    PathLike = str | os.PathLike[str]

join = os.path.join

CONFIG_ENV = "CCBRIDGE_CONFIG"
STATE_ENV = "CCBRIDGE_STATE_DIR"
CACHE_ENV = "CCBRIDGE_CACHE_DIR"


def _home(env: Mapping[str, str]) -> str:
    # Path.home() did the same: $HOME, else the user database
    return env.get("HOME") or os.path.expanduser("~")


def _clean(path: str) -> str:
    """`path` as `str(Path(path))` spells it: no doubled or trailing slash, no `.` part."""
    if not path:
        return "."
    if not path.startswith("/"):
        leading = ""
    else:  # POSIX keeps exactly two leading slashes (implementation-defined), as pathlib does
        leading = "//" if path.startswith("//") and not path.startswith("///") else "/"
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return leading + "/".join(parts) if parts else (leading or ".")


def state_dir(env: Mapping[str, str] = os.environ) -> str:
    """Audit log and goal store: $CCBRIDGE_STATE_DIR, else $XDG_STATE_HOME/ccbridge,
    else ~/.local/state/ccbridge."""
    if env.get(STATE_ENV):
        return _clean(env[STATE_ENV])
    base = env.get("XDG_STATE_HOME") or join(_home(env), ".local", "state")
    return _clean(join(base, "ccbridge"))


def cache_dir(env: Mapping[str, str] = os.environ) -> str:
    """Compiled configs: $CCBRIDGE_CACHE_DIR, else $XDG_CACHE_HOME/ccbridge, else
    ~/.cache/ccbridge."""
    if env.get(CACHE_ENV):
        return _clean(env[CACHE_ENV])
    base = env.get("XDG_CACHE_HOME") or join(_home(env), ".cache")
    return _clean(join(base, "ccbridge"))


def project_dir(env: Mapping[str, str], event_cwd: str = "") -> str:
    """CC tells hooks the project in CLAUDE_PROJECT_DIR; the event's cwd is the fallback."""
    return _clean(env.get("CLAUDE_PROJECT_DIR") or event_cwd or os.getcwd())


def config_layers(env: Mapping[str, str], project: PathLike) -> list[str]:
    """The layered lookup, least specific first: user, project, project-local."""
    project = os.fspath(project)
    return [
        _clean(join(_home(env), ".claude", "ccbridge.yaml")),
        _clean(join(project, ".claude", "ccbridge.yaml")),
        _clean(join(project, ".claude", "ccbridge.local.yaml")),
    ]


def settings_files(env: Mapping[str, str], project: PathLike) -> list[str]:
    """Claude Code's own settings files, which the self-protection guard keeps the agent out of."""
    user, project = join(_home(env), ".claude"), join(os.fspath(project), ".claude")
    return [
        _clean(join(user, "settings.json")),
        _clean(join(user, "settings.local.json")),
        _clean(join(project, "settings.json")),
        _clean(join(project, "settings.local.json")),
    ]


# Any project's settings and config, wherever the agent finds one (`~` is expanded by the guard).
CC_SETTINGS_PATTERNS = ("~/.claude/settings*.json", "**/.claude/settings*.json")
CONFIG_PATTERNS = ("~/.claude/ccbridge*.yaml", "**/.claude/ccbridge*.yaml")
# Where Claude Code reads managed (enterprise) settings, which can also hold hooks.
MANAGED_SETTINGS = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
    "/etc/claude-code/managed-settings.d",
    "/Library/Application Support/ClaudeCode/managed-settings.d",
)
# Plugins and their hooks modules (mods, Claude's own under dev-mods): code that runs beside
# ccbridge and can approve a call it denied (docs/fleet.md).
PLUGIN_PATTERNS = ("~/.claude/plugins", "~/.claude/dev-mods", "**/.claude/plugins")


def protected_roots(
    env: Mapping[str, str],
    project: PathLike,
    loaded: Sequence[PathLike] = (),
    audit: PathLike | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """What self-protection guards: (CC settings files, ccbridge config files, ccbridge's own
    directories). Every candidate counts whether it exists or not, so the agent cannot create
    a layer that switches protection off; the patterns cover other projects' `.claude`."""
    settings = [
        *settings_files(env, project),
        *MANAGED_SETTINGS,
        *CC_SETTINGS_PATTERNS,
        *PLUGIN_PATTERNS,
    ]
    if env.get("CLAUDE_CONFIG_DIR"):
        user = env["CLAUDE_CONFIG_DIR"]
        settings += [_clean(join(user, "settings.json")), _clean(join(user, "settings.local.json"))]
        settings += [_clean(join(user, "plugins")), _clean(join(user, "dev-mods"))]
    configs = [*config_layers(env, project), *map(str, loaded), *CONFIG_PATTERNS]
    if env.get(CONFIG_ENV):
        configs.append(env[CONFIG_ENV])
    own = [state_dir(env), cache_dir(env), *([str(audit)] if audit else [])]
    return settings, configs, own


def find_config(
    explicit: str | None, env: Mapping[str, str], project: PathLike
) -> tuple[list[str], str]:
    """The config files to use, and how they were chosen (for --help, doctor and the audit).

    --config FILE, else $CCBRIDGE_CONFIG, else every existing layer of `config_layers`.
    An explicitly named file must exist; the layered lookup skips the missing ones.
    """
    if explicit:
        return [_clean(explicit)], "--config"
    if env.get(CONFIG_ENV):
        return [_clean(env[CONFIG_ENV])], CONFIG_ENV
    return [path for path in config_layers(env, project) if os.path.isfile(path)], "layers"
