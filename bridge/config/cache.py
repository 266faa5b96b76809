"""The compiled-config cache: compiled once per set of config files, keyed by the files'
identity (path, size, mtime, content digest) and the ccbridge version; a broken or stale entry
is rebuilt, never trusted. Of a hook call's modules the only one that imports
bridge.config.build (pydantic, PyYAML), and only on a miss.

A cache entry is sealed with an HMAC under a per-user key kept in the state directory (0600).
Without a secret, the only way to know that a compiled form belongs to its YAML is to compile the
YAML again, which costs pydantic and PyYAML on every call; a digest stored beside the payload
would simply be recomputed by whoever edits the payload. An entry whose seal does not match was
written by something other than ccbridge: it is rebuilt from the config files and the call that
found it fails closed, naming the entry."""

import os

# hmac.compare_digest's own implementation (constant time), without `hmac`, which imports
# hashlib (OpenSSL) on every hook call.
from _operator import _compare_digest as compare_digest

from bridge import __version__
from bridge.config.compiled import FORMAT, MAX_CONFIG_BYTES, CompiledConfig, Source, read_sources
from bridge.pipeline.valueclass import Record, replace
from bridge.wire import jsonio
from bridge.wire.digest import hmac_sha256_hex, sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping, Sequence
    from typing import Any

    from bridge.config.compiled import Path

# A compiled entry holds at most a few config files' worth of hooks; past this it is no entry
# ccbridge wrote, and it is rebuilt without being read to its end.
MAX_ENTRY_BYTES = 16 * MAX_CONFIG_BYTES
KEY_NAME = "cache.key"
KEY_BYTES = 32


class Cache(Record, frozen=True, slots=True):
    """Where compiled configs are kept, and the file holding the key that seals them."""

    directory: "Path"
    key_file: "Path"

    @classmethod
    def of(cls, env: "Mapping[str, str]") -> "Cache":
        from bridge.paths import cache_dir, state_dir

        return cls(cache_dir(env), os.path.join(state_dir(env), KEY_NAME))


class Surroundings(Record, frozen=True, slots=True):
    """What the protection level depends on besides the config files: the environment (home,
    state, cache, config variables) and the project."""

    env: "Mapping[str, str]"
    project: str

    def identity(self) -> "list[Any]":
        """The CC settings files' identity and that of the marketplaces CC records (stat
        only: path, size, mtime, ctime, inode; a ctime cannot be set back) and the places the
        level is judged for."""
        from bridge import paths

        stats: list[Any] = []
        layers = paths.settings_layers(self.env, self.project)
        for path in [*layers, paths.known_marketplaces(self.env)]:
            try:
                st = os.stat(path)
                stats.append([path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino])
            except (OSError, ValueError):  # missing; or a NUL in a path made of the event
                stats.append([path])
        env = self.env
        places = [paths._home(env), paths.state_dir(env), paths.cache_dir(env)]
        names = (paths.CONFIG_ENV, "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_PLUGIN_DIRS")
        return [stats, self.project, places, [env.get(name) for name in names]]


def cache_key(sources: "list[Source]", around: "Surroundings | None" = None, wide: int = 1) -> str:
    extra = around.identity() if around is not None else None
    identity = jsonio.dumps(
        [FORMAT, __version__, wide, [source.identity for source in sources], extra]
    )
    return sha256_hex(identity)


def _judged(compiled: "CompiledConfig", around: "Surroundings | None") -> "CompiledConfig":
    """The compiled config with its protection level (off the hot path: a cache miss)."""
    if around is None:
        return compiled
    from bridge.config.registrations import counted
    from bridge.wall import hook_scripts, judge, plugin_dirs

    level, _missing = judge(around.env, around.project, compiled.hooks, compiled.audit.path)
    scripts = tuple(hook_scripts(compiled.hooks, around.env, around.project))
    named = tuple(plugin_dirs(around.env, around.project))
    twice = tuple(counted(around.env, around.project).items())
    # What is missing: explain and doctor judge again.
    return replace(
        compiled, protection=level, hook_scripts=scripts, plugin_dirs=named, coordinated=twice
    )


def _cache_file(
    directory: "Path", key: bytes, sources: "list[Source]", around: "Surroundings | None" = None
) -> "Path":
    # One entry per set of paths and sealing key, overwritten when the files change: the cache
    # cannot grow with every edit, and two state directories sharing one cache do not collide.
    named = "\0".join(str(s.path) for s in sources) + ("\0" + around.project if around else "")
    names = sha256_hex(key + named.encode())[:32]
    return os.path.join(directory, f"config-{names}.sealed")


def load(
    paths: "Sequence[Path]",
    cache: "Cache | None",
    around: "Surroundings | None" = None,
    wide: int = 1,
) -> "CompiledConfig":
    """The compiled config for these files, from the cache when it matches and is sealed;
    with `around`, with the protection level judged for those surroundings. The first `wide`
    files may loosen what ccbridge's defaults say (bridge.paths.wide_layers)."""
    if not paths and around is None:
        return CompiledConfig()
    from bridge.paths import NotRegular, read_regular

    sources = read_sources(paths)
    key = cache_key(sources, around, wide)
    secret, tampered = sealing_key(cache.key_file) if cache is not None else (None, None)
    entry = _cache_file(cache.directory, secret, sources, around) if cache and secret else None
    forged = False
    if entry is not None and secret is not None:
        try:
            sealed, _status = read_regular(entry, MAX_ENTRY_BYTES)
            seal, _, payload = sealed.partition(b"\n")
            forged = not compare_digest(seal, hmac_sha256_hex(secret, payload).encode())
            cached = None if forged else jsonio.loads(payload)
            if cached is not None and cached["key"] == key and tampered is None:
                return CompiledConfig.from_json(cached["config"])
        except NotRegular:  # a FIFO there would hang the call: nothing ccbridge wrote
            forged = True
        except (OSError, ValueError, KeyError, TypeError):
            pass  # missing, or sealed by an older ccbridge: rebuild below
    if sources:
        from bridge.config.build import compile_sources

        compiled = _judged(compile_sources(sources, key, wide), around)
    else:
        compiled = _judged(CompiledConfig(), around)
    if entry is not None and secret is not None:
        payload = jsonio.dumps({"key": key, "config": compiled.to_json()})
        _store(entry, hmac_sha256_hex(secret, payload).encode() + b"\n" + payload)
    if tampered is not None:
        return replace(compiled, error=tampered)
    if forged:
        return replace(
            compiled,
            error=f"{entry}: this compiled-config cache entry was written by something other "
            "than ccbridge (its seal does not match, or it is no regular file); it was rebuilt "
            "from " + ", ".join(map(str, paths)) + ", and the call that found it is refused",
        )
    return compiled


def sealing_key(path: "Path") -> "tuple[bytes | None, str | None]":
    """The per-user sealing key, made on first use; None when it cannot be had (then nothing is
    cached: every call compiles, slower but never trusting an unsealed entry). The second item
    says why the call is refused: the key was no regular file (a FIFO would hang every call),
    so it was replaced with a new one."""
    from bridge.paths import NotRegular, read_regular

    tampered = None
    try:
        secret, _status = read_regular(path, KEY_BYTES + 1)
        if len(secret) == KEY_BYTES:
            return secret, None
    except FileNotFoundError:
        pass
    except NotRegular as error:
        tampered = (
            f"{path}: the cache's sealing key is {error} (something other than ccbridge put it "
            "there); a new key replaces it, and the call that found it is refused"
        )
    except OSError:
        return None, None
    secret = os.urandom(KEY_BYTES)
    temporary = _temporary(path)
    try:
        os.makedirs(os.path.dirname(temporary) or ".", mode=0o700, exist_ok=True)
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(handle, "wb") as out:
            out.write(secret)
        if tampered is not None:
            os.replace(temporary, path)
            return secret, tampered
        try:
            os.link(temporary, path)  # the first writer wins; a concurrent one reads its key
        except FileExistsError:
            try:
                existing, _status = read_regular(path, KEY_BYTES + 1)
            except NotRegular:
                existing = b""
            if len(existing) == KEY_BYTES:
                return existing, None
            os.replace(temporary, path)  # a damaged key: entries sealed with it are rebuilt
    except OSError:
        return None, tampered
    finally:
        from contextlib import suppress  # once per user: the key is made on first use

        with suppress(FileNotFoundError):
            os.unlink(temporary)
    return secret, tampered


def _temporary(path: "Path") -> str:
    """A private temporary name beside `path`, to rename over it."""
    directory, name = os.path.split(os.fspath(path))
    return os.path.join(directory, f".{name}.{os.getpid()}.tmp")


def _store(entry: "Path", content: bytes) -> None:
    """Atomic write: a concurrent reader sees the old entry or the new one, never half."""
    try:
        temporary = _temporary(entry)
        os.makedirs(os.path.dirname(temporary) or ".", mode=0o700, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        with os.fdopen(os.open(temporary, flags, 0o600), "wb") as out:
            out.write(content)
        os.replace(temporary, entry)
    except OSError:
        pass  # an unwritable cache only costs speed
