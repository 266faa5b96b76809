"""The compiled config: plain JSON values (read by bridge.wire.jsonio), so a normal hook call
never imports pydantic or PyYAML. Compiled once per set of config files and cached, keyed by the
files' identity (path, size, mtime, content digest) and the ccbridge version; a broken or stale
cache entry is rebuilt, never trusted."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge import __version__
from bridge.pipeline.record import field, record
from bridge.subhooks.spec import HookSpec
from bridge.wire import jsonio
from bridge.wire.digest import sha256_hex

FORMAT = 1
POLICY_KINDS = ("guards", "pre_execute", "post_execute", "observers")


@record(frozen=True, slots=True)
class PolicyRef:
    ref: str  # module:function or file.py:function (file paths already absolute)
    where: str


@record(frozen=True)
class CompiledConfig:
    files: tuple[str, ...] = ()
    digest: str = ""
    hooks: Mapping[str, tuple[HookSpec, ...]] = field(default_factory=dict)
    approval: str = "prompt"
    max_hooks: int = 64
    output_cap: int = 1024 * 1024
    policies: Mapping[str, tuple[PolicyRef, ...]] = field(default_factory=dict)
    audit: Mapping[str, Any] = field(
        default_factory=lambda: {"enabled": True, "path": None, "max_bytes": 16 << 20, "keep": 5}
    )
    goals: Mapping[str, Any] = field(
        default_factory=lambda: {
            "enabled": False,
            "blocked_min_rounds": 3,
            "default_max_rounds": 10,
        }
    )
    self_protection: bool = True
    self_protection_off_in: str | None = None
    error: str | None = None  # the config could not be loaded: every PreToolUse is denied

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
            "policies": {
                kind: [[ref.ref, ref.where] for ref in refs] for kind, refs in self.policies.items()
            },
            "audit": dict(self.audit),
            "goals": dict(self.goals),
            "self_protection": self.self_protection,
            "self_protection_off_in": self.self_protection_off_in,
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CompiledConfig:
        return cls(
            files=tuple(data["files"]),
            digest=data["digest"],
            hooks={
                event: tuple(HookSpec.from_json(spec) for spec in specs)
                for event, specs in data["hooks"].items()
            },
            approval=data["approval"],
            max_hooks=data["max_hooks"],
            output_cap=data["output_cap"],
            policies={
                kind: tuple(PolicyRef(ref, where) for ref, where in refs)
                for kind, refs in data["policies"].items()
            },
            audit=data["audit"],
            goals=data["goals"],
            self_protection=data["self_protection"],
            self_protection_off_in=data["self_protection_off_in"],
            error=data["error"],
        )


@record(frozen=True, slots=True)
class Source:
    """One config file as read now: its path, identity and bytes (None when missing)."""

    path: Path
    content: bytes | None
    identity: tuple[str, int, int, str]


def read_sources(paths: list[Path]) -> list[Source]:
    sources = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                stat = os.fstat(handle.fileno())
                content = handle.read()
        except OSError:
            sources.append(Source(path, None, (str(path), -1, -1, "")))
            continue
        digest = sha256_hex(content)
        sources.append(Source(path, content, (str(path), stat.st_size, stat.st_mtime_ns, digest)))
    return sources


def cache_key(sources: list[Source]) -> str:
    identity = jsonio.dumps([FORMAT, __version__, [source.identity for source in sources]])
    return sha256_hex(identity)


def _cache_file(cache: Path, sources: list[Source]) -> Path:
    # One entry per set of paths, overwritten when the files change: the cache cannot grow
    # with every edit.
    names = sha256_hex("\0".join(str(s.path) for s in sources).encode())[:32]
    return cache / f"config-{names}.json"


def load(paths: list[Path], cache: Path | None) -> CompiledConfig:
    """The compiled config for these files, from the cache when it matches."""
    if not paths:
        return CompiledConfig()
    sources = read_sources(paths)
    key = cache_key(sources)
    entry = _cache_file(cache, sources) if cache is not None else None
    if entry is not None:
        try:
            cached = jsonio.loads(entry.read_bytes())
            if cached["key"] == key:
                return CompiledConfig.from_json(cached["config"])
        except (OSError, ValueError, KeyError, TypeError):
            pass  # missing, torn or from another version: rebuild below
    from bridge.config.build import compile_sources

    compiled = compile_sources(sources, key)
    if entry is not None:
        _store(entry, {"key": key, "config": compiled.to_json()})
    return compiled


def _store(entry: Path, payload: dict[str, Any]) -> None:
    """Atomic write: a concurrent reader sees the old entry or the new one, never half."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        temporary = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
        temporary.write_bytes(jsonio.dumps(payload))
        os.replace(temporary, entry)
    except OSError:
        pass  # an unwritable cache only costs speed
