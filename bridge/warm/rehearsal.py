"""A spare child's rehearsal: before it waits for a call, it judges a made-up one.

Why: a child forked from the server shares the server's memory until it writes to it, and a
call writes to a few thousand pages (CPython updates the reference count of every object it
touches); each first write is a page fault and a copy. Measured on a 2-core machine, a forked
child judged a Bash call with both guards and one sub-hook in 7.3 to 8.1 ms, and in 3.5 to
4.0 ms after a rehearsal (docs/performance.md). The rehearsal makes those copies while the
spare waits for a call, not while Claude Code waits for the answer.

What it runs, and why nothing outside the child sees it:
- the config, loaded as `ccbridge run` would load it in the session's project (the server's
  environment, a hook's, names it) from the cache; where the cache does not hold it, compiled
  and cached, as the next call would do anyway;
- a made-up PreToolUse of Bash (REHEARSED) through `engine.handle`, with that config's
  protection level but none of its hooks or policies (user code is never run on a made-up
  event): ccbridge's two ready-made guards (GUARDS) and one sub-hook that runs `exit 0`;
- the answer written and the audit record built, into memory: no audit log is written.
A rehearsal that fails is ignored: the call then pays for its own pages, nothing else changes.
"""

from __future__ import annotations

import contextlib
import io
import os
import time

from bridge.config.compiled import AuditConfig, CompiledConfig, PolicyRef
from bridge.pipeline.valueclass import replace
from bridge.subhooks.spec import HookSpec
from bridge.wire import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# The default install's guards (bridge.commands.install.STARTER_GUARDS; a test ties the two).
GUARDS = ("builtin:dangerous_shell", "builtin:protect_paths")
REHEARSED = "git status && ls -la src | head -5"  # ordinary work: reads, a pipe, a list
_HOOK = HookSpec(event="PreToolUse", name="rehearsal", where="rehearsal", order=0, command="exit 0")


def event(cwd: str) -> bytes:
    """The made-up call, as Claude Code would send it."""
    return jsonio.dumps(
        {
            "session_id": "ccbridge-rehearsal",
            "transcript_path": "",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": REHEARSED},
            "tool_use_id": "toolu_ccbridge_rehearsal",
        }
    )


def rehearse() -> str | None:
    """Judge the made-up call in this process, leaving nothing behind outside it; its decision,
    None where it failed (the real call does the same work and reports its own failures). It
    runs in the project, where the session's calls mostly do: the server's own directory is its
    socket's, inside ccbridge's state, where self-protection would refuse the made-up call and
    the rehearsal would walk the refusal's path instead of ordinary work's."""
    from bridge.paths import project_dir

    with contextlib.suppress(Exception):
        return judge(project_dir(os.environ), os.environ)
    return None


def judge(cwd: str, env: Mapping[str, str]) -> str:
    """The rehearsal's work; the made-up call's decision (`none`: judged as ordinary work)."""
    from bridge.audit import record
    from bridge.config.cache import Cache, Surroundings, load
    from bridge.engine import Machine, handle
    from bridge.hookcall import emit
    from bridge.paths import find_config, project_dir, wide_layers
    from bridge.wire.event import read_event

    made_up = read_event(io.BytesIO(event(cwd)))
    project = project_dir(env, made_up.cwd)
    paths, _how = find_config(None, env, project)
    loaded = load(paths, Cache.of(env), Surroundings(env, project), wide_layers(paths, env, None))
    config = replace(
        CompiledConfig.from_json(loaded.to_json()),
        hooks={"PreToolUse": (_HOOK,)},
        policies={"guards": tuple(PolicyRef(guard, "rehearsal") for guard in GUARDS)},
        audit=AuditConfig(enabled=False),
        goals=CompiledConfig().goals,
        error=None,
    )
    report = handle(made_up, config, Machine(env=env))
    emit(report.answer, io.BytesIO(), io.StringIO())
    final = {"decision": report.answer.decision, "reason": report.answer.reason}
    entry = record.build(
        report,
        event_name=made_up.name,
        started=time.monotonic(),
        error=None,
        final=final,
        raw=dict(made_up.raw),
        crash_log=None,
    )
    jsonio.dumps(entry)
    return report.answer.decision
