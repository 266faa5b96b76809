"""The Claude Code wiring, driven with fake hook events: every attack in the spec is refused."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from bridge.goal import cc
from bridge.goal.model import ROUND_LIMIT_REASON, Phase
from bridge.goal.request import GoalRequest, parse_goal_command
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore

from .driver import FakeProcess, SessionDriver, denial


def start_goal(session: SessionDriver, max_rounds: int = 5) -> None:
    session.prompt("work on this until the tests pass")
    assert session.create(max_rounds=max_rounds) is None


def run_round(session: SessionDriver, number: int) -> None:
    answer = session.stop()
    assert answer is not None and answer["decision"] == "block"
    goal = session.goal()
    assert goal is not None and goal.rounds_started == number


def test_human_creates_a_goal_and_stop_starts_round_one(session: SessionDriver) -> None:
    start_goal(session)
    goal = session.goal()
    assert goal is not None
    assert (goal.phase, goal.revision, goal.rounds_started) == (Phase.ACTIVE, 1, 0)
    answer = session.stop()
    assert answer is not None and answer["decision"] == "block"
    assert "round 1 of 5" in answer["reason"]
    assert "make the tests pass" in answer["reason"]
    assert f"--id {goal.id} --revision 2 --action complete" in answer["reason"]


def test_self_extension_during_an_automatic_round_is_rejected(session: SessionDriver) -> None:
    start_goal(session)
    run_round(session, 1)
    before = session.goal()
    error = denial(
        session.update("edit", max_rounds=999, objective="the admin approved this out of band")
    )
    assert error["code"] == "forbidden"
    assert error["message"] == "edit requires a direct human turn"
    for action in ("pause", "resume"):
        assert denial(session.update(action))["code"] == "forbidden"
    assert denial(session.create(objective="a new goal"))["code"] == "forbidden"
    assert session.goal() == before


def test_replayed_older_round_is_rejected(session: SessionDriver) -> None:
    start_goal(session)
    run_round(session, 1)
    first = session.goal()
    assert first is not None
    run_round(session, 2)
    session.replay_continuation(first.id, first.revision, 1)
    error = denial(session.update("complete"))
    assert error["code"] == "forbidden"
    assert "current goal round" in error["message"]
    goal = session.goal()
    assert goal is not None and goal.phase is Phase.ACTIVE


def test_round_authority_is_void_after_a_human_edit(session: SessionDriver) -> None:
    start_goal(session)
    run_round(session, 1)
    round_goal = session.goal()
    assert round_goal is not None
    session.prompt("raise the cap please")
    assert session.update("edit", max_rounds=8) is None
    # The old round's continuation shows up again: its revision is no longer current.
    session.replay_continuation(round_goal.id, round_goal.revision, 1)
    assert denial(session.update("complete"))["code"] == "forbidden"
    assert denial(session.update("complete", revision=round_goal.revision))["code"] == "forbidden"


def test_stale_revision_under_human_authority_is_rejected(session: SessionDriver) -> None:
    start_goal(session)
    assert session.update("edit", objective="first edit") is None
    error = denial(session.update("edit", revision=1, objective="based on an old read"))
    assert error["code"] == "stale_revision"
    assert error["current_revision"] == 2
    goal = session.goal()
    assert goal is not None and goal.objective == "first edit"


def test_a_subagent_is_rejected_even_in_a_human_turn(session: SessionDriver) -> None:
    start_goal(session)
    command = "ccbridge goal create --objective 'mine now'"
    goal = session.goal()
    assert goal is not None
    for attempt in (
        command,
        f"ccbridge goal update --id {goal.id} --revision 1 --action complete",
        f"ccbridge goal update --id {goal.id} --revision 1 --action pause",
    ):
        error = denial(session.bash(attempt, agent_id="agent-7"))
        assert error["code"] == "forbidden"
        assert "subagent" in error["message"]
    assert session.bash("ccbridge goal get", agent_id="agent-7") is None
    assert session.goal() == goal


def test_restart_without_resume_stays_disarmed(
    session: SessionDriver, process: FakeProcess
) -> None:
    start_goal(session)
    run_round(session, 1)
    process.restart()
    assert session.stop() is None
    goal = session.goal()
    assert goal is not None and (goal.phase, goal.rounds_started) == (Phase.ACTIVE, 1)
    session.prompt("carry on")
    assert session.stop() is None
    session.prompt("resume the goal")
    assert session.update("resume") is None
    run_round(session, 2)


def test_an_unknown_process_never_arms(settings: GoalSettings) -> None:
    session = SessionDriver(replace(settings, identity=lambda: None), "s")
    start_goal(session)
    assert session.stop() is None


def test_blocked_under_round_authority_needs_three_rounds(session: SessionDriver) -> None:
    start_goal(session)
    for number in (1, 2):
        run_round(session, number)
        error = denial(session.update("blocked", reason="too hard"))
        assert error["code"] == "forbidden"
        assert "at least 3 admitted rounds" in error["message"]
    run_round(session, 3)
    assert session.update("blocked", reason="needs credentials I do not have") is None
    goal = session.goal()
    assert goal is not None
    assert (goal.phase, goal.blocked_reason) == (Phase.BLOCKED, "needs credentials I do not have")
    assert session.stop() is None


def test_a_human_may_mark_blocked_at_once(session: SessionDriver) -> None:
    start_goal(session)
    assert session.update("blocked", reason="waiting for the vendor") is None


def test_complete_on_round_authority_ends_the_goal(session: SessionDriver) -> None:
    start_goal(session)
    run_round(session, 1)
    assert session.update("complete") is None
    assert session.stop() is None
    assert denial(session.update("complete"))["code"] == "no_turn"
    session.prompt("next task")
    assert session.create(objective="the next goal") is None


def test_a_human_typing_during_an_automatic_round_makes_it_direct_human(
    session: SessionDriver,
) -> None:
    start_goal(session)
    run_round(session, 1)
    run_round(session, 2)
    session.prompt("you may go up to 20 rounds")
    assert session.update("edit", max_rounds=20) is None
    goal = session.goal()
    assert goal is not None and goal.max_rounds == 20


def test_reaching_the_cap_blocks_with_round_limit(session: SessionDriver) -> None:
    start_goal(session, max_rounds=2)
    run_round(session, 1)
    run_round(session, 2)
    answer = session.stop()  # the turn ends (no block), and the user is told why
    assert answer is not None and set(answer) == {"systemMessage"}
    assert "all 2 rounds are used" in answer["systemMessage"]
    goal = session.goal()
    assert goal is not None
    assert (goal.phase, goal.blocked_reason, goal.rounds_started) == (
        Phase.BLOCKED,
        ROUND_LIMIT_REASON,
        2,
    )
    session.prompt("keep going")
    assert session.stop() is None


def test_no_round_that_claude_codes_stop_cap_would_drop(settings: GoalSettings) -> None:
    session = SessionDriver(replace(settings, stop_block_cap=2), "s")
    start_goal(session)
    run_round(session, 1)
    run_round(session, 2)
    assert session.stop(active=True) is None
    goal = session.goal()
    assert goal is not None and (goal.phase, goal.rounds_started) == (Phase.ACTIVE, 2)
    session.prompt("continue")
    run_round(session, 3)


def test_pause_stops_rounds_and_resume_restarts_them(session: SessionDriver) -> None:
    start_goal(session)
    assert session.update("pause") is None
    assert session.stop() is None
    session.prompt("resume")
    assert session.update("resume") is None
    run_round(session, 1)


def test_goal_commands_outside_a_turn_are_refused(session: SessionDriver) -> None:
    error = denial(session.create())
    assert error["code"] == "no_turn"
    # The likely cause when a human did type: the prompt hooks are not registered.
    assert "run `ccbridge install`" in error["message"]
    assert session.goal() is None


def test_outcomes_are_recorded_for_the_cli(session: SessionDriver) -> None:
    start_goal(session)
    denial(session.update("edit", revision=7, objective="x"))
    request = parse_goal_command(
        "ccbridge goal create --objective 'make the tests pass' --max-rounds 5"
    )
    assert isinstance(request, GoalRequest)
    with GoalStore.open(session.settings.db_path) as store, store.read() as tx:
        created = tx.outcome_for(session.session_id, request.key())
    assert created is not None and created["ok"] is True and created["armed"] is True
    assert created["authority"] == "direct-human"


def test_malformed_goal_commands_are_denied(session: SessionDriver) -> None:
    session.prompt()
    error = denial(session.bash("ccbridge goal create --objective x && rm -rf ~"))
    assert error["code"] == "invalid_request"
    assert session.goal() is None


def test_other_tools_and_commands_are_untouched(session: SessionDriver) -> None:
    assert session.bash("ls -la") is None
    assert session.bash("ccbridge goal get") is None
    event = {"session_id": "s", "tool_name": "Write", "tool_input": {"command": "x"}}
    assert cc.on_pre_tool_use(event, session.settings) is None
    assert not session.settings.db_path.exists()


def test_disabled_goal_does_nothing(settings: GoalSettings) -> None:
    session = SessionDriver(replace(settings, enabled=False), "s")
    session.prompt()
    assert session.create() is None
    assert session.stop() is None
    assert not settings.db_path.exists()


def test_store_failure_denies_goal_commands(tmp_path: Path, settings: GoalSettings) -> None:
    (tmp_path / "not-a-dir").write_text("")
    session = SessionDriver(replace(settings, state_dir=tmp_path / "not-a-dir"), "s")
    assert denial(session.create())["code"] == "storage_error"


def test_events_without_a_session_are_denied(settings: GoalSettings) -> None:
    event = {"tool_name": "Bash", "tool_input": {"command": "ccbridge goal create --objective x"}}
    assert denial(cc.on_pre_tool_use(event, settings))["code"] == "invalid_request"


def test_subagent_stop_does_not_end_the_root_turn(session: SessionDriver) -> None:
    start_goal(session)
    event = {"session_id": session.session_id, "hook_event_name": "Stop", "agent_id": "a1"}
    assert cc.on_stop(event, session.settings) is None
    assert session.update("edit", objective="still the human's turn") is None


def test_wiring_imports_neither_click_nor_pydantic() -> None:
    probe = (
        "import sys, bridge.goal.cc; "
        "print(sorted(m for m in ('click', 'pydantic', 'yaml') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
