"""Install and uninstall hold over any sequence of operations on a scratch home and project
(install, a revert of the settings file as `git checkout` makes it, install again, uninstall,
edits of either file, ...): no hook is ever doubled, ccbridge is registered once per event, a
hook moved out is in exactly one place, and uninstall says the config has edits only when it
has."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from bridge.config import registrations
from tests.support.sandbox import Sandbox, examples

ORIGINAL = {
    "permissions": {"allow": ["Bash(ls)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo guard-1"}]},
            {"matcher": "Bash", "hooks": [{"type": "http", "url": "http://localhost:9/hook"}]},
        ],
        "PostToolUse": [{"hooks": [{"type": "command", "command": "echo format-2"}]}],
    },
}
ORIGINAL_TEXT = json.dumps(ORIGINAL, indent=2) + "\n"
MOVED = {("PreToolUse", "echo guard-1"), ("PostToolUse", "echo format-2")}
ADDED = ("PostToolUse", "echo added-3")  # a hook the user adds to the settings later
OPS = st.lists(
    st.sampled_from(["install", "uninstall", "revert", "edit_settings", "add_hook", "edit_config"]),
    min_size=1,
    max_size=7,
)


def handlers(data: Any) -> list[tuple[str, str]]:
    found = []
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups or []:
            for handler in group.get("hooks") or []:
                found.append((event, str(handler.get("command") or handler.get("url"))))
    return found


def config_handlers(path: Path) -> list[tuple[str, str]]:
    import yaml

    return handlers(yaml.safe_load(path.read_text()) or {}) if path.exists() else []


@given(OPS)
@example(["install", "revert", "install", "uninstall"])  # the sequence seen doubling hooks
@example(["add_hook", "install", "revert", "install", "add_hook"])
@example(["install", "revert", "install", "edit_settings", "uninstall", "install", "uninstall"])
@examples(0.3, least=15)
def test_any_sequence_keeps_every_hook_once(tmp_path_factory: Any, ops: list[str]) -> None:
    sandbox = Sandbox(tmp_path_factory.mktemp("seq"))
    sandbox.write(sandbox.settings, ORIGINAL_TEXT)
    installed, config_edited, added = False, False, False
    for op in ops:
        if op == "install":
            done = sandbox.run("install")
            assert done.returncode == 0, (ops, done.stderr)
            installed = True
        elif op == "uninstall":
            done = sandbox.run("uninstall")
            assert done.returncode == 0, (ops, done.stderr)
            has_edits = "has edits you made since install" in done.stdout
            assert has_edits == (installed and config_edited and sandbox.config.exists()), (
                ops,
                done.stdout,
            )
            installed, config_edited = False, False
        elif op == "revert":  # `git checkout .claude/settings.json`
            sandbox.write(sandbox.settings, ORIGINAL_TEXT)
            added = False
        elif op == "edit_settings":
            data = json.loads(sandbox.settings.read_text())
            data["model"] = "opus"
            sandbox.write_json(sandbox.settings, data)
        elif op == "add_hook" and not added and ADDED not in config_handlers(sandbox.config):
            # a hook new to both files: one an earlier install moved into the config and the
            # user writes into the settings again runs from both, by the user's own hand
            data = json.loads(sandbox.settings.read_text())
            groups = data.setdefault("hooks", {}).setdefault(ADDED[0], [])
            groups.append({"hooks": [{"type": "command", "command": ADDED[1]}]})
            sandbox.write_json(sandbox.settings, data)
            added = True
        elif op == "edit_config" and sandbox.config.exists():
            sandbox.write(sandbox.config, sandbox.config.read_text() + "# mine\n")
            config_edited = installed or config_edited
        settings = json.loads(sandbox.settings.read_text())
        in_settings = handlers(settings)
        registered = [
            (event, command)
            for event, groups in settings.get("hooks", {}).items()
            for group in groups
            for handler in group.get("hooks", [])
            if registrations.is_registration(handler)
            for command in [handler["command"]]
        ]
        assert len({event for event, _ in registered}) == len(registered), (ops, registered)
        everywhere = [h for h in in_settings if h not in registered] + config_handlers(
            sandbox.config
        )
        for hook in MOVED | ({ADDED} if added else set()):
            # after an uninstall a moved hook may be both back in the settings and still in a
            # kept config (which no longer runs): count only where it runs
            runs = (
                [h for h in in_settings if h == hook]
                if not registered
                else [h for h in everywhere if h == hook]
            )
            assert len(runs) == 1, (ops, op, hook, in_settings, config_handlers(sandbox.config))
        assert in_settings.count(("PreToolUse", "http://localhost:9/hook")) == 1, (ops, op)
    # with no edit of either file, ending uninstalled gives back the original bytes
    unedited = not {"edit_settings", "add_hook", "edit_config"} & set(ops)
    if unedited and "install" in ops and not installed:
        assert sandbox.settings.read_text() == ORIGINAL_TEXT, ops
