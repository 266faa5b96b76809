"""The shell command line a tool other than Bash takes: an MCP server's `run_command`, a
terminal tool, an agent's own shell tool under another name. The guards judge it as they judge
a Bash call's command."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Keys under which a tool takes a shell command line (an MCP server's `run_command`, a terminal
# tool): the line is judged as a Bash command is, its `args` list joined on as words.
_COMMAND_KEYS = ("command", "cmd", "commandLine", "command_line", "shell_command", "script")


def command_of(tool_input: Mapping[str, object]) -> str | None:
    """The shell command line a tool's input holds, if any."""
    for key in _COMMAND_KEYS:
        command = tool_input.get(key)
        if isinstance(command, str) and command:
            arguments = tool_input.get("args")
            if isinstance(arguments, list | tuple) and arguments:
                import shlex

                command += " " + " ".join(shlex.quote(str(word)) for word in arguments)
            return command
    return None
