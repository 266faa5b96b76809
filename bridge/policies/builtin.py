"""The ready-made guards under stable names, for a config in any project:
`policies: {guards: [builtin:dangerous_shell, builtin:protect_paths]}`; and `configure`, which
makes a dangerous_shell guard with other git rules switched on or off, for a policy file.

The same guards run as plain CC hooks from a checkout's `hooks/` folder; these names work from an
installed ccbridge, where that folder does not exist.
"""

from __future__ import annotations

from bridge.guards.dangerous.dangerous_shell import configure, dangerous_shell
from bridge.guards.protect.protect_paths import DEFAULT_SECRET_PATTERNS, protected_paths_guard
from bridge.paths import CC_SETTINGS_PATTERNS

__all__ = ["NAMES", "configure", "dangerous_shell", "protect_paths"]

# Secrets and Claude Code's settings files, against file tools and writing Bash commands.
protect_paths = protected_paths_guard((*DEFAULT_SECRET_PATTERNS, *CC_SETTINGS_PATTERNS))
NAMES = ("dangerous_shell", "protect_paths")
