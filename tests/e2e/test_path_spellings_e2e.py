"""How Claude Code reads the paths of the wall, measured through the real binary: which spellings
of a `sandbox.filesystem.denyWrite`/`denyRead` entry and of an `Edit(...)`/`Read(...)` deny rule
keep a file, in the project's settings (the committed file), its local settings and the user's.

This is what lets the committed settings name no path of the machine that ran install
(docs/setup.md, "How Claude Code reads the wall's paths", holds the same table): a spelling
marked True here keeps the file on every machine. One session per version tries each file with
Bash (sandboxed: the denyWrite/denyRead entries) and with the Write and Read tools (the
permission rules), each file kept by exactly one spelling, and the table is what happened.
Claude Code's dedup of one hook command registered in several settings files is measured too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .harness import claude_binary, run_claude
from .model_stub import ToolCall, Turn
from .test_sandbox_e2e import require_sandbox

pytestmark = pytest.mark.e2e

VERSIONS = ("2.1.332", "2.1.335")
SECRET = "SECRET-spelling-"

# (name, settings file, where the file lies, how the entry spells it) for denyWrite, tried with
# a sandboxed Bash write. P: the project root, H: the home, `{}` the file's own name.
DENY_WRITE = [
    ("abs", "project", "P/kept/{}", "P/kept/{}"),
    ("double-slash", "project", "P/kept/{}", "/P/kept/{}"),
    ("tilde", "project", "H/kept/{}", "~/kept/{}"),
    ("bare-relative", "project", "P/kept/{}", "kept/{}"),
    ("dot-relative", "project", "P/kept/{}", "./kept/{}"),
    ("slash-relative", "project", "P/kept/{}", "/kept/{}"),
    ("tilde-dir", "project", "H/kdir-w/{}", "~/kdir-w"),
    ("relative-dir", "project", "P/kdir-w/{}", "kdir-w"),
    ("local-abs", "local", "P/kept/{}", "P/kept/{}"),
    ("local-relative", "local", "P/kept/{}", "kept/{}"),
    ("user-abs", "user", "P/kept/{}", "P/kept/{}"),
    ("user-tilde", "user", "H/kept/{}", "~/kept/{}"),
]
# The same for Edit(...) deny rules, tried with the Write tool.
EDIT = [
    ("double-slash", "project", "P/kept/{}", "Edit(/P/kept/{})"),
    ("single-slash-abs", "project", "P/kept/{}", "Edit(P/kept/{})"),
    ("slash-relative", "project", "P/kept/{}", "Edit(/kept/{})"),
    ("bare-relative", "project", "P/kept/{}", "Edit(kept/{})"),
    ("dot-relative", "project", "P/kept/{}", "Edit(./kept/{})"),
    ("tilde", "project", "H/kept/{}", "Edit(~/kept/{})"),
    ("tilde-tree", "project", "H/kdir-e/{}", "Edit(~/kdir-e/**)"),
    ("slash-relative-tree", "project", "P/kdir-e/{}", "Edit(/kdir-e/**)"),
    ("local-double-slash", "local", "P/kept/{}", "Edit(/P/kept/{})"),
    ("local-slash-relative", "local", "P/kept/{}", "Edit(/kept/{})"),
    ("user-double-slash", "user", "P/kept/{}", "Edit(/P/kept/{})"),
    ("user-tilde", "user", "H/kept/{}", "Edit(~/kept/{})"),
]
# denyRead, tried with a sandboxed `cat`; Read(...) rules, tried with the Read tool.
DENY_READ = [
    ("abs", "project", "P/kept/{}", "P/kept/{}"),
    ("tilde", "project", "H/kept/{}", "~/kept/{}"),
    ("bare-relative", "project", "P/kept/{}", "kept/{}"),
    ("user-tilde", "user", "H/kept/{}", "~/kept/{}"),
]
READ = [
    ("double-slash", "project", "P/kept/{}", "Read(/P/kept/{})"),
    ("slash-relative", "project", "P/kept/{}", "Read(/kept/{})"),
    ("tilde", "project", "H/kept/{}", "Read(~/kept/{})"),
    ("user-tilde", "user", "H/kept/{}", "Read(~/kept/{})"),
]
# Measured with 2.1.332 and 2.1.335 (the same on both): whether the spelling kept its file.
KEPT = {
    "denyWrite": {
        "abs": True,
        "double-slash": True,
        "tilde": True,
        "bare-relative": True,
        "dot-relative": True,
        "slash-relative": False,
        "tilde-dir": True,
        "relative-dir": True,
        "local-abs": True,
        "local-relative": True,
        "user-abs": True,
        "user-tilde": True,
    },
    "Edit": {
        "double-slash": True,
        "single-slash-abs": False,
        "slash-relative": True,
        "bare-relative": True,
        "dot-relative": True,
        "tilde": True,
        "tilde-tree": True,
        "slash-relative-tree": True,
        "local-double-slash": True,
        "local-slash-relative": True,
        "user-double-slash": True,
        "user-tilde": True,
    },
    "denyRead": {"abs": True, "tilde": True, "bare-relative": True, "user-tilde": True},
    "Read": {"double-slash": True, "slash-relative": True, "tilde": True, "user-tilde": True},
}
# How many times one PreToolUse hook command ran per tool call when the identical command is
# registered in the project, local and user settings: once (a call a deny rule refuses reaches
# no hook at all).
DEDUP_RUNS = 1
COUNT_HOOK = """#!/usr/bin/env python3
import json, sys
call = json.load(sys.stdin)
with open({log!r}, "a") as log:
    log.write(call.get("tool_use_id", "?") + "\\n")
"""


def _place(spec: str, name: str, project: Path, home: Path) -> str:
    text = spec.format(name)
    return text.replace("P/", f"{project}/", 1).replace("H/", f"{home}/", 1)


@pytest.mark.parametrize("version", VERSIONS)
def test_which_spellings_keep_a_file(tmp_path: Path, version: str) -> None:
    require_sandbox()
    binary = claude_binary(version)
    if binary is None:
        pytest.skip(f"Claude Code {version} is not fetched: run scripts/fetch-clients")
    project, home = (tmp_path / "project").resolve(), (tmp_path / "home").resolve()
    for base in (project, home):
        for sub in ("kept", "kdir-w", "kdir-e"):
            (base / sub).mkdir(parents=True)
    (home / ".claude").mkdir()
    layers: dict[str, dict[str, Any]] = {
        "project": {
            "permissions": {"allow": ["Bash", "Write", "Edit", "Read"], "deny": []},
            "sandbox": {
                "enabled": True,
                "failIfUnavailable": True,
                "allowUnsandboxedCommands": False,
                "filesystem": {
                    "allowWrite": [f"{home}/kept", f"{home}/kdir-w"],
                    "denyWrite": [],
                    "denyRead": [],
                },
            },
        },
        "local": {"permissions": {"deny": []}, "sandbox": {"filesystem": {"denyWrite": []}}},
        "user": {
            "permissions": {"deny": []},
            "sandbox": {"filesystem": {"denyWrite": [], "denyRead": []}},
        },
    }
    calls: list[Turn] = []
    targets: dict[tuple[str, str], str] = {}
    for kind, table in (("denyWrite", DENY_WRITE), ("Edit", EDIT)):
        for name, layer, where, spelled in table:
            own = f"{kind}-{name}"
            target = _place(where, own, project, home)
            entry = _place(spelled, own, project, home)
            if kind == "denyWrite":
                layers[layer]["sandbox"]["filesystem"]["denyWrite"].append(entry)
                calls.append(Turn.bash(f"printf x > {target}"))
            else:
                layers[layer]["permissions"]["deny"].append(entry)
                calls.append(
                    Turn(tool_calls=(ToolCall("Write", {"file_path": target, "content": "x"}),))
                )
            targets[(kind, name)] = target
    for kind, table in (("denyRead", DENY_READ), ("Read", READ)):
        for name, layer, where, spelled in table:
            own = f"{kind}-{name}"
            target = _place(where, own, project, home)
            Path(target).write_text(SECRET + own)
            entry = _place(spelled, own, project, home)
            if kind == "denyRead":
                layers[layer]["sandbox"]["filesystem"]["denyRead"].append(entry)
                calls.append(Turn.bash(f"cat {target}"))
            else:
                layers[layer]["permissions"]["deny"].append(entry)
                calls.append(Turn(tool_calls=(ToolCall("Read", {"file_path": target}),)))
            targets[(kind, name)] = target
    # Controls: a file no entry names is written and read, so a False above is the spelling's.
    calls.append(Turn.bash(f"printf x > {project}/kept/control-bash"))
    calls.append(Turn.bash(f"printf x > {home}/kept/control-bash"))
    calls.append(
        Turn(
            tool_calls=(
                ToolCall("Write", {"file_path": f"{home}/kept/control-write", "content": "x"}),
            )
        )
    )
    # One hook command, identical in three files: how often it runs per call.
    log = tmp_path / "hook-runs.log"
    hook = tmp_path / "count.sh"
    hook.write_text(COUNT_HOOK.format(log=str(log)))
    hook.chmod(0o755)
    registration = {"matcher": "*", "hooks": [{"type": "command", "command": str(hook)}]}
    for settings in layers.values():
        settings["hooks"] = {"PreToolUse": [registration]}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(json.dumps(layers["local"]))
    (home / ".claude" / "settings.json").write_text(json.dumps(layers["user"]))
    result = run_claude(
        binary, project, layers["project"], [*calls, Turn.say("done")], home=home, timeout=300
    )
    results = result.requests.tool_results()
    assert len(results) == len(calls), (results, result.stderr[-2000:])
    assert Path(f"{project}/kept/control-bash").exists(), results
    assert Path(f"{home}/kept/control-bash").exists(), results
    assert Path(f"{home}/kept/control-write").exists(), results
    measured: dict[str, dict[str, bool]] = {kind: {} for kind in KEPT}
    for (kind, name), target in targets.items():
        own = f"{kind}-{name}"
        if kind in ("denyWrite", "Edit"):
            measured[kind][name] = not Path(target).exists()
        else:
            measured[kind][name] = not result.requests.model_saw(SECRET + own)
    ids = log.read_text().splitlines()
    runs = {tool_use_id: ids.count(tool_use_id) for tool_use_id in ids}
    print(json.dumps({"version": version, "kept": measured, "runs": runs}, indent=1))
    assert measured == KEPT
    refused_by_rules = sum(KEPT["Edit"].values()) + sum(KEPT["Read"].values())
    assert len(runs) == len(calls) - refused_by_rules, runs
    assert set(runs.values()) == {DEDUP_RUNS}, runs
