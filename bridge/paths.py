"""Where ccbridge keeps its state, its caches and where it looks for config files.

Paths are plain strings (`os.path`): `pathlib` and what it imports (`re`, `urllib.parse`)
would cost every hook call milliseconds."""

import os
import stat  # imported by os already

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping, Sequence

    PathLike = str | os.PathLike[str]

join = os.path.join

CONFIG_ENV = "CCBRIDGE_CONFIG"
STATE_ENV = "CCBRIDGE_STATE_DIR"
CACHE_ENV = "CCBRIDGE_CACHE_DIR"


def _home(env: "Mapping[str, str]") -> str:
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


def state_dir(env: "Mapping[str, str]" = os.environ) -> str:
    """Audit log and goal store: $CCBRIDGE_STATE_DIR, else $XDG_STATE_HOME/ccbridge,
    else ~/.local/state/ccbridge."""
    if env.get(STATE_ENV):
        return _clean(env[STATE_ENV])
    base = env.get("XDG_STATE_HOME") or join(_home(env), ".local", "state")
    return _clean(join(base, "ccbridge"))


def cache_dir(env: "Mapping[str, str]" = os.environ) -> str:
    """Compiled configs: $CCBRIDGE_CACHE_DIR, else $XDG_CACHE_HOME/ccbridge, else
    ~/.cache/ccbridge."""
    if env.get(CACHE_ENV):
        return _clean(env[CACHE_ENV])
    base = env.get("XDG_CACHE_HOME") or join(_home(env), ".cache")
    return _clean(join(base, "ccbridge"))


def project_dir(env: "Mapping[str, str]", event_cwd: str = "") -> str:
    """CC tells hooks the project in CLAUDE_PROJECT_DIR; the event's cwd is the fallback."""
    return _clean(env.get("CLAUDE_PROJECT_DIR") or event_cwd or os.getcwd())


def config_layers(env: "Mapping[str, str]", project: "PathLike") -> "list[str]":
    """The layered lookup, least specific first: user, project, project-local."""
    project = os.fspath(project)
    return [
        _clean(join(_home(env), ".claude", "ccbridge.yaml")),
        _clean(join(project, ".claude", "ccbridge.yaml")),
        _clean(join(project, ".claude", "ccbridge.local.yaml")),
    ]


def settings_files(env: "Mapping[str, str]", project: "PathLike") -> "list[str]":
    """Claude Code's own settings files, which the self-protection guard keeps the agent out of."""
    user, project = join(_home(env), ".claude"), join(os.fspath(project), ".claude")
    return [
        _clean(join(user, "settings.json")),
        _clean(join(user, "settings.local.json")),
        _clean(join(project, "settings.json")),
        _clean(join(project, "settings.local.json")),
    ]


MANAGED_DIR = "/etc/claude-code"
# Where install --managed writes and doctor and the wall read managed settings instead of the
# system's managed-settings.d (its parent holding managed-settings.json): for tests and trials.
MANAGED_DIR_ENV = "CCBRIDGE_MANAGED_DIR"


def settings_layers(env: "Mapping[str, str]", project: "PathLike") -> "list[str]":
    """Claude Code's settings files in the order CC merges them, least specific first: user
    (in $CLAUDE_CONFIG_DIR when set), project, project-local, then managed settings and their
    drop-ins (which win). What the protection level is judged from (bridge.wall)."""
    files = settings_files(env, project)
    if env.get("CLAUDE_CONFIG_DIR"):
        user = env["CLAUDE_CONFIG_DIR"]
        files[0:2] = [
            _clean(join(user, "settings.json")),
            _clean(join(user, "settings.local.json")),
        ]
    drop = _clean(env.get(MANAGED_DIR_ENV) or join(MANAGED_DIR, "managed-settings.d"))
    files.append(join(os.path.dirname(drop), "managed-settings.json"))
    try:
        dropins = sorted(os.listdir(drop))
    except OSError:
        dropins = []
    return files + [
        join(drop, name) for name in dropins if name.endswith(".json") and name[:1] != "."
    ]


def known_marketplaces(env: "Mapping[str, str]") -> str:
    """Where Claude Code records the marketplaces `claude plugin marketplace add` added (the
    same entries as a settings file's extraKnownMarketplaces)."""
    user = env.get("CLAUDE_CONFIG_DIR") or join(_home(env), ".claude")
    return _clean(join(user, "plugins", "known_marketplaces.json"))


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
# Claude Code's session transcripts: a goal's human authority is read from them
# (bridge.goal.typed), so no tool call of the agent's may write them.
TRANSCRIPTS = "~/.claude/projects"


def protected_roots(
    env: "Mapping[str, str]",
    project: "PathLike",
    loaded: "Sequence[PathLike]" = (),
    audit: "PathLike | None" = None,
) -> "tuple[list[str], list[str], list[str]]":
    """What self-protection guards: (CC settings files, ccbridge config files, ccbridge's own
    directories). Every candidate counts whether it exists or not, so the agent cannot create
    a layer that switches protection off; the patterns cover other projects' `.claude`."""
    settings = [
        *settings_files(env, project),
        *MANAGED_SETTINGS,
        *CC_SETTINGS_PATTERNS,
        *PLUGIN_PATTERNS,
        TRANSCRIPTS,
    ]
    if env.get("CLAUDE_CONFIG_DIR"):
        user = env["CLAUDE_CONFIG_DIR"]
        settings += [_clean(join(user, "settings.json")), _clean(join(user, "settings.local.json"))]
        settings += [_clean(join(user, name)) for name in ("plugins", "dev-mods", "projects")]
    if env.get(MANAGED_DIR_ENV):
        drop = _clean(env[MANAGED_DIR_ENV])
        settings += [drop, join(os.path.dirname(drop), "managed-settings.json")]
    configs = [*config_layers(env, project), *map(str, loaded), *CONFIG_PATTERNS]
    if env.get(CONFIG_ENV):
        configs.append(env[CONFIG_ENV])
    own = [state_dir(env), cache_dir(env), *([str(audit)] if audit else [])]
    return settings, configs, own


def find_config(
    explicit: "str | None", env: "Mapping[str, str]", project: "PathLike"
) -> "tuple[list[str], str]":
    """The config files to use, and how they were chosen (for --help, doctor and the audit).

    --config FILE, else $CCBRIDGE_CONFIG, else every existing layer of `config_layers`.
    An explicitly named file must exist; the layered lookup skips the missing ones.
    """
    if explicit:
        return [_clean(explicit)], "--config"
    if env.get(CONFIG_ENV):
        return [_clean(env[CONFIG_ENV])], CONFIG_ENV
    # exists, not isfile: a FIFO or a folder in a layer's place is refused by name when it is
    # read, never skipped (nor waited for)
    return [path for path in config_layers(env, project) if os.path.exists(path)], "layers"


def wide_layers(
    paths: "Sequence[PathLike]", env: "Mapping[str, str]", explicit: "str | None"
) -> int:
    """How many of `paths` (as `find_config(explicit, env, ...)` chose them) may loosen what
    ccbridge's defaults or a wider layer set: an explicit file (--config, $CCBRIDGE_CONFIG), or
    the user layer. A project or local layer only tightens (bridge.config.build): the agent can
    write those files, and a layer it writes must not switch protection off."""
    if explicit or env.get(CONFIG_ENV):
        return len(paths)
    user = config_layers(env, ".")[0]
    return 1 if paths and _clean(os.fspath(paths[0])) == user else 0


class NotRegular(OSError):
    """A FIFO, a device or a directory where ccbridge expects a file of its own. Its message
    names no path: the caller's does."""

    def __init__(self) -> None:
        super().__init__("not a regular file (a FIFO, a device or a folder)")


def open_regular(path: "PathLike", flags: int = os.O_RDONLY, mode: int = 0o600) -> int:
    """os.open that never blocks on what sits at `path` and refuses anything but a regular
    file: opening a FIFO for reading waits for a writer, and reading it (or a device) may never
    end. O_NONBLOCK only affects the open here; it is cleared for the file's reads and writes."""
    fd = os.open(path, flags | os.O_NONBLOCK, mode)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotRegular
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: "PathLike", limit: int) -> "tuple[bytes, os.stat_result]":
    """At most `limit` bytes of a regular file, and its status (see open_regular)."""
    fd = open_regular(path)
    try:
        status = os.fstat(fd)
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), status
    finally:
        os.close(fd)
