"""One hook call: read the event from stdin, judge it, write the audit record, print Claude
Code's answer. `ccbridge run` (bridge.main) and `ccbridge explain` both use it; it never imports
click, pydantic or PyYAML when the compiled config is cached (see docs/architecture.md)."""

from __future__ import annotations

import os
import time

from bridge import deadline
from bridge.wire import answer
from bridge.wire.answer import Answer

TYPE_CHECKING = False
if TYPE_CHECKING:  # the engine is imported once stdin holds an event; `typing` never is
    from collections.abc import Callable, Mapping
    from typing import IO, Any

    from bridge.config.compiled import AuditConfig, CompiledConfig
    from bridge.engine import Report
    from bridge.wire.event import HookEvent


def failure_answer(event_name: str | None, reason: str) -> Answer:
    """Fail closed: a tool call we could not judge is denied; a finished one gets feedback."""
    if event_name in ("PostToolUse", "PostToolUseFailure"):
        return answer.post_tool_use(event_name, reason, system_messages=(reason,))
    if event_name in (None, "PreToolUse"):
        return answer.deny(reason)
    if event_name == "PermissionRequest":
        return answer.permission_request(reason)
    if event_name in ("UserPromptSubmit", "PreCompact"):
        return answer.lifecycle(event_name, reason)
    # Nothing to stop, or (Stop, SubagentStop) stopping on every call of a broken ccbridge
    # would keep Claude working forever: the user is told instead.
    return answer.lifecycle(event_name, None, system_messages=(reason,))


def run(
    config: str | None, stdin: IO[bytes], stdout: IO[bytes], stderr: IO[str], env: Mapping[str, str]
) -> int:
    started = time.monotonic()
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
        hung) the audit record, which the deadline bounds once more."""
        late = failure_answer(event_name, f"ccbridge: {why}; the call is refused")
        quietly(lambda: os.write(1, late.stdout))
        quietly(lambda: os.write(2, f"{late.stderr}\n".encode()) if late.stderr else None)
        deadline.answered(late.exit_code)
        if not auditing:
            auditing.append(True)
            settings = loaded[0].audit if loaded else None
            _audit(None, event_name, started, f"deadline: {why}", late, raw, settings, env, stderr)

    timed = deadline.arm(started, deadline.DEFAULT_DEADLINE, hard_stop)
    try:
        try:  # the deadline may fire anywhere up to `judged()`, the handlers included
            try:
                from bridge.wire.event import EventError, read_event

                try:
                    event = read_event(stdin)
                except EventError as problem:
                    error = str(problem)
                    result = answer.deny(f"ccbridge: {problem}")
                else:
                    event_name, raw = event.name, dict(event.raw)
                    report = _judge(event, config, env, loaded)
                    result, audit_settings = report.answer, report.config.audit
                deadline.judged()
            except deadline.Expired:
                raise
            except BaseException as problem:  # fail closed on our own bugs, never exit 1
                error = f"{type(problem).__name__}: {problem}"
                result = failure_answer(event_name, f"ccbridge internal error: {error}")
                crash_log = _crash_log(problem, env, stderr)
                audit_settings = loaded[0].audit if loaded else None
                deadline.judged()
        except deadline.Expired as expired:
            error = f"deadline: {expired}"
            result = failure_answer(event_name, f"ccbridge: {expired}; the call is refused")
            audit_settings = loaded[0].audit if loaded else None
        auditing.append(True)
        _audit(
            report, event_name, started, error, result, raw, audit_settings, env, stderr, crash_log
        )
        emit(result, stdout, stderr)
    finally:
        if timed:
            deadline.disarm()
    return result.exit_code


def emit(result: Answer, stdout: IO[bytes], stderr: IO[str]) -> None:
    """Print the answer. A reader that went away must not turn the exit code into 1: the code
    alone still blocks (2) or lets CC's own flow decide (0)."""
    quietly(lambda: (stdout.write(result.stdout), stdout.flush()))
    if result.stderr:
        quietly(lambda: (stderr.write(result.stderr + "\n"), stderr.flush()))


def quietly(write: Callable[[], object]) -> None:
    """Write to a stream whose reader may have gone (OSError) or that may be closed (ValueError).
    Not contextlib.suppress: importing contextlib costs every hook call."""
    try:
        write()
    except (OSError, ValueError):
        pass


def _judge(
    event: HookEvent, config: str | None, env: Mapping[str, str], loaded: list[CompiledConfig]
) -> Report:
    from bridge.config.cache import Cache, load
    from bridge.engine import Host, handle
    from bridge.paths import find_config, project_dir, wide_layers

    paths, _how = find_config(config, env, project_dir(env, event.cwd))
    compiled = load(paths, Cache.of(env), wide_layers(paths, env, config))
    loaded.append(compiled)
    deadline.shorten(compiled.deadline)
    return handle(event, compiled, Host(env=env))


def _audit(
    report: Report | None,
    event_name: str | None,
    started: float,
    error: str | None,
    result: Answer,
    raw: dict[str, Any] | None,
    settings: AuditConfig | None,
    env: Mapping[str, str],
    stderr: IO[str],
    crash_log: str | None = None,
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
        stderr.write(f"ccbridge: could not write the audit record: {problem}\n")


def _crash_log(problem: BaseException, env: Mapping[str, str], stderr: IO[str]) -> str | None:
    """Our own failure's traceback goes to a crash file in the state directory (the answer and
    the audit record keep `Type: message`); failing to write it never changes the answer."""
    try:
        from bridge.audit import crash
        from bridge.paths import state_dir

        return str(crash.write(state_dir(env), problem))
    except Exception as failure:
        stderr.write(f"ccbridge: could not write the crash log: {failure}\n")
        return None


def hint_on_terminal(stdin: IO[bytes], stderr: IO[str], command: str) -> None:
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
