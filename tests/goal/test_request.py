from __future__ import annotations

import pytest

from bridge.goal.errors import Code
from bridge.goal.model import Action
from bridge.goal.request import GET, GoalRequest, parse_goal_command

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


@pytest.mark.parametrize(
    "command",
    ["echo goal", "ls", "ccbridge run", "ccbridge goal", "ccbridge goal create --help", "git log"],
)
def test_other_commands_are_not_goal_changes(command: str) -> None:
    assert parse_goal_command(command) is None


def test_get_is_recognised() -> None:
    assert parse_goal_command("ccbridge goal get") == GET
    assert parse_goal_command("ccbridge goal get --session s") == GET


@pytest.mark.parametrize(
    "command",
    [
        "ccbridge goal update --id g --revision 2 --action complete && echo done",
        "echo x; ccbridge goal update --id g --revision 2 --action complete",
        "ccbridge goal create --objective x > /tmp/out",
        "bash -c 'ccbridge goal create --objective x'",
        "FOO=1 ccbridge goal create --objective x",
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
