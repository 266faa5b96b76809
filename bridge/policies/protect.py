"""Guards that keep tools from writing protected files: secrets, and ccbridge's own settings.

An entry is a path or a glob (`*`, `?`, `[...]`, `**` for any number of directories). Absolute
entries (after `~`) are anchored at the root; relative ones match at any depth, so `.env`
protects every `.env` and `.ssh/**` everything in any `.ssh`. A path is protected when it, or a
directory above it, matches. Only writes are judged: reading a secret is not this guard's job.
"""

from __future__ import annotations

import glob
import operator
import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from fnmatch import fnmatchcase
from itertools import accumulate, islice, pairwise
from pathlib import Path

from bridge.pipeline import Execution, Guard
from bridge.pipeline.record import record
from bridge.policies.shell import (
    SHELLS,
    SimpleCommand,
    bash_script,
    expand_home,
    interpreter,
    program,
)

DEFAULT_SECRET_PATTERNS = (
    ".env", ".env.*", "*.pem", "*.key", "id_rsa*", ".ssh/**", ".aws/credentials", ".netrc",
)  # fmt: skip
CC_SETTINGS_PATTERNS = ("~/.claude/settings*.json", "**/.claude/settings*.json")
PATH_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
# Commands that write, move, delete or re-permission the files they name.
WRITERS = frozenset(
    {
        *("tee", "mv", "cp", "rm", "rmdir", "unlink", "ln", "truncate", "install", "touch"),
        *("chmod", "chown", "chgrp", "shred", "rsync", "dd", "patch"),
    }
)
_COPIERS = frozenset({"cp", "mv", "ln", "install", "rsync"})  # last operand may be a directory
_GLOB = re.compile(r"[*?[]")
_CODE_TOKEN_SEPARATORS = re.compile(r"[\s'\"`()\[\]{},;:<>|&+]+")
_MAX_GLOB_MATCHES = 1000


@record(frozen=True, slots=True)
class _Entry:
    spec: str  # as configured
    parts: tuple[str, ...]  # components of the pattern, `~` expanded
    anchored: bool

    def protects(self, parts: tuple[str, ...]) -> bool:
        """Whether a path (absolute components) is this entry or lies under it."""
        lead = () if self.anchored else ("**",)
        return _match((*lead, *self.parts, "**"), parts)

    def could_end_with(self, parts: tuple[str, ...]) -> bool:
        """Whether a relative path of unknown base could name this entry (or a file in it)."""
        return any(
            _match((*self.parts[start:], "**"), parts)
            for start in range(len(self.parts))
            if set(self.parts[start:]) != {"**"}  # a bare `**` tail would fit any path
        )


def _match(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether path components match glob components (`**`: any number of them)."""
    reached = [True] + [False] * len(parts)  # reached[j]: the pattern so far matches parts[:j]
    for head in pattern:
        if head == "**":
            reached = list(accumulate(reached, operator.or_))
        else:
            reached = [False] + [
                reached[j] and fnmatchcase(part, head) for j, part in enumerate(parts)
            ]
    return reached[-1]


def _split(path: str) -> tuple[str, ...]:
    return tuple(part for part in posixpath.normpath(path).split("/") if part not in ("", "."))


def _entries(spec: str | Path) -> Iterator[_Entry]:
    text = expand_home(os.path.expanduser(str(spec)))
    anchored = text.startswith("/")
    yield _Entry(str(spec), _split(text), anchored)
    if anchored and not _GLOB.search(text):  # a protected symlink: its target too
        real = _realpath(text)
        if real is not None and _split(real) != _split(text):
            yield _Entry(str(spec), _split(real), True)


def _realpath(path: str) -> str | None:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # e.g. an embedded NUL: the literal form is still checked
        return None


class _Protection:
    def __init__(self, paths: Sequence[str | Path], label: str) -> None:
        self.entries = tuple(entry for spec in paths for entry in _entries(spec))
        self.label = label

    def match(
        self, path: str, cwd: str, shell_word: bool = False, unknown_base: bool = False
    ) -> str | None:
        """The protected entry `path` hits, resolved in `cwd` (a shell word: globs expanded)."""
        path = expand_home(path)
        base = cwd if cwd.startswith("/") else os.getcwd()
        absolute = posixpath.join(base, path)
        forms: set[tuple[str, ...]] = set()
        for expanded in (absolute, *(self._globbed(absolute) if shell_word else ())):
            forms |= {_split(expanded), _split(_realpath(expanded) or expanded)}
        for entry in self.entries:
            if any(entry.protects(form) for form in forms):
                return entry.spec
            if unknown_base and not path.startswith("/") and entry.could_end_with(_split(path)):
                return entry.spec
        return None

    @staticmethod
    def _globbed(pattern: str) -> list[str]:
        if not _GLOB.search(pattern):
            return []
        try:  # the shell expands a glob to what exists now, so the files it would touch exist
            return list(islice(glob.iglob(pattern, include_hidden=True), _MAX_GLOB_MATCHES))
        except (OSError, ValueError, RecursionError):
            return []


def protected_paths_guard(paths: Sequence[str | Path], label: str = "protected path") -> Guard:
    """A guard denying writes (file tools, and Bash commands that write) to `paths`."""
    protection = _Protection(paths, label)

    def guard(execution: Execution) -> str | None:
        if execution.tool_name in PATH_TOOLS:
            return _path_tool(protection, execution)
        if execution.tool_name == "Bash":
            return _bash(protection, execution)
        return None

    return guard


SELF_PROTECTION = "ccbridge self-protection"
# What the agent may run: its goal tool and commands that only read or work on private state.
# `run` and `explain` would forge hook events into the real state; `install` and `uninstall`
# rewrite the registration.
_AGENT_SUBCOMMANDS = frozenset(
    {"goal", "test", "check", "schema", "audit", "doctor", "--help", "-h", "--version"}
)
# The same, spelled inside another command's text (a script being written, inline code).
_CCBRIDGE_TEXT = re.compile(
    r"(?:^|[\s/;|&(`'\"])ccbridge\s+(?:run|explain|install|uninstall)\b|"
    r"\bbridge\.(?:main|engine|goal|cli)\b|-m\s+bridge\b"
)


def self_protection_guard(
    settings_files: Sequence[str | Path] = CC_SETTINGS_PATTERNS,
    config_files: Sequence[str | Path] = (),
    state_dir: str | Path | Sequence[str | Path] | None = None,
) -> Guard:
    """ccbridge's own guard: nobody edits the hook settings or its config, nobody touches its
    state (the goal store and the audit trail are the authority), and the agent runs no
    ccbridge command but `ccbridge goal`.

    `state_dir` is the state/audit directory, or several such paths (say, a separate audit log).
    Unlike settings and config, which are only guarded against writes, a Bash command that so
    much as names a state path is denied: `sqlite3 <state>/goals.sqlite3 "INSERT ..."` writes
    without any writing command we could recognise.
    """
    state = [state_dir] if isinstance(state_dir, str | Path) else list(state_dir or ())
    writes = protected_paths_guard([*settings_files, *config_files, *state], SELF_PROTECTION)
    sealed = _Protection(state, SELF_PROTECTION)

    def guard(execution: Execution) -> str | None:
        objection = writes(execution)
        if objection is None and execution.tool_name == "Bash":
            objection = _sealed(sealed, execution)
        return objection

    return guard


def _sealed(protection: _Protection, execution: Execution) -> str | None:
    script = bash_script(execution.input)
    if isinstance(script, str):  # the write check has denied it already
        return script
    moves = any(c.name in ("cd", "pushd", "popd") for c in script.commands())
    for command in script.commands():
        if _runs_ccbridge(command):
            return (
                f"{protection.label}: `{_show(command)}` runs ccbridge itself; the agent may not "
                "run `ccbridge run`, `explain`, `install` or `uninstall` (they could forge hook "
                "events or rewrite the registration)"
            )
        for word in (*_words(command.words), *_code_tokens(command)):
            spec = protection.match(word, execution.cwd, True, unknown_base=moves)
            if spec is not None:
                return (
                    f"{protection.label}: `{_show(command)}` names {word}, inside ccbridge's "
                    f"state {spec!r}, which the agent may not touch"
                )
    return None


def _runs_ccbridge(command: SimpleCommand) -> bool:
    if command.name == "ccbridge":
        return len(command.argv) < 2 or command.argv[1] not in _AGENT_SUBCOMMANDS
    argv = command.argv
    if any(a == "-m" and b.split(".")[0] == "bridge" for a, b in pairwise(argv)):
        return True  # python -m bridge ...
    return any(_CCBRIDGE_TEXT.search(text) for text in (*command.words, *_code_tokens(command)))


def _path_tool(protection: _Protection, execution: Execution) -> str | None:
    key = PATH_TOOLS[execution.tool_name]
    path = execution.input.get(key)
    if not isinstance(path, str) or not path:
        return f"{protection.label}: the {execution.tool_name} call has no {key} to check"
    spec = protection.match(path, execution.cwd)
    if spec is None:
        return None
    return f"{protection.label}: {execution.tool_name} to {path} is denied (matches {spec!r})"


def _bash(protection: _Protection, execution: Execution) -> str | None:
    script = bash_script(execution.input)
    if isinstance(script, str):
        return script
    moves = any(c.name in ("cd", "pushd", "popd") for c in script.commands())
    unknown = ""
    for command_ in script.commands():
        for target in _written(command_):
            if "$" in target or "`" in target:
                unknown = unknown or target
            spec = protection.match(target, execution.cwd, True, unknown_base=moves)
            if spec is not None:
                return (
                    f"{protection.label}: `{_show(command_)}` may write to {target}, "
                    f"which matches protected {spec!r}"
                )
    if unknown:  # it writes somewhere we cannot name: any protected word is suspect
        for command_ in script.commands():
            for word in _words(command_.words):
                spec = protection.match(word, execution.cwd, True)
                if spec is not None:
                    return (
                        f"{protection.label}: the command writes to {unknown}, which cannot be "
                        f"resolved before it runs, and `{_show(command_)}` names {word}, "
                        f"which matches protected {spec!r}"
                    )
    return None


def _show(command: SimpleCommand) -> str:
    shown = " ".join(command.words)
    return shown if len(shown) <= 200 else shown[:197] + "..."


def _written(command: SimpleCommand) -> Iterator[str]:
    """Paths the command may write: redirections, and the words of writing commands."""
    yield from (r.target for r in command.redirects if r.writes)
    if _writes_files(command):
        yield from _words(command.argv[1:])
        operands = [w for w in command.argv[1:] if not w.startswith("-")]
        if command.name in _COPIERS and len(operands) > 1:  # `cp x dir/` writes dir/x
            yield from (posixpath.join(operands[-1], posixpath.basename(w)) for w in operands)
    yield from _code_tokens(command)


def _code_tokens(command: SimpleCommand) -> Iterator[str]:
    """Path-like tokens of inline interpreter code (`python -c`, `node <<EOF`)."""
    source = program(command.argv, command.redirects)
    shell = interpreter(command.argv) in SHELLS  # shell code was parsed into `nested` already
    if source is not None and source.kind in ("inline", "stdin") and not shell:
        yield from (t for t in _CODE_TOKEN_SEPARATORS.split(source.text) if t)


def _writes_files(command: SimpleCommand) -> bool:
    if command.name in WRITERS:
        return True
    if command.name == "find":  # what it deletes or hands to a writer is named by its words
        nested = (c.name for inner in command.nested for c in inner.commands())
        return "-delete" in command.argv or any(name in WRITERS for name in nested)
    options = [w for w in command.argv[1:] if w.startswith("-") and not w.startswith("--")]
    if command.name == "sed":
        return any("i" in o for o in options) or any(
            w.startswith("--in-place") for w in command.argv
        )
    return command.name == "perl" and any("i" in o for o in options)


def _words(words: Iterable[str]) -> Iterator[str]:
    """Each word, and the value in `of=x` or `--target-directory=x`."""
    for word in words:
        yield word
        if "=" in word:
            yield word.split("=", 1)[1]
