"""Point 5: SIGKILL at any moment of an append leaves the audit readable; the reader skips a
torn tail, the next writer starts a fresh line, and no record whose writer finished is lost."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.audit import log
from tests.support.sandbox import KEEP, Sandbox, encode, examples, matching, pre_tool_use

WRITER = """
import sys, time
from pathlib import Path
from bridge.audit import log
path = Path(sys.argv[1])
size, max_bytes, keep = (int(arg) for arg in sys.argv[2:5])
# Stop before rotation could drop a generation past `keep`: every record must stay findable.
limit = keep * max(1, max_bytes // (3 * size + 64))
for n in range(limit):
    log.append(path, {"n": n, "pad": "x" * (size * (n % 3 + 1))}, max_bytes, keep)
    print(n, flush=True)  # acknowledged: append returned
time.sleep(60)
"""


@given(
    before=st.integers(0, 5),
    after=st.integers(1, 5),
    cut=st.floats(0, 1, exclude_max=True),
    max_bytes=st.sampled_from([4096, 1 << 20]),
)
def test_a_torn_tail_never_swallows_the_next_record(
    tmp_path_factory: pytest.TempPathFactory, before: int, after: int, cut: float, max_bytes: int
) -> None:
    path = Path(tmp_path_factory.mktemp("audit")) / "audit.jsonl"
    for n in range(before):
        log.append(path, {"n": n}, max_bytes, KEEP)
    torn = orjson.dumps({"n": "torn", "pad": "y" * 300})
    with open(path, "ab") as handle:  # what a writer killed mid-write leaves behind
        handle.write(torn[: max(1, int(len(torn) * cut))])
    for n in range(before, before + after):
        log.append(path, {"n": n}, max_bytes, KEEP)
    assert [record["n"] for record in log.read(path, KEEP)] == list(range(before + after))


@examples(0.1, least=3)
@given(
    delay=st.floats(0.05, 0.5),
    size=st.sampled_from([100, 200_000, 2_000_000]),
    max_bytes=st.sampled_from([4096, 1 << 20, 64 << 20]),
)
def test_sigkill_while_appending_loses_no_acknowledged_record(
    tmp_path_factory: pytest.TempPathFactory, delay: float, size: int, max_bytes: int
) -> None:
    path = Path(tmp_path_factory.mktemp("audit")) / "audit.jsonl"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(size), str(max_bytes), str(KEEP)],
        stdout=subprocess.PIPE,
    )
    time.sleep(delay)
    writer.send_signal(signal.SIGKILL)
    acknowledged = [int(line) for line in writer.communicate()[0].split()]
    found = [record["n"] for record in log.read(path, KEEP)]
    assert found == list(range(len(found)))  # in order, nothing missing in between
    assert len(found) >= len(acknowledged)  # at most the one being written when killed is gone
    log.append(path, {"n": "after"}, max_bytes, KEEP)  # the log is still usable
    assert list(log.read(path, KEEP))[-1] == {"n": "after"}


@examples(0.05, least=2)
@given(
    delays=st.lists(st.floats(0.0, 0.8), min_size=8, max_size=8),
    killed=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_sigkill_ccbridge_run_at_random_points(
    tmp_path_factory: pytest.TempPathFactory, delays: list[float], killed: list[bool]
) -> None:
    sandbox = Sandbox(Path(tmp_path_factory.mktemp("sandbox")))
    hook = sandbox.script("pass.sh", "cat >/dev/null")
    config = sandbox.write_config(
        matching([{"type": "command", "command": str(hook)}]),
        audit={"max_bytes": 4096, "keep": KEEP},
    )
    processes = []
    for n in range(len(delays)):
        process = subprocess.Popen(
            sandbox.command(config),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=sandbox.env,
        )
        assert process.stdin
        process.stdin.write(encode(pre_tool_use(session_id=f"session-{n}")))
        process.stdin.close()
        processes.append(process)
    started = time.monotonic()
    for n in sorted(range(len(delays)), key=delays.__getitem__):
        if killed[n]:
            time.sleep(max(0.0, started + delays[n] - time.monotonic()))
            processes[n].send_signal(signal.SIGKILL)
    finished = set()
    for n, process in enumerate(processes):
        process.wait(timeout=120)  # the answer is a few hundred bytes: it fits the pipe
        assert process.stderr and b"Traceback" not in process.stderr.read()
        if process.returncode in (0, 2):
            finished.add(f"session-{n}")
        else:
            assert process.returncode == -signal.SIGKILL
    recorded = [record["session"] for record in sandbox.audit()]
    assert finished <= set(recorded)
    assert len(recorded) == len(set(recorded))
