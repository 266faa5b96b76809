"""The compiled config: plain JSON values (read by bridge.wire.jsonio), so a normal hook call
never imports pydantic or PyYAML. bridge.config.build makes it from the YAML files;
bridge.config.cache keeps it between calls."""

import os

from bridge.pipeline.valueclass import Record, field
from bridge.wire.digest import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping, Sequence
    from typing import Any

    from bridge.subhooks.spec import HookSpec

    Path = str | os.PathLike[str]  # `pathlib` is not imported on a hook call: plain strings

FORMAT = 7
POLICY_KINDS = ("guards", "pre_execute", "post_execute", "observers")
# Seconds from a call's start to its answer (bridge.hookcall): below the `timeout: 60` that
# `ccbridge install` registers, with room for the hard stop's grace, the audit record and the
# interpreter's start.
DEFAULT_DEADLINE = 54.0
MAX_DEADLINE = 55.0
# A config file past this is refused with its size: no real config comes near it, and PyYAML
# takes seconds per hundred kilobytes.
MAX_CONFIG_BYTES = 256 << 10


class PolicyRef(Record, frozen=True, slots=True):
    ref: str  # module:function or file.py:function (file paths already absolute)
    where: str


class AuditConfig(Record, frozen=True, slots=True):
    """The `audit` section; its defaults are the schema's too."""

    enabled: bool = True
    path: "str | None" = None  # absolute once compiled; None: <state dir>/audit.jsonl
    max_bytes: int = 16 << 20
    keep: int = 5

    def to_json(self) -> "dict[str, Any]":
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

    def to_json(self) -> "dict[str, Any]":
        return {
            "enabled": self.enabled,
            "blocked_min_rounds": self.blocked_min_rounds,
            "default_max_rounds": self.default_max_rounds,
        }


class CompiledConfig(Record, frozen=True):
    files: "tuple[str, ...]" = ()
    digest: str = ""
    hooks: "Mapping[str, tuple[HookSpec, ...]]" = field(default_factory=dict)
    approval: str = "prompt"
    max_hooks: int = 64
    output_cap: int = 1024 * 1024
    deadline: float = DEFAULT_DEADLINE
    policies: "Mapping[str, tuple[PolicyRef, ...]]" = field(default_factory=dict)
    audit: "AuditConfig" = AuditConfig()
    goals: "GoalConfig" = GoalConfig()
    self_protection_off_in: "str | None" = (
        None  # the config file that says `self_protection: false`
    )
    # What a project or local layer tried to loosen and did not (the stricter value holds)
    warnings: "tuple[str, ...]" = ()
    error: "str | None" = None  # the config could not be loaded: every PreToolUse is denied
    # `wall` when CC's settings put the sandbox around what ccbridge keeps, else `tripwire`
    # (bridge.wall); judged when compiled, so the cache is keyed by the CC settings files too.
    protection: str = "tripwire"
    # The files the configured sub-hooks run and the code around them, their directories
    # included (bridge.wall.hook_scripts): self-protection keeps them without the wall too,
    # since a rewritten hook runs outside any sandbox.
    hook_scripts: "tuple[str, ...]" = ()
    # The plugin and marketplace folders CC's settings name (bridge.wall.plugin_dirs): code CC
    # loads, kept like ~/.claude/plugins.
    plugin_dirs: "tuple[str, ...]" = ()
    # The events Claude Code starts more than one ccbridge for (different registrations,
    # bridge.config.registrations), with how many: their calls share one judgement
    # (bridge.coordination). Judged when compiled, like `protection`.
    coordinated: "tuple[tuple[str, int], ...]" = ()

    @property
    def self_protection(self) -> bool:
        """On unless one of the loaded config files switched it off."""
        return self.self_protection_off_in not in self.files

    def to_json(self) -> "dict[str, Any]":
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
            "protection": self.protection,
            "hook_scripts": list(self.hook_scripts),
            "plugin_dirs": list(self.plugin_dirs),
            "coordinated": [list(pair) for pair in self.coordinated],
        }

    @classmethod
    def from_json(cls, data: "Mapping[str, Any]") -> "CompiledConfig":
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
            protection=data["protection"],
            hook_scripts=tuple(data["hook_scripts"]),
            plugin_dirs=tuple(data["plugin_dirs"]),
            coordinated=tuple(map(tuple, data["coordinated"])),
        )


def _hooks(data: "Mapping[str, list[dict[str, Any]]]") -> "dict[str, tuple[HookSpec, ...]]":
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

    path: "Path"
    content: "bytes | None"
    identity: "tuple[str, int, int, str]"
    problem: str = ""  # why content is None, when it is not simply missing


def read_sources(paths: "Sequence[Path]") -> "list[Source]":
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
