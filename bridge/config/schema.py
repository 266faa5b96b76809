"""The config file's schema. Imported only when a config must be (re)compiled or checked."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bridge.config.compiled import MAX_DEADLINE, AuditConfig, CompiledConfig, GoalConfig

MAX_HOOK_TIMEOUT = 50.0  # seconds: stays under the 60 s CC timeout `ccbridge install` registers
_COMPILED = CompiledConfig()  # the defaults of a config without that key, kept in one place


class Handler(BaseModel):
    """One CC hook handler, as written in a settings.json `hooks` block.

    Unknown keys are tolerated (CC adds fields often); the ones ccbridge acts on are typed.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type: str
    command: str | None = None
    args: list[str] | None = None
    shell: str | None = None
    timeout: float | None = Field(default=None, gt=0, le=MAX_HOOK_TIMEOUT)
    is_async: bool = Field(default=False, alias="async")
    if_rule: str | None = Field(default=None, alias="if")
    on_failure: Literal["block", "ignore"] | None = Field(default=None, alias="onFailure")
    name: str | None = None

    @model_validator(mode="after")
    def _runnable(self) -> Handler:
        if self.type != "command":
            raise ValueError(
                f"hook type {self.type!r} is not supported behind ccbridge: only 'command' hooks "
                "can be run and judged here (register other types with Claude Code directly)"
            )
        if not self.command:
            raise ValueError("a command hook needs a non-empty 'command'")
        if self.is_async:
            raise ValueError(
                "async hooks cannot gate a tool call; register them with Claude Code directly"
            )
        return self


class MatcherGroup(BaseModel):
    model_config = ConfigDict(extra="allow")

    matcher: str | None = None
    hooks: list[Handler]

    @field_validator("matcher")
    @classmethod
    def _valid_matcher(cls, value: str | None) -> str | None:
        from bridge.subhooks.matcher import compile_matcher

        compile_matcher(value)  # raises MatcherError (a ValueError) with the reason
        return value


class Defaults(BaseModel):
    model_config = ConfigDict(extra="forbid")

    timeout: float = Field(default=20.0, gt=0, le=MAX_HOOK_TIMEOUT)
    on_failure: Literal["block", "ignore"] = "block"
    approval: Literal["prompt", "none"] = "prompt"  # CompiledConfig's default too
    max_hooks: int = Field(default=_COMPILED.max_hooks, ge=1, le=256)
    output_cap: int = Field(default=_COMPILED.output_cap, ge=1024, le=64 * 1024 * 1024)
    # Seconds from the start of a call to its answer; past it the call is refused.
    deadline: float = Field(default=_COMPILED.deadline, ge=1, le=MAX_DEADLINE)


class Policies(BaseModel):
    """Native Python policies, each `module:function` or `path/to/file.py:function`."""

    model_config = ConfigDict(extra="forbid")

    guards: list[str] = []
    pre_execute: list[str] = []
    post_execute: list[str] = []
    observers: list[str] = []

    @field_validator("guards", "pre_execute", "post_execute", "observers")
    @classmethod
    def _references(cls, refs: list[str]) -> list[str]:
        for ref in refs:
            target, _, attr = ref.rpartition(":")
            if not target or not attr.isidentifier():
                raise ValueError(f"{ref!r} must look like 'module:function' or 'file.py:function'")
        return refs


_AUDIT, _GOALS = AuditConfig(), GoalConfig()  # the defaults, kept in one place


class Audit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = _AUDIT.enabled
    path: str | None = _AUDIT.path
    max_bytes: int = Field(default=_AUDIT.max_bytes, ge=4096)
    keep: int = Field(default=_AUDIT.keep, ge=1, le=100)


class Goals(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = _GOALS.enabled
    blocked_min_rounds: int = Field(default=_GOALS.blocked_min_rounds, ge=0)
    default_max_rounds: int = Field(default=_GOALS.default_max_rounds, ge=1, le=1000)


class BridgeConfig(BaseModel):
    """A ccbridge YAML file. Every section is optional; a layer sets only what it names."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    hooks: dict[str, list[MatcherGroup]] = {}
    defaults: Defaults = Defaults()
    policies: Policies = Policies()
    audit: Audit = Audit()
    goals: Goals = Goals()
    self_protection: bool = True
