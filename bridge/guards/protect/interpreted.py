"""Self-protection's reading of the code an interpreter runs inline (`python -c`, `perl -e`,
`node <<EOF`): the shell commands it runs are judged as commands, the paths it deletes or
renames against the protected ones (`bridge.shell.inline_code` finds both), and code that can
write files is refused in a line that mentions a protected name, its paths being only known
when it runs.

Loaded by `bridge.guards.protect.protect_paths` only for a command holding such code.
"""

from __future__ import annotations

from bridge.guards.protect import ANY_ABOVE, CODE_WRITES, shown
from bridge.shell.inline_code import code_objection
from bridge.shell.syntax import Unparseable, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from bridge.guards.protect.protect_paths import BashCall
    from bridge.shell.syntax import SimpleCommand


def judge(call: BashCall, command: SimpleCommand, code: str) -> str | None:
    """The objection to the inline `code` of `command`, in self-protection's judgement `call`."""
    label = call.label
    call.depth += 1
    try:
        reason = code_objection(
            code,
            lambda text: _shell(call, text),
            lambda path: _target(call, path),
            as_text=lambda text: _as_text(call, text),
        )
    finally:
        call.depth -= 1
    if reason is not None:
        return reason if reason.startswith(label) else f"{label}: `{shown(command)}`: {reason}"
    hint = call.mentioned(code)
    if hint is not None and CODE_WRITES.search(code):
        return (
            f"{label}: `{shown(command)}` runs code that can write files and mentions {hint}; "
            "its paths are only known when it runs"
        )
    return None


def _shell(call: BashCall, text: str) -> str | None:
    """A shell command the code runs (`os.system("...")`), judged as the line's commands are."""
    parsed = parse(text)
    if isinstance(parsed, Unparseable):
        return None
    call.in_code += 1
    try:
        return call.judge(parsed, text)
    finally:
        call.in_code -= 1


def _as_text(call: BashCall, text: str) -> str | None:
    """The code read as shell, for its literal commands (`perl -e "rm -rf .claude"`): a word of
    it in a command's place is Python or Perl (`sys.argv[1:]`, `$h{k}`), not a command only
    known when it runs."""
    call.as_text += 1
    try:
        return _shell(call, text)
    finally:
        call.as_text -= 1


def _target(call: BashCall, path: str) -> str | None:
    """A path the code deletes, moves or renames."""
    spec = call.writes.match(path, call.cwd, above=ANY_ABOVE)
    return None if spec is None else f"{path}, which matches protected {spec!r}"
