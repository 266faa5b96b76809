"""A command's own error (bridge.CcbridgeError) reaches the user once, as click's: the message
on stderr, exit 1, no traceback, whichever command raised it."""

import click
from click.testing import CliRunner

from bridge import CcbridgeError
from bridge.cli import _Commands
from bridge.commands.cases import FixtureError


def test_a_ccbridge_error_is_a_message_and_exit_1() -> None:
    group = _Commands()

    @group.command()
    def broken() -> None:
        raise FixtureError("case x: event.json is not JSON")

    done = CliRunner().invoke(group, ["broken"])
    assert (done.exit_code, done.output.strip()) == (1, "Error: case x: event.json is not JSON")
    assert isinstance(done.exception, SystemExit)


def test_other_exceptions_are_not_turned_into_messages() -> None:
    group = _Commands()

    @group.command()
    def buggy() -> None:
        raise KeyError("a bug")

    done = CliRunner().invoke(group, ["buggy"])
    assert isinstance(done.exception, KeyError)
    assert issubclass(FixtureError, CcbridgeError) and not issubclass(KeyError, CcbridgeError)
    assert isinstance(group, click.Group)
