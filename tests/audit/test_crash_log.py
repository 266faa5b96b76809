"""ccbridge's own failure: the answer and the audit keep `Type: message`, the traceback goes to a
crash log in the state directory (redacted, private, bounded) that the audit record names. And
every state file ccbridge writes has one mode: directories 0700, files 0600."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from bridge.audit import crash
from tests.test_hookcall import CCBRIDGE, PRE, Bridge

SECRET = "hunter2hunter2"
# The real program, with the engine replaced by one that fails the way a bug would.
CRASHING = (
    sys.executable,
    "-c",
    "import bridge.hookcall as h\n"
    "import bridge.main as m\n"
    "def judge(*_):\n"
    f"    raise RuntimeError('boom password={SECRET}')\n"
    "h._judge = judge\n"
    "m.main()\n",
)


@pytest.fixture
def bridge(tmp_path: Path) -> Bridge:
    return Bridge(tmp_path)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def run_umask_022(bridge: Bridge, command: tuple[str, ...], config: Path | None = None) -> int:
    """`ccbridge run` under the common umask 022, which would make files 0644."""
    argv = [*command, "run", *(["--config", str(config)] if config else [])]
    done = subprocess.run(
        argv,
        input=orjson.dumps(PRE),
        capture_output=True,
        env=bridge.env,
        timeout=60,
        check=False,
        preexec_fn=lambda: os.umask(0o022),  # the common umask
    )
    assert b"Traceback" not in done.stderr
    return done.returncode


def test_an_internal_error_leaves_a_redacted_private_crash_log(bridge: Bridge) -> None:
    out, code, _ = bridge.run(PRE, command=CRASHING)
    assert code == 2 and out is not None
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith("ccbridge internal error: RuntimeError: boom")
    [entry] = bridge.audit()
    assert entry["error"].startswith("RuntimeError: boom") and SECRET not in entry["error"]
    log = Path(entry["crash_log"])
    assert log.parent == bridge.state / "crashes"
    text = log.read_text()
    assert text.startswith("Traceback (most recent call last):")
    assert "in judge" in text and "RuntimeError: boom" in text  # where it failed, not only what
    assert SECRET not in text
    assert mode(log) == 0o600 and mode(log.parent) == 0o700


def test_crash_logs_are_bounded_in_size_and_number(tmp_path: Path) -> None:
    written = []
    for n in range(crash.KEEP + 5):
        try:
            raise ValueError(f"{n} " + "x" * (crash.MAX_BYTES * 2))
        except ValueError as problem:
            written.append(crash.write(tmp_path, problem))
    kept = sorted((tmp_path / "crashes").iterdir())
    assert kept == sorted(written[-crash.KEEP :])  # the newest
    assert all(file.stat().st_size <= crash.MAX_BYTES for file in kept)
    assert all(file.read_text().startswith("Traceback") for file in kept)
    assert all(file.read_text().rstrip().endswith("x") for file in kept)  # both ends kept


@pytest.mark.parametrize("what", ["audit", "rotated", "crash"])
def test_state_files_get_one_mode(bridge: Bridge, what: str) -> None:
    """0700 directories and 0600 files whatever the umask; a wider old log is narrowed."""
    config = bridge.config("audit: {max_bytes: 4096, keep: 3}\n" if what == "rotated" else "{}\n")
    bridge.state.mkdir(mode=0o700)
    (bridge.state / "audit.jsonl").write_bytes(b"{}\n" * (2000 if what == "rotated" else 1))
    (bridge.state / "audit.jsonl").chmod(0o644)
    command = CRASHING if what == "crash" else (CCBRIDGE,)
    run_umask_022(bridge, command, config)
    if what == "rotated":
        assert (bridge.state / "audit.jsonl.1").is_file()
    if what == "crash":
        assert (bridge.state / "crashes").is_dir()
    for path in [bridge.state, *bridge.state.rglob("*")]:
        assert mode(path) == (0o700 if path.is_dir() else 0o600), path
