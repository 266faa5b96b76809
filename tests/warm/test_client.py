"""The registration's warm client (bridge/warm/client.py), run by the real `sh` with the real
`socat` against a stand-in server that answers what each test says: it gives back exactly what
the server framed, falls back to the registration's own command with the event intact, and
refuses a call whose answer came back cut or garbled."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.config import registrations
from bridge.warm import client
from bridge.warm.server import RS, fallback, framed

EVENT = b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}\n'
# The registration's own command: says what it read and whether a server was asked for.
SLOW = 'printf "slow:"; cat; printf "warm=%s" "${CCBRIDGE_WARM-}" >&2; exit 3'

pytestmark = pytest.mark.skipif(shutil.which("socat") is None, reason="needs socat")


@dataclass
class StandIn:
    """A server at `<state>/warm/<this process>`: `sh -c` started by this process has it as
    $PPID, as the registration's shell has Claude Code."""

    state: Path
    # what it answers, made of what it received; None: it closes without a word
    reply: Callable[[bytes], bytes] | None = fallback
    received: list[bytes] = field(default_factory=list)

    def serve_once(self) -> threading.Thread:
        where = self.state / "warm"
        where.mkdir(parents=True, exist_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(where / str(os.getpid())))
        listener.listen(1)

        def answer() -> None:
            connection, _ = listener.accept()
            with connection:
                data = b""
                while chunk := connection.recv(65536):
                    data += chunk
                self.received.append(data)
                if self.reply is not None:
                    connection.sendall(self.reply(data))
            listener.close()

        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        return thread


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    monkeypatch.setenv("CCBRIDGE_STATE_DIR", str(tmp_path / "state"))
    yield StandIn(tmp_path / "state")


def registration(event: str = "PreToolUse") -> str:
    return registrations.warm(event, SLOW)


def hook(command: str, event: bytes = EVENT, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=event,
        capture_output=True,
        timeout=30,
        env={**os.environ, **env},
    )


def test_the_servers_answer_is_given_back_exactly(stand_in: StandIn) -> None:
    out = b'{"hookSpecificOutput":{"permissionDecision":"deny"}}\n'
    stand_in.reply = lambda _: framed(2, out, b"denied: why\n\n") or b""
    thread = stand_in.serve_once()
    result = hook(registration())
    thread.join(5)
    assert stand_in.received == [EVENT]
    assert (result.returncode, result.stdout, result.stderr) == (2, out, b"denied: why\n\n")


@given(
    out=st.text(st.characters(blacklist_characters="\x1e\x00", codec="utf-8")),
    err=st.text(st.characters(blacklist_characters="\x1e\x00", codec="utf-8")),
    code=st.sampled_from([0, 2]),
    event=st.binary().filter(lambda b: b"\0" not in b),
)
def test_any_answer_round_trips(
    tmp_path_factory: pytest.TempPathFactory, out: str, err: str, code: int, event: bytes
) -> None:
    state = tmp_path_factory.mktemp("state")
    stand_in = StandIn(state, lambda _: framed(code, out.encode(), err.encode()) or b"")
    thread = stand_in.serve_once()
    result = hook(registration(), event, CCBRIDGE_STATE_DIR=str(state))
    thread.join(5)
    assert stand_in.received == [event]
    assert (result.returncode, result.stdout, result.stderr) == (
        code,
        out.encode(),
        err.encode(),
    )


@given(event=st.binary().filter(lambda b: b"\0" not in b and RS not in b))
def test_a_fallback_runs_the_registrations_command_on_the_event_handed_back(
    tmp_path_factory: pytest.TempPathFactory, event: bytes
) -> None:
    state = tmp_path_factory.mktemp("state")
    thread = StandIn(state).serve_once()
    result = hook(registration(), event, CCBRIDGE_STATE_DIR=str(state))
    thread.join(5)
    assert (result.returncode, result.stdout, result.stderr) == (3, b"slow:" + event, b"warm=")


def test_a_server_that_took_the_event_and_said_nothing_leaves_none_to_judge(
    stand_in: StandIn,
) -> None:
    """The command then reads an empty event, which ccbridge refuses; a new server is asked
    for (this one is gone)."""
    stand_in.reply = None
    thread = stand_in.serve_once()
    result = hook(registration())
    thread.join(5)
    assert stand_in.received == [EVENT]
    assert (result.stdout, result.stderr) == (b"slow:", f"warm={os.getpid()}".encode())


def test_a_socket_nobody_listens_on_leaves_the_event_to_the_command(stand_in: StandIn) -> None:
    """A killed server's socket: socat cannot connect, and reads nothing of the event."""
    (stand_in.state / "warm").mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(stand_in.state / "warm" / str(os.getpid())))
    stale.close()
    result = hook(registration())
    assert (result.returncode, result.stdout) == (3, b"slow:" + EVENT)
    assert result.stderr == f"warm={os.getpid()}".encode()


@pytest.mark.parametrize(
    "reply",
    [
        b"A" + RS + b"0" + RS + b'{"cut": ',  # the server died while sending
        b"A" + RS + b"1" + RS + b"" + RS + b"" + RS,  # exit 1 would let the call run
        b"A" + RS + b"02" + RS + b"{}" + RS + b"" + RS,
        b"F" + RS + b'{"cut": ',  # a fallback whose event was cut
        b"allow",
    ],
    ids=["cut", "exit-1", "two-digits", "cut-fallback", "foreign"],
)
def test_a_garbled_answer_refuses_the_call(stand_in: StandIn, reply: bytes) -> None:
    stand_in.reply = lambda _: reply
    thread = stand_in.serve_once()
    result = hook(registration())
    thread.join(5)
    assert result.returncode == 2
    said = json.loads(result.stdout)["hookSpecificOutput"]
    assert said["permissionDecision"] == "deny"
    assert said["permissionDecisionReason"] == client.GARBLED
    assert b"slow:" not in result.stdout


def test_without_a_socket_the_command_runs_and_asks_for_a_server(stand_in: StandIn) -> None:
    result = hook(registration())
    assert (result.returncode, result.stdout) == (3, b"slow:" + EVENT)
    assert result.stderr == f"warm={os.getpid()}".encode()


def test_without_socat_the_command_runs_and_asks_for_nothing(
    stand_in: StandIn, tmp_path: Path
) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("cat", "printf"):
        found = shutil.which(name)
        assert found is not None
        (tools / name).symlink_to(found)
    stand_in.reply = None
    thread = stand_in.serve_once()
    result = hook(registration(), PATH=str(tools))
    assert (result.returncode, result.stdout, result.stderr) == (3, b"slow:" + EVENT, b"warm=")
    # the stand-in never heard from it: connect once to end its thread
    with socket.socket(socket.AF_UNIX) as poke:
        poke.connect(str(stand_in.state / "warm" / str(os.getpid())))
    thread.join(5)
    assert stand_in.received == [b""]


@pytest.mark.parametrize("event", sorted(client.EVENTS))
def test_every_tool_event_is_wrapped_and_still_a_registration(event: str) -> None:
    command = registrations.launcher_command(event)
    assert command.startswith(f"{client.FUNCTION}() {{ ")
    inner = client.unwrapped(command)
    assert inner.startswith(registrations.LAUNCHER_PREFIX) and client.FUNCTION not in inner
    assert registrations.is_registration({"type": "command", "command": command})


def test_events_of_a_turn_are_not_wrapped() -> None:
    assert registrations.warm("Stop", "ccbridge run") == "ccbridge run"


def test_an_answer_the_client_cannot_split_is_not_framed() -> None:
    assert framed(0, b"a\x1eb", b"") is None
    assert framed(0, b"a\0b", b"") is None
    assert framed(1, b"{}", b"") is None
    assert framed(2, b"{}", b"x\x1ey\0") == b"A" + RS + b"2" + RS + b"{}" + RS + b"x?y?" + RS
