from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.commands import install as installing
from bridge.commands import settings_json
from bridge.config import registrations
from bridge.config.schema import MAX_HOOK_TIMEOUT
from bridge.wire.event import GOAL_EVENTS, POST_EVENTS, SUBHOOK_EVENTS
from tests.support.sandbox import Sandbox

ORIGINAL = """{
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [
      {"type": "command", "command": "./guard.sh", "timeout": 600},
      {"type": "http", "url": "http://localhost:9/hook"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]
  },
  "model": "opus"
}
"""


def registered_events(settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                if registrations.is_registration(handler):
                    found[event] = handler
    return found


def test_install_moves_the_hooks_it_runs_and_keeps_everything_else(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, ORIGINAL)
    done = sandbox.run("install")
    assert done.returncode == 0, done.stderr
    settings = json.loads(sandbox.settings.read_text())
    permissions = settings["permissions"]
    assert permissions["allow"] == ["Bash(ls)"] and settings["model"] == "opus"
    assert set(permissions) == {"allow", "deny"}  # the deny rules are the wall's (test_wall.py)
    assert all(rule.startswith(("Edit(", "Read(")) for rule in permissions["deny"])
    # the shared file: portable spellings, no path of this machine (its home, project, state)
    assert str(sandbox.root) not in sandbox.settings.read_text()
    # SessionStart hooks run behind ccbridge too: moved, and ccbridge registered for them
    assert [
        registrations.is_registration(h)
        for g in settings["hooks"]["SessionStart"]
        for h in g["hooks"]
    ] == [True]
    # the http hook cannot run behind ccbridge: it stays, under its matcher
    assert {
        "matcher": "Bash",
        "hooks": [{"type": "http", "url": "http://localhost:9/hook"}],
    } in settings["hooks"]["PreToolUse"]
    registered = registered_events(settings)
    # nothing of the default config runs after a tool: no PostToolUse start on every call
    assert sorted(registered) == ["PreToolUse", "SessionStart"]
    handler = registered["PreToolUse"]
    assert handler["onFailure"] == "block" and handler["timeout"] == 60
    assert handler["command"] == registrations.launcher_command("PreToolUse")  # shared: via PATH
    config = yaml.safe_load(sandbox.config.read_text())
    assert config["hooks"]["PreToolUse"] == [
        {
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 50.0}],
        }
    ]
    assert "lowered" in done.stdout
    sandbox.write(sandbox.project / "guard.sh", "exit 0\n", mode=0o755)  # check looks for it
    assert sandbox.run("check").returncode == 0


def test_install_is_idempotent(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, ORIGINAL)
    assert sandbox.run("install").returncode == 0
    settings, config = sandbox.settings.read_bytes(), sandbox.config.read_bytes()
    again = sandbox.run("install")
    assert again.returncode == 0 and "nothing to change" in again.stdout
    assert sandbox.settings.read_bytes() == settings and sandbox.config.read_bytes() == config


def test_dry_run_shows_a_diff_and_writes_nothing(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, ORIGINAL)
    done = sandbox.run("install", "--dry-run")
    assert done.returncode == 0
    assert f"+++ {sandbox.settings}" in done.stdout and "+++ " + str(sandbox.config) in done.stdout
    assert '+            "onFailure": "block"' in done.stdout
    assert sandbox.settings.read_text() == ORIGINAL and not sandbox.config.exists()
    assert "\x1b[" not in done.stdout  # no colour when not on a terminal


def test_uninstall_restores_the_exact_bytes(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, ORIGINAL)
    sandbox.write(sandbox.config, "# mine\naudit:\n  keep: 3\n")
    assert sandbox.run("install").returncode == 0
    assert "guard.sh" in sandbox.config.read_text()
    done = sandbox.run("uninstall")
    assert done.returncode == 0, done.stderr
    assert sandbox.settings.read_text() == ORIGINAL
    assert sandbox.config.read_text() == "# mine\naudit:\n  keep: 3\n"
    assert sandbox.run("uninstall").stdout.startswith("ccbridge is not installed")


def test_uninstall_removes_files_install_created(sandbox: Sandbox) -> None:
    assert sandbox.run("install", "--user").returncode == 0
    user_settings = sandbox.home / ".claude" / "settings.json"
    assert registered_events(json.loads(user_settings.read_text()))
    assert not sandbox.settings.exists() or sandbox.settings.read_text() == ""
    assert sandbox.run("uninstall", "--user").returncode == 0
    assert not user_settings.exists()


def test_uninstall_after_an_edit_keeps_the_edit_and_puts_hooks_back(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, ORIGINAL)
    assert sandbox.run("install").returncode == 0
    settings = json.loads(sandbox.settings.read_text())
    settings["env"] = {"A": "1"}
    sandbox.write_json(sandbox.settings, settings)
    done = sandbox.run("uninstall")
    assert done.returncode == 0 and "changed since install" in done.stdout
    after = json.loads(sandbox.settings.read_text())
    assert after["env"] == {"A": "1"} and not registered_events(after)
    commands = [h.get("command") for g in after["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert "./guard.sh" in commands


def test_goal_hooks_are_registered_when_goals_are_enabled(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "goals:\n  enabled: true\n")
    assert sandbox.run("install", "--local").returncode == 0
    local = sandbox.project / ".claude" / "settings.local.json"
    assert sorted(registered_events(json.loads(local.read_text()))) == [
        "PostToolUse",
        "PostToolUseFailure",
        "PreToolUse",
        "Stop",
        "UserPromptSubmit",
    ]


def test_local_scope_moves_personal_hooks_to_the_local_layer(sandbox: Sandbox) -> None:
    local = sandbox.project / ".claude" / "settings.local.json"
    hook = {"type": "command", "command": "./mine.sh"}
    sandbox.write(local, json.dumps({"hooks": {"PreToolUse": [{"hooks": [hook]}]}}))
    assert sandbox.run("install", "--local").returncode == 0
    moved = (sandbox.project / ".claude" / "ccbridge.local.yaml").read_text()
    assert "./mine.sh" in moved
    assert not sandbox.config.exists()


def test_broken_settings_is_an_error_without_traceback(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, "{not json")
    done = sandbox.run("install")
    assert done.returncode == 1
    assert "not valid JSON" in done.stderr and "Traceback" not in done.stderr
    assert sandbox.settings.read_text() == "{not json"


def test_a_hook_ccbridge_cannot_take_leaves_everything_unchanged(sandbox: Sandbox) -> None:
    bad = {
        "hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}
    }
    sandbox.write_json(sandbox.settings, bad)
    done = sandbox.run("install")
    assert done.returncode == 1 and "nothing was changed" in done.stderr
    assert json.loads(sandbox.settings.read_text()) == bad and not sandbox.config.exists()


# --- laws of the pure planner ------------------------------------------------------------

handlers = st.one_of(
    st.builds(
        lambda c, t: {"type": "command", "command": c, **({"timeout": t} if t else {})},
        st.sampled_from(["a.sh", "b.sh", "echo x"]),
        st.sampled_from([None, 5, 600]),
    ),
    st.just({"type": "http", "url": "http://h"}),
    st.just({"type": "command", "command": "slow.sh", "async": True}),
    st.just({"type": "command", "command": "/old/ccbridge run", "timeout": 5}),
)
groups = st.builds(
    lambda m, hs: {**({"matcher": m} if m else {}), "hooks": hs},
    st.sampled_from([None, "Bash", "Write|Edit"]),
    st.lists(handlers, max_size=3),
)
hook_blocks = st.dictionaries(
    st.sampled_from(["PreToolUse", "PostToolUse", "SessionStart", "Stop"]),
    st.lists(groups, max_size=3),
    max_size=4,
)
WHERE = installing.InstallFiles(Path("/p/.claude/settings.json"), Path("/p/.claude/ccbridge.yaml"))


def handler_list(hooks: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, handler) pairs other than ccbridge's own, timeouts as ccbridge caps them."""

    def capped(handler: dict[str, Any]) -> str:
        timeout = handler.get("timeout")
        if timeout is not None and timeout > MAX_HOOK_TIMEOUT:
            handler = {**handler, "timeout": MAX_HOOK_TIMEOUT}
        return json.dumps(handler, sort_keys=True)

    return sorted(
        (event, capped(h))
        for event, gs in hooks.items()
        for g in gs
        for h in g["hooks"]
        if not registrations.is_registration(h)
    )


@settings(max_examples=60, deadline=None)
@given(hook_blocks, st.booleans())
def test_install_is_idempotent_and_loses_no_hook(hooks: dict[str, Any], goals: bool) -> None:
    before = settings_json.dump_settings({"model": "x", "hooks": hooks})
    plan = installing.plan_install(WHERE, before, None, "/bin/ccbridge run", goals)
    assert plan.settings_after is not None
    again = installing.plan_install(
        WHERE, plan.settings_after, plan.config_after, "/bin/ccbridge run", goals
    )
    assert not again.changed
    after = json.loads(plan.settings_after)
    assert after["model"] == "x"
    kept, moved = handler_list(after["hooks"]), handler_list(plan.moved)
    assert sorted(kept + moved) == handler_list(hooks)
    assert all(
        event in SUBHOOK_EVENTS and '"async"' not in handler and '"type": "command"' in handler
        for event, handler in moved
    )
    assert sorted(registered_events(after)) == sorted(
        {"PreToolUse", *POST_EVENTS, *(GOAL_EVENTS if goals else ())} | set(plan.moved)
    )
    put_back = installing.without_registration(WHERE.settings, plan.settings_after, plan.moved)
    assert put_back is not None
    restored = json.loads(put_back).get("hooks", {})
    assert not registered_events({"hooks": restored})
    assert handler_list(restored) == handler_list(hooks)


def test_uninstall_without_a_backup_takes_out_only_the_registration(sandbox: Sandbox) -> None:
    mine = {"type": "command", "command": "./mine.sh"}
    sandbox.write_json(
        sandbox.settings,
        {
            "hooks": {
                "PreToolUse": [
                    {"hooks": [mine, {"type": "command", "command": "/opt/bin/ccbridge run"}]}
                ]
            }
        },
    )
    dry = sandbox.run("uninstall", "--dry-run")
    removed = [line for line in dry.stdout.splitlines() if line.startswith("-")]
    assert dry.returncode == 0 and any("/opt/bin/ccbridge run" in line for line in removed)
    assert "/opt/bin/ccbridge" in sandbox.settings.read_text()
    done = sandbox.run("uninstall")
    assert done.returncode == 0 and "no install record" in done.stdout
    assert json.loads(sandbox.settings.read_text()) == {
        "hooks": {"PreToolUse": [{"hooks": [mine]}]}
    }


def test_uninstall_keeps_a_config_edited_between_two_installs(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, ORIGINAL)
    assert sandbox.run("install").returncode == 0
    edited = sandbox.config.read_text() + "audit:\n  keep: 3\n"
    sandbox.write(sandbox.config, edited)
    assert sandbox.run("install").returncode == 0
    done = sandbox.run("uninstall")
    assert done.returncode == 0, done.stderr
    assert sandbox.config.read_text() == edited
    assert f"{sandbox.config} has edits you made since install: it is kept" in done.stdout
    after = json.loads(sandbox.settings.read_text())
    assert not registered_events(after)
    assert "./guard.sh" in json.dumps(after["hooks"]["PreToolUse"])


def test_uninstall_keeps_a_config_created_by_install_and_edited_after(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.settings, ORIGINAL)
    assert sandbox.run("install").returncode == 0
    edited = sandbox.config.read_text() + "audit:\n  keep: 3\n"
    sandbox.write(sandbox.config, edited)
    done = sandbox.run("uninstall")
    assert done.returncode == 0 and sandbox.config.read_text() == edited
    assert "has edits you made since install" in done.stdout


@pytest.mark.parametrize(
    "layout",
    [
        '{\n    "model": "opus"\n}\n',
        '{\n\t"model": "opus"\n}',
        '{"model": "opus"}\n',
    ],
)
def test_install_keeps_the_settings_files_layout(sandbox: Sandbox, layout: str) -> None:
    sandbox.write(sandbox.settings, layout)
    assert sandbox.run("install").returncode == 0
    text = sandbox.settings.read_text()
    indent = layout.split("\n")[1][: -len('"model": "opus"')] if "\n" in layout.strip() else None
    assert text.endswith("\n") == layout.endswith("\n")
    if indent is None:
        assert text.strip().count("\n") == 0
    else:
        assert f'\n{indent}"model": "opus"' in text and f"\n{indent}{indent}" in text
    assert json.loads(text)["model"] == "opus"


def test_uninstall_after_an_edit_takes_out_exactly_what_the_wall_added(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.settings,
        json.dumps({"sandbox": {"enabled": False, "network": {"allowLocalBinding": True}}}),
    )
    assert sandbox.run("install").returncode == 0
    settings = json.loads(sandbox.settings.read_text())
    assert settings["sandbox"]["enabled"] is True and settings["permissions"]["deny"]
    settings["sandbox"]["filesystem"]["denyWrite"].append("/mine")  # the user's own entry
    settings["model"] = "opus"
    sandbox.write(sandbox.settings, json.dumps(settings))
    done = sandbox.run("uninstall")
    assert done.returncode == 0, done.stderr
    assert json.loads(sandbox.settings.read_text()) == {
        "sandbox": {
            "enabled": False,
            "network": {"allowLocalBinding": True},
            "filesystem": {"denyWrite": ["/mine"]},
        },
        "model": "opus",
    }


def test_install_without_the_sandbox_says_what_is_lost(sandbox: Sandbox) -> None:
    done = sandbox.run("install", "--no-sandbox")
    assert done.returncode == 0 and "protection: tripwire" in done.stdout, done.stdout
    settings = json.loads(sandbox.settings.read_text())
    assert "sandbox" not in settings and "permissions" not in settings


@pytest.mark.parametrize(
    "config",
    [
        "policies:\n  post_execute: ['hooks/dangerous_shell.py:guard']\n",
        "policies:\n  observers: ['hooks/dangerous_shell.py:guard']\n",
        "hooks:\n  PostToolUse:\n    - hooks:\n        - {type: command, command: 'true'}\n",
    ],
)
def test_post_tool_events_are_registered_when_the_config_runs_something_there(
    sandbox: Sandbox, config: str
) -> None:
    sandbox.write(sandbox.config, config)
    done = sandbox.run("install")
    assert done.returncode == 0 and "the config has problems" not in done.stdout, done.stdout
    events = registered_events(json.loads(sandbox.settings.read_text()))
    assert {"PreToolUse", "PostToolUse"} <= set(events)
    if "policies" in config:  # a policy runs on both ends of a tool; a hook on its own event
        assert "PostToolUseFailure" in events


def test_a_reinstall_drops_post_tool_registrations_nothing_needs(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "policies:\n  post_execute: ['hooks/dangerous_shell.py:guard']\n")
    assert sandbox.run("install").returncode == 0
    assert "PostToolUse" in registered_events(json.loads(sandbox.settings.read_text()))
    sandbox.write(sandbox.config, "audit:\n  keep: 5\n")
    assert sandbox.run("install").returncode == 0
    assert sorted(registered_events(json.loads(sandbox.settings.read_text()))) == ["PreToolUse"]
