"""What can be checked of a sub-hook's command without running it: whether the program it starts
exists. A missing command file makes every call of its hook fail (exit 127), which ccbridge turns
into a deny; `check` and `doctor` say so before Claude Code runs into it."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

from bridge.config.build import Problem
from bridge.config.compiled import CompiledConfig
from bridge.subhooks.runner import substitute
from bridge.subhooks.spec import HookSpec

# Words a shell runs itself: nothing on disk to look for.
SHELL_WORDS = frozenset(
    {
        *("!", ".", ":", "[", "[[", "{", "(", "alias", "bg", "break", "builtin", "case", "cd"),
        *("command", "continue", "echo", "eval", "exec", "exit", "export", "false", "fg", "for"),
        *("function", "getopts", "hash", "if", "jobs", "kill", "let", "local", "printf", "pwd"),
        *("read", "readonly", "return", "select", "set", "shift", "source", "test", "time"),
        *("times", "trap", "true", "type", "ulimit", "umask", "unalias", "unset", "until"),
        *("wait", "while"),
    }
)


def command_problems(
    config: CompiledConfig, env: Mapping[str, str], project: Path
) -> list[Problem]:
    """A missing command file is a problem; a bare command not on PATH, a warning (the PATH
    Claude Code gives its hooks may differ from this one)."""
    env = {**env, "CLAUDE_PROJECT_DIR": str(project)}
    problems = []
    for specs in config.hooks.values():
        for spec in specs:
            for message, warning in _missing(spec, env, project):
                file, line, place = _where(spec.where)
                problems.append(Problem(file, line, place, message, warning))
    return problems


def _missing(spec: HookSpec, env: Mapping[str, str], project: Path) -> Iterator[tuple[str, bool]]:
    program = _program(spec, env)
    if program is None or program in SHELL_WORDS or any(c in program for c in "$`*?["):
        return  # decided only when the shell runs it
    fails = "every call of this hook would fail and be denied"
    if "/" in program:
        path = project / Path(program).expanduser()  # an absolute one replaces the project
        if not path.exists():
            yield (
                f"command file {program} does not exist: {fails} (create it, or fix the path)",
                False,
            )
        elif not os.access(path, os.X_OK) or path.is_dir():
            yield f"command file {program} is not executable: {fails} (chmod +x it)", False
    elif shutil.which(program, path=env.get("PATH")) is None:
        yield (
            f"command {program!r} is not on PATH here ({fails} if Claude Code's lacks it too)",
            True,
        )


def _program(spec: HookSpec, env: Mapping[str, str]) -> str | None:
    """The program a hook starts: exec form's command, else the shell command's first word."""
    command = substitute(spec.command or "", env)
    if spec.args is not None:
        return command
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    for word in words:
        name, equals, _value = word.partition("=")
        if not (equals and name.isidentifier()):  # skip `VAR=value` prefixes
            return word
    return None


def _where(where: str) -> tuple[str, int | None, str]:
    """`file:line place` (HookSpec.where) taken apart."""
    location, _, place = where.rpartition(" hooks.")
    file, _, line = location.rpartition(":")
    if line.isdigit():
        return file, int(line), "hooks." + place
    return location, None, "hooks." + place
