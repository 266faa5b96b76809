"""The goal keeper: the only code that changes goal state.

Each operation runs in one write transaction, so the authority check, the compare-and-set and
the bookkeeping that goes with it (turn events, activation, the recorded outcome) happen
together or not at all. A goal command is judged first (`judge`, at PreToolUse) and applied
later (`commit`, at the PostToolUse of the same call), so only a call that ran changes the goal.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.goal import rules
from bridge.goal.authority import (
    EventKind,
    MessageSource,
    SessionEvent,
    SourceKind,
    Window,
    authorize,
)
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import Action, Change, Goal, Phase, utc_now
from bridge.goal.request import GoalRequest
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore, Pending, Transaction
from bridge.goal.typed import PromptRef

# Why a prompt is not taken as typed by a person (None: it is); see bridge/goal/typed.py.
TypedCheck = Callable[[PromptRef], str | None]
NOT_CHECKED = "no transcript was consulted"

_ARMING = frozenset({Action.CREATE, Action.RESUME})
_DISARMING = frozenset({Action.PAUSE, Action.COMPLETE, Action.BLOCKED})
PENDING_NOTE = "judged and allowed; applied when Claude Code reports that this command ran"


@dataclass(frozen=True, slots=True)
class Continuation:
    """A round the keeper admitted; `message` is what the model is told to keep going with."""

    goal: Goal
    message: str


@dataclass(frozen=True, slots=True)
class RoundLimit:
    """The goal used its last round and is now blocked; the user is told."""

    goal: Goal

    @property
    def message(self) -> str:
        return (
            f"ccbridge goal {self.goal.id}: all {self.goal.max_rounds} rounds are used, so the "
            "goal is blocked (round-limit) and Claude stops here. To go on, ask in a prompt "
            "for a higher round cap (goal edit --max-rounds) and a resume."
        )


def continuation_message(goal: Goal, blocked_min_rounds: int) -> str:
    update = f"ccbridge goal update --id {goal.id} --revision {goal.revision}"
    return (
        f"[ccbridge goal, round {goal.rounds_started} of {goal.max_rounds}] "
        f"Objective: {goal.objective}\n"
        "Keep working toward the objective. Only a human can change the objective or the "
        "round cap.\n"
        f"When the objective is met, run: {update} --action complete\n"
        f"If you cannot make progress (allowed from round {blocked_min_rounds}), run: "
        f"{update} --action blocked --reason 'what stops you'"
    )


def _confirmed(window: Window | None, typed: TypedCheck | None) -> tuple[Window | None, list[str]]:
    """The window with each prompt that is not shown as typed by a person turned into a
    delivery, and why each was not."""
    if window is None:
        return None, []
    untyped: list[str] = []
    events = []
    for event in window:
        source = event.source
        if source is not None and source.kind is SourceKind.HUMAN:
            if source.prompt is None:
                why: str | None = "the hook event named no prompt_id"
            else:
                why = NOT_CHECKED if typed is None else typed(source.prompt)
            if why is not None:
                untyped.append(why)
                event = SessionEvent(event.kind, MessageSource.delivery())
        elif source is not None and source.kind is SourceKind.DELIVERY:
            untyped.append("Claude Code delivered it by itself")
        events.append(event)
    return tuple(events), untyped


def new_goal_id() -> str:
    return secrets.token_hex(8)


class GoalKeeper:
    def __init__(
        self,
        store: GoalStore,
        settings: GoalSettings,
        *,
        clock: Callable[[], str] = utc_now,
        new_id: Callable[[], str] = new_goal_id,
        timer: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._settings = settings
        self._clock = clock
        self._new_id = new_id
        self._timer = timer

    def prompt_turn(self, session_id: str, prompt: PromptRef | None) -> None:
        """A turn starts with a prompt Claude Code submitted: a person's, to be confirmed from
        the transcript when it matters (`prompt`), or a delivery (None), which never is."""
        source = MessageSource.delivery() if prompt is None else MessageSource.human(prompt)
        with self._store.write() as tx:
            tx.append_event(session_id, SessionEvent(EventKind.TURN_START, source), self._clock())

    def stop(self, session_id: str) -> Continuation | RoundLimit | None:
        """Admit the next round when the goal is active, armed and has rounds left; at the cap,
        block the goal (RoundLimit) and end the turn; otherwise just end it (None)."""
        with self._store.write() as tx:
            now = self._clock()
            goal = tx.current_goal(session_id)
            armed = tx.is_armed(session_id, self._settings.identity())
            if goal is None or goal.phase is not Phase.ACTIVE or not armed:
                return self._end_turn(tx, session_id, now)
            if goal.rounds_started >= goal.max_rounds:
                blocked = rules.block_at_round_limit(goal, now)
                tx.commit_change(session_id, Change(Action.BLOCKED, blocked))
                tx.disarm(session_id)
                self._end_turn(tx, session_id, now)
                return RoundLimit(blocked)
            if tx.rounds_since_human(session_id) >= self._settings.stop_block_cap:
                # Claude Code would ignore this block; the next human prompt carries on.
                return self._end_turn(tx, session_id, now)
            admitted = rules.admit_round(
                goal,
                goal_id=goal.id,
                revision=goal.revision,
                round=goal.rounds_started + 1,
                armed=armed,
                now=now,
            )
            tx.commit_change(session_id, Change(Action.ROUND, admitted))
            source = MessageSource.continuation(
                admitted.id, admitted.revision, admitted.rounds_started
            )
            tx.append_event(session_id, SessionEvent(EventKind.TURN_START, source), now)
        return Continuation(
            admitted, continuation_message(admitted, self._settings.blocked_min_rounds)
        )

    @staticmethod
    def _end_turn(tx: Transaction, session_id: str, now: str) -> None:
        if tx.window(session_id) is not None:
            tx.append_event(session_id, SessionEvent(EventKind.TURN_END), now)

    def judge(
        self,
        session_id: str,
        request: GoalRequest,
        *,
        agent_id: str | None,
        tool_use_id: str,
        command: str,
        typed: TypedCheck | None = None,
    ) -> dict[str, Any]:
        """Judge a goal command at PreToolUse; nothing changes yet.

        A prompt in the window holds a person's authority only when `typed` confirms it
        (without `typed`, none does).

        An authorized change is kept, bound to this session, tool call and exact command,
        until Claude Code reports that the call ran (`commit`). The outcome, `{"ok": true,
        "status": "pending", "goal": <as it will be>, ...}` or `{"ok": false, "error": ...}`,
        is recorded so that the command, when it runs, can print it.
        """
        with self._store.write() as tx:
            try:
                outcome = self._judge(
                    tx, session_id, request, agent_id, tool_use_id, command, typed
                )
            except GoalError as error:
                outcome = {"ok": False, "error": error.to_dict()}
            tx.record_outcome(session_id, tool_use_id, request.key(), outcome, self._clock())
        return outcome

    def _judge(
        self,
        tx: Transaction,
        session_id: str,
        request: GoalRequest,
        agent_id: str | None,
        tool_use_id: str,
        command: str,
        typed: TypedCheck | None,
    ) -> dict[str, Any]:
        current = tx.current_goal(session_id)
        window = tx.window(session_id)
        confirmed, untyped = _confirmed(window, typed) if agent_id is None else (window, [])
        try:
            level = authorize(
                request.action,
                confirmed,
                current,
                is_root=agent_id is None,
                blocked_min_rounds=self._settings.blocked_min_rounds,
            )
        except GoalError as error:
            if error.code is not Code.FORBIDDEN or not untyped:
                raise
            # Said to the model and, in the deny reason Claude Code shows, to the user.
            details = dict(error.details, prompt_not_typed=untyped)
            raise GoalError(
                error.code,
                f"{error.message}. This turn's prompt is not taken as typed by a person: "
                f"{'; '.join(untyped)}. Claude Code also submits prompts by itself (a "
                "background task's notice, a scheduled wake-up, a message from another agent); "
                "only a prompt its transcript shows as typed holds a person's authority",
                **details,
            ) from None
        goal = self._next_goal(current, request)
        if request.action in _ARMING:
            armed = self._settings.identity() is not None
        else:
            armed = request.action not in _DISARMING and tx.is_armed(
                session_id, self._settings.identity()
            )
        outcome = {
            "ok": True,
            "status": "pending",
            "note": PENDING_NOTE,
            "goal": goal.to_dict(),
            "armed": armed,
            "authority": level.value,
        }
        now = self._timer()
        pending = Pending(
            command=command,
            turn_id=tx.turn_id(session_id),
            head=None if current is None else (current.id, current.revision),
            change=Change(request.action, goal),
            outcome=outcome,
            expires=now + self._settings.pending_ttl_s,
        )
        tx.put_pending(session_id, tool_use_id, pending, now)
        return outcome

    def commit(self, session_id: str, tool_use_id: str, command: str) -> dict[str, Any] | None:
        """Apply the change judged for this tool call, once, now that the call ran.

        None when nothing waits for this call. Otherwise the outcome: the change is applied
        only while its turn is open, before it expires, for the very command judged, and while
        the goal is still at the revision it was judged against (compare-and-set).
        """
        with self._store.write() as tx:
            pending = tx.take_pending(session_id, tool_use_id)
            if pending is None:
                return None
            try:
                self._check_pending(tx, session_id, pending, command)
                tx.commit_change(session_id, pending.change)
                action, identity = pending.change.action, self._settings.identity()
                if action in _ARMING and identity is not None:
                    tx.arm(session_id, identity)
                elif action in _DISARMING:
                    tx.disarm(session_id)
                return {
                    "ok": True,
                    "goal": pending.change.goal.to_dict(),
                    "armed": tx.is_armed(session_id, identity),
                    "authority": pending.outcome.get("authority"),
                }
            except GoalError as error:
                return {"ok": False, "error": error.to_dict()}

    def _check_pending(
        self, tx: Transaction, session_id: str, pending: Pending, command: str
    ) -> None:
        if command != pending.command:
            raise GoalError(Code.INVALID_REQUEST, "the command that ran is not the one judged")
        if self._timer() > pending.expires or tx.turn_id(session_id) != pending.turn_id:
            raise GoalError(Code.EXPIRED, "the change expired before its command ran")
        current = tx.current_goal(session_id)
        head = None if current is None else (current.id, current.revision)
        if head != pending.head:
            raise GoalError(
                Code.STALE_REVISION,
                "the goal changed between judging this command and running it; run "
                "`ccbridge goal get` and try again",
            )

    def _next_goal(self, current: Goal | None, request: GoalRequest) -> Goal:
        now = self._clock()
        if request.action is Action.CREATE:
            return rules.create(
                current,
                goal_id=self._new_id(),
                objective=request.objective or "",
                max_rounds=(
                    self._settings.default_max_rounds
                    if request.max_rounds is None
                    else request.max_rounds
                ),
                now=now,
            )
        if request.goal_id is None or request.revision is None:
            raise GoalError(Code.INVALID_REQUEST, "an update names the goal id and its revision")
        return rules.update(
            current,
            goal_id=request.goal_id,
            revision=request.revision,
            action=request.action,
            now=now,
            objective=request.objective,
            max_rounds=request.max_rounds,
            reason=request.reason,
        )
