"""A goal request as the model writes it: `ccbridge goal create|update ...` in a Bash command.

The hook and the CLI both reduce a request to the same `key`, which is how the CLI finds the
outcome the hook recorded for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import PurePath
from typing import Literal

from bridge.goal.errors import Code, GoalError
from bridge.goal.invocation import starts_with_goal
from bridge.goal.model import UPDATE_ACTIONS, Action


@dataclass(frozen=True, slots=True)
class GoalRequest:
    action: Action
    goal_id: str | None = None
    revision: int | None = None
    objective: str | None = None
    max_rounds: int | None = None
    reason: str | None = None

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)


GET: Literal["get"] = "get"

_PYTHON = re.compile(r"python[0-9.]*")
_INTEGER = re.compile(r"-?[0-9]+")
# A shell would expand these even inside double quotes, so the program would not see what we parse.
_EXPANSION = re.compile(r"[$`\n\r]")
_OPERATOR_CHARS = "();<>|&"
# Shell words, each found by one regex match: linear in the command's length (shlex builds
# each token one character at a time and is quadratic in a long one).
_SPACE = re.compile(r"[ \t\n]+")
_OPERATOR = re.compile(r"[();<>|&]+")
_WORD_PART = re.compile(r"""[^ \t\n'"\\();<>|&]+|'[^']*'|"[^"\\]*(?:\\.[^"\\]*)*"|\\.""", re.S)
_QUOTED_ESCAPE = re.compile(r"""\\([$`"\\\n])""")

_CREATE_OPTIONS = {"--objective": "objective", "--max-rounds": "max_rounds"}
_UPDATE_OPTIONS = {
    "--id": "goal_id",
    "--revision": "revision",
    "--action": "action",
    "--objective": "objective",
    "--max-rounds": "max_rounds",
    "--reason": "reason",
}
_INTEGER_FIELDS = frozenset({"revision", "max_rounds"})


def _bad(message: str) -> GoalError:
    return GoalError(
        Code.INVALID_REQUEST,
        f"{message}. Run goal changes as one plain command, e.g. "
        "ccbridge goal update --id ID --revision N --action complete",
    )


def _unquote(part: str) -> str:
    if part[0] == "'":
        return part[1:-1]
    if part[0] == '"':
        return _QUOTED_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], part[1:-1])
    if part[0] == "\\":
        return "" if part[1] == "\n" else part[1]
    return part


def _shell_words(command: str) -> list[str]:
    """Words as sh splits them; unquoted operators (`;`, `&&`, `>`...) are words of their own.
    Raises ValueError on an unclosed quote or a trailing backslash."""
    words: list[str] = []
    index, end = 0, len(command)
    while index < end:
        match = _SPACE.match(command, index) or _OPERATOR.match(command, index)
        if match is not None:
            if not match[0].isspace():
                words.append(match[0])
            index = match.end()
            continue
        parts = []
        while (match := _WORD_PART.match(command, index)) is not None:
            parts.append(_unquote(match[0]))
            index = match.end()
        if not parts:
            raise ValueError(f"no closing quotation or escaped character at {index}")
        words.append("".join(parts))
    return words


def _goal_arguments(tokens: list[str]) -> list[str] | None:
    """The arguments after `goal` when the command is exactly a ccbridge invocation."""
    if not tokens:
        return None
    program = PurePath(tokens[0]).name
    if program == "ccbridge":
        rest = tokens[1:]
    elif _PYTHON.fullmatch(program) and tokens[1:3] == ["-m", "bridge"]:
        rest = tokens[3:]
    else:
        return None
    return rest[1:] if rest[:1] == ["goal"] else None


def parse_goal_command(command: str) -> GoalRequest | Literal["get"] | None:
    """The goal request in a Bash command; None when it is not a goal change (or is --help).

    Raises GoalError when the command starts with a goal invocation but is not one plain
    invocation.
    """
    if not starts_with_goal(command):
        return None
    try:
        tokens = _shell_words(command)
    except ValueError as error:
        raise _bad(f"cannot parse the command: {error}") from None
    compound = any(set(token) <= set(_OPERATOR_CHARS) for token in tokens)
    arguments = None if compound else _goal_arguments(tokens)
    if arguments is None:
        raise _bad("a goal change must be the whole command, not part of a larger one")
    verb, options = (arguments[0], arguments[1:]) if arguments else ("", [])
    if verb == GET:
        return GET
    if verb not in ("create", "update") or "--help" in options:
        return None
    if _EXPANSION.search(command):
        raise _bad("a goal change must not use $, backquotes or line breaks")
    return _parse_options(verb, options)


def _parse_options(verb: str, options: list[str]) -> GoalRequest:
    known = _CREATE_OPTIONS if verb == "create" else _UPDATE_OPTIONS
    values: dict[str, str] = {}
    index = 0
    while index < len(options):
        token = options[index]
        name, has_value, value = token.partition("=")
        if name not in known:
            raise _bad(f"goal {verb} does not take {token!r}")
        if not has_value:
            if index + 1 >= len(options):
                raise _bad(f"{name} needs a value")
            index += 1
            value = options[index]
        if known[name] in values:
            raise _bad(f"{name} is given twice")
        values[known[name]] = value
        index += 1
    return _request(verb, values)


def _request(verb: str, values: dict[str, str]) -> GoalRequest:
    numbers: dict[str, int] = {}
    for field in _INTEGER_FIELDS & values.keys():
        if not _INTEGER.fullmatch(values[field]):
            raise _bad(f"--{field.replace('_', '-')} must be a whole number")
        numbers[field] = int(values[field])
    if verb == "create":
        if "objective" not in values:
            raise _bad("goal create needs --objective")
        return GoalRequest(
            Action.CREATE, objective=values["objective"], max_rounds=numbers.get("max_rounds")
        )
    missing = [
        name for name in ("--id", "--revision", "--action") if _UPDATE_OPTIONS[name] not in values
    ]
    if missing:
        raise _bad(f"goal update needs {', '.join(missing)}")
    if values["action"] not in {action.value for action in UPDATE_ACTIONS}:
        raise _bad(f"--action must be one of {', '.join(a.value for a in UPDATE_ACTIONS)}")
    return GoalRequest(
        Action(values["action"]),
        goal_id=values["goal_id"],
        revision=numbers["revision"],
        objective=values.get("objective"),
        max_rounds=numbers.get("max_rounds"),
        reason=values.get("reason"),
    )
