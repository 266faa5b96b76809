"""The bridge proper: one Claude Code event through the DSH stations, as a Report.

Claude Code on the outside, DSH on the inside. Sub-hooks of an event are folded into one
pre-execute (or post-execute) listener that runs them all in parallel; native policies are
listeners and guards of their own. Nothing here writes anything: hookcall.py prints the answer and
appends the audit record built from the Report.
"""

import os

# `_collections_abc`, not `collections.abc`: the hot path, docs/architecture.md.
from _collections_abc import Callable, Mapping, Sequence

from bridge.config.compiled import CompiledConfig, PolicyRef
from bridge.paths import project_dir, protected_roots, state_dir
from bridge.pipeline import (
    Ask,
    Block,
    Deny,
    Execution,
    Named,
    PostDecision,
    PreDecision,
    Stations,
    Step,
    ToolResult,
    decide,
    denial_result,
    finish,
)
from bridge.pipeline.valueclass import Record, field, replace
from bridge.wire import READ_ONLY_TOOLS, answer
from bridge.wire.answer import Answer
from bridge.wire.event import BLOCKING_EVENTS, GOAL_EVENTS, SUBHOOK_EVENTS, HookEvent

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported lazily: only goal-enabled calls pay for the goal module, only
    # calls with sub-hooks configured for the event for the fold
    from typing import Any

    from bridge.goal.settings import GoalSettings
    from bridge.subhooks.fold import Folded, Judged, SubhookRecord
    from bridge.subhooks.spec import HookSpec
    from bridge.subhooks.verdict import HookRun

    Runner = Callable[
        [Sequence[HookSpec], bytes, Mapping[str, str], str | None, int], list[HookRun]
    ]


class Report(Record):
    """Everything that happened to one event: the answer, and why."""

    event: "HookEvent"
    config: "CompiledConfig"
    answer: "Answer" = field(default_factory=lambda: Answer({}))
    subhooks: "list[SubhookRecord]" = field(default_factory=list)
    folded: "Folded | None" = None
    steps: "tuple[Step, ...]" = ()
    notes: "list[str]" = field(default_factory=list)


class Machine(Record, frozen=True):
    """The machine the engine judges on: its environment and the way a sub-hook process runs
    there, injectable for tests and `explain`."""

    env: "Mapping[str, str]" = field(default_factory=lambda: dict(os.environ))
    runner: "Runner | None" = None

    def run(
        self,
        hooks: "Sequence[HookSpec]",
        data: bytes,
        env: "Mapping[str, str]",
        cwd: "str | None",
        cap: int,
    ) -> "list[HookRun]":
        if self.runner is not None:
            return self.runner(hooks, data, env, cwd, cap)
        from bridge.subhooks.runner import run_hooks

        return run_hooks(hooks, data, env, cwd, cap)


def execution_of(event: "HookEvent") -> "Execution":
    return Execution.create(
        event.tool_name,
        event.tool_input,
        tool_use_id=event.tool_use_id,
        session_id=event.session_id,
        agent_id=event.agent_id,
        cwd=event.cwd,
    )


def selected(hooks: "Sequence[HookSpec]", event: "HookEvent") -> "list[tuple[HookSpec, bool]]":
    """Every configured hook of the event, whether it applies, identical handlers once."""
    if not hooks:
        return []
    from bridge.subhooks.selection import select  # loaded only when there is a hook to match

    subject = event.subject
    if subject is None:  # CC ignores matchers on this event: every group runs
        hooks = [replace(hook, matcher=None) for hook in hooks]
    return select(hooks, subject or "", event.tool_input)


class _Subhooks:
    """The sub-hooks of one event, run once and folded, exposed as a DSH listener."""

    def __init__(self, report: "Report", machine: "Machine", event_name: str) -> None:
        self.report, self.machine, self.event_name = report, machine, event_name

    def run_and_fold(self) -> "Folded | None":
        """The fold of the event's sub-hooks; None when the config has none for the event."""
        report, event, config = self.report, self.report.event, self.report.config
        hooks = config.hooks.get(self.event_name, ())
        if not hooks:
            return None
        from bridge.subhooks.fold import Judged, SubhookRecord, fold
        from bridge.wire.hook_output import read_run

        chosen = selected(hooks, event)
        matched = [hook for hook, hit in chosen if hit]
        if len(matched) > config.max_hooks:
            raise OverflowError(
                f"{len(matched)} sub-hooks match, over the max_hooks cap of {config.max_hooks}"
            )
        project = str(project_dir(self.machine.env, event.cwd))
        env = {**self.machine.env, "CLAUDE_PROJECT_DIR": project}
        cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else project
        runs = iter(
            self.machine.run(matched, event.data, env, cwd, config.output_cap) if matched else []
        )
        judged = []
        for hook, hit in chosen:
            record = SubhookRecord(hook, hit)
            if hit:
                record.run = next(runs)
                verdict = read_run(self.event_name, record.run)
                item = Judged(hook, verdict)
                judged.append(item)
                record.verdict, record.reason = verdict.kind, verdict.reason
                record.action = _action(item)
            report.subhooks.append(record)
        folded = fold(judged, event.tool_input)
        report.folded = folded
        return folded

    def pre_execute(
        self, execution: "Execution", next_: "Callable[[], PreDecision]"
    ) -> "PreDecision":
        folded = self.run_and_fold()
        if folded is None or folded.rank == "none":
            return next_()
        return Deny(folded.reason) if folded.rank == "deny" else Ask(folded.reason)

    def post_execute(
        self, execution: "Execution", result: "ToolResult", next_: "Callable[[], PostDecision]"
    ) -> "PostDecision":
        folded = self.run_and_fold()
        downstream = next_()
        if folded is None:
            return downstream
        context = folded.contexts + downstream.context
        if folded.rank == "deny":
            return Block(folded.reason, context)
        return replace(downstream, context=context)


def _action(item: "Judged") -> str:
    from bridge.subhooks.fold import rank_of

    kind = item.verdict.kind
    notes = []
    if kind == "allow":
        notes.append("allow downgraded to no opinion")
    if kind == "defer":
        notes.append("defer folded as ask")
    if kind == "failure":
        notes.append(
            "failure ignored (onFailure: ignore)"
            if item.hook.on_failure == "ignore"
            else "failure turned into deny"
        )
    if item.verdict.updated_input is not None:
        notes.append("updatedInput recorded, not applied")
    if item.verdict.updated_output is not None:
        notes.append("updatedToolOutput recorded, not applied")
    return "; ".join(notes) or f"counts as {rank_of(item)}"


def _failing(name: str, why: str) -> "Callable[..., Any]":
    def fail(*_args: "Any") -> "Any":
        raise RuntimeError(f"policy {name} could not be loaded: {why}")

    return fail


def _policies(refs: "Sequence[PolicyRef]", kind: str = "") -> "list[Named[Any]]":
    if not refs:
        return []
    from bridge.policies.loader import PolicyLoadError, load_policy

    named = []
    for ref in refs:
        name = f"{kind} {_short(ref.ref)}" if kind else ref.ref
        try:
            named.append(Named(name, load_policy(ref.ref)))
        except PolicyLoadError as error:  # a policy that cannot load denies: fail closed
            named.append(Named(name, _failing(ref.ref, str(error))))
    return named


def _short(ref: str) -> str:
    """`/abs/path/file.py:function` as `file.py:function`; `module:function` as it is."""
    target, _, attr = ref.rpartition(":")
    return f"{os.path.basename(target)}:{attr}" if "/" in target else ref


def _self_protection(report: "Report", machine: "Machine") -> "list[Named[Any]]":
    config, event = report.config, report.event
    if not config.self_protection:
        report.notes.append(f"self-protection is off (set in {config.self_protection_off_in})")
        return []
    if event.tool_name in READ_ONLY_TOOLS:
        return []
    if _inside_the_wall(report):
        report.notes.append(
            "self-protection: the command runs in Claude Code's sandbox, which keeps ccbridge's "
            "files itself (protection: wall)"
        )
        return []
    from bridge.guards.protect.protect_paths import SELF_PROTECTION, self_protection_guard

    project = project_dir(machine.env, event.cwd)
    # a rewritten sub-hook runs unsandboxed; a plugin folder's code runs inside CC
    kept = [*config.files, *config.hook_scripts, *config.plugin_dirs]
    roots = protected_roots(machine.env, project, kept, config.audit.path)
    guard = self_protection_guard(*roots, env=machine.env)

    def named(execution: "Execution") -> "Any":  # the `[self-protection]` prefix names it
        reason = guard(execution)
        return reason.removeprefix(f"{SELF_PROTECTION}: ") if isinstance(reason, str) else reason

    return [Named("self-protection", named)]


def _inside_the_wall(report: "Report") -> bool:
    """Whether the call is a Bash command Claude Code runs in its sandbox with the wall up
    (bridge.wall: sandboxed with no way out, every kept path in denyWrite, the key and the
    audit in denyRead): the kernel then refuses what self-protection's text judgement would,
    so that judgement steps aside. Not a skill's inline command, a file tool, an MCP tool, or
    another agent's shell (none runs in the sandbox), nor a command asking to leave it."""
    config, event = report.config, report.event
    if config.protection != "wall" or event.name != "PreToolUse" or event.tool_name != "Bash":
        return False
    if event.host != "claude-code":
        return False
    return not event.tool_input.get("dangerouslyDisableSandbox")


def _goal_command(report: "Report") -> "str | None":
    """The Bash command when goals are on and it starts with a goal invocation (cheap)."""
    config, event = report.config, report.event
    if not config.goals.enabled or event.tool_name != "Bash":
        return None
    command = event.tool_input.get("command") if isinstance(event.tool_input, Mapping) else None
    if not isinstance(command, str):
        return None
    from bridge.goal.invocation import starts_with_goal

    return command if starts_with_goal(command) else None


def _judge_goal_change(
    report: "Report", machine: "Machine", decision: "PreDecision"
) -> "PreDecision":
    """Goal tool calls are judged last, for a call that may go ahead (allowed, or waiting for
    the user's answer). Judging changes nothing: the change is applied at PostToolUse of this
    call, so a call that never runs never changes the goal."""
    if isinstance(decision, Deny) or _goal_command(report) is None:
        return decision
    from bridge.goal.cc import on_pre_tool_use

    reason = on_pre_tool_use(report.event.raw, goal_settings(report.config, machine))
    if reason is None:
        return decision
    report.steps += (Step("guard", "ccbridge:goal-authority", "deny", reason),)
    return Deny(reason)


def _apply_goal_change(report: "Report", machine: "Machine") -> "tuple[str, ...]":
    """PostToolUse of a goal command: apply the change judged for it; the context says how."""
    if _goal_command(report) is None:
        return ()
    from bridge.goal.cc import on_post_tool_use
    from bridge.goal.errors import GoalError

    try:
        context = on_post_tool_use(report.event.raw, goal_settings(report.config, machine))
    except GoalError as error:
        report.notes.append(f"goal: {error}")
        return ()
    return () if context is None else (context,)


def goal_settings(config: "CompiledConfig", machine: "Machine") -> "GoalSettings":
    from pathlib import Path

    from bridge.goal.cc import GoalSettings

    goals = config.goals
    return GoalSettings(
        enabled=goals.enabled,
        blocked_min_rounds=goals.blocked_min_rounds,
        default_max_rounds=goals.default_max_rounds,
        state_dir=Path(state_dir(machine.env)),
    )


def _approval(config: "CompiledConfig") -> "Callable[[Execution, Ask], Any]":
    # `prompt`: CC's own permission prompt asks the user after we answer `ask`.
    verdict = "deferred" if config.approval == "prompt" else "unavailable"
    return lambda _execution, _ask: verdict


def handle(
    event: "HookEvent", config: "CompiledConfig", machine: "Machine | None" = None
) -> "Report":
    machine = machine or Machine()
    report = Report(event=event, config=config)
    if event.name in PRE_EVENTS:
        _pre_tool_use(report, machine)
    elif event.name in ("PostToolUse", "PostToolUseFailure"):
        _post_tool_use(report, machine)
    elif event.name in SUBHOOK_EVENTS:
        _lifecycle(report, machine)
    return report


# Judged before something runs: a tool call, or a skill's inline shell command as it loads
# (Claude Code runs that without a PreToolUse, so it is judged as the Bash call it is).
PRE_EVENTS = ("PreToolUse", "PreSkillShellCommand")
# Told with each prompt while goals are on: the model cannot use commands it never hears of.
GOAL_HINT = (
    "ccbridge goals are on here. When the user asks you to pursue a goal, run through Bash: "
    '`ccbridge goal create --objective "..."` (only for what the user asked in this turn), '
    "`ccbridge goal get` to see the session's goal, `ccbridge goal update --id ID --revision N "
    "--action ACTION` to change it (`ccbridge goal update --help` lists the actions)."
)


def _lifecycle(report: "Report", machine: "Machine") -> None:
    """The events besides tool use: sub-hooks run and fold as for a tool call; a block (or a
    failure) stops what the event can stop, elsewhere it is told to the user. The goal module
    then sees UserPromptSubmit and Stop, unless a sub-hook blocked them: a blocked prompt is no
    turn, and a blocked stop is no end of a round."""
    event, config = report.event, report.config
    if config.error is not None:
        why = f"ccbridge config error, {event.name} hooks did not run: {config.error}"
        report.answer = _lifecycle_answer(report, why, (), (), None)
        return
    try:
        folded = _Subhooks(report, machine, event.name).run_and_fold()
    except Exception as error:  # e.g. over max_hooks: fail as a sub-hook failure would
        report.answer = _lifecycle_answer(report, f"ccbridge: {error}", (), (), None)
        return
    block = folded.reason if folded is not None and folded.rank == "deny" else None
    report.answer = _lifecycle_answer(report, block, *_extras(folded))
    if config.goals.enabled and event.name in GOAL_EVENTS and report.answer.decision == "none":
        ours = report.answer
        _goal_event(report, machine)
        if report.answer is not ours:
            report.answer = answer.merged(ours, report.answer)


def _lifecycle_answer(
    report: "Report",
    reason: "str | None",
    contexts: "tuple[str, ...]",
    messages: "tuple[str, ...]",
    stop_reason: "str | None",
) -> "Answer":
    name = report.event.name
    if reason is not None and (name not in BLOCKING_EVENTS or _loops(report)):
        # Nothing to stop here (or stopping again would loop): the user is told instead.
        told = reason if reason.startswith("ccbridge") else f"ccbridge: {reason}"
        messages, reason = (*messages, told), None
    if name == "PermissionRequest":
        return answer.permission_request(reason, messages, stop_reason)
    return answer.lifecycle(name, reason, contexts, messages, stop_reason)


def _loops(report: "Report") -> bool:
    """A Stop already continued by a hook (`stop_hook_active`) is not blocked again for a
    failure alone: a broken hook must not keep Claude working forever. A hook's own block
    still counts every time."""
    if report.event.name not in ("Stop", "SubagentStop"):
        return False
    if report.event.raw.get("stop_hook_active") is not True:
        return False
    return not any(item.matched and item.verdict in ("deny", "block") for item in report.subhooks)


def _pre_tool_use(report: "Report", machine: "Machine") -> None:
    """PreToolUse, and PreSkillShellCommand: the same stations judge a skill's inline command
    (its own sub-hooks, self-protection, the guards); only the answer's form differs."""
    config, name = report.config, report.event.name
    refuse = answer.deny if name == "PreToolUse" else _skill_shell_refusal
    if config.error is not None:
        report.answer = refuse(f"ccbridge config error: {config.error}")
        return
    cwd = report.event.cwd
    if cwd and not os.path.isdir(cwd):
        # No sub-hook could start there, and every relative path of the call would be judged
        # against a place that is not: the call is not judged, so it is denied.
        report.answer = refuse(
            f"ccbridge: the call's working directory {cwd!r} does not exist (or is no "
            "directory), so the call cannot be judged"
        )
        return
    subhooks = _Subhooks(report, machine, name)
    policies = config.policies
    stations = Stations(
        pre_execute=[
            Named("subhooks", subhooks.pre_execute),
            *_policies(policies.get("pre_execute", ())),
        ],
        guards=[
            *_self_protection(report, machine),
            *_policies(policies.get("guards", ()), "guard"),
        ],
        post_execute=_policies(policies.get("post_execute", ())),
        observers=_policies(policies.get("observers", ())),
    )
    execution = execution_of(report.event)
    outcome = decide(execution, stations, _approval(config))
    report.steps = outcome.trace
    decision = outcome.decision
    if name == "PreToolUse":  # a goal change applies at the call's PostToolUse: a Bash call's
        decision = _judge_goal_change(report, machine, decision)
    if isinstance(decision, Deny):
        _result, post_steps = finish(execution, denial_result(decision.reason), stations)
        report.steps += post_steps
    if name == "PreToolUse":
        report.answer = answer.pre_tool_use(decision, *_extras(report.folded))
    else:  # no context reaches the model from this event
        _contexts, messages, stop_reason = _extras(report.folded)
        report.answer = answer.skill_shell(decision, messages, stop_reason)


def _skill_shell_refusal(reason: str) -> Answer:
    return answer.skill_shell(Deny(reason))


def _post_tool_use(report: "Report", machine: "Machine") -> None:
    event, config = report.event, report.config
    if config.error is not None:
        reason = f"ccbridge config error, post-tool hooks did not run: {config.error}"
        report.answer = answer.post_tool_use(event.name, reason, system_messages=(reason,))
        return
    subhooks = _Subhooks(report, machine, event.name)
    stations = Stations(
        post_execute=[
            Named("subhooks", subhooks.post_execute),
            *_policies(config.policies.get("post_execute", ())),
        ],
        observers=_policies(config.policies.get("observers", ())),
    )
    final, steps = finish(execution_of(event), _result_of(event), stations)
    report.steps = steps
    _contexts, system_messages, stop_reason = _extras(report.folded)
    block = final.content.removeprefix("Error: ") if final.code == "BLOCKED" else None
    context = (*final.context, *_apply_goal_change(report, machine))
    report.answer = answer.post_tool_use(event.name, block, context, system_messages, stop_reason)


def _extras(folded: "Folded | None") -> "tuple[tuple[str, ...], tuple[str, ...], str | None]":
    """The sub-hooks' contexts, system messages and stop reason (none without sub-hooks)."""
    if folded is None:
        return (), (), None
    return folded.contexts, folded.system_messages, folded.stop_reason


def _result_of(event: "HookEvent") -> "ToolResult":
    if event.name == "PostToolUseFailure":
        error = event.raw.get("error")
        return ToolResult(content=f"Error: {error}", is_error=True, code="TOOL_ERROR")
    response = event.raw.get("tool_response")
    content = response if isinstance(response, str) else _stringify(response)
    return ToolResult(content=content, value=response)


def _stringify(value: "Any") -> str:
    from bridge.wire import jsonio

    return jsonio.dumps(value).decode() if value is not None else ""


def _goal_event(report: "Report", machine: "Machine") -> None:
    """A goal failure here never blocks the user's prompt or forces another round: it is noted
    for the audit and ccbridge answers nothing."""
    from bridge.goal.cc import on_stop, on_user_prompt
    from bridge.goal.errors import GoalError

    settings = goal_settings(report.config, machine)
    try:
        if report.event.name == "UserPromptSubmit":
            on_user_prompt(report.event.raw, settings)
            report.answer = answer.lifecycle("UserPromptSubmit", None, (GOAL_HINT,))
            return
        payload = on_stop(report.event.raw, settings)
    except GoalError as error:
        report.notes.append(f"goal: {error}")
        return
    if payload:
        report.answer = Answer(payload)
