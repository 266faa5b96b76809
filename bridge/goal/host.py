"""Host-side goal operations: the only code that changes goal state.

Each operation runs in one write transaction, so the authority check, the compare-and-set and
the bookkeeping that goes with it (turn events, activation, the recorded outcome) happen
together or not at all.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.goal import rules
from bridge.goal.authority import EventKind, SessionEvent, Source, authorize
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import Action, Change, Goal, Phase, utc_now
from bridge.goal.request import GoalRequest
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore, Transaction

_ARMING = frozenset({Action.CREATE, Action.RESUME})
_DISARMING = frozenset({Action.PAUSE, Action.COMPLETE, Action.BLOCKED})


@dataclass(frozen=True, slots=True)
class Continuation:
    """A round the host admitted; `message` is what the model is told to keep going with."""

    goal: Goal
    message: str


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


def new_goal_id() -> str:
    return secrets.token_hex(8)


class GoalHost:
    def __init__(
        self,
        store: GoalStore,
        settings: GoalSettings,
        *,
        clock: Callable[[], str] = utc_now,
        new_id: Callable[[], str] = new_goal_id,
    ) -> None:
        self._store = store
        self._settings = settings
        self._clock = clock
        self._new_id = new_id

    def human_turn(self, session_id: str) -> None:
        with self._store.write() as tx:
            tx.append_event(
                session_id, SessionEvent(EventKind.TURN_START, Source.human()), self._clock()
            )

    def stop(self, session_id: str) -> Continuation | None:
        """Admit the next round when the goal is active, armed and has rounds left."""
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
                return self._end_turn(tx, session_id, now)
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
            source = Source.continuation(admitted.id, admitted.revision, admitted.rounds_started)
            tx.append_event(session_id, SessionEvent(EventKind.TURN_START, source), now)
        return Continuation(
            admitted, continuation_message(admitted, self._settings.blocked_min_rounds)
        )

    @staticmethod
    def _end_turn(tx: Transaction, session_id: str, now: str) -> None:
        if tx.window(session_id) is not None:
            tx.append_event(session_id, SessionEvent(EventKind.TURN_END), now)

    def request(
        self, session_id: str, request: GoalRequest, *, agent_id: str | None, tool_use_id: str
    ) -> dict[str, Any]:
        """Judge and apply a goal command; returns the outcome recorded for it.

        The outcome is `{"ok": true, "goal": ..., ...}` or `{"ok": false, "error": ...}`; both
        are recorded so that the command, when it runs, can print what happened.
        """
        with self._store.write() as tx:
            try:
                outcome: dict[str, Any] = {
                    "ok": True,
                    **self._apply(tx, session_id, request, agent_id),
                }
            except GoalError as error:
                outcome = {"ok": False, "error": error.to_dict()}
            tx.record_outcome(session_id, tool_use_id, request.key(), outcome, self._clock())
        return outcome

    def _apply(
        self, tx: Transaction, session_id: str, request: GoalRequest, agent_id: str | None
    ) -> dict[str, Any]:
        current = tx.current_goal(session_id)
        level = authorize(
            request.action,
            tx.window(session_id),
            current,
            is_root=agent_id is None,
            blocked_min_rounds=self._settings.blocked_min_rounds,
        )
        goal = self._next_goal(current, request)
        tx.commit_change(session_id, Change(request.action, goal))
        identity = self._settings.identity()
        if request.action in _ARMING and identity is not None:
            tx.arm(session_id, identity)
        elif request.action in _DISARMING:
            tx.disarm(session_id)
        armed = tx.is_armed(session_id, identity)
        return {"goal": goal.to_dict(), "armed": armed, "authority": level.value}

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
