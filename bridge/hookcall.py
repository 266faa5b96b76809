"""One hook call: read the event from stdin, judge it, write the audit record, print Claude
Code's answer. `ccbridge run` (bridge.main) and `ccbridge explain` both use it; it never imports
click, pydantic or PyYAML when the compiled config is cached (see docs/architecture.md)."""

from __future__ import annotations

import os
import time

from bridge.wire import answer
from bridge.wire.answer import Answer

TYPE_CHECKING = False
if TYPE_CHECKING:  # the engine is imported once stdin holds an event; `typing` never is
    from collections.abc import Callable, Mapping
    from typing import IO, Any

    from bridge.config.compiled import AuditConfig
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
    config: str | None,
    stdin: IO[bytes],
    stdout: IO[bytes],
    stderr: IO[str],
    env: Mapping[str, str],
    host: str | None = None,
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
    try:
        from bridge.wire.event import EventError, read_event

        try:
            event = read_event(stdin, host=host)
        except EventError as problem:
            error = str(problem)
            result = answer.deny(f"ccbridge: {problem}")
            caller = problem.host or host
        else:
            event_name, raw, caller = event.name, dict(event.raw), event.host
            report = _judge(event, config, env)
            result, audit_settings = report.answer, report.config.audit
    except BaseException as problem:  # fail closed on our own bugs, never exit 1
        error = f"{type(problem).__name__}: {problem}"
        result = failure_answer(event_name, f"ccbridge internal error: {error}")
        crash_log = _crash_log(problem, env, stderr)
    if caller is not None and caller != "claude-code":
        result, raw = _in_dialect(caller, result, event_name, raw, stderr)
    _audit(report, event_name, started, error, result, raw, audit_settings, env, stderr, crash_log)
    emit(result, stdout, stderr)
    return result.exit_code


def _in_dialect(
    host: str, result: Answer, event_name: str | None, raw: dict[str, Any] | None, stderr: IO[str]
) -> tuple[Answer, dict[str, Any]]:
    """The answer as the calling agent reads it, and the audit's event naming that agent. A
    failure here keeps CC's answer: its exit 2 with the reason on stderr blocks on every host."""
    raw = {**(raw or {}), "ccbridge_host": host}
    try:
        from bridge.wire.hosts import answer as in_dialect

        return in_dialect(host, result, event_name), raw
    except Exception as problem:
        stderr.write(f"ccbridge: could not answer in {host}'s dialect: {problem}\n")
        if result.exit_code == 0 and event_name in (None, "PreToolUse"):
            return answer.deny(f"ccbridge internal error: {problem}"), raw
        return result, raw


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


def _judge(event: HookEvent, config: str | None, env: Mapping[str, str]) -> Report:
    from bridge.config.cache import Cache, Surroundings, load
    from bridge.engine import Host, handle
    from bridge.paths import find_config, project_dir

    project = project_dir(env, event.cwd)
    paths, _how = find_config(config, env, project)
    return handle(event, load(paths, Cache.of(env), Surroundings(env, project)), Host(env=env))


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
