"""`ccbridge doctor` as a person reads it, through the real executable in a private home: one
finding per line (long ones wrapped under the message column, a path never cut), no line
twice, a topic's findings together, a missing claude said as such, and with no config no claim
of guards that do not run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from bridge.commands.cases import ccbridge_command
from tests.support.sandbox import Sandbox

FIRM = {"timeout": 60, "onFailure": "block"}
MESSAGE_COLUMN = 19  # the mark, two spaces, the topic's 12 columns, a space
WIDTH = 100  # what doctor wraps to where its output is no terminal
FINDING = re.compile(r"^(FAIL|warn|  ok|  --) {2}(\S+)\s")


def doctor(sandbox: Sandbox) -> tuple[int, list[str]]:
    # no claude on this PATH: only the ccbridge under test and the system's programs
    path = f"{Path(ccbridge_command()[0]).parent}:/usr/bin:/bin"
    done = sandbox.run("doctor", env={"PATH": path, "COLUMNS": str(WIDTH)})
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines()


def assert_readable(lines: list[str]) -> list[tuple[str, str]]:
    """Every line a finding's first or a continuation; (topic, text) of each finding."""
    found: list[tuple[str, str]] = []
    for line in lines:
        words = line[MESSAGE_COLUMN:].split()
        assert len(line) <= WIDTH or len(words) == 1 or words[0] == "-", line  # a path, uncut
        head = FINDING.match(line)
        if head is not None:
            found.append((head[2], line[MESSAGE_COLUMN:]))
        else:
            assert line.startswith(" " * MESSAGE_COLUMN) and line.strip(), line
            topic, text = found[-1]
            found[-1] = (topic, f"{text} {line.strip()}")
    # no finding said twice (a wrapped line's tail, a lone `PreToolUse`, may well repeat)
    assert len(found) == len(set(found)), [item for item in found if found.count(item) > 1]
    topics = [topic for topic, _ in found]
    runs = [topic for index, topic in enumerate(topics) if index == 0 or topics[index - 1] != topic]
    assert len(runs) == len(set(runs)), topics  # each topic's findings stand together
    return found


def test_a_teammates_doctor_is_readable(tmp_path: Path) -> None:
    installer = Sandbox(tmp_path / "installer")
    assert installer.run("install").returncode == 0
    teammate = Sandbox(tmp_path / "teammate")
    shutil.copytree(  # what a clone gets: the installer's local copy is git-ignored
        installer.project / ".claude",
        teammate.project / ".claude",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("settings.local.json"),
    )
    code, lines = doctor(teammate)
    assert code == 1  # no claude
    found = assert_readable(lines)
    said = dict(found)
    assert said["claude"].startswith("no claude found")
    assert said["skills"].startswith("no claude found")
    assert "the claude found" not in "\n".join(lines)
    assert [topic for topic, _ in found].count("starts") == 1  # one ccbridge, probed once
    if said["protection"].startswith("tripwire"):  # each kind of gap a list item of its own
        items = [line.strip() for line in lines if line.lstrip().startswith("- ")]
        assert any("not in sandbox.filesystem.denyWrite" in item for item in items), lines


def test_doctor_without_a_config_claims_no_guard_that_does_not_run(sandbox: Sandbox) -> None:
    sandbox.write_json(
        sandbox.settings,
        {
            "hooks": {
                event: [{"hooks": [{"type": "command", "command": "ccbridge run", **FIRM}]}]
                for event in ("PreToolUse", "PostToolUse")
            }
        },
    )
    _code, lines = doctor(sandbox)
    said = dict(assert_readable(lines))
    assert said["config"].startswith("no ccbridge config file")
    assert "no guard but self-protection" in said["config"]
    assert "built-in guards" not in said["config"]
