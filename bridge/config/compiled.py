"""The compiled config: plain JSON values (read by bridge.wire.jsonio), so a normal hook call
never imports pydantic or PyYAML. Compiled once per set of config files and cached, keyed by the
files' identity (path, size, mtime, content digest) and the ccbridge version; a broken or stale
cache entry is rebuilt, never trusted.

A cache entry is sealed with an HMAC under a per-user key kept in the state directory (0600).
Without a secret, the only way to know that a compiled form belongs to its YAML is to compile the
YAML again, which costs pydantic and PyYAML on every call; a digest stored beside the payload
would simply be recomputed by whoever edits the payload. An entry whose seal does not match was
written by something other than ccbridge: it is rebuilt from the config files and the call that
found it fails closed, naming the entry."""

from __future__ import annotations

import os

from bridge import __version__
from bridge.deadline import DEFAULT_DEADLINE
from bridge.pipeline.record import Record, field, replace
from bridge.wire import jsonio
from bridge.wire.digest import hmac_sha256_hex, sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` is not imported on a hook call
    from collections.abc import Mapping, Sequence
    from typing import Any

    from bridge.subhooks.spec import HookSpec

    Path = str | os.PathLike[str]  # `pathlib` is not imported on a hook call: plain strings

FORMAT = 3
POLICY_KINDS = ("guards", "pre_execute", "post_execute", "observers")
# A config file past this is refused with its size: no real config comes near it, and PyYAML
# takes seconds per hundred kilobytes.
MAX_CONFIG_BYTES = 256 << 10
# A compiled entry holds at most a few config files' worth of hooks; past this it is no entry
# ccbridge wrote, and it is rebuilt without being read to its end.
MAX_ENTRY_BYTES = 16 * MAX_CONFIG_BYTES
KEY_NAME = "cache.key"
KEY_BYTES = 32


class PolicyRef(Record, frozen=True, slots=True):
    ref: str  # module:function or file.py:function (file paths already absolute)
    where: str


class AuditConfig(Record, frozen=True, slots=True):
    """The `audit` section; its defaults are the schema's too."""

    enabled: bool = True
    path: str | None = None  # absolute once compiled; None: <state dir>/audit.jsonl
    max_bytes: int = 16 << 20
    keep: int = 5

    def to_json(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "path": self.path,
            "max_bytes": self.max_bytes,
            "keep": self.keep,
        }


class GoalConfig(Record, frozen=True, slots=True):
    """The `goals` section; its defaults are the schema's too."""

    enabled: bool = False
    # Admitted rounds needed before the model may mark its goal blocked on round authority.
    blocked_min_rounds: int = 3
    default_max_rounds: int = 10

    def to_json(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "blocked_min_rounds": self.blocked_min_rounds,
            "default_max_rounds": self.default_max_rounds,
        }


class CompiledConfig(Record, frozen=True):
    files: tuple[str, ...] = ()
    digest: str = ""
    hooks: Mapping[str, tuple[HookSpec, ...]] = field(default_factory=dict)
    approval: str = "prompt"
    max_hooks: int = 64
    output_cap: int = 1024 * 1024
    deadline: float = DEFAULT_DEADLINE
    policies: Mapping[str, tuple[PolicyRef, ...]] = field(default_factory=dict)
    audit: AuditConfig = AuditConfig()
    goals: GoalConfig = GoalConfig()
    self_protection_off_in: str | None = None  # the config file that says `self_protection: false`
    # What a project or local layer tried to loosen and did not (the stricter value holds)
    warnings: tuple[str, ...] = ()
    error: str | None = None  # the config could not be loaded: every PreToolUse is denied

    @property
    def self_protection(self) -> bool:
        """On unless one of the loaded config files switched it off."""
        return self.self_protection_off_in not in self.files

    def to_json(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "digest": self.digest,
            "hooks": {
                event: [spec.to_json() for spec in specs] for event, specs in self.hooks.items()
            },
            "approval": self.approval,
            "max_hooks": self.max_hooks,
            "output_cap": self.output_cap,
            "deadline": self.deadline,
            "policies": {
                kind: [[ref.ref, ref.where] for ref in refs] for kind, refs in self.policies.items()
            },
            "audit": self.audit.to_json(),
            "goals": self.goals.to_json(),
            "self_protection_off_in": self.self_protection_off_in,
            "warnings": list(self.warnings),
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CompiledConfig:
        return cls(
            files=tuple(data["files"]),
            digest=data["digest"],
            hooks=_hooks(data["hooks"]),
            approval=data["approval"],
            max_hooks=data["max_hooks"],
            output_cap=data["output_cap"],
            deadline=data["deadline"],
            policies={
                kind: tuple(PolicyRef(ref, where) for ref, where in refs)
                for kind, refs in data["policies"].items()
            },
            audit=AuditConfig(**data["audit"]),
            goals=GoalConfig(**data["goals"]),
            self_protection_off_in=data["self_protection_off_in"],
            warnings=tuple(data["warnings"]),
            error=data["error"],
        )


def _hooks(data: Mapping[str, list[dict[str, Any]]]) -> dict[str, tuple[HookSpec, ...]]:
    """The compiled sub-hooks; a config without any never loads their class."""
    if not data:
        return {}
    from bridge.subhooks.spec import HookSpec

    return {
        event: tuple(HookSpec.from_json(spec) for spec in specs) for event, specs in data.items()
    }


class Source(Record, frozen=True, slots=True):
    """One config file as read now: its path, identity and bytes (None when missing). At most
    MAX_CONFIG_BYTES + 1 bytes are read: enough to refuse a larger file, by its size."""

    path: Path
    content: bytes | None
    identity: tuple[str, int, int, str]
    problem: str = ""  # why content is None, when it is not simply missing


class Cache(Record, frozen=True, slots=True):
    """Where compiled configs are kept, and the file holding the key that seals them."""

    directory: Path
    key_file: Path

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Cache:
        from bridge.paths import cache_dir, state_dir

        return cls(cache_dir(env), os.path.join(state_dir(env), KEY_NAME))


def read_sources(paths: Sequence[Path]) -> list[Source]:
    from bridge.paths import NotRegular, read_regular

    sources = []
    for path in paths:
        try:
            content, stat = read_regular(path, MAX_CONFIG_BYTES + 1)
        except NotRegular as error:  # a FIFO would hang every call that reads it
            problem = f"{error}: ccbridge reads only regular config files"
            sources.append(Source(path, None, (str(path), -2, -2, ""), problem=problem))
            continue
        except OSError:
            sources.append(Source(path, None, (str(path), -1, -1, "")))
            continue
        digest = sha256_hex(content)
        sources.append(Source(path, content, (str(path), stat.st_size, stat.st_mtime_ns, digest)))
    return sources


def cache_key(sources: list[Source], wide: int = 1) -> str:
    identity = jsonio.dumps([FORMAT, __version__, wide, [source.identity for source in sources]])
    return sha256_hex(identity)


def _cache_file(directory: Path, key: bytes, sources: list[Source]) -> Path:
    # One entry per set of paths and sealing key, overwritten when the files change: the cache
    # cannot grow with every edit, and two state directories sharing one cache do not collide.
    names = sha256_hex(key + "\0".join(str(s.path) for s in sources).encode())[:32]
    return os.path.join(directory, f"config-{names}.sealed")


def load(paths: Sequence[Path], cache: Cache | None, wide: int = 1) -> CompiledConfig:
    """The compiled config for these files, from the cache when it matches and is sealed. The
    first `wide` files may loosen what ccbridge's defaults say (bridge.paths.wide_layers)."""
    if not paths:
        return CompiledConfig()
    from bridge.paths import NotRegular, read_regular

    sources = read_sources(paths)
    key = cache_key(sources, wide)
    secret, tampered = _secret(cache.key_file) if cache is not None else (None, None)
    entry = _cache_file(cache.directory, secret, sources) if cache and secret else None
    forged = False
    if entry is not None and secret is not None:
        try:
            sealed, _status = read_regular(entry, MAX_ENTRY_BYTES)
            seal, _, payload = sealed.partition(b"\n")
            forged = seal != hmac_sha256_hex(secret, payload).encode()
            cached = None if forged else jsonio.loads(payload)
            if cached is not None and cached["key"] == key and tampered is None:
                return CompiledConfig.from_json(cached["config"])
        except NotRegular:  # a FIFO there would hang the call: nothing ccbridge wrote
            forged = True
        except (OSError, ValueError, KeyError, TypeError):
            pass  # missing, or sealed by an older ccbridge: rebuild below
    from bridge.config.build import compile_sources

    compiled = compile_sources(sources, key, wide)
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


def _secret(path: Path) -> tuple[bytes | None, str | None]:
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


def _temporary(path: Path) -> str:
    """A private temporary name beside `path`, to rename over it."""
    directory, name = os.path.split(os.fspath(path))
    return os.path.join(directory, f".{name}.{os.getpid()}.tmp")


def _store(entry: Path, content: bytes) -> None:
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
