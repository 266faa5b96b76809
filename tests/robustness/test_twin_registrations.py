"""Two ccbridge registrations that Claude Code runs side by side for one event (the project's
PATH launcher and this machine's absolute path): two real `ccbridge run` processes get the same
event at once. The sub-hooks run once and both processes give the full judgement's answer, also
when the one judging dies before it answers. The processes are ordered by files the sub-hook
writes and waits for and by the kernel's lock table, never by sleeping for a while."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bridge import coordination
from bridge.config.registrations import launcher_command, registration
from bridge.wire.answer import Answer
from tests.support.sandbox import CCBRIDGE, Sandbox, pre_tool_use

BOUND = 60.0  # seconds any one step may take on a loaded machine before the test fails
REASON = "held and counted"


def wait_for(condition: Callable[[], bool], what: str) -> None:
    give_up = time.monotonic() + BOUND
    while not condition():
        assert time.monotonic() < give_up, f"not within {BOUND:g} s: {what}"
        time.sleep(0.01)


class Twins:
    """A project whose settings register ccbridge through PATH and a home whose user settings
    register this machine's ccbridge by path (what `install --project` and `install --user`
    write), with a config whose one sub-hook records each run and waits while `hold` exists."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.runs = sandbox.root / "runs.log"
        self.hold = sandbox.root / "hold"
        answer = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": REASON,
            }
        }
        hook = sandbox.script(
            "held.sh",
            f"cat >/dev/null\necho $$ >> {self.runs}\n"
            f"while [ -e {self.hold} ]; do sleep 0.01; done\n"
            f"printf '%s\\n' '{json.dumps(answer)}'",
        )
        shared = registration(launcher_command("PreToolUse"))
        mine = registration(f"{CCBRIDGE} run")
        for path, handler in (
            (sandbox.settings, shared),
            (sandbox.home / ".claude" / "settings.json", mine),
        ):
            sandbox.write_json(path, {"hooks": {"PreToolUse": [{"hooks": [handler]}]}})
        hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": str(hook)}]}]}
        sandbox.write(sandbox.config, json.dumps({"hooks": hooks}))
        self.event = json.dumps(pre_tool_use("echo hi", cwd=str(sandbox.project))).encode()
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        sent = self.sandbox.root / "event.json"
        sent.write_bytes(self.event)
        with sent.open("rb") as stdin:
            process = subprocess.Popen(
                [str(CCBRIDGE), "run"],
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**self.sandbox.env, "CLAUDE_PROJECT_DIR": str(self.sandbox.project)},
                cwd=self.sandbox.project,
            )
        self.started.append(process)
        return process

    def sub_hooks(self) -> list[int]:
        return [int(pid) for pid in self.runs.read_text().split()] if self.runs.exists() else []

    def warm(self) -> None:
        """One call first, so that both processes read the compiled config from the cache."""
        done = self.sandbox.call_executable(None, self.event, {"CLAUDE_PROJECT_DIR": "/"})
        assert done.exit_code in (0, 2), done.stderr
        self.runs.unlink(missing_ok=True)

    def end(self) -> None:
        """Whatever a failed test left: no process of it outlives the test."""
        self.hold.unlink(missing_ok=True)
        for pid in [*(process.pid for process in self.started), *self.sub_hooks()]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for process in self.started:
            process.communicate(timeout=BOUND)


def waiting_on_a_lock(pid: int) -> bool:
    """Whether the kernel's lock table has `pid` waiting for a flock (`->` lines)."""
    for line in Path("/proc/locks").read_text().splitlines():
        words = line.split()
        at = words.index("->") if "->" in words else -1
        if at >= 0 and words[at + 1 : at + 2] == ["FLOCK"] and words[at + 4 : at + 5] == [str(pid)]:
            return True
    return False


def finished(process: subprocess.Popen[bytes]) -> tuple[int, dict[str, object]]:
    out, err = process.communicate(timeout=BOUND)
    assert b"Traceback" not in err, err.decode()
    return process.returncode, json.loads(out) if out.strip() else {}


@pytest.fixture
def twins(sandbox: Sandbox) -> Iterator[Twins]:
    if not Path("/proc/locks").exists():
        pytest.skip("needs Linux's /proc/locks to see a process wait for the lock")
    made = Twins(sandbox)
    made.warm()
    yield made
    made.end()


def test_the_second_process_gives_the_first_ones_answer_and_runs_no_sub_hook(
    twins: Twins,
) -> None:
    twins.hold.touch()
    first = twins.start()
    wait_for(lambda: len(twins.sub_hooks()) == 1, "the first process runs its sub-hook")
    second = twins.start()
    wait_for(lambda: waiting_on_a_lock(second.pid), "the second waits for the first's answer")
    twins.hold.unlink()
    answers = [finished(first), finished(second)]
    assert len(twins.sub_hooks()) == 1
    assert answers[0] == answers[1]
    code, payload = answers[0]
    assert code == 2 and REASON in json.dumps(payload)
    records = [r for r in twins.sandbox.audit() if r.get("event") == "PreToolUse"]
    assert len(records) == 2  # the warm-up call's and the judging process's: one per event


def test_when_the_first_dies_unanswered_the_second_judges_the_event_itself(twins: Twins) -> None:
    twins.hold.touch()
    first = twins.start()
    wait_for(lambda: len(twins.sub_hooks()) == 1, "the first process runs its sub-hook")
    second = twins.start()
    wait_for(lambda: waiting_on_a_lock(second.pid), "the second waits for the first's answer")
    first.kill()  # dies before it answers; its sub-hook, in a group of its own, holds on
    first.communicate(timeout=BOUND)
    wait_for(lambda: len(twins.sub_hooks()) == 2, "the second runs the sub-hook itself")
    twins.hold.unlink()
    code, payload = finished(second)
    assert code == 2 and REASON in json.dumps(payload)  # the full judgement, not a pass


def test_the_same_bytes_again_later_are_a_new_event_judged_again(twins: Twins) -> None:
    for round_ in (1, 2):
        pair = [twins.start(), twins.start()]
        answers = [finished(process) for process in pair]
        assert answers[0] == answers[1]
        assert len(twins.sub_hooks()) == round_


# --- the slot file itself, in this process -------------------------------------------------

SECRET = b"k" * 32
ALLOW = Answer({"hookSpecificOutput": {"permissionDecision": "allow"}})


def test_an_answer_not_sealed_by_ccbridge_is_not_taken(tmp_path: Path) -> None:
    slot, answer = coordination.claim(str(tmp_path), SECRET, b"event", 2)
    assert slot is not None and answer is None
    os.write(slot.fd, b"= " + b"0" * 64 + b" " + json.dumps([ALLOW.payload, 0, "", ""]).encode())
    slot.release()  # as if the judge died after something else wrote a line
    again, answer = coordination.claim(str(tmp_path), SECRET, b"event", 2)
    assert answer is None and again is not None  # judged here, from scratch
    again.fill(ALLOW)
    _, taken = coordination.claim(str(tmp_path), b"another key".ljust(32), b"event", 3)
    assert taken is None  # sealed under another key: not ccbridge's for this machine


def test_a_sealed_answer_is_taken_once_per_expected_process(tmp_path: Path) -> None:
    slot, _ = coordination.claim(str(tmp_path), SECRET, b"event", 3)
    assert slot is not None
    slot.fill(ALLOW)
    for _second_and_third in range(2):
        again, answer = coordination.claim(str(tmp_path), SECRET, b"event", 3)
        assert again is None and answer == ALLOW
    assert not list((tmp_path / coordination.DIRECTORY).iterdir())  # the last one removed it
    fresh, answer = coordination.claim(str(tmp_path), SECRET, b"event", 3)
    assert fresh is not None and answer is None  # the fourth is another event
    fresh.release()


def test_a_slot_from_longer_ago_than_the_window_is_another_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slot, _ = coordination.claim(str(tmp_path), SECRET, b"event", 2)
    assert slot is not None
    slot.fill(ALLOW)
    later = time.time() + coordination.WINDOW + 1
    monkeypatch.setattr(time, "time", lambda: later)
    again, answer = coordination.claim(str(tmp_path), SECRET, b"event", 2)
    assert answer is None and again is not None
    again.release()
