#!/usr/bin/env python3
"""Claude Code PreToolUse hook: deny Bash commands that wreck the machine, the disk or history.

    dangerous_shell.py [--allow RULE]... [--deny RULE]...

Use it on its own (`"command": "hooks/dangerous_shell.py"` with matcher `Bash`) or load it into
ccbridge as a native guard: `hooks/dangerous_shell.py:guard`. The git rules can be switched per
project: `--allow git-stash-drop` lets that through, `--deny git-push-force-with-lease` adds the
one rule that is off by default (the names: `bridge.guards.dangerous.git_rules.RULES`). As a native
guard, a project makes its own guard in a policy file next to its config and names that one:

    # .claude/guards.py, referenced as `policies: {guards: [guards.py:guard]}`
    from bridge.policies.builtin import configure
    guard = configure(allow=["git-stash-drop"], deny=["git-push-force-with-lease"])
"""

from __future__ import annotations

import sys

try:
    import bridge  # noqa: F401
except ImportError:  # run from a checkout where ccbridge is not installed
    from pathlib import Path  # only here: a native guard's import is on every hook call

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge.guards.dangerous.dangerous_shell import configure, dangerous_shell

guard = dangerous_shell


def main(argv: list[str] | None = None) -> int:
    from bridge.policies.hook import run_guard_as_hook

    args = sys.argv[1:] if argv is None else argv
    if not args:  # the usual call: no options to read, so no argparse (with re and gettext)
        return run_guard_as_hook(guard, "dangerous_shell")
    import argparse  # only for options

    from bridge.guards.dangerous.git_rules import RULES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--allow", action="append", default=[], choices=RULES, metavar="RULE")
    parser.add_argument("--deny", action="append", default=[], choices=RULES, metavar="RULE")
    options = parser.parse_args(args)
    chosen = configure(options.allow, options.deny) if options.allow or options.deny else guard
    return run_guard_as_hook(chosen, "dangerous_shell")


if __name__ == "__main__":
    sys.exit(main())
