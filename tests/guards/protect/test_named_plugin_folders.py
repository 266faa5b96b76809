"""A local marketplace folder named in settings is kept whole, through the real executable: when
it holds the project, the agent cannot write the project (docs/fleet.md says to keep such folders
outside the projects the agent works in)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.sandbox import Sandbox, pre_tool_use


def test_a_marketplace_folder_holding_the_project_keeps_the_project(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    target = str(sandbox.project / "src" / "app.py")
    write = pre_tool_use("print(1)", tool="Write", cwd=str(sandbox.project))
    write["tool_input"]["file_path"] = target
    env = {"CLAUDE_PROJECT_DIR": str(sandbox.project)}
    before = sandbox.call_executable(None, json.dumps(write).encode(), env=env)
    assert before.exit_code == 0, before.stderr  # an ordinary project file
    market = {"source": {"source": "directory", "path": "./"}}
    sandbox.write_json(sandbox.settings, {"extraKnownMarketplaces": {"here": market}})
    after = sandbox.call_executable(None, json.dumps(write).encode(), env=env)
    assert after.exit_code == 2 and after.reason.startswith("[self-protection] "), after.stdout
    assert str(Path(sandbox.project)) in after.reason


def test_a_marketplace_added_since_the_last_call_is_kept_on_the_next(tmp_path: Path) -> None:
    # the compiled config is cached; `claude plugin marketplace add` changes its record, which
    # the cache is keyed by, so the next call keeps the new folder
    sandbox = Sandbox(tmp_path)
    market = tmp_path / "added-market"
    target = str(market / "p" / "hooks" / "register.js")
    write = pre_tool_use("x", tool="Write", cwd=str(sandbox.project))
    write["tool_input"]["file_path"] = target
    env = {"CLAUDE_PROJECT_DIR": str(sandbox.project)}
    assert sandbox.call_executable(None, json.dumps(write).encode(), env=env).exit_code == 0
    record = sandbox.home / ".claude" / "plugins" / "known_marketplaces.json"
    sandbox.write_json(record, {"added": {"source": {"source": "directory", "path": str(market)}}})
    after = sandbox.call_executable(None, json.dumps(write).encode(), env=env)
    assert after.exit_code == 2 and str(market) in after.reason, after.stdout


def test_settings_rewritten_with_the_same_size_and_mtime_are_read_again(tmp_path: Path) -> None:
    # the compiled config (with the folders settings name) is cached by the settings file's
    # identity: a rewrite that keeps the size and puts the mtime back still changes its ctime
    # (and, replaced, its inode), so the next call keeps the newly named folder
    sandbox = Sandbox(tmp_path)
    write = pre_tool_use("echo x > mk-b/hooks/run.js", cwd=str(sandbox.project))
    env = {"CLAUDE_PROJECT_DIR": str(sandbox.project)}

    def named(folder: str) -> bytes:
        market = {"source": {"source": "directory", "path": f"./{folder}"}}
        return json.dumps({"extraKnownMarketplaces": {"here": market}}).encode()

    sandbox.settings.write_bytes(named("mk-a"))
    stamp = sandbox.settings.stat()
    before = sandbox.call_executable(None, json.dumps(write).encode(), env=env)
    assert before.exit_code == 0 and before.decision != "deny", before.stdout
    replacement = sandbox.settings.with_name("settings.json.new")
    replacement.write_bytes(named("mk-b"))
    replacement.replace(sandbox.settings)
    os.utime(sandbox.settings, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    now = sandbox.settings.stat()
    assert (now.st_size, now.st_mtime_ns) == (stamp.st_size, stamp.st_mtime_ns)
    after = sandbox.call_executable(None, json.dumps(write).encode(), env=env)
    assert after.decision == "deny" and after.reason.startswith("[self-protection] "), after.stdout
    assert "mk-b" in after.reason
    # the same in place (same inode: only the ctime tells)
    sandbox.settings.write_bytes(named("mk-a"))
    os.utime(sandbox.settings, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    again = sandbox.call_executable(None, json.dumps(write).encode(), env=env)
    assert again.exit_code == 0 and again.decision != "deny", again.stdout
