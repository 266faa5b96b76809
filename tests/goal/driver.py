"""Drives the goal's Claude Code wiring with fake hook events, as Claude Code would send them."""

from __future__ import annotations

import json
import shlex
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bridge.goal import cc
from bridge.goal.activation import ProcessIdentity
from bridge.goal.authority import EventKind, MessageSource, SessionEvent
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import Goal
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore


class Timestamps:
    """A clock that moves one second per call, so tests never depend on the real time."""

    def __init__(self) -> None:
        self.seconds = 0

    def __call__(self) -> str:
        self.seconds += 1
        minutes, seconds = divmod(self.seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return f"2026-01-01T{hours:02d}:{minutes:02d}:{seconds:02d}.000Z"


@dataclass
class FakeProcess:
    """The Claude Code process identity the hooks see; `restart` plays a new process."""

    current: ProcessIdentity | None

    def __call__(self) -> ProcessIdentity | None:
        return self.current

    def restart(self) -> None:
        assert self.current is not None
        self.current = ProcessIdentity(
            self.current.pid + 1, self.current.start_time + 1, self.current.boot_id
        )


@dataclass
class SessionDriver:
    settings: GoalSettings
    session_id: str
    tool_uses: int = field(default=0)
    # False plays a call that Claude Code refused after the hook's answer: no PostToolUse.
    runs: bool = True
    # The prompt_id of the person's latest prompt (a notice reuses it).
    prompt_id: str = ""

    @property
    def transcript(self) -> Path:
        """The session transcript Claude Code writes (kept in the test's state directory)."""
        return self.settings.state_dir / f"{self.session_id}.transcript.jsonl"

    def _event(self, name: str, **fields: Any) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": "/p",
            "hook_event_name": name,
            **fields,
        }

    def write_transcript(self, *entries: dict[str, Any]) -> None:
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        with self.transcript.open("a", encoding="utf-8") as handle:
            for entry in entries:
                handle.write(json.dumps(entry) + "\n")

    def prompt(self, text: str = "please work on it", source: str = "typed") -> str:
        """A person's prompt: the hook event, then the entry Claude Code writes for it after
        the hook (the shape of Claude Code 2.1.332 to 2.1.335's `user` entries)."""
        prompt_id = self.prompt_id = str(uuid.uuid4())
        cc.on_user_prompt(
            self._event("UserPromptSubmit", prompt=text, prompt_id=prompt_id), self.settings
        )
        self.write_transcript(
            {
                "type": "user",
                "promptId": prompt_id,
                "message": {"role": "user", "content": text},
                "promptSource": source,
                "uuid": str(uuid.uuid4()),
            }
        )
        return prompt_id

    def deliver(self, text: str, prompt_id: str | None = None, **entry: Any) -> None:
        """A prompt Claude Code submits by itself: the same hook event, and in the transcript
        whatever `entry` says (nothing when empty)."""
        prompt_id = prompt_id or str(uuid.uuid4())
        cc.on_user_prompt(
            self._event("UserPromptSubmit", prompt=text, prompt_id=prompt_id), self.settings
        )
        if entry:
            self.write_transcript({"promptId": prompt_id, **entry})

    def stop(self, *, active: bool = False) -> dict[str, Any] | None:
        return cc.on_stop(self._event("Stop", stop_hook_active=active), self.settings)

    def bash(self, command: str, *, agent_id: str | None = None) -> str | None:
        self.tool_uses += 1
        extra = {} if agent_id is None else {"agent_id": agent_id, "agent_type": "general"}
        event = self._event(
            "PreToolUse",
            tool_name="Bash",
            tool_input={"command": command},
            tool_use_id=f"toolu_{self.tool_uses}",
            **extra,
        )
        denied = cc.on_pre_tool_use(event, self.settings)
        if denied is not None or not self.runs:
            return denied
        # Claude Code ran the call: its PostToolUse applies the judged change.
        context = cc.on_post_tool_use({**event, "hook_event_name": "PostToolUse"}, self.settings)
        if context is None:
            return None  # no goal change (`get`, --help, ...)
        if '"ok": false' in context:
            return cc.deny_reason(json.loads(context[context.index("{") :])["error"])
        return None

    def create(self, objective: str = "make the tests pass", max_rounds: int = 5) -> str | None:
        return self.bash(
            f"ccbridge goal create --objective {shlex.quote(objective)} --max-rounds {max_rounds}"
        )

    def update(self, action: str, *, revision: int | None = None, **options: Any) -> str | None:
        goal = self.goal()
        assert goal is not None
        words = [
            "ccbridge", "goal", "update", "--id", goal.id,
            "--revision", str(goal.revision if revision is None else revision),
            "--action", action,
        ]  # fmt: skip
        for name, value in options.items():
            words += [f"--{name.replace('_', '-')}", str(value)]
        return self.bash(shlex.join(words))

    def goal(self) -> Goal | None:
        with GoalStore.open(self.settings.db_path) as store, store.read() as tx:
            return tx.current_goal(self.session_id)

    def append(self, event: SessionEvent) -> None:
        """Write a session event directly, as another host-side producer would."""
        with GoalStore.open(self.settings.db_path) as store, store.write() as tx:
            tx.append_event(self.session_id, event, "2026-01-01T00:00:00.000Z")

    def replay_continuation(self, goal_id: str, revision: int, round: int) -> None:
        self.append(
            SessionEvent(EventKind.TURN_START, MessageSource.continuation(goal_id, revision, round))
        )


def denial(reason: str | None) -> dict[str, Any]:
    """The structured goal error inside a deny reason."""
    assert reason is not None, "expected a denial"
    error = json.loads(reason)["goal_error"]
    assert isinstance(error, dict)
    return error


@contextmanager
def refused(code: Code) -> Iterator[None]:
    """The block must raise a GoalError with this code."""
    with pytest.raises(GoalError) as raised:
        yield
    assert raised.value.code is code, raised.value.to_dict()
