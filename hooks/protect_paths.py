#!/usr/bin/env python3
"""Claude Code PreToolUse hook: deny writes to secrets and to Claude Code's settings files.

    protect_paths.py [--protect PATTERN]...

Protects `bridge.guards.protect.protect_paths.DEFAULT_SECRET_PATTERNS` and `CC_SETTINGS_PATTERNS`,
plus each PATTERN (a path or a glob; relative ones match at any depth). Use it with matcher
`Bash|Write|Edit|MultiEdit|NotebookEdit`, or load it into ccbridge as a native guard:
`hooks/protect_paths.py:guard` (the defaults only).
"""

from __future__ import annotations

import sys

try:
    import bridge  # noqa: F401
except ImportError:  # run from a checkout where ccbridge is not installed
    from pathlib import Path  # only here: a native guard's import is on every hook call

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge.guards.protect.protect_paths import (
    CC_SETTINGS_PATTERNS,
    DEFAULT_SECRET_PATTERNS,
    protected_paths_guard,
)
from bridge.pipeline import Guard
from bridge.policies.hook import run_guard_as_hook

DEFAULTS = (*DEFAULT_SECRET_PATTERNS, *CC_SETTINGS_PATTERNS)
guard = protected_paths_guard(DEFAULTS)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:  # the usual call: no options to read, so no argparse (with re and gettext)
        return run_guard_as_hook(guard, "protect_paths")
    import argparse  # only for options

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--protect", action="append", default=[], metavar="PATTERN")
    extra = parser.parse_args(args).protect
    chosen: Guard = protected_paths_guard([*DEFAULTS, *extra]) if extra else guard
    return run_guard_as_hook(chosen, "protect_paths")


if __name__ == "__main__":
    sys.exit(main())
