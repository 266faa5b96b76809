"""One hook call: read the event from stdin, judge it, write the audit record, print Claude
Code's answer. `ccbridge run` (bridge.main) and `ccbridge explain` both use it; it never imports
click, pydantic or PyYAML when the compiled config is cached (see docs/architecture.md)."""

import os
import time

from bridge.config.compiled import DEFAULT_DEADLINE
from bridge.wire import answer
from bridge.wire.answer import Answer

TYPE_CHECKING = False
if TYPE_CHECKING:  # the engine is imported once stdin holds an event; `typing` never is
    import signal as _signal
    from collections.abc import Callable, Mapping
    from types import FrameType
    from typing import IO, Any

    from bridge.config.compiled import AuditConfig, CompiledConfig
    from bridge.engine import Report
    from bridge.wire.event import HookEvent
else:  # not `signal`: see bridge.subhooks.spawn
    import _signal


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
    started = time.monotonic()
    caller = host
    event_name: str | None = None
    report: Report | None = None
    error: str | None = None
    raw: dict[str, Any] | None = None
    audit_settings: AuditConfig | None = None
    crash_log: str | None = None
    loaded: list[CompiledConfig] = []  # the config, once read: its audit settings hold

    auditing: list[bool] = []

    def hard_stop(why: str) -> None:
        """The deadline's second stage: the answer first, then (when it was not the audit that
        hung) the audit record, which the deadline bounds once more. The answer stays in CC's
        dialect: its exit 2 with the reason on stderr blocks on every host."""
        late = failure_answer(event_name, f"ccbridge: {why}; the call is refused")
        quietly(lambda: os.write(1, late.stdout))
        quietly(lambda: os.write(2, f"{late.stderr}\n".encode()) if late.stderr else None)
        deadline.answered(late.exit_code)
        if not auditing:
            auditing.append(True)
            settings = loaded[0].audit if loaded else None
            _audit(None, event_name, started, f"deadline: {why}", late, raw, settings, env, stderr)

    timed = deadline.arm(started, DEFAULT_DEADLINE, hard_stop)
    try:
        try:  # the deadline may fire anywhere up to `judged()`, the handlers included
            try:
                from bridge.wire.event import EventError, read_event

                try:
                    event = read_event(stdin, host=host)
                except EventError as problem:
                    error = str(problem)
                    result = (
                        failure_answer(problem.event, f"ccbridge: {problem}")
                        if problem.event == "PreSkillShellCommand"
                        else answer.deny(f"ccbridge: {problem}")
                    )
                    caller = problem.host or host
                else:
                    event_name, raw, caller = event.name, dict(event.raw), event.host
                    report = _judge(event, config, env, loaded)
                    result, audit_settings = report.answer, report.config.audit
                deadline.judged()
            except Expired:
                raise
            except BaseException as problem:  # fail closed on our own bugs, never exit 1
                error = f"{type(problem).__name__}: {problem}"
                result = failure_answer(event_name, f"ccbridge internal error: {error}")
                crash_log = _crash_log(problem, env, stderr)
                audit_settings = loaded[0].audit if loaded else None
                deadline.judged()
        except Expired as expired:
            error = f"deadline: {expired}"
            result = failure_answer(event_name, f"ccbridge: {expired}; the call is refused")
            audit_settings = loaded[0].audit if loaded else None
        audited = result
        if caller is not None and caller != "claude-code":
            audited, result, raw = _in_dialect(caller, result, event_name, raw, stderr)
        auditing.append(True)
        _audit(
            report, event_name, started, error, audited, raw, audit_settings, env, stderr, crash_log
        )
        emit(result, stdout, stderr)
    finally:
        if timed:
            deadline.disarm()
    return result.exit_code


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
    event: "HookEvent",
    config: "str | None",
    env: "Mapping[str, str]",
    loaded: "list[CompiledConfig]",
) -> "Report":
    from bridge.config.cache import Cache, Surroundings, load
    from bridge.engine import Host, handle
    from bridge.paths import find_config, project_dir, wide_layers

    project = project_dir(env, event.cwd)
    paths, _how = find_config(config, env, project)
    around = Surroundings(env, project)
    compiled = load(paths, Cache.of(env), around, wide=wide_layers(paths, env, config))
    loaded.append(compiled)
    deadline.shorten(compiled.deadline)
    return handle(event, compiled, Host(env=env))


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


# --- the deadline ------------------------------------------------------------------------------
# ccbridge's own time bound: every call answers before Claude Code's hook timeout.
#
# A real-time interval timer (SIGALRM) interrupts whatever the call is doing when the deadline
# passes: Python code (an endless policy loop), and blocking system calls (a read of a FIFO, a
# `poll` for sub-hooks that never finish), which Python retries after a handler unless the handler
# raises. The handler raises `Expired`, a BaseException so that a policy's `except Exception`
# cannot swallow it; the sub-hook runner's cleanup kills every hook's process group on the way
# out, and the caller denies the call with a reason and audits it.
#
# The timer then keeps running in a second stage: if the answer is not out `GRACE` seconds later
# (the exception was swallowed by a bare `except:`, or the cleanup itself hung), the handler
# writes the fail-closed answer, tries the audit record for at most `LAST` seconds more, and
# ends the process. C code that neither returns to the interpreter nor fails its system calls
# with EINTR (a C library that retries them) is beyond a signal handler: the size caps on what
# ccbridge reads bound that work instead. Here, not in a module of its own: a module's import
# costs a hook call as much as all of this code.
#
# `_signal`, not `signal`: the latter imports `enum`, which every hook call would pay for.

# After the deadline (or after the judgement, once it is over), how long the answer and the
# audit record may take before the process answers and ends without them.
GRACE = 3.0
LAST = 1.5


class Expired(BaseException):
    """The call's deadline passed while it was being judged."""

    def __init__(self, seconds: float, doing: str) -> None:
        super().__init__(f"no answer within its {seconds:g} s deadline ({doing})")
        self.seconds, self.doing = seconds, doing


class _Deadline:
    """The call's one deadline: `deadline.arm(...)` and the rest, as the call sites read them."""

    def __init__(self) -> None:
        self.started = 0.0
        self.seconds = DEFAULT_DEADLINE
        self.stage = 0  # 0: judging (raise); 1: answering (hard stop); 2: stopping; -1: off
        self.exit_code = 2  # of the hard stop's answer, once it is written
        self.hard_stop: Callable[[str], None] | None = None
        self.previous: Any = None  # the SIGALRM handler before ours

    def arm(self, started: float, seconds: float, hard_stop: "Callable[[str], None]") -> bool:
        """Start the deadline, `seconds` after `started` (time.monotonic). False when no timer
        can be set (not the main thread): the call then runs without one."""
        try:
            self.previous = _signal.signal(_signal.SIGALRM, _fired)
        except (ValueError, AttributeError, OSError):
            return False
        self.started, self.seconds, self.stage, self.hard_stop = started, seconds, 0, hard_stop
        _set(self.started + seconds - time.monotonic())
        return True

    def shorten(self, seconds: float) -> None:
        """The config's deadline, counted from the same start; it may only come sooner."""
        if self.stage != 0 or seconds >= self.seconds:
            return
        self.seconds = seconds
        _set(self.started + seconds - time.monotonic())

    def judged(self) -> None:
        """The judgement is over: what is left of the deadline, plus GRACE, bounds the answer."""
        if self.stage != 0:
            return
        self.stage = 1
        _set(max(self.started + self.seconds - time.monotonic(), 0.0) + GRACE)

    def disarm(self) -> None:
        if self.stage == -1:
            return
        self.stage = -1
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        previous = self.previous
        _signal.signal(_signal.SIGALRM, previous if previous is not None else _signal.SIG_DFL)

    def answered(self, exit_code: int) -> None:
        """The hard stop wrote its answer: the process ends with this code, whatever follows."""
        self.exit_code = exit_code


# One object, not a class of functions around it: each class costs every hook call its making.
deadline = _Deadline()


def _set(seconds: float) -> None:
    _signal.setitimer(_signal.ITIMER_REAL, max(seconds, 0.001))


def _fired(_signum: int, frame: "FrameType | None") -> None:
    clock = deadline
    if clock.stage == 0:
        clock.stage = 1
        _set(GRACE)
        raise Expired(clock.seconds, doing(frame))
    if clock.stage == 1 and clock.hard_stop is not None:
        clock.stage = 2
        _set(LAST)
        clock.hard_stop(f"no answer {clock.seconds:g} s + {GRACE:g} s after it started")
        os._exit(clock.exit_code)
    if clock.stage == 2:  # the hard stop's own audit record hung
        os._exit(clock.exit_code)


def doing(frame: "FrameType | None") -> str:
    """What the call was at when the deadline passed: the sub-hooks, or the innermost function."""
    innermost = frame
    while frame is not None:
        if frame.f_code.co_filename.endswith(os.path.join("subhooks", "runner.py")):
            return "while its sub-hooks ran"
        frame = frame.f_back
    if innermost is None:
        return "while judging"
    code = innermost.f_code
    return f"in {code.co_name} at {os.path.basename(code.co_filename)}:{innermost.f_lineno}"
