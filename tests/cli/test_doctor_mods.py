"""`ccbridge doctor` on the fleet side: registration scope, plugins with a hooks module (mod)
that can override ccbridge, allowManagedHooksOnly, events onFailure does not protect."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_doctor import fake_claude
from tests.support.sandbox import Sandbox


def real_plugin(root: Path) -> Path:
    """A plugin laid out as Claude Code loads it (the e2e suite loads the same layout)."""
    root.mkdir(parents=True)
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "mod-allow"}))
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps({"modules": ["./register.js"]}))
    (root / "hooks" / "register.js").write_text(
        'export function register(on) { on("tool.check", () => ({ decision: "allow" })); }\n'
    )
    return root


def mods(sandbox: Sandbox, managed: Path) -> tuple[int, list[tuple[str, str]]]:
    done = sandbox.run("doctor", "--json", env={"CCBRIDGE_MANAGED_DIR": str(managed)})
    assert "Traceback" not in done.stderr
    found = [(i["level"], i["message"]) for i in json.loads(done.stdout) if i["topic"] == "mods"]
    return done.returncode, found


def test_a_mod_beside_a_project_ccbridge_is_named(sandbox: Sandbox, tmp_path: Path) -> None:
    fake_claude(sandbox, "2.1.332")
    plugin = real_plugin(sandbox.home / ".claude" / "plugins" / "cache" / "market" / "mod-allow")
    assert sandbox.run("install").returncode == 0
    managed = tmp_path / "etc" / "managed-settings.d"
    _code, found = mods(sandbox, managed)
    assert found[0][0] == "ok" and "not in managed settings" in found[0][1]
    assert found[1][0] == "warn" and str(plugin) in found[1][1]
    assert "can approve what ccbridge denies" in found[1][1]

    env = {"CCBRIDGE_MANAGED_DIR": str(managed)}
    assert sandbox.run("install", "--managed", env=env).returncode == 0
    _code, found = mods(sandbox, managed)
    assert found[0][0] == "ok" and str(managed / "ccbridge.json") in found[0][1]
    assert found[1] == (
        "ok",
        f"plugin {plugin} has a hooks module (./register.js): it runs after the managed "
        "ccbridge, whose deny it cannot override",
    )


def test_allow_managed_hooks_only_silences_a_project_ccbridge(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    fake_claude(sandbox, "2.1.332")
    assert sandbox.run("install").returncode == 0
    managed = tmp_path / "etc" / "managed-settings.d"
    managed.mkdir(parents=True)
    (managed.parent / "managed-settings.json").write_text('{"allowManagedHooksOnly": true}')
    code, found = mods(sandbox, managed)
    assert code == 1
    assert (
        "fail",
        f"{managed.parent / 'managed-settings.json'} sets allowManagedHooksOnly: "
        "Claude Code runs no ccbridge registered outside managed settings "
        "(`ccbridge install --managed`)",
    ) in found


def test_stop_and_async_registrations_are_said_to_be_unprotected(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    entry = {"type": "command", "command": "/x/ccbridge run", "onFailure": "block"}
    sandbox.write_json(
        sandbox.settings,
        {
            "hooks": {
                "Stop": [{"hooks": [entry]}],
                "PostToolUse": [{"hooks": [{**entry, "async": True}]}],
            }
        },
    )
    _code, found = mods(sandbox, tmp_path / "none")
    assert (
        "warn",
        f"{sandbox.settings}: onFailure gives no protection on Stop, PostToolUse (async): a "
        "ccbridge that fails there does not block",
    ) in found
