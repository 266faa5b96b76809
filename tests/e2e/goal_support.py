"""A Claude Code session with ccbridge's goal wiring, for the goal end-to-end tests.

The session id is fixed up front (`--session-id`, later `--resume`) and the CC home is kept
between runs, so one test can drive the same session through several CC processes. The harness
runs a fixed command line, so a small `exec` wrapper adds those flags: CC still replaces the
wrapper's process, which keeps the hooks' view of "the CC process" (goal activation) true.

The scripted model cannot read the goal's id and revision the way a real one would (from the
continuation message or `ccbridge goal get`), so a goal command in the script is a lazy tool
input, written from the goal store at the moment the stand-in answers.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from bridge.cli.goal_command import SESSION_ENV
from bridge.config.registrations import warm
from bridge.goal.authority import EventKind, MessageSource, SessionEvent
from bridge.goal.model import Action, utc_now
from bridge.goal.settings import DB_NAME
from bridge.goal.store import GoalStore

from .harness import (
    Result,
    ccbridge_executable,
    claude_binary,
    claude_cache,
    pinned_versions,
    run_claude,
    trust_project,
    version_tuple,
)
from .model_stub import RecordedRequest, ToolCall, Turn

HOOK_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop")
HOOK_TIMEOUT_S = 60
CONTINUATION_MARK = "[ccbridge goal, round "
Goal = dict[str, Any]


def newest_claude() -> Path:
    """The newest pinned binary (the goal suite runs on one version to save time). Missing:
    skipped locally, failed in CI, as for the matrix."""
    version = max(pinned_versions(), key=version_tuple)
    binary = claude_binary(version)
    if binary is None:
        message = f"Claude Code {version} is not in {claude_cache()}: run scripts/fetch-clients"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


def continuation_header(round: int, max_rounds: int) -> str:
    return f"{CONTINUATION_MARK}{round} of {max_rounds}]"


class LiveBash(Mapping[str, Any]):
    """A Bash tool input whose command is built when the model stand-in sends it; `before` runs
    first (something that happens while the model is thinking, e.g. a human typing)."""

    def __init__(self, build: Callable[[], str], before: Callable[[], None] | None = None) -> None:
        self._build = build
        self._before = before
        self._input: dict[str, Any] | None = None

    @property
    def command(self) -> str | None:
        """The command sent, or None if the stand-in never got to this turn."""
        return None if self._input is None else str(self._input["command"])

    def _materialized(self) -> dict[str, Any]:
        if self._input is None:
            if self._before is not None:
                self._before()
            self._input = {"command": self._build(), "description": "goal"}
        return self._input

    def __getitem__(self, key: str) -> Any:
        return self._materialized()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._materialized())

    def __len__(self) -> int:
        return len(self._materialized())


@dataclass
class GoalSession:
    """One CC session in `root`, ccbridge registered for the goal hooks."""

    root: Path
    binary: Path
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    # CC permission rules beyond the goal commands, e.g. "Bash" for a user who allows any.
    allow: tuple[str, ...] = ()
    # CC permission rules that refuse (`deny`) or ask the user (`ask`; `-p` refuses those).
    deny: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    # Extra ccbridge config, e.g. {"self_protection": False}.
    config_extra: dict[str, Any] = field(default_factory=dict)
    # Whether CC trusts the project (its trust dialog accepted), and which settings file holds
    # the permission rules: "project" (.claude/settings.json) or "user" (~/.claude/...).
    trusted: bool = True
    rules_in: str = "project"
    # Registered as `install` registers ccbridge: the warm client on the tool events, the
    # config in the user's layer (bridge/warm judges with the layered config, as `run` alone).
    warm: bool = False
    runs: int = 0

    def __post_init__(self) -> None:
        self.project = self.root / "project"
        self.home = self.root / "home"
        self.state_dir = self.root / "state"
        for directory in (self.project, self.home):
            directory.mkdir(parents=True, exist_ok=True)
        if self.trusted:
            trust_project(self.home, self.project.resolve())
        else:
            (self.home / ".claude.json").write_text("{}", encoding="utf-8")
        self.config = (
            self.home / ".claude" / "ccbridge.yaml" if self.warm else self.root / "ccbridge.yaml"
        )
        self.config.parent.mkdir(exist_ok=True)
        config = {"goals": {"enabled": True}, **self.config_extra}
        self.config.write_text(yaml.safe_dump(config), encoding="utf-8")
        self.ccbridge = ccbridge_executable()

    # -- running Claude Code ------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        hooks = {
            event: [{"matcher": "*", "hooks": [self._registration(event)]}] for event in HOOK_EVENTS
        }
        allow = ["Bash(ccbridge goal:*)", f"Bash({self.ccbridge} goal:*)", *self.allow]
        permissions = {"allow": allow, "deny": list(self.deny), "ask": list(self.ask)}
        if self.rules_in == "user":
            user = self.home / ".claude" / "settings.json"
            user.parent.mkdir(exist_ok=True)
            user.write_text(json.dumps({"permissions": permissions}), encoding="utf-8")
            return {"hooks": hooks}
        return {"permissions": permissions, "hooks": hooks}

    def _registration(self, event: str) -> dict[str, Any]:
        if self.warm:
            command = warm(event, f"{shlex.quote(self.ccbridge)} run")
        else:
            command = f"{shlex.quote(self.ccbridge)} run --config {shlex.quote(str(self.config))}"
        return {
            "type": "command",
            "command": command,
            "timeout": HOOK_TIMEOUT_S,
            "onFailure": "block",
        }

    def env(self) -> dict[str, str]:
        """CC's environment: CC itself tells its Bash tool the session (CLAUDE_CODE_SESSION_ID)."""
        search_path = os.pathsep.join(
            [str(Path(self.ccbridge).parent), os.environ.get("PATH", "/usr/bin:/bin")]
        )
        return {
            "PATH": search_path,
            "HOME": str(self.home),
            "CCBRIDGE_STATE_DIR": str(self.state_dir),
        }

    def _launcher(self) -> Path:
        """The real binary with this session's flag: a new session first, then a resume."""
        flag = "--resume" if self.runs else "--session-id"
        launcher = self.root / f"claude-run{self.runs}"
        launcher.write_text(
            f'#!/bin/sh\nexec {shlex.quote(str(self.binary))} {flag} {self.session_id} "$@"\n',
            encoding="utf-8",
        )
        launcher.chmod(0o755)
        self.runs += 1
        return launcher

    def run(
        self, script: Sequence[Turn], prompt: str, env: Mapping[str, str] | None = None
    ) -> Result:
        """One `claude -p` process for this session: the first creates it, later ones resume."""
        return run_claude(
            self._launcher(),
            self.project,
            self.settings(),
            script,
            prompt=prompt,
            env={**self.env(), **(env or {})},
        )

    # -- the goal, as the host recorded it ----------------------------------------------------

    def stored_goal(self) -> Goal | None:
        """Read in process from the goal store (what the scripted model "knows")."""
        store = GoalStore.open_readonly(self.state_dir / DB_NAME)
        if store is None:
            return None
        with store, store.read() as tx:
            goal = tx.current_goal(self.session_id)
        return None if goal is None else goal.to_dict()

    def round_revision(self, round: int) -> int:
        """The revision the host admitted `round` at: what that round's continuation carried."""
        store = GoalStore.open_readonly(self.state_dir / DB_NAME)
        assert store is not None, "no goal store"
        with store, store.read() as tx:
            changes = tx.changes(self.session_id)
        revisions = [
            change.goal.revision
            for change in changes
            if change.action is Action.ROUND and change.goal.rounds_started == round
        ]
        assert revisions, f"round {round} was never admitted"
        return revisions[0]

    def replay_continuation(self, round: int) -> None:
        """Put round `round`'s continuation into the session's host log again, as if the host
        had re-injected that old message: a new turn starts with its source."""
        goal = self.stored_goal()
        assert goal is not None
        source = MessageSource.continuation(goal["id"], self.round_revision(round), round)
        with GoalStore.open(self.state_dir / DB_NAME) as store, store.write() as tx:
            tx.append_event(self.session_id, SessionEvent(EventKind.TURN_START, source), utc_now())

    def get(self) -> dict[str, Any]:
        """`ccbridge goal get`, run by the test as the CC Bash tool would run it."""
        completed = subprocess.run(
            [self.ccbridge, "goal", "get"],
            env={**os.environ, **self.env(), SESSION_ENV: self.session_id},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert completed.returncode == 0, completed.stdout + completed.stderr
        payload: dict[str, Any] = json.loads(completed.stdout)
        return payload

    def changes(self) -> list[str]:
        """The actions of the session's goal log, in order (what was really applied)."""
        store = GoalStore.open_readonly(self.state_dir / DB_NAME)
        assert store is not None, "no goal store"
        with store, store.read() as tx:
            return [change.action.value for change in tx.changes(self.session_id)]

    def goal(self) -> Goal:
        goal = self.get()["goal"]
        assert isinstance(goal, dict), "no goal in the store"
        return goal

    def stop_answers(self) -> list[str]:
        """What ccbridge answered each Stop of this session, from its audit log, in order."""
        audit = self.state_dir / "audit.jsonl"
        records = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
        return [
            str(record["final"]["decision"])
            for record in records
            if record.get("event") == "Stop" and record.get("session") == self.session_id
        ]

    # -- CC-format events fed straight to `ccbridge run` ---------------------------------------

    def human_prompt_event(self, prompt: str) -> dict[str, Any]:
        """The event CC's UserPromptSubmit hook gets when a person types into this session."""
        return {
            "session_id": self.session_id,
            "transcript_path": str(self.home / "transcript.jsonl"),
            "cwd": str(self.project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
            "prompt_id": str(uuid.uuid4()),
        }

    def transcript(self) -> Path:
        """The transcript CC writes for this session (under its home's projects directory)."""
        found = sorted((self.home / ".claude" / "projects").glob(f"*/{self.session_id}.jsonl"))
        assert found, "CC has written no transcript for this session yet"
        return found[0]

    def human_types(self) -> None:
        """A person types into the session while CC works: CC would hand this event to the
        real `ccbridge run` registered for UserPromptSubmit, then write the prompt's entry
        into its transcript as typed while it worked (`promptSource: queued`)."""
        text = "Change the objective, please."
        event = self.human_prompt_event(text)
        event["transcript_path"] = str(self.transcript())
        completed = subprocess.run(
            [self.ccbridge, "run", "--config", str(self.config)],
            input=json.dumps(event),
            env={**os.environ, **self.env(), "CLAUDE_PROJECT_DIR": str(self.project)},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert completed.returncode == 0, completed.stdout + completed.stderr
        entry = {
            "type": "user",
            "promptId": event["prompt_id"],
            "message": {"role": "user", "content": text},
            "promptSource": "queued",
            "uuid": str(uuid.uuid4()),
            "sessionId": self.session_id,
        }
        with Path(event["transcript_path"]).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    # -- scripted goal commands ---------------------------------------------------------------

    def update(
        self,
        action: str,
        *,
        revision: Callable[[Goal], int] = lambda goal: int(goal["revision"]),
        before: Callable[[], None] | None = None,
        **options: str | int,
    ) -> LiveBash:
        """`ccbridge goal update` on the stored goal, at the revision `revision` picks."""

        def build() -> str:
            goal = self.stored_goal()
            assert goal is not None, "the script updates a goal that does not exist"
            words = ["ccbridge", "goal", "update", "--id", goal["id"]]
            words += ["--revision", str(revision(goal)), "--action", action]
            for name, value in options.items():
                words += [f"--{name.replace('_', '-')}", str(value)]
            return shlex.join(words)

        return LiveBash(build, before)


def bash(*inputs: Mapping[str, Any]) -> Turn:
    """One model turn making these Bash calls."""
    return Turn(tool_calls=tuple(ToolCall("Bash", command) for command in inputs))


def create_command(objective: str, max_rounds: int) -> str:
    words = ["ccbridge", "goal", "create", "--objective", objective]
    return shlex.join([*words, "--max-rounds", str(max_rounds)])


def outcome_of(result: Result, command: str | None) -> str:
    """What the model got back for the Bash call running `command` (main agent or subagent).
    The stand-in numbers tool calls, so an id is unique within a run."""
    assert command is not None, "the model never got to send this command"
    ids = {
        block["id"]
        for request in result.requests.requests
        for message in request.body.get("messages", [])
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use" and block.get("input", {}).get("command") == command
    }
    assert ids, f"CC never sent the model's call back: {command}"
    for request in result.requests.requests:
        for block in request.incoming_blocks():
            if block.get("type") == "tool_result" and block.get("tool_use_id") in ids:
                return _text(block.get("content"))
    raise AssertionError(f"CC sent the model no result for: {command}")


def goal_error(text: str) -> dict[str, Any]:
    """The structured error in a deny reason or in the command's own output."""
    start = text.find("{")
    assert start >= 0, f"no JSON in: {text}"
    payload, _end = json.JSONDecoder().raw_decode(text, start)
    error = payload.get("goal_error") or payload.get("error")
    assert isinstance(error, dict), f"no goal error in: {text}"
    return error


def continuations(result: Result) -> list[str]:
    """Continuation headers the model was sent, in order of the request that first carried them."""
    seen: list[str] = []
    for request in result.requests.main_requests:
        for text in _texts(request):
            start = text.find(CONTINUATION_MARK)
            if start >= 0:
                header = text[start : text.index("]", start) + 1]
                if header not in seen:
                    seen.append(header)
    return seen


def _texts(request: RecordedRequest) -> Iterator[str]:
    for block in request.incoming_blocks():
        yield _text(block.get("text", block.get("content")))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""
