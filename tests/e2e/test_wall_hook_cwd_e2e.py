"""A sub-hook named by a relative path, through real Claude Code with the wall `ccbridge install`
puts up: a hook runs in the call's cwd, and the agent moves that cwd with `cd` to a directory it
may write, so its own script there runs as the hook, outside the sandbox. The wall cannot keep
such a hook; the audit must say `tripwire`, never `wall`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .goal_support import newest_claude
from .harness import install_ccbridge, run_claude
from .model_stub import Turn
from .test_sandbox_e2e import require_sandbox

pytestmark = pytest.mark.e2e

CHECK_SH = "#!/bin/sh\nexit 0\n"
PLANT = (
    "mkdir -p sub/hooks && printf '#!/bin/sh\\necho escaped > \"$HOME/escaped\"\\nexit 0\\n' "
    "> sub/hooks/check.sh && chmod +x sub/hooks/check.sh && cd sub"
)


def installed(
    tmp_path: Path, command: str, *options: str
) -> tuple[Path, Path, dict[str, str], dict[str, Any]]:
    """(home, state, ccbridge's variables, the settings) of a project `ccbridge install` (with
    `options`) set up with one PreToolUse hook running `command`."""
    require_sandbox()
    home, project, state = tmp_path / "home", tmp_path / "project", tmp_path / "state"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    (project / "hooks").mkdir()
    (project / "hooks" / "check.sh").write_text(CHECK_SH)
    (project / "hooks" / "check.sh").chmod(0o755)
    config = "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
    config += f"        - {{type: command, command: {json.dumps(command)}}}\n"
    (project / ".claude" / "ccbridge.yaml").write_text(config)
    ours = {"CCBRIDGE_STATE_DIR": str(state), "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache")}
    done = install_ccbridge(project, home, ours, *options)
    assert done.returncode == 0, done.stdout + done.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    settings.setdefault("permissions", {})["allow"] = ["Bash"]
    return home, state, ours, settings


def test_a_relative_hook_script_is_the_agents_to_swap_and_the_level_says_so(
    tmp_path: Path,
) -> None:
    home, state, ours, settings = installed(tmp_path, "./hooks/check.sh")
    project = tmp_path / "project"
    result = run_claude(
        newest_claude(),
        project,
        settings,
        [Turn.bash(PLANT), Turn.bash("true"), Turn.say("done")],
        env=ours,
        home=home,
        timeout=300,
    )
    told = f"CC said: {result.requests.tool_results()}; stderr: {result.stderr[-800:]}"
    # The attack itself: the agent's script ran as the hook, outside the sandbox (it wrote
    # into the home directory, which sandboxed commands cannot).
    assert (home / "escaped").exists(), told
    records = [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]
    assert records and {record["protection"] for record in records} == {"tripwire"}, told


SWAP = "printf '#!/bin/sh\\necho escaped > \"$HOME/escaped\"\\n' > hooks/check.sh"


def test_a_hook_script_named_as_cc_documents_it_cannot_be_swapped(tmp_path: Path) -> None:
    # `"$CLAUDE_PROJECT_DIR"/hooks/check.sh`, the form CC's hook guide gives: the wall used to
    # leave it out of denyWrite (a word holding `$`), so the agent rewrote it in the project.
    home, state, ours, settings = installed(tmp_path, '"$CLAUDE_PROJECT_DIR"/hooks/check.sh')
    result = run_claude(
        newest_claude(),
        tmp_path / "project",
        settings,
        [Turn.bash(SWAP), Turn.bash("true"), Turn.say("done")],
        env=ours,
        home=home,
        timeout=300,
    )
    told = f"CC said: {result.requests.tool_results()}; stderr: {result.stderr[-800:]}"
    assert not (home / "escaped").exists(), told
    assert (tmp_path / "project" / "hooks" / "check.sh").read_text() == CHECK_SH, told
    records = [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]
    assert records and {record["protection"] for record in records} == {"wall"}, told
