"""Goal settings and where the goal state lives."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bridge import paths
from bridge.config.compiled import GoalConfig
from bridge.goal.activation import ProcessIdentity, find_cc_process
from bridge.goal.provenance import bash_tool_refusal

DB_NAME = "goals.sqlite3"
# Claude Code ends a turn after this many consecutive Stop-hook blocks unless told otherwise.
CC_STOP_BLOCK_CAP = 8
CC_STOP_BLOCK_CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"


def stop_block_cap_from_env(environ: Mapping[str, str] = os.environ) -> int:
    """The cap Claude Code applies; hooks inherit Claude Code's environment, so it is visible."""
    value = environ.get(CC_STOP_BLOCK_CAP_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else CC_STOP_BLOCK_CAP


_CONFIG_DEFAULTS = GoalConfig()


@dataclass(frozen=True, slots=True)
class GoalSettings:
    enabled: bool = True
    # The config's `goals` defaults (bridge.config.compiled.GoalConfig), kept in one place.
    blocked_min_rounds: int = _CONFIG_DEFAULTS.blocked_min_rounds
    default_max_rounds: int = _CONFIG_DEFAULTS.default_max_rounds
    state_dir: Path = field(default_factory=lambda: Path(paths.state_dir()))
    stop_block_cap: int = field(default_factory=stop_block_cap_from_env)
    # A judged goal change not reported as run by then is dropped. Generous: in an interactive
    # session the call may wait for the user's answer to a permission prompt.
    pending_ttl_s: float = 3600.0
    # Injectable so tests can play a restarted Claude Code process.
    identity: Callable[[], ProcessIdentity | None] = find_cc_process
    # Why this process may not record host events (None: Claude Code started it as a hook).
    provenance: Callable[[], str | None] = bash_tool_refusal

    @property
    def db_path(self) -> Path:
        return self.state_dir / DB_NAME
