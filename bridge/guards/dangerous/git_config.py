"""A git alias set by an earlier command (`git config alias.x push`), read from git's own
configuration where the command runs: only for a subcommand git does not ship."""

from __future__ import annotations

import os

from bridge.guards.git_query import ask_git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def configured_alias(name: str, cwd: str, options: Sequence[str]) -> str | None:
    """The value of `alias.NAME` as `git OPTIONS` in `cwd` would see it, or None (none set,
    or git cannot tell in time). `-C DIR` among the options is followed."""
    where = cwd
    for k, option in enumerate(options):
        if option == "-C" and k + 1 < len(options):
            where = os.path.join(where, options[k + 1])
    if not os.path.isdir(where) or "/" in name or not name:
        return None
    done = ask_git(where, ["config", "--get", f"alias.{name}"])
    if done is None:
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None
