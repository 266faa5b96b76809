"""`ccbridge install --managed` / `uninstall --managed`: the managed-settings.d drop-in."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.sandbox import Sandbox


def test_install_then_uninstall_round_trips(sandbox: Sandbox, tmp_path: Path) -> None:
    managed = tmp_path / "etc" / "managed-settings.d"
    managed.mkdir(parents=True)
    other = managed / "10-org.json"
    other.write_text('{"permissions": {"deny": ["WebFetch"]}}\n')
    before = {path.name: path.read_bytes() for path in managed.iterdir()}
    settings_before = sandbox.settings.read_bytes() if sandbox.settings.exists() else None

    done = sandbox.run("install", "--managed", "--managed-dir", str(managed))
    assert done.returncode == 0, done.stderr
    data = json.loads((managed / "ccbridge.json").read_text())
    assert data["requiredMinimumVersion"] == "2.1.295"
    assert set(data["hooks"]) == {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
    for groups in data["hooks"].values():
        (group,) = groups
        (entry,) = group["hooks"]
        assert Path(entry["command"]).name == "ccbridge" and Path(entry["command"]).is_absolute()
        assert entry["args"] == ["run"]
        assert entry["onFailure"] == "block" and entry["timeout"] == 60
        assert "onFailure" not in group  # on the entry only: CC ignores it on the group
    again = sandbox.run("install", "--managed", "--managed-dir", str(managed))
    assert again.returncode == 0 and "up to date" in again.stdout
    # no user or project settings file is touched
    assert (sandbox.settings.read_bytes() if sandbox.settings.exists() else None) == settings_before

    gone = sandbox.run("uninstall", "--managed", "--managed-dir", str(managed))
    assert gone.returncode == 0, gone.stderr
    assert {path.name: path.read_bytes() for path in managed.iterdir()} == before


def test_the_directory_comes_from_the_environment(sandbox: Sandbox, tmp_path: Path) -> None:
    managed = tmp_path / "m.d"
    done = sandbox.run("install", "--managed", env={"CCBRIDGE_MANAGED_DIR": str(managed)})
    assert done.returncode == 0, done.stderr
    assert (managed / "ccbridge.json").is_file()


def test_an_edited_drop_in_is_neither_overwritten_nor_removed(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    managed = tmp_path / "m.d"
    assert sandbox.run("install", "--managed", "--managed-dir", str(managed)).returncode == 0
    path = managed / "ccbridge.json"
    data = json.loads(path.read_text())
    data["permissions"] = {"deny": ["Bash(curl:*)"]}
    path.write_text(json.dumps(data))
    edited = path.read_bytes()
    done = sandbox.run("uninstall", "--managed", "--managed-dir", str(managed))
    assert done.returncode == 1 and "not removed" in done.stderr
    assert path.read_bytes() == edited
    path.write_text('{"hooks": {}}')
    clash = sandbox.run("install", "--managed", "--managed-dir", str(managed))
    assert clash.returncode == 1 and "not overwritten" in clash.stderr
    assert "Traceback" not in clash.stderr + done.stderr


def test_dry_run_writes_nothing(sandbox: Sandbox, tmp_path: Path) -> None:
    managed = tmp_path / "m.d"
    done = sandbox.run("install", "--managed", "--managed-dir", str(managed), "--dry-run")
    assert done.returncode == 0 and '"onFailure": "block"' in done.stdout
    assert not managed.exists()


def test_a_drop_in_holding_an_administrators_hook_is_kept(sandbox: Sandbox, tmp_path: Path) -> None:
    """An administrator's own hook entry added to ccbridge's drop-in (beside ccbridge's, or in
    an event of its own) makes the file theirs too: uninstall leaves it, install does not
    overwrite it."""
    managed = tmp_path / "m.d"
    assert sandbox.run("install", "--managed", "--managed-dir", str(managed)).returncode == 0
    path = managed / "ccbridge.json"
    theirs = {"type": "command", "command": "/opt/org/audit-hook"}
    for place in ("beside", "own event"):
        data = json.loads(path.read_text())
        if place == "beside":
            data["hooks"]["PreToolUse"][0]["hooks"].append(theirs)
        else:
            data["hooks"]["Stop"] = [{"hooks": [theirs]}]
        path.write_text(json.dumps(data))
        edited = path.read_bytes()
        done = sandbox.run("uninstall", "--managed", "--managed-dir", str(managed))
        assert done.returncode == 1 and "not removed" in done.stderr, (place, done.stdout)
        assert path.read_bytes() == edited, place
        clash = sandbox.run("install", "--managed", "--managed-dir", str(managed))
        assert clash.returncode == 1 and "not overwritten" in clash.stderr, place
        assert path.read_bytes() == edited, place
        assert sandbox.run("uninstall", "--managed", "--managed-dir", str(managed)).returncode == 1
        path.unlink()
        assert sandbox.run("install", "--managed", "--managed-dir", str(managed)).returncode == 0
