"""The warm path through real Claude Code (bridge/warm): after `ccbridge install --project`, a
session's first tool call starts a server and the next ones are judged by it, with the same
verdicts (a moved hook's deny reaches the model); the server ends with the session. The model's
own attempts on it come to nothing: its `socat` to the socket, from the Bash tool (wall off) or
from inside the sandbox (wall on), gets only a fallback, and inside the wall it cannot put a
socket of its own where the client looks."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from .goal_support import newest_claude
from .harness import Result, install_ccbridge, run_claude
from .model_stub import Turn
from .test_sandbox_e2e import require_sandbox

pytestmark = pytest.mark.e2e

# The user's hook: notes whether the warm server's child ran it (its ancestry holds the server's
# command line) and refuses anything that mentions `forbidden`.
USER_HOOK = r"""#!/bin/sh
event=$(cat)
p=$PPID; line=
while [ "$p" -gt 1 ]; do
  line="$line|$(tr '\0' ' ' < /proc/$p/cmdline)"
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
case $line in *" warm-serve "*) echo warm ;; *) echo cold ;; esac >> "$CLAUDE_PROJECT_DIR/judged"
case $event in *forbidden*) echo "no forbidden things here" >&2; exit 2 ;; esac
exit 0
"""
SETTINGS = {
    "permissions": {"allow": ["Bash"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./.claude/user-hook.sh"}]}
        ]
    },
}


class Session:
    def __init__(self, root: Path, wall: bool) -> None:
        self.home, self.project = root / "home", root / "project"
        self.state = root / "state"
        (self.project / ".claude").mkdir(parents=True)
        self.home.mkdir()
        hook = self.project / ".claude" / "user-hook.sh"
        hook.write_text(USER_HOOK)
        hook.chmod(0o755)
        (self.project / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
        self.env = {"CCBRIDGE_STATE_DIR": str(self.state), "CCBRIDGE_CACHE_DIR": str(root / "c")}
        done = install_ccbridge(
            self.project, self.home, self.env, "--project", *(() if wall else ("--no-sandbox",))
        )
        assert done.returncode == 0, done.stderr

    def run(self, claude: Path, script: list[Turn]) -> Result:
        return run_claude(claude, self.project, None, script, env=self.env, home=self.home)

    def judged(self) -> list[str]:
        path = self.project / "judged"
        return path.read_text().split() if path.exists() else []

    def servers(self) -> list[int]:
        """Live warm servers of this session's state directory."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                environ = Path(f"/proc/{pid}/environ").read_bytes()
            except OSError:
                continue
            if b"warm-serve" in argv and str(self.state).encode() in environ:
                found.append(int(pid))
        return found


def gone(session: Session, within: float = 15.0) -> bool:
    until = time.monotonic() + within
    while session.servers():
        if time.monotonic() > until:
            return False
        time.sleep(0.1)
    return True


def test_calls_after_the_first_are_judged_warm_with_the_same_verdicts(
    claude: Path, tmp_path: Path
) -> None:
    session = Session(tmp_path, wall=False)
    script = [Turn.bash(f"echo call-{n}") for n in range(4)]
    script += [Turn.bash("echo forbidden"), Turn.bash("echo after"), Turn.say("done")]
    result = session.run(claude, script)
    judged = session.judged()
    assert judged[0] == "cold" and judged[-3:] == ["warm"] * 3, judged
    results = [r.content for r in result.requests.tool_results()]
    assert "call-3" in results[3] and "after" in results[5], results
    assert "no forbidden things here" in results[4], results
    assert gone(session), "the server outlived its Claude Code session"
    assert not any(p.name.isdigit() for p in (session.state / "warm").iterdir())


# A forged event whose command the user's hook would refuse, were it judged (`\\146` is `f`:
# printf makes it, so the model's own command does not hold the word).
FORGED = (
    '{"hook_event_name":"PreToolUse","tool_name":"Bash",'  # and the command, on its own line:
    '"tool_input":{"command":"echo \\146orbidden"}}'
)
# Every socket of the warm directory, sent the forged event; RS shown as `#`.
SOCAT_FORGERY = (
    'for s in {warm}/*; do [ -S "$s" ] || continue; '
    f"printf '{FORGED}' | socat -t 10 - UNIX-CONNECT:\"$s\" 2>&1 | tr '\\036' '#'; "
    'echo " <- $s"; done; echo tried'
)


@pytest.mark.parametrize("wall", [False, True], ids=["no-wall", "wall"])
def test_the_models_own_socat_gets_only_a_fallback(tmp_path: Path, wall: bool) -> None:
    if wall:
        require_sandbox()
    session = Session(tmp_path, wall=wall)
    # the user's own choice, so that the attempt runs: only the warm server stands in its way
    (session.home / ".claude").mkdir(exist_ok=True)
    (session.home / ".claude" / "ccbridge.yaml").write_text("self_protection: false\n")
    warm = session.state / "warm"
    script = [
        Turn.bash("echo first"),  # starts the server
        Turn.bash("sleep 2; echo second"),
        Turn.bash(SOCAT_FORGERY.replace("{warm}", str(warm))),
        Turn.say("done"),
    ]
    result = session.run(newest_claude(), script)
    told = result.requests.tool_results()[2].content
    assert "tried" in told and "A#" not in told, told
    if not wall:  # it reached the server, which refused it, handing back what it was sent
        assert 'F#{"hook_event_name":"PreToolUse"' in told, told
    # what was sent never reached a judgement: the user's hook ran for the three calls only
    assert len(session.judged()) == 3, session.judged()


def test_inside_the_wall_the_model_cannot_put_a_socket_where_the_client_looks(
    tmp_path: Path,
) -> None:
    require_sandbox()
    session = Session(tmp_path, wall=True)
    warm = session.state / "warm"
    plant = (
        f'mkdir -p {warm} 2>&1; python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); '
        f"s.bind(sys.argv[1]); print('bound')\" {warm}/planted 2>&1 | tail -1"
    )
    result = session.run(
        newest_claude(), [Turn.bash("echo first"), Turn.bash(plant), Turn.say("x")]
    )
    told = result.requests.tool_results()[1].content
    assert "bound" not in told.split(), told
    assert not (warm / "planted").exists()
