"""One hook call: read the event from stdin, judge it, write the audit record, print Claude
Code's answer. `ccbridge run` (bridge.main) and `ccbridge explain` both use it; it never imports
click, pydantic or PyYAML when the compiled config is cached (see docs/architecture.md)."""

import os
import time

from bridge.config.compiled import DEFAULT_DEADLINE
from bridge.deadline import Expired, deadline
from bridge.wire import answer
from bridge.wire.answer import Answer

TYPE_CHECKING = False
if TYPE_CHECKING:  # the engine is imported once stdin holds an event; `typing` never is
    from collections.abc import Callable, Mapping
    from typing import IO, Any

    from bridge.config.compiled import AuditConfig, CompiledConfig
    from bridge.coordination import Slot
    from bridge.engine import Report
    from bridge.wire.event import HookEvent


def failure_answer(event_name: "str | None", reason: str) -> "Answer":
    """Fail closed: a tool call we could not judge is denied; a finished one gets feedback."""
    if event_name in ("PostToolUse", "PostToolUseFailure"):
        return answer.post_tool_use(event_name, reason, system_messages=(reason,))
    if event_name in (None, "PreToolUse"):
        return answer.deny(reason)
    if event_name == "PreSkillShellCommand":
        from bridge.pipeline import Deny

        return answer.skill_shell(Deny(reason))
    if event_name == "PermissionRequest":
        return answer.permission_request(reason)
    if event_name in ("UserPromptSubmit", "PreCompact"):
        return answer.lifecycle(event_name, reason)
    # Nothing to stop, or (Stop, SubagentStop) stopping on every call of a broken ccbridge
    # would keep Claude working forever: the user is told instead.
    return answer.lifecycle(event_name, None, system_messages=(reason,))


def run(
    config: "str | None",
    stdin: "IO[bytes]",
    stdout: "IO[bytes]",
    stderr: "IO[str]",
    env: "Mapping[str, str]",
    host: "str | None" = None,
) -> int:
    """`host`: the agent named by `ccbridge run --host`; None: told by the event itself."""
    call = _Call(time.monotonic(), host, env, stderr)
    timed = deadline.arm(call.started, DEFAULT_DEADLINE, call.hard_stop)
    try:
        result = call.judged(config, stdin)
        audited = result  # in CC's words, whatever fields the agent reads the verdict from
        if call.caller is not None and call.caller != "claude-code" and not call.audited:
            audited, result, call.raw = _in_dialect(
                call.caller, result, call.event_name, call.raw, stderr
            )
        if call.slot is not None:  # the other ccbridge processes of this event wait for it
            call.slot.fill(result)
        call.audit(audited)
        emit(result, stdout, stderr)
    finally:
        if timed:
            deadline.disarm()
    return result.exit_code


class _Call:
    """What one hook call has learnt so far. The deadline's hard stop may fire at any point and
    answers and audits from it, so each step writes here as soon as it knows."""

    __slots__ = (
        *("audited", "caller", "compiled", "crash_log", "env", "error", "event_name", "raw"),
        *("report", "slot", "started", "stderr"),
    )

    def __init__(
        self, started: float, host: "str | None", env: "Mapping[str, str]", stderr: "IO[str]"
    ) -> None:
        self.started, self.caller, self.env, self.stderr = started, host, env, stderr
        self.event_name: str | None = None
        self.raw: dict[str, Any] | None = None
        self.report: Report | None = None
        self.error: str | None = None
        self.compiled: CompiledConfig | None = None  # once loaded, its audit settings hold
        self.crash_log: str | None = None
        self.audited = False
        self.slot: Slot | None = None  # this call judges for the other ccbridge processes too

    def judged(self, config: "str | None", stdin: "IO[bytes]") -> "Answer":
        """The answer, whatever happens on the way: the deadline may expire anywhere up to
        `deadline.judged()`, the handlers of our own failures included."""
        try:
            try:
                result = self._judge(config, stdin)
            except Expired:
                raise
            except BaseException as problem:  # fail closed on our own bugs, never exit 1
                self.error = f"{type(problem).__name__}: {problem}"
                result = failure_answer(self.event_name, f"ccbridge internal error: {self.error}")
                self.crash_log = _crash_log(problem, self.env, self.stderr)
            deadline.judged()
        except Expired as expired:
            self.error = f"deadline: {expired}"
            result = failure_answer(self.event_name, f"ccbridge: {expired}; the call is refused")
        return result

    def _judge(self, config: "str | None", stdin: "IO[bytes]") -> "Answer":
        from bridge.wire.event import EventError, read_event

        try:
            event = read_event(stdin, host=self.caller)
        except EventError as problem:
            self.error = str(problem)
            self.caller = problem.host or self.caller
            if problem.event == "PreSkillShellCommand":
                return failure_answer(problem.event, f"ccbridge: {problem}")
            return answer.deny(f"ccbridge: {problem}")
        self.event_name, self.raw, self.caller = event.name, dict(event.raw), event.host
        judged = _judge(event, config, self.env, self)
        if isinstance(judged, Answer):  # another ccbridge judged this very event: its answer
            self.audited = True  # and its audit record
            return judged
        self.report = judged
        return judged.answer

    def audit(self, result: "Answer", error: "str | None" = None) -> None:
        """Once per call: the hard stop does not audit again what the call itself audited."""
        if self.audited:
            return
        self.audited = True
        settings = (
            self.report.config.audit
            if self.report is not None
            else (self.compiled.audit if self.compiled is not None else None)
        )
        _audit(
            self.report,
            self.event_name,
            self.started,
            error or self.error,
            result,
            self.raw,
            settings,
            self.env,
            self.stderr,
            self.crash_log,
        )

    def hard_stop(self, why: str) -> None:
        """The deadline's second stage: the answer first, then (when it was not the audit that
        hung) the audit record, which the deadline bounds once more. The answer stays in CC's
        dialect: its exit 2 with the reason on stderr blocks on every host."""
        late = failure_answer(self.event_name, f"ccbridge: {why}; the call is refused")
        quietly(lambda: os.write(1, late.stdout))
        quietly(lambda: os.write(2, f"{late.stderr}\n".encode()) if late.stderr else None)
        deadline.answered(late.exit_code)
        slot, self.slot = self.slot, None
        if slot is not None:  # the other processes of this event take this answer too
            quietly(lambda: slot.fill(late))
        self.report = None  # the record says what the hard stop did, not what was judged
        self.audit(late, f"deadline: {why}")


def _in_dialect(
    host: str,
    result: "Answer",
    event_name: "str | None",
    raw: "dict[str, Any] | None",
    stderr: "IO[str]",
) -> "tuple[Answer, Answer, dict[str, Any]]":
    """(the audit's answer, the answer as the calling agent reads it, the audit's event naming
    that agent). The audit keeps the verdict in CC's words, whatever fields the agent reads it
    from, with the exit code the agent got. A failure here keeps CC's answer: its exit 2 with
    the reason on stderr blocks on every host."""
    raw = {**(raw or {}), "ccbridge_host": host}
    try:
        from bridge.wire.hosts import answer as in_dialect
        from bridge.wire.hosts import no_ask

        spoken = in_dialect(host, result, event_name)
        verdict = no_ask(host, result)
        audited = Answer(verdict.payload, spoken.exit_code, spoken.stderr, verdict.text)
        return audited, spoken, raw
    except Exception as problem:
        stderr.write(f"ccbridge: could not answer in {host}'s dialect: {problem}\n")
        if result.exit_code == 0 and event_name in (None, "PreToolUse"):
            refused = answer.deny(f"ccbridge internal error: {problem}")
            return refused, refused, raw
        return result, result, raw


def emit(result: "Answer", stdout: "IO[bytes]", stderr: "IO[str]") -> None:
    """Print the answer. A reader that went away must not turn the exit code into 1: the code
    alone still blocks (2) or lets CC's own flow decide (0)."""
    quietly(lambda: (stdout.write(result.stdout), stdout.flush()))
    if result.stderr:
        quietly(lambda: (stderr.write(result.stderr + "\n"), stderr.flush()))


def quietly(write: "Callable[[], object]") -> None:
    """Write to a stream whose reader may have gone (OSError) or that may be closed (ValueError).
    Not contextlib.suppress: importing contextlib costs every hook call."""
    try:
        write()
    except (OSError, ValueError):
        pass


def _judge(
    event: "HookEvent", config: "str | None", env: "Mapping[str, str]", call: "_Call"
) -> "Report | Answer":
    """The engine's report; or, where Claude Code starts more than one ccbridge for this event,
    the answer another one gave (bridge.coordination)."""
    from bridge.config.cache import Cache, Surroundings, load
    from bridge.engine import Machine, handle
    from bridge.paths import find_config, project_dir, wide_layers

    project = project_dir(env, event.cwd)
    paths, _how = find_config(config, env, project)
    around = Surroundings(env, project)
    compiled = load(paths, Cache.of(env), around, wide=wide_layers(paths, env, config))
    call.compiled = compiled
    deadline.shorten(compiled.deadline)
    if compiled.coordinated:  # more than one ccbridge registration: see bridge.coordination
        from bridge.coordination import claimed

        call.slot, answered = claimed(event, compiled, env)
        if answered is not None:
            return answered
    return handle(event, compiled, Machine(env=env))


AUDIT_FAILED = "ccbridge: could not write the audit record: "  # doctor reads it


def _audit(
    report: "Report | None",
    event_name: "str | None",
    started: float,
    error: "str | None",
    result: "Answer",
    raw: "dict[str, Any] | None",
    settings: "AuditConfig | None",
    env: "Mapping[str, str]",
    stderr: "IO[str]",
    crash_log: "str | None" = None,
) -> None:
    """Failing to write the audit never changes the answer; it is said on stderr."""
    if settings is not None and not settings.enabled:
        return
    try:
        from bridge.audit import log, record
        from bridge.config.compiled import AuditConfig
        from bridge.paths import state_dir

        final = {
            "decision": result.decision,
            "reason": result.reason,
            "exit_code": result.exit_code,
        }
        if result.payload.get("hookSpecificOutput", {}).get("additionalContext"):
            final["context"] = result.payload["hookSpecificOutput"]["additionalContext"]
        if result.payload.get("systemMessage"):
            final["system_message"] = result.payload["systemMessage"]
        entry = record.build(
            report,
            event_name=event_name or "unknown",
            started=started,
            error=error,
            final=final,
            raw=raw,
            crash_log=crash_log,
        )
        settings = settings or AuditConfig()
        path = settings.path or os.path.join(state_dir(env), "audit.jsonl")
        log.append(path, entry, settings.max_bytes, settings.keep)
    except Exception as problem:
        stderr.write(f"{AUDIT_FAILED}{problem}\n")


def _crash_log(
    problem: "BaseException", env: "Mapping[str, str]", stderr: "IO[str]"
) -> "str | None":
    """Our own failure's traceback goes to a crash file in the state directory (the answer and
    the audit record keep `Type: message`); failing to write it never changes the answer."""
    try:
        from bridge.audit import crash
        from bridge.paths import state_dir

        return str(crash.write(state_dir(env), problem))
    except Exception as failure:
        stderr.write(f"ccbridge: could not write the crash log: {failure}\n")
        return None


def hint_on_terminal(stdin: "IO[bytes]", stderr: "IO[str]", command: str) -> None:
    """A person who typed `ccbridge run` at a prompt would otherwise wait on a silent command."""
    try:
        waiting = stdin.isatty()
    except (OSError, ValueError):  # closed
        return
    if waiting:
        quietly(
            lambda: stderr.write(
                f"ccbridge {command}: reading a hook event (one JSON object) from stdin, which is "
                f"a terminal; end it with Ctrl-D, or pipe one in: ccbridge {command} < event.json\n"
            )
        )
