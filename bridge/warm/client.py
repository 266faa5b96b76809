"""The registration's warm client: shell that hands a tool call to the warm server.

Claude Code runs the registration under `sh -c`, so `$PPID` is Claude Code itself and names its
server's socket. `socat` hands the event over (it reads standard input only once connected, so
where it cannot connect the event is still there), and the framed answer (bridge.warm.server)
is split on RS and given back as stdout, stderr and exit code. Where there is no socket, no
`socat`, or the server falls back (`F`, which hands the event back) or says nothing, the
registration's own command (`ccbridge run`, or the PATH launcher of a shared file) judges the
call; where there was no server to reach, CCBRIDGE_WARM asks that `ccbridge run` to start one.
An answer that is neither whole nor a fallback refuses the call (`garbled`). Only what the
shell does: every check of who is asking is the server's.
"""

from __future__ import annotations

# The events of every tool call: the others come once a turn, where a start costs little.
EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
FUNCTION = "ccbridge_run"
_OPEN = f"{FUNCTION}() {{ "
_CLOSE = "; }; w=${CCBRIDGE_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/ccbridge}/warm; "
GARBLED = (
    "the warm ccbridge process gave an answer that was cut off or garbled: the call is refused"
)


def wrapped(slow: str, garbled: str) -> str:
    """`slow` (a registration's command) behind the warm client; `garbled`: the shell that
    refuses the call when the answer is neither whole nor a fallback. RS stands in the command
    as itself: `$(printf ...)` would cost a fork on every call."""
    rs = "\x1e"
    return (
        f"{_OPEN}{slow}{_CLOSE}"
        "if command -v socat >/dev/null 2>&1; then "
        'if [ -S "$w/$PPID" ]; then '
        'r=$(cd -- "$w" && exec socat -t 60 - "UNIX-CONNECT:./$PPID" 2>/dev/null); '
        "case $r in "
        f'"A{rs}"[02]"{rs}"*"{rs}"*"{rs}") r=${{r#A{rs}}}; c=${{r%%{rs}*}}; r=${{r#?{rs}}}; '
        f'printf %s "${{r%%{rs}*}}"; r=${{r#*{rs}}}; printf %s "${{r%{rs}}}" >&2; exit $c;; '
        f'"F{rs}"*"{rs}") r=${{r#F{rs}}}; printf %s "${{r%{rs}}}" | {FUNCTION}; exit;; '
        f'"") export CCBRIDGE_WARM=$PPID; {FUNCTION}; exit;; '
        f"esac; {garbled}; "
        "fi; export CCBRIDGE_WARM=$PPID; "
        f"fi; {FUNCTION}"
    )


def unwrapped(command: str) -> str:
    """The registration's own command inside the warm client; any other command as it is."""
    if not command.startswith(_OPEN) or _CLOSE not in command:
        return command
    return command[len(_OPEN) : command.index(_CLOSE)]
