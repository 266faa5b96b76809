"""Point 4: 64 `ccbridge run` processes at once on one audit log, with and without rotation:
every record is there once, every line is whole, valid JSON."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest

from bridge.config.schema import MAX_HOOK_TIMEOUT
from tests.support.sandbox import KEEP, Outcome, Sandbox, encode, matching, pre_tool_use

RUNS = 64


def run_all_at_once(sandbox: Sandbox, config: Path) -> list[Outcome]:
    processes = []
    for n in range(RUNS):
        event = pre_tool_use(f"echo {n} " + "x" * (n * 37), session_id=f"session-{n}")
        process = subprocess.Popen(
            sandbox.command(config),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=sandbox.env,
        )
        processes.append((process, encode(event)))
    outcomes = []
    for process, data in processes:
        out, err = process.communicate(data, timeout=300)
        outcomes.append(Outcome(process.returncode, out, err.decode("utf-8", "replace")))
    return outcomes


def audit_lines(sandbox: Sandbox) -> list[bytes]:
    files = [sandbox.audit_path.with_name(f"audit.jsonl.{n}") for n in range(KEEP, 0, -1)]
    return [
        line
        for file in [*files, sandbox.audit_path]
        if file.exists()
        for line in file.read_bytes().splitlines()
    ]


@pytest.mark.parametrize("max_bytes", [16 << 20, 4096], ids=["one-file", "rotating"])
def test_sixty_four_writers_lose_and_mangle_nothing(sandbox: Sandbox, max_bytes: int) -> None:
    hook = sandbox.script("pass.sh", "cat >/dev/null")
    config = sandbox.write_config(
        # The longest timeout allowed: 64 runs at once on 2 cores must not time out a hook.
        matching([{"type": "command", "command": str(hook), "timeout": MAX_HOOK_TIMEOUT}]),
        audit={"max_bytes": max_bytes, "keep": KEEP},
    )
    outcomes = run_all_at_once(sandbox, config)
    assert [o for o in outcomes if (o.exit_code, o.stderr) != (0, "")] == []
    lines = audit_lines(sandbox)
    records = [orjson.loads(line) for line in lines]  # raises on any torn or interleaved line
    assert sorted(record["session"] for record in records) == sorted(
        f"session-{n}" for n in range(RUNS)
    )
    assert all(record["final"]["decision"] == "none" for record in records)
    rotated = sandbox.audit_path.with_name("audit.jsonl.1").exists()
    assert rotated == (max_bytes == 4096)
    if rotated:  # the cap held under load: no file grew past it with more than one record
        for file in sandbox.state.glob("audit.jsonl*"):
            if not file.name.endswith(".lock"):
                assert file.stat().st_size <= max_bytes or len(file.read_bytes().splitlines()) == 1
