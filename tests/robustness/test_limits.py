"""Point 6: every documented cap holds, and going over one is a deny whose reason names it.

Caps: stdin size (MAX_EVENT_BYTES), JSON nesting (MAX_JSON_DEPTH), sub-hook output per stream
(`defaults.output_cap`), matching sub-hooks (`defaults.max_hooks`), sub-hook run time
(`timeout`, itself capped at MAX_HOOK_TIMEOUT in the config).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bridge.config.schema import MAX_HOOK_TIMEOUT
from bridge.wire.event import MAX_EVENT_BYTES, MAX_JSON_DEPTH
from tests.support.sandbox import Outcome, Sandbox, encode, matching, pre_tool_use


def padded(size: int) -> bytes:
    """A valid PreToolUse event of exactly `size` bytes."""
    event = pre_tool_use("ls")
    event["tool_input"]["pad"] = ""
    filler = size - len(encode(event))
    event["tool_input"]["pad"] = "x" * filler
    data = encode(event)
    assert len(data) == size
    return data


def denied(outcome: Outcome, cap_words: str) -> None:
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert cap_words in outcome.reason
    assert "Traceback" not in outcome.stderr


def passing_config(sandbox: Sandbox) -> Path:
    return sandbox.write_config(
        matching([{"type": "command", "command": str(sandbox.script("ok.sh", "cat >/dev/null"))}])
    )


def test_stdin_at_the_cap_is_judged_over_it_is_denied(sandbox: Sandbox) -> None:
    config = passing_config(sandbox)
    at_cap = sandbox.call(config, padded(MAX_EVENT_BYTES))
    assert (at_cap.exit_code, at_cap.decision) == (0, "none")
    over = sandbox.call(config, padded(MAX_EVENT_BYTES + 1))
    denied(over, f"larger than the {MAX_EVENT_BYTES}-byte cap")


def test_stdin_over_the_cap_through_the_executable(sandbox: Sandbox) -> None:
    outcome = sandbox.call_executable(passing_config(sandbox), b" " * (MAX_EVENT_BYTES + 1))
    denied(outcome, f"larger than the {MAX_EVENT_BYTES}-byte cap")


def deep(depth: int) -> bytes:
    """A valid event whose nesting is exactly `depth` levels (the event object is level 1)."""
    return encode(pre_tool_use(extra=json.loads("[" * (depth - 1) + "]" * (depth - 1))))


def test_nesting_at_the_cap_is_judged_over_it_is_denied(sandbox: Sandbox) -> None:
    config = passing_config(sandbox)
    assert sandbox.call(config, deep(MAX_JSON_DEPTH)).decision == "none"
    denied(
        sandbox.call(config, deep(MAX_JSON_DEPTH + 1)),
        f"nested deeper than the {MAX_JSON_DEPTH}-level cap",
    )


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_sub_hook_output_over_the_cap_is_denied(sandbox: Sandbox, stream: str) -> None:
    cap = 4096
    redirect = " >&2" if stream == "stderr" else ""
    hooks = [
        {
            "type": "command",
            "name": f"{n}-bytes",
            "command": str(
                sandbox.script(f"print{n}.sh", f"head -c {n} /dev/zero | tr '\\0' a{redirect}")
            ),
        }
        for n in (cap, cap + 1)
    ]
    at_cap = sandbox.call(
        sandbox.write_config(matching(hooks[:1]), defaults={"output_cap": cap}),
        encode(pre_tool_use()),
    )
    assert at_cap.decision == "none"
    over = sandbox.call(
        sandbox.write_config(matching(hooks), defaults={"output_cap": cap}), encode(pre_tool_use())
    )
    denied(over, f"[{cap + 1}-bytes] failed: {stream} exceeded the {cap}-byte output cap")


def test_sub_hook_output_over_the_default_cap_is_denied(sandbox: Sandbox) -> None:
    hook = sandbox.script("flood.sh", "head -c 2000000 /dev/urandom")
    outcome = sandbox.call_executable(
        sandbox.write_config(matching([{"type": "command", "command": str(hook)}])),
        encode(pre_tool_use()),
    )
    denied(outcome, f"exceeded the {1024 * 1024}-byte output cap")


def test_more_matching_sub_hooks_than_max_hooks_is_denied(sandbox: Sandbox) -> None:
    ran = sandbox.root / "ran"
    hooks = [{"type": "command", "command": f"echo {n} >> {ran}"} for n in range(4)]
    at_cap = sandbox.call(
        sandbox.write_config(matching(hooks[:3]), defaults={"max_hooks": 3}), encode(pre_tool_use())
    )
    assert at_cap.decision == "none"
    assert len(ran.read_text().split()) == 3
    ran.unlink()
    over = sandbox.call(
        sandbox.write_config(matching(hooks), defaults={"max_hooks": 3}), encode(pre_tool_use())
    )
    denied(over, "4 sub-hooks match, over the max_hooks cap of 3")
    assert not ran.exists()  # none of them was started


@pytest.mark.parametrize("where", ["handler", "defaults"])
def test_a_sub_hook_over_its_time_is_denied(sandbox: Sandbox, where: str) -> None:
    handler: dict[str, Any] = {
        "type": "command",
        "name": "slow",
        "command": str(sandbox.script("slow.sh", "trap '' TERM\nsleep 30")),
    }
    top: dict[str, Any] = {"defaults": {"timeout": 0.3}} if where == "defaults" else {}
    if where == "handler":
        handler["timeout"] = 0.3
    outcome = sandbox.call_executable(
        sandbox.write_config(matching([handler]), **top), encode(pre_tool_use())
    )
    denied(outcome, "[slow] failed: timed out after 0.3s")


def test_a_timeout_over_the_config_cap_is_a_config_error_deny(sandbox: Sandbox) -> None:
    handler = {"type": "command", "command": "true", "timeout": MAX_HOOK_TIMEOUT + 1}
    outcome = sandbox.call(sandbox.write_config(matching([handler])), encode(pre_tool_use()))
    denied(outcome, "ccbridge config error")
    assert f"{MAX_HOOK_TIMEOUT:g}" in outcome.reason


MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=subprocess.DEVNULL)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
MEMORY_BOUND_KB = 2 * 1024 * 1024


def test_the_worst_event_under_the_cap_is_judged_in_bounded_memory(sandbox: Sandbox) -> None:
    """The most Python objects 16 MiB of JSON can make (some 5.6 million empty objects) is
    judged, not refused or crashed on, with a bounded peak (about 1.1 GB when measured)."""
    event = pre_tool_use()
    event["tool_input"] = {**event.pop("tool_input"), "x": []}  # last, so it can be filled
    head, tail = encode(event).removesuffix(b"]}}"), b"{}]}}"
    data = head + b"{}," * ((MAX_EVENT_BYTES - len(head) - len(tail)) // 3) + tail
    source = sandbox.root / "worst.json"
    source.write_bytes(data)
    with source.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", MEASURE, *sandbox.command(passing_config(sandbox))],
            stdin=stdin,
            capture_output=True,
            env=sandbox.env,
            timeout=600,
            check=True,
        )
    exit_code, peak_kb = (int(word) for word in done.stdout.split())
    assert exit_code == 0  # the hooks pass it: judged like any other event
    assert peak_kb < MEMORY_BOUND_KB
