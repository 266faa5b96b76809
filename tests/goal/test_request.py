from __future__ import annotations

import time

import pytest

from bridge.goal.errors import Code
from bridge.goal.model import Action
from bridge.goal.request import GET, GoalRequest, _shell_words, parse_goal_command

from .driver import refused


@pytest.mark.parametrize(
    "command",
    [
        "ccbridge goal create --objective 'fix (all); #4' --max-rounds 3",
        "/opt/venv/bin/ccbridge goal create --objective='fix (all); #4' --max-rounds=3",
        'python3 -m bridge goal create --max-rounds 3 --objective "fix (all); #4"',
        "python3.11 -m bridge goal create --objective 'fix (all); #4' --max-rounds 3",
    ],
)
def test_create_variants_parse_to_one_request(command: str) -> None:
    assert parse_goal_command(command) == GoalRequest(
        Action.CREATE, objective="fix (all); #4", max_rounds=3
    )


def test_update_parses_every_option() -> None:
    command = (
        "ccbridge goal update --id g1 --revision 7 --action blocked --reason 'no network access'"
    )
    assert parse_goal_command(command) == GoalRequest(
        Action.BLOCKED, goal_id="g1", revision=7, reason="no network access"
    )


NOT_AT_THE_START = [
    "echo x; ccbridge goal update --id g --revision 2 --action complete",
    "bash -c 'ccbridge goal create --objective x'",
    "FOO=1 ccbridge goal create --objective x",
    "'ccbridge' goal create --objective x",
]


@pytest.mark.parametrize(
    "command",
    [
        "echo goal",
        "ls",
        "ccbridge run",
        "ccbridge goal",
        "ccbridge goal create --help",
        "git log",
        "ccbridge goalie create --objective x",
        *NOT_AT_THE_START,
    ],
)
def test_other_commands_are_not_goal_changes(command: str) -> None:
    """Only a command that starts with a goal invocation is judged; nothing is ever applied
    for any other (see test_cc: a goal change needs the change judged for its own call)."""
    assert parse_goal_command(command) is None


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ('a \'b c\' "d \\" e" f\\ g', ["a", "b c", 'd " e', "f g"]),
        ("a&&b;c|d>e", ["a", "&&", "b", ";", "c", "|", "d", ">", "e"]),
        ("x'y'\"z\"\\w", ["xyzw"]),
        ("a\tb\n c", ["a", "b", "c"]),
    ],
)
def test_shell_words_split_as_sh_does(command: str, words: list[str]) -> None:
    assert _shell_words(command) == words


@pytest.mark.parametrize("command", ["a 'b", 'a "b', "a \\"])
def test_shell_words_refuse_what_sh_cannot_parse(command: str) -> None:
    with pytest.raises(ValueError):
        _shell_words(command)


def _parse_seconds(size: int) -> float:
    """CPU seconds of the fastest of three parses: the machine's other load moves neither."""
    command = "ccbridge goal create --objective '" + "x" * size + "'"
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        request = parse_goal_command(command)
        best = min(best, time.process_time() - started)
        assert isinstance(request, GoalRequest) and request.objective == "x" * size
    return best


def test_parsing_a_huge_command_is_linear() -> None:
    """A 2 MiB command took 80 s with shlex (quadratic in a long word)."""
    one, four = _parse_seconds(1 << 20), _parse_seconds(4 << 20)
    assert four < 2.0, f"4 MiB took {four:.2f} s"
    assert four < 10 * max(one, 0.01), f"1 MiB {one:.3f} s, 4 MiB {four:.3f} s: not linear"


def test_a_huge_command_that_is_no_goal_invocation_is_not_parsed() -> None:
    command = "echo '" + "goal create " * (1 << 20) + "'"
    started = time.perf_counter()
    assert parse_goal_command(command) is None
    assert time.perf_counter() - started < 0.5


def test_get_is_recognised() -> None:
    assert parse_goal_command("ccbridge goal get") == GET
    assert parse_goal_command("ccbridge goal get --session s") == GET


@pytest.mark.parametrize(
    "command",
    [
        "ccbridge goal update --id g --revision 2 --action complete && echo done",
        "ccbridge goal create --objective x > /tmp/out",
        'ccbridge goal create --objective "$(cat /etc/passwd)"',
        "ccbridge goal create --objective `id`",
        "ccbridge goal create --objective 'unterminated",
        "ccbridge goal create",
        "ccbridge goal create --objective a --objective b",
        "ccbridge goal create --objective a --max-rounds many",
        "ccbridge goal create --objective a --force",
        "ccbridge goal create --objective a extra",
        "ccbridge goal create --objective",
        "ccbridge goal update --id g --action complete",
        "ccbridge goal update --id g --revision 1 --action round",
        "ccbridge goal update --id g --revision 1.5 --action complete",
    ],
)
def test_malformed_goal_changes_are_refused(command: str) -> None:
    with refused(Code.INVALID_REQUEST):
        parse_goal_command(command)


def test_request_key_tells_requests_apart() -> None:
    one = GoalRequest(Action.COMPLETE, goal_id="g", revision=1)
    assert one.key() == GoalRequest(Action.COMPLETE, goal_id="g", revision=1).key()
    assert one.key() != GoalRequest(Action.COMPLETE, goal_id="g", revision=2).key()
