"""ccbridge's registrations: the hook entries that run `ccbridge run` from an agent's settings.

What a registration says: `<python> -I <ccbridge> run` for a file that stays on one machine, the
PATH launcher for a file a team commits (no machine's paths; refuses a ccbridge inside the
project), `run --host NAME` for the other agents' shared files, each behind the warm client on a
tool call's events (bridge.warm.client). `is_registration` knows every shape, earlier versions'
included, for install, uninstall and doctor.

How many different ones Claude Code starts for one event: it runs a hook named in several
settings files once when the entries are the same and each one when they differ (measured
through 2.1.335, tests/e2e/test_once_e2e.py): shell commands are the same when their strings are,
whatever their timeout, onFailure or matcher; an exec-form entry (`command` plus `args`) only
with an identical exec-form entry, never with the shell command that spells it. So the PATH
launcher of a project's shared file, this machine's absolute path in user settings and the exec
form of managed settings start one ccbridge each for every event. Counted when the config is
compiled (off the hot path: the cache is keyed by the settings files' identity), so a call with
one registration pays nothing for it; bridge.coordination makes the others wait for one
judgement instead of judging again.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from bridge.warm import client as warm_client

CC_TIMEOUT = 60  # seconds; ccbridge itself caps a sub-hook at 50 s (schema.MAX_HOOK_TIMEOUT)


# How a registration starts Python: -I so that the user's PYTHON* variables (PYTHONHOME,
# PYTHONHASHSEED, a PYTHONPATH shadowing the standard library, PYTHONWARNINGS=error) can
# neither stop nor change ccbridge (they still reach its sub-hooks). Not -S: a hook call
# imports what `site` does anyway, and with the environment's site-packages added by hand it
# measured 0.8 M instructions more than without -S (valgrind, clean environment).
# Installers drop options from the script's own `#!python` line, so the registration says it.
ISOLATED = ("-I",)


def script_interpreter(executable: str) -> str | None:
    """The Python that the script's first line names, when it is a plain absolute path."""
    try:
        with open(executable, "rb") as script:
            first = script.readline(4096)
    except OSError:
        return None
    line = first.decode("utf-8", "replace").strip()
    words = line.removeprefix("#!").split()
    if not line.startswith("#!/") or len(words) != 1 or "python" not in Path(words[0]).name:
        return None
    return words[0]


def registration_command(executable: str) -> str:
    """`<python> -I <ccbridge> run`, or `<ccbridge> run` where the script's interpreter is not
    a plain path (a shim, `env`, a wrapper)."""
    python = script_interpreter(executable)
    if python is None:
        return f"{shlex.quote(executable)} run"
    return shlex.join([python, *ISOLATED, executable, "run"])


# ccbridge is not on the package registry: it installs from a checkout (tests/cli/test_quickstart.py
# runs this command as the README's Quickstart writes it). No single quote: the launcher quotes.
INSTALL_HINT = (
    "ccbridge is not installed here: in a checkout of ccbridge, run `pipx install .` "
    "(or `uv tool install .`) so that `ccbridge` is on PATH"
)
# The shared file's launcher: the ccbridge on PATH, started through the Python its first line
# names with ISOLATED (read with the shell's `read`; anything else is run as it is). Not one
# inside the project, where the agent can write inside the wall (an activated `.venv/bin` puts
# one first on PATH): its directory as PATH spells it, so that a directory of the project the
# agent turns into a symlink to one it wrote elsewhere is still the project's, and as the
# physical path, so that the project reached through a symlink is the project too.
LAUNCHER_PREFIX = (
    "c=$(command -v ccbridge) && { case $c in /*) ;; */*) c=$PWD/$c;; *) c=$PWD/./$c;; esac; "
    'i=$(p=${CLAUDE_PROJECT_DIR:-$PWD}; cd -P -- "${c%/*}" && d=$PWD/ && cd -P -- "$p" && '
    'for x in "${c%/*}/" "$d"; do case $x in "${p%/}"/*|"${PWD%/}"/*) printf %s "$x"; exit;; '
    'esac; done); [ -z "$i" ] && { IFS= read -r l <"$c"; '
    'case $l in "#!/"*python*) exec ${l#??} -I "$c" run;; esac; exec "$c" run; }; '
)
# What earlier versions wrote, still recognised as ccbridge's (doctor, uninstall, reinstall).
EARLIER_LAUNCHER_PREFIXES = (
    "command -v ccbridge >/dev/null 2>&1 && exec ccbridge run; ",
    'c=$(command -v ccbridge) && { IFS= read -r l <"$c"; case $l in "#!/"*python*) '
    'exec ${l#??} -I "$c" run;; esac; exec "$c" run; }; ',
)
INSIDE_PROJECT_HINT = (
    "the ccbridge first on PATH is inside this project, where the agent can rewrite it: "
    "install ccbridge outside the project (in a checkout of ccbridge, `pipx install .`) and "
    "put it on PATH before the project directories"
)
# Where ccbridge is missing, each event gets the answer it needs: a refusal with the fix for the
# events that can stop something, a message to the user for the rest (a block on Stop would keep
# the agent going round). Never exit 1: with onFailure "block" that is a refusal with no reason.
_REFUSING: dict[str, Callable[[str], dict[str, Any]]] = {
    "PreToolUse": lambda why: {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": why,
        }
    },
    "UserPromptSubmit": lambda why: {"decision": "block", "reason": why},
    "PreSkillShellCommand": lambda why: {"decision": "block", "reason": why},
}


def answer_without(event: str, why: str, where: str = "") -> str:
    """The shell that answers `event` with `why` where no usable ccbridge was found; `where`
    (shell words) follows `why` on stderr."""
    refusal = _REFUSING.get(event)
    answer = json.dumps(refusal(why) if refusal else {"systemMessage": why}, separators=(",", ":"))
    assert "'" not in answer  # quoted in single quotes
    told = f"printf '%s (%s)\\n' '{why}' {where}" if where else f"printf '%s\\n' '{why}'"
    said = f"printf '%s\\n' '{answer}'; {told} >&2"
    return f"cat >/dev/null; {said}; exit {2 if refusal else 0}"


def launcher_command(event: str) -> str:
    """The registration for a file meant to be shared: `ccbridge` found through PATH on
    whichever machine runs it, and where there is none, or the one found is inside the project,
    an answer that names the fix."""
    inside = answer_without(event, INSIDE_PROJECT_HINT, '"$i"')
    return warm(event, f"{LAUNCHER_PREFIX}{inside}; }}; {answer_without(event, INSTALL_HINT)}")


def absolute_command(executable: str) -> Callable[[str], str]:
    """The registration for a file that stays on this machine: this ccbridge's absolute path."""
    command = registration_command(executable)
    return lambda event: warm(event, command)


# The other agents' shared project files: the same lookup, `--host NAME` after `run`, and where
# there is no ccbridge exit 2 with the fix on stderr (every agent's deny: the agents matrix).
AGENT_LAUNCHER_PREFIX = 'c=$(command -v ccbridge) && exec "$c" run --host '


def agent_launcher_command(host: str) -> str:
    """The registration of `ccbridge run --host HOST` in a file meant to be committed."""
    said = f"printf '%s\\n' '{INSTALL_HINT}' >&2"
    return f"{AGENT_LAUNCHER_PREFIX}{host}; cat >/dev/null; {said}; exit 2"


def warm(event: str, command: str) -> str:
    """The registration's command for `event`: behind the warm client on every tool call's
    events (bridge.warm), as it is on the others."""
    if event not in warm_client.EVENTS:
        return command
    return warm_client.wrapped(command, answer_without(event, warm_client.GARBLED))


def is_launcher(command: str) -> bool:
    command = warm_client.unwrapped(command)
    return command.startswith((LAUNCHER_PREFIX, *EARLIER_LAUNCHER_PREFIXES, AGENT_LAUNCHER_PREFIX))


def registration(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": CC_TIMEOUT, "onFailure": "block"}


def is_registration(handler: Any) -> bool:
    """A handler that runs `ccbridge run` (whatever path or options it uses): a command line,
    the PATH launcher of a shared project file, or exec form (`args`, as managed settings)."""
    if not isinstance(handler, Mapping) or not isinstance(handler.get("command"), str):
        return False
    if is_launcher(handler["command"]):
        return True
    args = handler.get("args")
    command = warm_client.unwrapped(handler["command"])
    if isinstance(args, list):
        return Path(handler["command"]).name == "ccbridge" and args[:1] == ["run"]
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) >= 4 and tuple(words[1 : 1 + len(ISOLATED)]) == ISOLATED:
        words = words[1 + len(ISOLATED) :]  # <python> -I <ccbridge> run
    return len(words) >= 2 and Path(words[0]).name == "ccbridge" and words[1] == "run"


def handlers(data: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(event, handler) for every hook handler of one settings object."""
    hooks = data.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, Mapping) else ():
        for group in groups if isinstance(groups, list) else ():
            found = group.get("hooks") if isinstance(group, Mapping) else None
            for handler in found if isinstance(found, list) else ():
                if isinstance(handler, Mapping):
                    yield str(event), handler


def identity(handler: Mapping[str, Any]) -> str:
    """What Claude Code tells one hook from another by: the command string, and for exec form
    its arguments too."""
    args, command = handler.get("args"), handler.get("command")
    form = ["exec", command, args] if isinstance(args, list) else ["shell", command]
    return json.dumps(form, default=str)


def distinct(layers: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Per event, how many different ccbridge registrations these settings objects (every file
    Claude Code reads) hold, for the events with more than one."""
    per_event: dict[str, set[str]] = {}
    for data in layers:
        for event, handler in handlers(data):
            if handler.get("type", "command") == "command" and is_registration(handler):
                per_event.setdefault(event, set()).add(identity(handler))
    return {event: len(found) for event, found in sorted(per_event.items()) if len(found) > 1}


def counted(env: Mapping[str, str], project: str) -> dict[str, int]:
    """`distinct` for the settings files Claude Code reads here; a file it cannot parse it
    ignores whole, and so does this."""
    from bridge.paths import settings_layers
    from bridge.wall import settings_object

    loaded = (settings_object(path) for path in settings_layers(env, project))
    return distinct([data for data in loaded if data is not None])
